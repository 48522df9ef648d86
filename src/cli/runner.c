/* runner: `forgemcp runner`, the process that executes the jobs of CI runs. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "cli/cli.h"
#include "err.h"
#include "log.h"
#include "service/runner.h"
#include "store/db.h"
#include "store/db_runner.h"

#define RUNNER_CHILDREN_MAX	256

static const char runner_usage[] =
    "usage: forgemcp runner [--once] [--concurrency N] [--interval SECONDS]\n"
    "                       [--lost-after SECONDS] [--grace SECONDS]\n"
    "\n"
    "Executes the queued jobs of CI runs, oldest first: each in a fresh checkout of\n"
    "the run's commit under runner_dir, its steps with `/bin/sh -e -c` in a bubblewrap\n"
    "sandbox (runner_sandbox), their output into the job's log.  A finished job\n"
    "unblocks the jobs that need it.\n"
    "\n"
    "  --once                 run what is runnable now, and what that unblocks, then\n"
    "                         exit (tests, cron)\n"
    "  --concurrency N        jobs at once (default: half the CPUs, at least 1)\n"
    "  --interval SECONDS     how long to sleep when nothing is queued (default 0.25)\n"
    "  --lost-after SECONDS   a running job without a heartbeat for this long ends\n"
    "                         failure, \"runner lost\" (default 60)\n"
    "  --grace SECONDS        on SIGTERM or SIGINT, how long running jobs may go on\n"
    "                         before they are cancelled (default 30)\n"
    "\n"
    "SIGTERM or SIGINT: nothing more is claimed; running jobs get the grace, then\n"
    "are cancelled and the runner exits.\n";

static void
on_child(int sig)
{
	(void)sig;
}

/* The jobs under way: one process each. */
struct pool {
	pid_t	 pid[RUNNER_CHILDREN_MAX];
	size_t	 n, max;
	int	 told;		/* the children were told of the stop */
};

static void
pool_reap(struct pool *p)
{
	size_t	 i;
	pid_t	 w;
	int	 status;

	while ((w = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < p->n; i++)
			if (p->pid[i] == w) {
				p->pid[i] = p->pid[--p->n];
				break;
			}
}

/* Starts claimed job j in a process of its own. */
static int
pool_start(struct pool *p, const struct runner *r, const struct runner_job *j)
{
	pid_t	 pid, self = getpid();

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		/* Killed with the runner, even by SIGKILL: its step goes with it. */
		runner_orphan_guard(self);
		/* The parent's database connection is left alone: the job opens its own. */
		_exit(runner_job(r, j) == 0 ? 0 : 1);
	}
	p->pid[p->n++] = pid;
	return 0;
}

/*
 * Recovers lost jobs and claims jobs while there is room.  *claimed
 * receives how many were started.
 */
static int
poll_once(struct db *db, struct pool *p, const struct runner *r, int64_t lost_after,
    size_t *claimed)
{
	struct runner_job	 j;
	struct err		 e;
	size_t			 lost = 0;
	int			 got = 1;

	*claimed = 0;
	err_clear(&e);
	if (runner_recover(db, lost_after, &lost, &e) != 0) {
		log_error("runner: recovering lost jobs: %s", e.msg);
		return -1;
	}
	if (lost > 0)
		log_warn("runner: %zu job(s) of a lost runner ended failure", lost);
	while (!cli_stopping && p->n < p->max && got) {
		err_clear(&e);
		if (runner_claim(db, r->claimed_by, &j, &got, &e) != 0) {
			log_error("runner: claiming a job: %s", e.msg);
			return -1;
		}
		if (!got)
			break;
		log_info("runner: job %llu (%s) of run %lld of %s/%s claimed",
		    (unsigned long long)j.id, j.job_id, (long long)j.run_number, j.owner, j.name);
		if (pool_start(p, r, &j) != 0) {
			/* The claim stays: the lost-runner recovery ends the job later. */
			log_error("runner: fork: %s", strerror(errno));
			runner_job_release(&j);
			return -1;
		}
		runner_job_release(&j);
		(*claimed)++;
	}
	return 0;
}

