/* db_ratelimit: admission control, a fixed window per principal in a bounded set of buckets. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mysql.h>

#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/db-internal.h"

/*
 * A principal's bucket is one row (schema/007): its window, the count in
 * it and when it was last used.  A request bumps the row it has with one
 * UPDATE that raises the count by the block asked for, never over the
 * limit; LAST_INSERT_ID(expr) makes the count before the statement's
 * insert id, so no SELECT is needed, and what was granted follows from it.
 * A refused request leaves the count as it was, so requests given back
 * (db_ratelimit_return) can be granted again.  A row of an earlier window
 * starts again at 0; one of a later window (a host whose clock is behind)
 * is counted in that window.  touched always grows, so the row is always
 * changed and ROW_COUNT() tells a row that is there from none.
 */
/*
 * The bump's SET, written once for the prepared statements ("?") and the
 * admission's text query ("%lld"): W the window's start (three times),
 * B the block, L the limit, T the time (ms), in that order of use.
 */
#define RL_BUMP_SET(W, B, L, T)							\
    "n = LEAST(LAST_INSERT_ID(IF(window_start >= " W ", n, 0)) + " B ","		\
    " GREATEST(IF(window_start >= " W ", n, 0), " L ")),"				\
    " window_start = GREATEST(window_start, " W "), touched = GREATEST(touched + 1, " T ")"
static const char SQL_RL_BUMP[] =
    "UPDATE rate_limits SET " RL_BUMP_SET("?", "?", "?", "?")
    " WHERE kind = ? AND principal = ?";
/*
 * A principal without a row takes one while the table holds fewer than
 * the bound; if another request made its row meanwhile, that row is bumped.
 */
static const char SQL_RL_CLAIM[] =
    "INSERT INTO rate_limits (kind, principal, window_start, n, touched)"
    " SELECT ?, ?, ?, LEAST(LAST_INSERT_ID(0) + ?, ?), ? FROM DUAL"
    " WHERE (SELECT COUNT(*) FROM rate_limits) < ?"
    " ON DUPLICATE KEY UPDATE " RL_BUMP_SET("?", "?", "?", "?");
/* Requests a worker reserved and did not use, given back in their window. */
static const char SQL_RL_RETURN[] =
    "UPDATE rate_limits SET n = n - LEAST(n, ?), touched = GREATEST(touched + 1, ?)"
    " WHERE kind = 'u' AND principal = ? AND window_start = ?";
/* Rows of windows that have ended: their counts no longer matter. */
static const char SQL_RL_EXPIRE[] =
    "DELETE FROM rate_limits WHERE window_start < ? LIMIT 1024";
/* The least recently used network's row, given up for an account. */
static const char SQL_RL_EVICT[] =
    "DELETE FROM rate_limits WHERE kind = 'a' ORDER BY touched LIMIT 1";

/*
 * On a Galera cluster two nodes bumping one bucket at once collide at
 * commit (certification: ERR_CONFLICT); the bump is run again after
 * db_tx's pause, as many times as db_tx runs a transaction.  Near its
 * limit an account's blocks are of one request, so every request of it
 * bumps the row.
 */
static int
rl_again(int rc, int *attempt, struct err *e)
{
	if (rc != ERR_CONFLICT || ++*attempt >= DB_TX_ATTEMPTS)
		return 0;
	db_tx_pause(*attempt);
	err_clear(e);
	return 1;
}

static int64_t
rl_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What a bump with count before granted of b: at most the block, never over the limit. */
static void
rl_granted(struct db_bump *b, uint64_t before)
{
	b->before = before;
	b->granted = before >= b->limit ? 0 :
	    b->limit - before < b->block ? b->limit - before : b->block;
}

/*
 * Inserts principal's row if the table has room.  *claimed is 1 when the
 * row was inserted or bumped (b's results set), 0 when there was no room.
 * A table the engine itself finds full (ER_RECORD_FILE_FULL) is no room too.
 */
static int
rl_claim(struct db *db, const char *k, const char *p, struct db_bump *b, int64_t now_ms,
    int *claimed, struct err *e)
{
	uint64_t	 affected = 0, n = 0;
	int		 rc;

	*claimed = 0;
	rc = db_run(db, DB_ONCE, SQL_RL_CLAIM, NULL, &affected, &n, e, "ssiuuiuiuiuii", k, p,
	    b->window_start, b->block, b->limit, now_ms, (uint64_t)b->buckets,
	    b->window_start, b->block, b->window_start, b->limit, b->window_start, now_ms);
	if (rc == ERR_TOOBIG) {
		err_clear(e);
		return 0;
	}
	if (rc != 0)
		return rc;
	if (affected > 0) {
		*claimed = 1;
		rl_granted(b, n);
	}
	return 0;
}

