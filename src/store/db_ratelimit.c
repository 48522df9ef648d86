/* db_ratelimit: admission control, a fixed window per principal counted in a MEMORY table. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <mysql.h>

#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/db-internal.h"

/*
 * One statement per request: LAST_INSERT_ID(expr) makes the new count the
 * statement's insert id, so no SELECT is needed.  Affected rows are 1 when
 * the row was inserted (a new window for this key), 2 when it was bumped.
 */
static const char SQL_RL_HIT[] =
    "INSERT INTO rate_limits (kind, principal, window_start, n)"
    " VALUES (?, ?, ?, LAST_INSERT_ID(1))"
    " ON DUPLICATE KEY UPDATE n = LAST_INSERT_ID(n + 1)";
/* Windows that ended more than one window ago; bounded so no request waits long. */
static const char SQL_RL_PURGE[] =
    "DELETE FROM rate_limits WHERE window_start < ? LIMIT 1000";

int
db_ratelimit_hit(struct db *db, char kind, const char *principal, int64_t window_start,
    int64_t window, uint64_t *count, struct err *e)
{
	char		 k[2] = { kind, '\0' };
	char		 p[65];
	uint64_t	 affected = 0, n = 0;
	int		 rc;

	*count = 0;
	db_copy_str(p, sizeof(p), principal != NULL ? principal : "");
	if ((rc = db_run(db, DB_ONCE, SQL_RL_HIT, NULL, &affected, &n, e, "ssi", k, p,
	    window_start)) != 0)
		return rc;
	*count = n;
	if (affected == 1) {
		/* the first request of a window for this key sweeps old windows */
		(void)db_run(db, DB_ONCE, SQL_RL_PURGE, NULL, NULL, NULL, e, "i",
		    window_start - window);
		err_clear(e);
	}
	return 0;
}

/*
 * The token lookup and the account's hits (a block of them) in one round
 * trip: four statements in one text query.  The lookup leaves the user id of a valid (unrevoked,
 * unexpired) token in @fm_admit_user, the INSERT counts it, and the last
 * SELECT reads the count and whether the window row was new (1) or bumped
 * (2).  The text holds only a checked hex digest and an integer.
 */
static const char SQL_ADMIT_FMT[] =
    "SET @fm_admit_user = NULL;"
    DB_TOKEN_COLS ", @fm_admit_user := IF(t.revoked_at IS NULL AND"
    " (t.expires_at IS NULL OR t.expires_at > UTC_TIMESTAMP()), t.user_id, NULL)"
    DB_TOKEN_FROM " WHERE t.token_hash = '%s';"
    "INSERT INTO rate_limits (kind, principal, window_start, n)"
    " SELECT 'u', @fm_admit_user, %lld, LAST_INSERT_ID(%llu) FROM DUAL"
    " WHERE @fm_admit_user IS NOT NULL"
    " ON DUPLICATE KEY UPDATE n = LAST_INSERT_ID(n + %llu);"
    "SELECT ROW_COUNT(), LAST_INSERT_ID()";

enum { TOKEN_COLS = 8, ADMIT_CELL = 80 };

/* What the batch answered. */
struct admit {
	char		 cell[TOKEN_COLS][ADMIT_CELL];
	int		 null[TOKEN_COLS];
	int		 found;		/* the token row was there */
	int		 counted;	/* the count statement ran */
	uint64_t	 affected;	/* 1 a new window row, 2 a bumped one */
	uint64_t	 count;
};

/*
 * Reads every result of the batch.  A statement that failed after the
 * lookup leaves a->counted 0 and returns its error number in *late_errno
 * (the connection stays usable); an earlier failure is returned.
 */
static int
admit_results(struct db *db, struct admit *a, unsigned *late_errno, struct err *e)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	int		 i, st;

	*late_errno = 0;
	do {
		if ((res = mysql_store_result(db->my)) == NULL) {
			if (mysql_field_count(db->my) != 0)
				return db_fail(db, mysql_errno(db->my), "result",
				    mysql_error(db->my), e);
			continue;
		}
		if ((row = mysql_fetch_row(res)) != NULL) {
			if (mysql_num_fields(res) == TOKEN_COLS + 1) {
				a->found = 1;
				for (i = 0; i < TOKEN_COLS; i++) {
					a->null[i] = row[i] == NULL;
					db_copy_str(a->cell[i], ADMIT_CELL, row[i]);
				}
			} else if (mysql_num_fields(res) == 2) {
				a->counted = 1;
				a->affected = db_to_u64(row[0]);
				a->count = db_to_u64(row[1]);
			}
		}
		mysql_free_result(res);
	} while ((st = mysql_next_result(db->my)) == 0);
	if (st > 0) {
		*late_errno = mysql_errno(db->my);
		return db_fail(db, *late_errno, "admission", mysql_error(db->my), e);
	}
	return 0;
}

int
db_token_admit(struct db *db, struct db_token *out, const char *hash_hex, int64_t window_start,
    int64_t window, uint64_t block, uint64_t *count, struct err *e)
{
	char		 q[sizeof(SQL_ADMIT_FMT) + 64 + 3 * 24];
	const char	*cp[TOKEN_COLS];
	struct admit	 a;
	int		 attempt, i, n, rc = 0;
	unsigned	 late = 0;

	memset(out, 0, sizeof *out);
	*count = 0;
	if (!db_hash_ok(hash_hex))
		return err_set(e, ERR_NOTFOUND, "token not found");
	if (block < 1)
		block = 1;
	n = snprintf(q, sizeof(q), SQL_ADMIT_FMT, hash_hex, (long long)window_start,
	    (unsigned long long)block, (unsigned long long)block);
	if (n < 0 || (size_t)n >= sizeof(q))
		return err_set(e, ERR_TOOBIG, "internal error: admission query too long");
	for (attempt = 0; attempt < 2; attempt++) {
		memset(&a, 0, sizeof(a));
		if ((rc = db_connect(db, e)) != 0)
			return rc;
		if (mysql_real_query(db->my, q, (unsigned long)n) != 0)
			rc = db_fail(db, mysql_errno(db->my), "admission", mysql_error(db->my), e);
		else
			rc = admit_results(db, &a, &late, e);
		if (rc == ERR_UNAVAILABLE && attempt == 0)
			continue;	/* a lost connection: once more on a new one */
		break;
	}
	if (rc != 0 && !(a.found && rc != ERR_UNAVAILABLE))
		return rc;
	if (rc != 0) {
		/* the lookup answered but the count could not be kept: fail open */
		log_error("rate limit not applied (request admitted): %s", e->msg);
		err_clear(e);
	}
	if (!a.found)
		return err_set(e, ERR_NOTFOUND, "token not found");
	for (i = 0; i < TOKEN_COLS; i++)
		cp[i] = a.null[i] ? NULL : a.cell[i];
	db_token_fill(db, out, cp);
	if (!a.counted || out->expired || out->revoked)
		return 0;
	*count = a.count;
	if (a.affected == 1) {
		/* the first request of a window for this account sweeps old windows */
		(void)db_run(db, DB_ONCE, SQL_RL_PURGE, NULL, NULL, NULL, e, "i",
		    window_start - window);
		err_clear(e);
	}
	return 0;
}