/* Claims and runs jobs until stopped (or, once, until nothing is left). */
static int
serve(struct db *db, struct pool *p, const struct runner *r, double interval,
    int64_t lost_after, int once)
{
	size_t	 claimed = 0, i;
	int	 rc = 0;

	for (;;) {
		pool_reap(p);
		if (cli_stopping) {
			if (!p->told)
				for (i = 0; i < p->n; i++)
					kill(p->pid[i], SIGTERM);
			p->told = 1;
			if (p->n == 0)
				break;
			cli_nap(0.2);
			continue;
		}
		if (poll_once(db, p, r, lost_after, &claimed) != 0)
			rc = 1;
		if (once && claimed == 0 && p->n == 0)
			break;
		if (claimed == 0 || p->n == p->max)
			cli_nap(interval);
	}
	return rc;
}

/* runner_dir, else "runner" beside repo_root; created when missing. */
static int
runner_dir(const struct config *cfg, char *out, size_t len)
{
	const char	*slash;

	if (cfg->runner_dir != NULL && cfg->runner_dir[0] != '\0')
		snprintf(out, len, "%s", cfg->runner_dir);
	else if ((slash = strrchr(cfg->repo_root, '/')) != NULL && slash != cfg->repo_root)
		snprintf(out, len, "%.*s/runner", (int)(slash - cfg->repo_root), cfg->repo_root);
	else
		snprintf(out, len, "/runner");
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		return cli_fail("runner_dir %s cannot be created: %s: set runner_dir in %s",
		    out, strerror(errno), cfg->file != NULL ? cfg->file : "the configuration");
	/* Root's sandboxed steps enter as nobody, which must reach its workspace. */
	if (geteuid() == 0 && !cfg->runner_sandbox_none && chmod(out, 0711) != 0)
		return cli_fail("runner_dir %s: %s", out, strerror(errno));
	return 0;
}

int
cli_runner(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "lost-after", required_argument, NULL, 'l' },
		{ "grace", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction	 sa;
	struct runner		 r;
	struct pool		 p;
	struct db		*db = NULL;
	struct err		 e;
	char			 dir[4096];
	double			 interval = 0.25, lost_after = 60, grace = 30, conc;
	long			 ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int			 c, once = 0, rc = 0;

	memset(&p, 0, sizeof p);
	p.max = ncpu >= 4 ? (size_t)ncpu / 2 : 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			once = 1;
			break;
		case 'c':
			if ((conc = cli_seconds(optarg, 1, RUNNER_CHILDREN_MAX)) < 0 ||
			    conc != (double)(size_t)conc)
				return cli_usage("--concurrency takes a count from 1 to %d, not '%s'",
				    RUNNER_CHILDREN_MAX, optarg);
			p.max = (size_t)conc;
			break;
		case 'i':
			if ((interval = cli_seconds(optarg, 0.05, 3600)) < 0)
				return cli_usage("--interval takes seconds from 0.05 to 3600, "
				    "not '%s'", optarg);
			break;
		case 'l':
			if ((lost_after = cli_seconds(optarg, 1, 86400)) < 0)
				return cli_usage("--lost-after takes seconds from 1 to 86400, "
				    "not '%s'", optarg);
			break;
		case 'g':
			if ((grace = cli_seconds(optarg, 0, 3600)) < 0)
				return cli_usage("--grace takes seconds from 0 to 3600, not '%s'",
				    optarg);
			break;
		case 'h':
			fputs(runner_usage, stdout);
			return 0;
		default:
			return cli_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage("unexpected argument '%s'", argv[optind]);
	cli_daemon_start("forgemcp-runner");
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	err_clear(&e);
	if (config_check_repo_root(&cli->cfg, &e) != 0 ||
	    db_new_writer(&db, &cli->cfg, &e) != 0 || db_schema_check(db, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if ((rc = runner_dir(&cli->cfg, dir, sizeof dir)) != 0)
		goto done;
	runner_init(&r, &cli->cfg, dir, (int)grace, &cli_stopping);
	log_info("runner %s started%s, %zu job(s) at once", r.claimed_by,
	    once ? " (--once)" : "", p.max);
	rc = serve(db, &p, &r, interval, (int64_t)lost_after, once);
	log_info("runner %s stopped", r.claimed_by);
done:
	db_free(db);
	return rc;
}