/*
 * Makes room for one more row: deletes rows of ended windows, and when
 * there were none and an account needs the room, the least recently used
 * network's row.  *freed is the number of rows deleted.
 */
static int
rl_make_room(struct db *db, char kind, int64_t window_start, uint64_t *freed, struct err *e)
{
	int	 rc;

	*freed = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_RL_EXPIRE, NULL, freed, NULL, e, "i",
	    window_start)) != 0)
		return rc;
	if (*freed > 0 || kind != 'u')
		return 0;
	return db_run(db, DB_ONCE, SQL_RL_EVICT, NULL, freed, NULL, e, "");
}

/* A principal without a row: a free one, else one made free, else ERR_TOOBIG. */
static int
rl_new_bucket(struct db *db, char kind, const char *principal, struct db_bump *b,
    struct err *e)
{
	char		 k[2] = { kind, '\0' };
	char		 p[65];
	int64_t		 now_ms = rl_now_ms();
	uint64_t	 freed = 0;
	int		 claimed = 0, rc;

	db_copy_str(p, sizeof(p), principal);
	if ((rc = rl_claim(db, k, p, b, now_ms, &claimed, e)) != 0 || claimed)
		return rc;
	if ((rc = rl_make_room(db, kind, b->window_start, &freed, e)) != 0)
		return rc;
	if (freed > 0 && (rc = rl_claim(db, k, p, b, now_ms, &claimed, e)) != 0)
		return rc;
	if (!claimed)
		return err_set(e, ERR_TOOBIG, "no rate limit bucket is free (%u in use)",
		    b->buckets);
	return 0;
}

static int
rl_hit(struct db *db, const char *k, const char *p, struct db_bump *b, struct err *e)
{
	uint64_t	 affected = 0, n = 0;
	int		 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_RL_BUMP, NULL, &affected, &n, e, "iuiuiiss",
	    b->window_start, b->block, b->window_start, b->limit, b->window_start, rl_now_ms(),
	    k, p)) != 0)
		return rc;
	if (affected > 0) {
		rl_granted(b, n);
		return 0;
	}
	return rl_new_bucket(db, k[0], p, b, e);
}

int
db_ratelimit_hit(struct db *db, char kind, const char *principal, struct db_bump *b,
    struct err *e)
{
	char		 k[2] = { kind, '\0' };
	char		 p[65];
	int		 attempt = 0, rc;

	b->before = b->granted = 0;
	if (b->block < 1)
		b->block = 1;
	db_copy_str(p, sizeof(p), principal != NULL ? principal : "");
	while ((rc = rl_hit(db, k, p, b, e)) != 0 && rl_again(rc, &attempt, e))
		;
	return rc;
}

int
db_ratelimit_return(struct db *db, uint64_t user_id, int64_t window_start, uint64_t n,
    struct err *e)
{
	char		 p[24];
	int		 attempt = 0, rc;

	snprintf(p, sizeof(p), "%llu", (unsigned long long)user_id);
	while ((rc = db_run(db, DB_ONCE, SQL_RL_RETURN, NULL, NULL, NULL, e, "uisi", n,
	    rl_now_ms(), p, window_start)) != 0 && rl_again(rc, &attempt, e))
		;
	return rc;
}

/*
 * The token lookup and the bump of the account's bucket (a block of
 * requests) in one round trip: three statements in one text query.  The
 * lookup leaves the user id of a valid (unrevoked, unexpired) token in
 * @fm_admit_user, and the UPDATE counts it; its answer says whether the
 * bucket was there (affected rows 1, else 0) and the count before (the
 * insert id, from LAST_INSERT_ID(expr)).  The write is the query's last
 * statement: on a Galera cluster a statement in the middle of a text query
 * is answered before the node's checks of its commit, and a certification
 * failure found there would be reported on the next one.  The text holds
 * only a checked hex digest and integers.
 */
static const char SQL_ADMIT_FMT[] =
    "SET @fm_admit_user = NULL;"
    DB_TOKEN_COLS ", @fm_admit_user := IF(t.revoked_at IS NULL AND"
    " (t.expires_at IS NULL OR t.expires_at > UTC_TIMESTAMP()),"
    " CAST(t.user_id AS CHAR CHARACTER SET ascii), NULL)"
    DB_TOKEN_FROM " WHERE t.token_hash = '%s';"
    "UPDATE rate_limits SET " RL_BUMP_SET("%lld", "%llu", "%llu", "%lld")
    " WHERE kind = 'u' AND principal = @fm_admit_user";

