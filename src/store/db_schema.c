/* db_schema: the schema version and the migrations, applied in order and recorded. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/migrations.h"
#include "store/db-internal.h"

/* ---- schema ---- */

int
db_schema_latest(void)
{
	return migration_latest();
}

static const char SQL_MIGRATIONS_TABLE[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INT NOT NULL PRIMARY KEY,"
    " name VARCHAR(255) NOT NULL,"
    " applied_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP()"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci";
static const char SQL_HAS_MIGRATIONS[] =
    "SELECT COUNT(*) FROM information_schema.tables"
    " WHERE table_schema = DATABASE() AND table_name = 'schema_migrations'";
static const char SQL_SCHEMA_VERSION[] =
    "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";
static const char SQL_RECORD_MIGRATION[] =
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, UTC_TIMESTAMP())";

int
db_schema_version(struct db *db, int *out, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_HAS_MIGRATIONS, &r, NULL, NULL, e, "")) != 0)
		goto done;
	if (r.n == 0 || db_to_u64(db_rows_get(&r, 0, 0)) == 0)
		goto done;
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_SCHEMA_VERSION, &r, NULL, NULL, e, "")) != 0)
		goto done;
	if (r.n > 0)
		*out = (int)db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

static int
too_new(int have, struct err *e)
{
	return err_set(e, ERR_CONFIG,
	    "database schema version %d is newer than this forgemcp (knows up to %d): "
	    "upgrade forgemcp", have, db_schema_latest());
}

int
db_migrate(struct db *db, int *applied, struct err *e)
{
	int	 have, rc;
	size_t	 i;

	*applied = 0;
	if ((rc = db_schema_version(db, &have, e)) != 0)
		return rc;
	if (have > db_schema_latest())
		return too_new(have, e);
	if ((rc = db_plain(db, SQL_MIGRATIONS_TABLE, sizeof SQL_MIGRATIONS_TABLE - 1, e)) != 0)
		return rc;
	for (i = 0; i < schema_migrations_len; i++) {
		const struct migration	*m = &schema_migrations[i];
		const char		*stmt;
		size_t			 pos = 0, len;

		if (m->version <= have)
			continue;
		while (migration_next_statement(m->sql, &pos, &stmt, &len)) {
			if ((rc = db_plain(db, stmt, len, e)) != 0) {
				log_error("migration %d (%s) failed", m->version, m->name);
				return rc;
			}
		}
		rc = db_run(db, DB_ONCE, SQL_RECORD_MIGRATION, NULL, NULL, NULL, e, "is",
		    (int64_t)m->version, m->name);
		if (rc == ERR_EXISTS)
			return err_set(e, rc, "migration %d was applied concurrently", m->version);
		if (rc != 0)
			return rc;
		(*applied)++;
	}
	return 0;
}

int
db_schema_check(struct db *db, struct err *e)
{
	int	 have, rc;

	if ((rc = db_schema_version(db, &have, e)) != 0)
		return rc;
	if (have > db_schema_latest())
		return too_new(have, e);
	if (have < db_schema_latest())
		return err_set(e, ERR_CONFIG,
		    "database schema is at version %d, this forgemcp needs %d: run 'forgemcp migrate'",
		    have, db_schema_latest());
	return 0;
}

/*
 * On a Galera cluster (wsrep_on), which replicates InnoDB tables only, the
 * rate-limit counts (a MEMORY table, schema/007) move to InnoDB, so that
 * every node counts every host's requests; a single server keeps MEMORY,
 * which costs a request less.  *moved is 1 when the table was moved now.
 */
static const char SQL_GALERA_COUNTS[] =
    "SELECT (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES"
    " WHERE VARIABLE_NAME = 'WSREP_ON'),"
    " (SELECT ENGINE FROM information_schema.TABLES"
    " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'rate_limits')";
static const char SQL_COUNTS_INNODB[] = "ALTER TABLE rate_limits ENGINE=InnoDB";

int
db_galera_counts(struct db *db, int *moved, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*on, *engine;
	int		 rc;

	*moved = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_GALERA_COUNTS, &r, NULL, NULL, e, "")) != 0)
		goto done;
	on = r.n > 0 ? db_rows_get(&r, 0, 0) : NULL;
	engine = r.n > 0 ? db_rows_get(&r, 0, 1) : NULL;
	if (on == NULL || strcmp(on, "ON") != 0 || engine == NULL ||
	    strcmp(engine, "MEMORY") != 0)
		goto done;
	if ((rc = db_plain(db, SQL_COUNTS_INNODB, sizeof SQL_COUNTS_INNODB - 1, e)) == 0)
		*moved = 1;
done:
	db_rows_release(&r);
	return rc;
}
