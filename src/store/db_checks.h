/*
 * db_checks: the MySQL store of checks reported on commits, branch rules and
 * check approvals. Implemented in db_checks.c.
 */
#ifndef FM_DB_CHECKS_H
#define FM_DB_CHECKS_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

#define FORGE_CHECK_NAME_MAX	100	/* bytes of a check name */
#define FORGE_CHECK_DETAILS_MAX	4096	/* bytes of a check result's details */

/* One required check of a branch (branch_rules). */
struct forge_branch_rule {
	char		 branch[256];
	char		 check_name[FORGE_CHECK_NAME_MAX + 1];
};

/* One reported check result of a commit (check_results). */
struct forge_check {
	char		 name[FORGE_CHECK_NAME_MAX + 1];
	char		 status[12];	/* pending, running, success, failure, cancelled */
	char		*details;	/* owned, may be NULL */
	char		 updated_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/* The approval of one revision's checks (check_approvals). */
struct forge_check_approval {
	int		 approved;	/* 0: none recorded (the rest is empty) */
	char		 by[65];	/* the approver's login */
	char		 at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/*
 * Whether name is a usable check name: 1 to FORGE_CHECK_NAME_MAX bytes of
 * UTF-8 text without control characters, not starting or ending with a
 * blank.  ERR_INVALID with a message quoting it otherwise.
 */
int	forge_check_name_valid(const char *name, struct err *e);
/* Whether status is one of pending, running, success, failure, cancelled. */
int	forge_check_status_valid(const char *status);

/*
 * Replaces the required checks of branch of repo_id with names[0..n)
 * (duplicates count once; n 0 clears the rule), in one transaction of
 * its own.  The caller has validated the names (forge_check_name_valid).
 */
int	forge_branch_rule_set(struct db *db, uint64_t repo_id, const char *branch,
	    const char *const *names, size_t n, struct err *e);
/*
 * The required checks of repo_id by branch and name; of one branch when
 * branch is not NULL.  *out is freed with free().
 */
int	forge_branch_rule_list(struct db *db, struct forge_branch_rule **out, size_t *n,
	    uint64_t repo_id, const char *branch, struct err *e);

/*
 * Records the result of check name on commit (40 lower-case hex digits)
 * of repo_id, replacing an earlier one of that name and commit; details
 * may be NULL.  The caller has validated name and status.
 */
int	forge_check_report(struct db *db, uint64_t repo_id, const char *commit, const char *name,
	    const char *status, const char *details, struct err *e);
/*
 * The check results of commit of repo_id by name that count for revision
 * version of pull request pull_request_id: those reported since its target
 * last changed (a revision with reason "target" up to version; all of them
 * when there is none).  *out is freed with forge_check_list_free.
 */
int	forge_check_list(struct db *db, struct forge_check **out, size_t *n, uint64_t repo_id,
	    const char *commit, uint64_t pull_request_id, int64_t version, struct err *e);
void	forge_check_list_free(struct forge_check *v, size_t n);

/*
 * Records that user_id approved the checks of revision version of pull
 * request pull_request_id; an existing approval is kept (*inserted 0).
 */
int	forge_check_approve(struct db *db, int *inserted, uint64_t pull_request_id,
	    int64_t version, uint64_t user_id, struct err *e);
/* The approval of revision version of pull request pull_request_id (approved 0: none). */
int	forge_check_approval_get(struct db *db, struct forge_check_approval *out,
	    uint64_t pull_request_id, int64_t version, struct err *e);

#endif
