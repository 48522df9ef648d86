/* db_websearch: the web_search hourly limit, a sliding window per user kept in MySQL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/websearch.h"

/* Takes the user's row lock (creating the row on first use); every admit queues here. */
static const char SQL_WS_LOCK[] =
    "INSERT INTO web_search_users (user_id) VALUES (?)"
    " ON DUPLICATE KEY UPDATE user_id = user_id";
static const char SQL_WS_PURGE[] =
    "DELETE FROM web_search_events"
    " WHERE user_id = ? AND at <= UTC_TIMESTAMP(6) - INTERVAL 1 HOUR";
/*
 * The limit-th newest search in the window: when it exists the window is
 * full, and it is the one whose leaving frees a place.
 */
static const char SQL_WS_NTH[] =
    "SELECT CEILING(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), at + INTERVAL 1 HOUR)"
    " / 1000000), " DB_DATE("at + INTERVAL 1 HOUR")
    " FROM web_search_events"
    " WHERE user_id = ? AND at > UTC_TIMESTAMP(6) - INTERVAL 1 HOUR"
    " ORDER BY at DESC LIMIT 1 OFFSET ?";
static const char SQL_WS_RECORD[] =
    "INSERT INTO web_search_events (user_id, at) VALUES (?, UTC_TIMESTAMP(6))";

int
db_websearch_admit(struct db *db, uint64_t user_id, unsigned limit, int64_t *retry_after,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*secs, *when;
	int64_t		 wait = 0;
	int		 rc, in_tx = 0;

	if (retry_after != NULL)
		*retry_after = 0;
	if (limit == 0)
		limit = 1;
	if ((rc = db_begin(db, e)) != 0)
		goto done;
	in_tx = 1;
	if ((rc = db_run(db, DB_ONCE, SQL_WS_LOCK, NULL, NULL, NULL, e, "u", user_id)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_WS_PURGE, NULL, NULL, NULL, e, "u", user_id)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_WS_NTH, &r, NULL, NULL, e, "ui", user_id,
	    (int64_t)limit - 1)) != 0)
		goto done;
	if (r.n > 0) {
		secs = db_rows_get(&r, 0, 0);
		when = db_rows_get(&r, 0, 1);
		wait = secs != NULL ? strtoll(secs, NULL, 10) : 1;
		if (wait < 1)
			wait = 1;
		if (retry_after != NULL)
			*retry_after = wait;
		/* keep the purge: commit, then refuse */
		in_tx = 0;
		if ((rc = db_commit(db, e)) != 0)
			goto done;
		rc = err_set(e, ERR_TOOBIG, "web search rate limit reached: at most %u searches "
		    "per hour; the next search is allowed in %lld seconds (at %s)", limit,
		    (long long)wait, when != NULL ? when : "in under an hour");
		goto done;
	}
	if ((rc = db_run(db, DB_ONCE, SQL_WS_RECORD, NULL, NULL, NULL, e, "u", user_id)) != 0)
		goto done;
	in_tx = 0;
	rc = db_commit(db, e);
done:
	if (in_tx)
		db_rollback(db);
	db_rows_release(&r);
	return rc;
}