enum { TOKEN_COLS = 8, ADMIT_CELL = 80, ADMIT_BUMP = 3 /* the UPDATE's place */ };

/* What the batch answered. */
struct admit {
	char		 cell[TOKEN_COLS][ADMIT_CELL];
	int		 null[TOKEN_COLS];
	int		 found;		/* the token row was there */
	int		 counted;	/* the UPDATE ran */
	uint64_t	 affected;	/* 1 the bucket was bumped, 0 there was none */
	uint64_t	 before;	/* the count before the bump */
};

/*
 * Reads every result of the batch.  A statement that failed after the
 * lookup leaves a->counted 0 (the connection stays usable); an earlier
 * failure is returned.
 */
static int
admit_results(struct db *db, struct admit *a, struct err *e)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	int		 i, st, stmt = 0;

	do {
		stmt++;
		if ((res = mysql_store_result(db->my)) == NULL) {
			if (mysql_field_count(db->my) != 0)
				return db_fail(db, mysql_errno(db->my), "result",
				    mysql_error(db->my), e);
			if (stmt == ADMIT_BUMP) {
				a->counted = 1;
				a->affected = mysql_affected_rows(db->my);
				a->before = mysql_insert_id(db->my);
			}
			continue;
		}
		if ((row = mysql_fetch_row(res)) != NULL &&
		    mysql_num_fields(res) == TOKEN_COLS + 1) {
			a->found = 1;
			for (i = 0; i < TOKEN_COLS; i++) {
				a->null[i] = row[i] == NULL;
				db_copy_str(a->cell[i], ADMIT_CELL, row[i]);
			}
		}
		mysql_free_result(res);
	} while ((st = mysql_next_result(db->my)) == 0);
	if (st > 0)
		return db_fail(db, mysql_errno(db->my), "admission", mysql_error(db->my), e);
	return 0;
}

int
db_token_admit(struct db *db, struct db_token *out, const char *hash_hex, struct db_bump *b,
    struct err *e)
{
	char		 q[sizeof(SQL_ADMIT_FMT) + 64 + 8 * 24];
	char		 user[24];
	const char	*cp[TOKEN_COLS];
	struct admit	 a;
	int		 attempt, again, i, n, rc = 0;

	memset(out, 0, sizeof *out);
	b->before = b->granted = 0;
	if (!db_hash_ok(hash_hex))
		return err_set(e, ERR_NOTFOUND, "token not found");
	if (b->block < 1)
		b->block = 1;
	n = snprintf(q, sizeof(q), SQL_ADMIT_FMT, hash_hex, (long long)b->window_start,
	    (unsigned long long)b->block, (long long)b->window_start,
	    (unsigned long long)b->limit, (long long)b->window_start, (long long)rl_now_ms());
	if (n < 0 || (size_t)n >= sizeof(q))
		return err_set(e, ERR_INTERNAL, "internal error: admission query too long");
	for (attempt = 0, again = 0; attempt < 2; attempt++) {
		memset(&a, 0, sizeof(a));
		if ((rc = db_connect(db, e)) != 0)
			return rc;
		if (mysql_real_query(db->my, q, (unsigned long)n) != 0)
			rc = db_fail(db, mysql_errno(db->my), "admission", mysql_error(db->my), e);
		else
			rc = admit_results(db, &a, e);
		if (rc == ERR_UNAVAILABLE && attempt == 0)
			continue;	/* a lost connection: once more on a new one */
		if (rl_again(rc, &again, e)) {
			attempt--;	/* a collision on a cluster: the whole batch again */
			continue;
		}
		break;
	}
	if (rc != 0 && !a.found)
		return rc;
	if (!a.found)
		return err_set(e, ERR_NOTFOUND, "token not found");
	for (i = 0; i < TOKEN_COLS; i++)
		cp[i] = a.null[i] ? NULL : a.cell[i];
	db_token_fill(db, out, cp);
	if (out->expired || out->revoked) {
		err_clear(e);
		return 0;	/* a refused token is not counted */
	}
	if (rc != 0)
		return rc;	/* the bucket could not be bumped: no admission (logged) */
	if (a.counted && a.affected > 0) {
		rl_granted(b, a.before);
		return 0;
	}
	snprintf(user, sizeof(user), "%llu", (unsigned long long)out->user_id);
	again = 0;
	while ((rc = rl_new_bucket(db, 'u', user, b, e)) != 0 && rl_again(rc, &again, e))
		;
	return rc;
}
