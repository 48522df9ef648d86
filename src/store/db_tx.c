/* db_tx: a transaction run again when it collided with a concurrent one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "err.h"
#include "hold.h"
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

/*
 * A transaction runs with autocommit off and a savepoint taken at its
 * start, and commits only after releasing that savepoint.  A Galera node
 * aborts a local transaction for another node's write set at any moment
 * and reports it on the client's next command, and that report is now and
 * then lost (on a command whose answer is not read, as a statement reset,
 * or under the binary protocol): the server has rolled the transaction
 * back, and with autocommit on the statements after it would each commit
 * at once, outside it, on what it read before (an issue numbered from a
 * counter another node had advanced: one number given twice).  With
 * autocommit off they open a new transaction instead, which lacks the
 * savepoint: releasing it fails (ER_SP_DOES_NOT_EXIST), the COMMIT is not
 * sent, and the whole is rolled back and run again.  Autocommit is on
 * again once the transaction ends, or the connection is closed.
 *
 * The release, the COMMIT and the autocommit are three round trips, not
 * one text query of three statements: the server reports a certification
 * failure or an abort found at COMMIT only when COMMIT is the last
 * statement of its query; in the middle of one it answers OK and reports
 * the failure on the next command (a commit acknowledged that did not
 * happen).
 */
#define DB_SAVEPOINT	"forgemcp_tx"
static const char SQL_TX_BEGIN[] =
    "SET autocommit = 0; START TRANSACTION; SAVEPOINT " DB_SAVEPOINT;
static const char SQL_TX_RELEASE[] = "RELEASE SAVEPOINT " DB_SAVEPOINT;
static const char SQL_TX_ROLLBACK[] = "ROLLBACK; SET autocommit = 1";
/* whether the transaction db_begin opened is still the open one */
static const char SQL_TX_OURS[] = "ROLLBACK TO SAVEPOINT " DB_SAVEPOINT;

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
 * Runs the statements of sql (one round trip) and reads every result: 0,
 * or -1 with the error number of the statement that failed in *errnop
 * (the ones after it are not run).
 */
static int
tx_query(struct db *db, const char *sql, unsigned *errnop)
{
	int	 st;

	*errnop = 0;
	if (mysql_real_query(db->my, sql, strlen(sql)) == 0) {
		do {
			mysql_free_result(mysql_store_result(db->my));
		} while ((st = mysql_next_result(db->my)) == 0);
		if (st < 0)
			return 0;
	}
	*errnop = mysql_errno(db->my);
	return -1;
}

/* The transaction db_begin opened is gone, ended by the server unreported. */
static int
tx_vanished(struct db *db, struct err *e)
{
	log_warn("the database ended the transaction under it, unreported (a Galera "
	    "abort): it is run again");
	db->collided = 1;
	return e != NULL ? err_set(e, ERR_CONFLICT, "the change collided with a concurrent "
	    "one and was not made; try again") : ERR_CONFLICT;
}

/*
 * Ends whatever transaction is open and turns autocommit on again; a
 * connection where that fails (twice: the first may meet the report of an
 * abort) is closed, so that no later statement runs with autocommit off.
 */
static void
tx_end(struct db *db)
{
	unsigned	 no;
	int		 i;

	for (i = 0; i < 2 && db->my != NULL; i++) {
		if (tx_query(db, SQL_TX_ROLLBACK, &no) == 0)
			return;
		db_fail(db, no, "rollback", mysql_error(db->my), NULL);
	}
	db_disconnect(db);
}

int
db_begin(struct db *db, struct err *e)
{
	unsigned	 no;
	int		 attempt, rc;

	/*
	 * Nothing has run yet: a connection that fails the first begin (lost
	 * while idle, or holding the report of an earlier abort) is closed and
	 * a new one tried, as a ping first would, without its round trip.
	 */
	for (attempt = 0;; attempt++) {
		if ((rc = db_connect(db, e)) != 0)
			return rc;
		if (tx_query(db, SQL_TX_BEGIN, &no) == 0)
			break;
		if (attempt == 0) {
			db_disconnect(db);
			continue;
		}
		rc = db_fail(db, no, "begin", mysql_error(db->my), e);
		tx_end(db);
		return rc;
	}
	db->in_tx = 1;
	return 0;
}

int
db_commit(struct db *db, struct err *e)
{
	unsigned	 no;

	db->in_tx = 0;
	if (db->my == NULL)
		return err_set(e, ERR_UNAVAILABLE, "database unavailable");
	/* on failure the caller's db_rollback ends the transaction (db_tx always calls it) */
	if (tx_query(db, SQL_TX_RELEASE, &no) != 0)
		return no == ER_SP_DOES_NOT_EXIST ? tx_vanished(db, e) :
		    db_fail(db, no, "commit", mysql_error(db->my), e);
	if (mysql_commit(db->my) != 0)
		return db_fail(db, mysql_errno(db->my), "commit", mysql_error(db->my), e);
	/* committed; a connection whose autocommit is not known to be on is not reused */
	if (mysql_autocommit(db->my, 1) != 0) {
		db_fail(db, mysql_errno(db->my), "set autocommit", mysql_error(db->my), NULL);
		db_disconnect(db);
	}
	return 0;
}

void
db_rollback(struct db *db)
{
	db->in_tx = 0;
	tx_end(db);
}

/*
 * Whether the open transaction was aborted for colliding, after fn failed
 * on something else: a statement after an unreported abort reads the
 * rows without the transaction's own writes, and fn fails on them ("the
 * row it just wrote is not there").  The transaction is rolled back to
 * its savepoint, which fails when the transaction is gone (or reports the
 * deferred abort itself).
 */
static int
tx_collided(struct db *db)
{
	unsigned	 no;

	if (db->collided || !db->in_tx || db->my == NULL)
		return db->collided;
	if (tx_query(db, SQL_TX_OURS, &no) != 0) {
		if (no == ER_SP_DOES_NOT_EXIST)
			(void)tx_vanished(db, NULL);
		else
			(void)db_fail(db, no, "rollback to savepoint", mysql_error(db->my), NULL);
	}
	return db->collided;
}

#ifdef FM_DEBUG_HOOKS
/*
 * FORGEMCP_TX_PAUSE=text with FORGEMCP_TX_PAUSE_FILE=path (--enable-debug
 * builds, for the tests): before the first statement inside a transaction
 * whose SQL contains text, the process creates path and waits (at most
 * 60 s) until it is removed, then sends the server a ping and drops its
 * answer.  A Galera abort of the transaction made during the pause is
 * reported on that ping, so the report is lost, as the server loses it
 * under the binary protocol now and then.
 */
void
db_tx_debug_pause(struct db *db, const char *sql)
{
	const char	*text = getenv("FORGEMCP_TX_PAUSE");
	const char	*path = getenv("FORGEMCP_TX_PAUSE_FILE");
	static int	 paused;

	if (paused || !db->in_tx || db->my == NULL || text == NULL || path == NULL ||
	    strstr(sql, text) == NULL)
		return;
	paused = 1;
	log_warn("FORGEMCP_TX_PAUSE=%s: waiting for %s to go", text, path);
	hold_until_removed(path);
	if (mysql_ping(db->my) != 0)
		log_warn("FORGEMCP_TX_PAUSE: the ping's answer dropped: %s", mysql_error(db->my));
}
#endif

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
