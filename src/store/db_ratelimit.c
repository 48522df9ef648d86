/* db_ratelimit: admission control, a fixed window per principal counted in a MEMORY table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
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
