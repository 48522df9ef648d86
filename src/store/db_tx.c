/* db_tx: a transaction run again when it collided with a concurrent one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mysql.h>

#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/db-internal.h"

/*
 * A transaction that collided with a concurrent one (a deadlock, a lock
 * wait timeout, or on a Galera cluster a write set of another node that
 * certified first) is run again, up to DB_TX_ATTEMPTS times, after a random
 * pause that doubles with each attempt (at most DB_TX_PAUSE_MS): two hosts
 * bumping one counter through two nodes collide most of the time, and
 * retrying at once collides again.  The 23 pauses of 24 attempts add up
 * to at most 2.3 s (about 1.2 s on average) before the caller is told.
 */
#define DB_TX_PAUSE_MS	128

static const char SQL_IN_TX[] = "SELECT @@in_transaction";

/* Sleeps a random 0 to min(2^attempt, DB_TX_PAUSE_MS) milliseconds. */
void
db_tx_pause(int attempt)
{
	static unsigned int	 seed;
	struct timespec		 ts;
	long			 ms = 1L << (attempt < 7 ? attempt : 7);

	if (seed == 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (unsigned int)ts.tv_nsec ^ (unsigned int)getpid();
	}
	if (ms > DB_TX_PAUSE_MS)
		ms = DB_TX_PAUSE_MS;
	ms = rand_r(&seed) % (ms + 1);
	ts.tv_sec = 0;
	ts.tv_nsec = ms * 1000000L;
	nanosleep(&ts, NULL);
}

/*
 * Whether the open transaction was aborted for colliding.  A Galera node
 * aborts a local transaction for another node's write set at any moment,
 * and while a prepared statement's rows are being fetched the abort is not
 * always reported: the rows then lack the transaction's own writes, and fn
 * fails on them ("the row it just wrote is not there").  So after a
 * failure of fn the server is asked whether the transaction is still open
 * (an error there is the deferred abort, and no transaction is an abort
 * that was not reported).
 */
static int
tx_collided(struct db *db)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	int		 open = 1;

	if (db->collided || !db->in_tx || db->my == NULL)
		return db->collided;
	if (mysql_real_query(db->my, SQL_IN_TX, strlen(SQL_IN_TX)) != 0) {
		(void)db_fail(db, mysql_errno(db->my), "query", mysql_error(db->my), NULL);
		return db->collided;
	}
	if ((res = mysql_store_result(db->my)) != NULL) {
		if ((row = mysql_fetch_row(res)) != NULL && row[0] != NULL)
			open = strcmp(row[0], "0") != 0;
		mysql_free_result(res);
	}
	if (!open) {
		log_warn("the database ended the transaction under it, unreported (a Galera "
		    "abort): it is run again");
		db->collided = 1;
	}
	return db->collided;
}

int
db_tx(struct db *db, db_tx_fn fn, void *arg, struct err *e)
{
	struct err	 local;
	int		 attempt, rc = 0;

	for (attempt = 1; attempt <= DB_TX_ATTEMPTS; attempt++) {
		err_clear(&local);
		db->collided = 0;
		if ((rc = db_begin(db, &local)) != 0)
			break;
		if ((rc = fn(db, arg, &local)) == 0 && (rc = db_commit(db, &local)) == 0)
			return 0;
		if (rc != ERR_CONFLICT && rc != ERR_UNAVAILABLE && tx_collided(db))
			rc = ERR_CONFLICT;
		db_rollback(db);
		/* a conflict fn found itself (a stale version) is the caller's to report */
		if (rc != ERR_CONFLICT || !db->collided || attempt == DB_TX_ATTEMPTS)
			break;
		log_warn("transaction conflict, retrying (attempt %d of %d)", attempt,
		    DB_TX_ATTEMPTS);
		db_tx_pause(attempt);
	}
	/* a code fn returned without a message leaves e as it was, for the caller to word */
	if (local.msg[0] != '\0')
		return err_set(e, rc, "%s", local.msg);
	return rc;
}

int
db_tx_gave_up(const struct db *db)
{
	return db->collided;
}
