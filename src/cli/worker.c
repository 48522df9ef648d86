/* worker: `forgemcp worker`, the process that does the queued merges. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "log.h"
#include "service/service.h"
#include "store/db.h"
#include "store/repo.h"

static const char worker_usage[] =
    "usage: forgemcp worker [--once] [--interval SECONDS]\n"
    "\n"
    "Does the merges merge_pull_request queues, oldest first, one repository at a\n"
    "time, and takes up merges a stopped worker left running.\n"
    "\n"
    "  --once              do what is queued now, then exit (tests, cron)\n"
    "  --interval SECONDS  how long to sleep when the queue is empty (default 1)\n"
    "\n"
    "SIGTERM or SIGINT: the merge under way finishes, then the worker exits.\n"
    "Each poll records that the worker is alive: while none is, get_pull_request\n"
    "says of a queued merge that it waits for one.\n";

/*
 * Records that w is alive or (stop) that it stopped, so a queued merge says
 * at once that no worker runs; a failure is logged, the merges go on.
 */
static void
record(struct merge_worker *w, int stop)
{
	struct err	 e;
	int		 rc;

	err_clear(&e);
	rc = stop ? merge_worker_stopped(w, &e) : merge_worker_beat(w, &e);
	if (rc != 0)
		log_warn("worker: recording the %s: %s", stop ? "stop" : "heartbeat", e.msg);
}

/*
 * Recovers abandoned merges, then does queued ones until the queue is
 * empty, recording a heartbeat before each.
 */
static int
drain(struct merge_worker *w)
{
	struct err	 e;
	size_t		 recovered = 0;
	int		 did = 1, rc;

	record(w, 0);
	err_clear(&e);
	if ((rc = merge_worker_recover(w, &recovered, &e)) != 0) {
		log_error("worker: recovering merges: %s", e.msg);
		return rc;
	}
	while (did && !cli_stopping) {
		err_clear(&e);
		if ((rc = merge_worker_run_one(w, &did, &e)) != 0) {
			log_error("worker: %s", e.msg);
			return rc;
		}
		if (did)
			record(w, 0);
	}
	return 0;
}

int
cli_worker(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct merge_worker	 w;
	struct db		*db = NULL;
	struct repo_cache	*repos = NULL;
	struct err		 e;
	double			 interval = 1.0;
	int			 c, once = 0, rc = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			once = 1;
			break;
		case 'i':
			if ((interval = cli_seconds(optarg, 0.05, 3600)) < 0)
				return cli_usage("--interval takes seconds from 0.05 to 3600, "
				    "not '%s'", optarg);
			break;
		case 'h':
			fputs(worker_usage, stdout);
			return 0;
		default:
			return cli_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage("unexpected argument '%s'", argv[optind]);
	cli_daemon_start("forgemcp-worker");
	err_clear(&e);
	if (config_check_repo_root(&cli->cfg, &e) != 0 ||
	    db_new_writer(&db, &cli->cfg, &e) != 0 || db_schema_check(db, &e) != 0 ||
	    repo_cache_new(&repos, cli->cfg.repo_root, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	merge_worker_init(&w, db, repos, cli->cfg.base_url);
	w.interval_ms = (int64_t)(interval * 1000);
	log_info("worker %s started%s", w.claimed_by, once ? " (--once)" : "");
	if (once) {
		rc = drain(&w) != 0 ? 1 : 0;
		record(&w, 1);
		goto done;
	}
	while (!cli_stopping) {
		/* A failure (the database away) is logged; the next round tries again. */
		drain(&w);
		/* Cached repositories would keep stale packs open between rounds. */
		repo_cache_close_all(repos);
		cli_nap(interval);
	}
	record(&w, 1);
	log_info("worker %s stopped", w.claimed_by);
done:
	repo_cache_free(repos);
	db_free(db);
	return rc;
}
