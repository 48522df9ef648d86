/* migrate: `forgemcp migrate [--status]`, applies the embedded schema migrations. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "store/db.h"

static const char usage[] =
    "usage: forgemcp migrate [--status]\n"
    "\n"
    "Applies every schema migration this forgemcp knows that the database lacks,\n"
    "in order, recording each one.  A database newer than this binary is refused.\n"
    "On a MariaDB Galera cluster it also moves the rate-limit counts to InnoDB,\n"
    "which the cluster replicates (see doc/galera.md).\n"
    "\n"
    "  --status   print the current and latest schema versions; change nothing\n"
    "  --help     print this help\n";

int
cli_migrate(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "status", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct db	*db = NULL;
	struct err	 e;
	int		 status = 0, ch, have = 0, applied = 0, moved = 0, rc = 1;

	err_clear(&e);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			status = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage("migrate: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (optind != argc)
		return cli_usage("migrate: unexpected argument '%s'", argv[optind]);
	if (db_new(&db, &cli->cfg, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (status) {
		if (db_schema_version(db, &have, &e) != 0) {
			rc = cli_fail("%s", e.msg);
			goto done;
		}
		printf("schema at version %d, latest %d%s\n", have, db_schema_latest(),
		    have == db_schema_latest() ? "" : have < db_schema_latest() ?
		    " (run forgemcp migrate)" : " (database is newer than this forgemcp)");
		rc = 0;
		goto done;
	}
	if (db_migrate(db, &applied, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (db_schema_version(db, &have, &e) != 0 || db_galera_counts(db, &moved, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if (moved)
		printf("a Galera cluster: the rate-limit counts moved to InnoDB, "
		    "shared by every node\n");
	if (applied == 0)
		printf("schema at version %d, nothing to do\n", have);
	else
		printf("applied %d migration%s, schema at version %d\n", applied,
		    applied == 1 ? "" : "s", have);
	rc = 0;
done:
	db_free(db);
	return rc;
}
