/* db_websearch: the web_search hourly limit, a sliding window per user kept in MySQL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/websearch.h"

/*
 * Takes the user's row lock (creating the row on first use); every admit
 * queues here.  The row is written, not only locked, so that two admits
 * through two Galera nodes collide (020-written-locks.sql).
 */
static const char SQL_WS_LOCK[] =
    "INSERT INTO web_search_users (user_id) VALUES (?)"
    " ON DUPLICATE KEY UPDATE lock_count = lock_count + 1";
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

struct ws_args {
	uint64_t	 user_id;
	unsigned	 limit;
	int64_t		 wait;		/* > 0: refused, the seconds until the next is allowed */
	char		 when[32];
};

/* Forgets searches older than an hour, then records one unless limit were made in it. */
static int
ws_tx(struct db *db, void *arg, struct err *e)
{
	struct ws_args	*a = arg;
	struct db_rows	 r = { 0 };
	const char	*secs, *when;
	int		 rc;

	a->wait = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_WS_LOCK, NULL, NULL, NULL, e, "u", a->user_id)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_WS_PURGE, NULL, NULL, NULL, e, "u", a->user_id)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_WS_NTH, &r, NULL, NULL, e, "ui", a->user_id,
	    (int64_t)a->limit - 1)) != 0)
		goto done;
	if (r.n > 0) {
		/* refused: the purge is kept (committed) all the same */
		secs = db_rows_get(&r, 0, 0);
		when = db_rows_get(&r, 0, 1);
		a->wait = secs != NULL ? strtoll(secs, NULL, 10) : 1;
		if (a->wait < 1)
			a->wait = 1;
		snprintf(a->when, sizeof a->when, "%s", when != NULL ? when : "in under an hour");
		goto done;
	}
	rc = db_run(db, DB_ONCE, SQL_WS_RECORD, NULL, NULL, NULL, e, "u", a->user_id);
done:
	db_rows_release(&r);
	return rc;
}

int
db_websearch_admit(struct db *db, uint64_t user_id, unsigned limit, int64_t *retry_after,
    struct err *e)
{
	struct ws_args	 a = { user_id, limit == 0 ? 1 : limit, 0, "" };
	int		 rc;

	if (retry_after != NULL)
		*retry_after = 0;
	if ((rc = db_tx(db, ws_tx, &a, e)) != 0 || a.wait == 0)
		return rc;
	if (retry_after != NULL)
		*retry_after = a.wait;
	return err_set(e, ERR_TOOBIG, "web search rate limit reached: at most %u searches "
	    "per hour; the next search is allowed in %lld seconds (at %s)", a.limit,
	    (long long)a.wait, a.when);
}
