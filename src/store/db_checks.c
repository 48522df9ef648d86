/* db_checks: the MySQL queries behind branch rules, check results and check approvals. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "json.h"
#include "store/db-internal.h"
#include "store/db_checks.h"
#include "store/db_forge.h"

static const char SQL_RULE_DELETE[] =
    "DELETE FROM branch_rules WHERE repo_id = ? AND branch = ?";
static const char SQL_RULE_INSERT[] =
    "INSERT IGNORE INTO branch_rules (repo_id, branch, check_name) VALUES (?, ?, ?)";
static const char SQL_RULE_LIST[] =
    "SELECT branch, check_name FROM branch_rules WHERE repo_id = ?"
    " ORDER BY branch, check_name";
static const char SQL_RULE_LIST_BRANCH[] =
    "SELECT branch, check_name FROM branch_rules WHERE repo_id = ? AND branch = ?"
    " ORDER BY check_name";
static const char SQL_CHECK_REPORT[] =
    "INSERT INTO check_results (repo_id, commit_id, name, status, details, updated_at)"
    " VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(6))"
    " ON DUPLICATE KEY UPDATE status = VALUES(status), details = VALUES(details),"
    " updated_at = VALUES(updated_at)";
static const char SQL_CHECK_LIST[] =
    "SELECT name, status, details, " DB_DATE("updated_at") " FROM check_results"
    " WHERE repo_id = ? AND commit_id = ? AND updated_at >= COALESCE(("
    "SELECT MAX(created_at) FROM pull_request_revisions WHERE pull_request_id = ?"
    " AND version <= ? AND reason = 'target'), '1000-01-01') ORDER BY name";
static const char SQL_APPROVE[] =
    "INSERT IGNORE INTO check_approvals (pull_request_id, version, approved_by, approved_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP())";
static const char SQL_APPROVAL_GET[] =
    "SELECT u.login, " DB_DATE("a.approved_at") " FROM check_approvals a"
    " JOIN users u ON u.id = a.approved_by WHERE a.pull_request_id = ? AND a.version = ?";

static const char *const statuses[] = {
	"pending", "running", "success", "failure", "cancelled",
};

int
forge_check_status_valid(const char *status)
{
	size_t	 i;

	if (status == NULL)
		return 0;
	for (i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
		if (strcmp(status, statuses[i]) == 0)
			return 1;
	return 0;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int
forge_check_name_valid(const char *name, struct err *e)
{
	size_t	 len, i;

	len = name != NULL ? strlen(name) : 0;
	if (len == 0)
		return err_set(e, ERR_INVALID, "a check name must not be empty");
	if (len > FORGE_CHECK_NAME_MAX)
		return err_set(e, ERR_INVALID, "check name '%.40s...' is longer than %d bytes",
		    name, FORGE_CHECK_NAME_MAX);
	if (!json_utf8_valid(name, len))
		return err_set(e, ERR_INVALID, "a check name must be UTF-8 text");
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return err_set(e, ERR_INVALID, "a check name must not contain control "
			    "characters (tabs, line breaks)");
	if (is_blank(name[0]) || is_blank(name[len - 1]))
		return err_set(e, ERR_INVALID, "check name '%s' starts or ends with a blank",
		    name);
	return 0;
}

/* Whether names[i] appeared before i. */
static int
seen_before(const char *const *names, size_t i)
{
	size_t	 j;

	for (j = 0; j < i; j++)
		if (strcmp(names[j], names[i]) == 0)
			return 1;
	return 0;
}

int
forge_branch_rule_set(struct db *db, uint64_t repo_id, const char *branch,
    const char *const *names, size_t n, struct err *e)
{
	size_t	 i;
	int	 rc;

	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = db_run(db, DB_ONCE, SQL_RULE_DELETE, NULL, NULL, NULL, e, "us", repo_id,
	    branch)) != 0)
		goto fail;
	for (i = 0; i < n; i++) {
		if (seen_before(names, i))
			continue;
		if ((rc = db_run(db, DB_ONCE, SQL_RULE_INSERT, NULL, NULL, NULL, e, "uss", repo_id,
		    branch, names[i])) != 0)
			goto fail;
	}
	if ((rc = db_commit(db, e)) != 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return rc;
}

static const struct db_col rule_cols[] = {
	DB_CHARS(struct forge_branch_rule, branch),
	DB_CHARS(struct forge_branch_rule, check_name),
};
static const struct db_shape rule_shape = DB_SHAPE(struct forge_branch_rule, rule_cols);

int
forge_branch_rule_list(struct db *db, struct forge_branch_rule **out, size_t *n,
    uint64_t repo_id, const char *branch, struct err *e)
{
	void	*v;
	int	 rc;

	if (branch != NULL)
		rc = db_map(db, DB_RETRY, SQL_RULE_LIST_BRANCH, &rule_shape, &v, n, e, "us",
		    repo_id, branch);
	else
		rc = db_map(db, DB_RETRY, SQL_RULE_LIST, &rule_shape, &v, n, e, "u", repo_id);
	*out = v;
	return rc;
}

int
forge_check_report(struct db *db, uint64_t repo_id, const char *commit, const char *name,
    const char *status, const char *details, struct err *e)
{
	int	 rc;

	rc = db_run(db, DB_RETRY, SQL_CHECK_REPORT, NULL, NULL, NULL, e, "ussss", repo_id,
	    commit, name, status, details);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate check result") : rc;
}

static const struct db_col check_cols[] = {
	DB_CHARS(struct forge_check, name),
	DB_CHARS(struct forge_check, status),
	DB_STR(struct forge_check, details),
	DB_CHARS(struct forge_check, updated_at),
};
static const struct db_shape check_shape = DB_SHAPE(struct forge_check, check_cols);

void
forge_check_list_free(struct forge_check *v, size_t n)
{
	db_map_free(&check_shape, v, n);
}

int
forge_check_list(struct db *db, struct forge_check **out, size_t *n, uint64_t repo_id,
    const char *commit, uint64_t pull_request_id, int64_t version, struct err *e)
{
	void	*v;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_CHECK_LIST, &check_shape, &v, n, e, "usui", repo_id, commit,
	    pull_request_id, version);
	*out = v;
	return rc;
}

int
forge_check_approve(struct db *db, int *inserted, uint64_t pull_request_id, int64_t version,
    uint64_t user_id, struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*inserted = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_APPROVE, NULL, &affected, NULL, e, "uiu",
	    pull_request_id, version, user_id)) != 0)
		return rc;
	*inserted = affected > 0;
	return 0;
}

int
forge_check_approval_get(struct db *db, struct forge_check_approval *out,
    uint64_t pull_request_id, int64_t version, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, db->in_tx ? DB_ONCE : DB_RETRY, SQL_APPROVAL_GET, &r, NULL, NULL, e,
	    "ui", pull_request_id, version)) == 0 && r.n > 0) {
		out->approved = 1;
		db_copy_str(out->by, sizeof out->by, db_rows_get(&r, 0, 0));
		db_copy_str(out->at, sizeof out->at, db_rows_get(&r, 0, 1));
	}
	db_rows_release(&r);
	return rc;
}
