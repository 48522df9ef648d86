/* runner_exec: a CI job's steps as processes: their output into the log, timeout, cancel and stop. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "service/runner.h"
#include "service/workflow.h"
#include "store/db_runner.h"

#define TRUNCATED_LINE	"log truncated at 16 MiB\n"
#define ORPHAN_SIGNAL	SIGUSR2	/* a job's process gets it when its runner dies */

static volatile sig_atomic_t	step_pg;	/* the running step's process group, or 0 */
static volatile sig_atomic_t	orphaned;	/* the runner died */

/* The runner died: its job's step goes at once, whatever the job's process is doing. */
static void
on_orphaned(int sig)
{
	pid_t	 pg = step_pg;

	(void)sig;
	orphaned = 1;
	if (pg > 0 && kill(-pg, SIGKILL) != 0)
		kill(pg, SIGKILL);
}

void
runner_orphan_guard(pid_t parent)
{
	struct sigaction	 sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_orphaned;
	sigaction(ORPHAN_SIGNAL, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, ORPHAN_SIGNAL);
	/* The runner may have died before the prctl. */
	if (getppid() != parent)
		raise(ORPHAN_SIGNAL);
}

void
runner_step_group(pid_t pg)
{
	step_pg = pg;
}

int
runner_orphaned(void)
{
	return orphaned;
}

double
runner_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes p as one chunk; a failure is logged and the bytes dropped, the job goes on. */
static void
log_write(struct runner_exec *x, const char *p, size_t n)
{
	struct err	 e;

	err_clear(&e);
	if (n > 0 && runner_log_append(x->db, x->id, p, n, &e) != 0)
		log_warn("runner: job %llu: writing its log: %s", (unsigned long long)x->id,
		    e.msg);
	x->logged += (int64_t)n;
}

void
runner_log_flush(struct runner_exec *x)
{
	log_write(x, x->buf, x->len);
	x->len = 0;
	x->flushed = runner_now();
}

void
runner_log(struct runner_exec *x, const char *p, size_t n)
{
	size_t	 take;

	while (n > 0 && !x->truncated) {
		if (x->logged + (int64_t)x->len >= RUNNER_LOG_MAX) {
			/* The output goes on being read, so the step is not blocked on the pipe. */
			runner_log_flush(x);
			log_write(x, TRUNCATED_LINE, strlen(TRUNCATED_LINE));
			x->truncated = 1;
			break;
		}
		take = sizeof x->buf - x->len;
		if ((int64_t)take > RUNNER_LOG_MAX - x->logged - (int64_t)x->len)
			take = (size_t)(RUNNER_LOG_MAX - x->logged - (int64_t)x->len);
		if (take > n)
			take = n;
		memcpy(x->buf + x->len, p, take);
		x->len += take;
		p += take;
		n -= take;
		if (x->len == sizeof x->buf)
			runner_log_flush(x);
	}
}

/*
 * The step's process: its own session (so its own group, and no
 * controlling terminal to push input into), stdin /dev/null, stdout and
 * stderr into the pipe.
 */
static void
step_child(const struct config *cfg, int out, const char *run, char *const *envp,
    const char *cwd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGCHLD, SIGPIPE, SIGHUP, SIGUSR1,
	    ORPHAN_SIGNAL };
	sigset_t	 none;
	long		 fd, max;
	size_t		 i;
	int		 in;

	setsid();
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((in = open("/dev/null", O_RDONLY)) < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(out, 2) < 0 || chdir(cwd) != 0)
		_exit(127);
	/*
	 * Nothing of the runner (its database connection) is left to the step:
	 * one call, or (a kernel before 5.9) a close() for every descriptor
	 * the limit allows, some 20,000 calls.
	 */
	if (close_range(3, ~0U, 0) != 0) {
		max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = 3; fd < max; fd++)
			close((int)fd);
	}
	runner_sandbox_exec(cfg, cwd, run, envp);
	_exit(127);
}

/* Asks the step's group to end (SIGTERM), then, RUNNER_KILL_AFTER seconds on, makes it. */
static void
step_stop(pid_t pg, double now, double *kill_at)
{
	/* Until the child's setsid() the group is not there yet: the child alone then. */
	if (*kill_at == 0) {
		if (kill(-pg, SIGTERM) != 0)
			kill(pg, SIGTERM);
		*kill_at = now + RUNNER_KILL_AFTER;
	} else if (now >= *kill_at) {
		if (kill(-pg, SIGKILL) != 0)
			kill(pg, SIGKILL);
		*kill_at = now + 3600;
	}
}

/* The periodic work while a step runs: flush, heartbeat, cancel, timeout, stop. */
void
runner_step_tick(struct runner_exec *x, double now)
{
	struct err	 e;
	int		 asked = 0;

	if (x->len > 0 && now - x->flushed >= 1.0)
		runner_log_flush(x);
	err_clear(&e);
	if (now - x->beat >= RUNNER_BEAT_EVERY) {
		if (runner_heartbeat(x->db, x->id, &e) != 0)
			log_warn("runner: job %llu: heartbeat: %s", (unsigned long long)x->id, e.msg);
		x->beat = now;
	}
	if (orphaned && x->end == RUNNER_END_DONE)
		x->end = RUNNER_END_ORPHANED;
	if (x->end != RUNNER_END_DONE)
		return;
	if (now - x->polled >= 0.5) {
		x->polled = now;
		if (runner_cancel_asked(x->db, x->id, &asked, x->cancel_by, &e) == 0 && asked)
			x->end = RUNNER_END_CANCEL;
	}
	if (x->end == RUNNER_END_DONE && now >= x->deadline)
		x->end = RUNNER_END_TIMEOUT;
	if (*x->r->stopping && x->stop_at == 0)
		x->stop_at = now + x->r->grace;
	if (x->end == RUNNER_END_DONE && x->stop_at != 0 && now >= x->stop_at)
		x->end = RUNNER_END_STOP;
}

/* Reads what the step wrote; returns 0 at end of file. */
static int
step_read(struct runner_exec *x, int fd)
{
	char	 buf[65536];
	ssize_t	 n;

	n = read(fd, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n > 0)
		runner_log(x, buf, (size_t)n);
	return n > 0;
}

/*
 * Reads what the pipe holds now, at most 1 MiB (the job's ticks go on
 * while a step writes without pause): 0 at end of file, 2 when it stopped
 * at that bound, 1 when the pipe is empty.
 */
int
runner_read_some(struct runner_exec *x, int fd)
{
	char	 buf[65536];
	ssize_t	 n;
	int	 i;

	for (i = 0; i < 16; i++) {
		if ((n = read(fd, buf, sizeof buf)) > 0)
			runner_log(x, buf, (size_t)n);
		else if (n == 0)
			return 0;
		else if (errno != EINTR)
			return 1;
	}
	return 2;
}

/*
 * Runs one step until it exits, reading its output; when the job must end
 * early the step's group is stopped.  Returns the shell's status as an exit
 * code (128 + signal when killed).
 */
static int
step_run(struct runner_exec *x, const char *run, char *const *envp, const char *cwd)
{
	struct pollfd	 p[2];
	sigset_t	 block, old;
	double		 now, kill_at = 0, drain_until = 0;
	pid_t		 pid, w;
	nfds_t		 n;
	int		 fds[2], status = 0, open_ = 1, running = 1, nap = 1, pidfd;

	if (pipe(fds) != 0)
		return 127;
	/* The runner's death between the fork and step_pg must not miss the step. */
	sigemptyset(&block);
	sigaddset(&block, ORPHAN_SIGNAL);
	sigprocmask(SIG_BLOCK, &block, &old);
	if ((pid = fork()) < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[0]);
		close(fds[1]);
		return 127;
	}
	if (pid == 0) {
		close(fds[0]);
		step_child(x->r->cfg, fds[1], run, envp, cwd);
	}
	step_pg = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/* Readable when the step exits: its end is seen at once, not at the next poll. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (open_ || running) {
		now = runner_now();
		if (running) {
			runner_step_tick(x, now);
			if (x->end != RUNNER_END_DONE)
				step_stop(pid, now, &kill_at);
			if ((w = waitpid(pid, &status, WNOHANG)) == pid) {
				running = 0;
				/* What the step left behind in its group goes with it. */
				kill(-pid, SIGKILL);
				drain_until = now + 2;
			}
		} else if (now >= drain_until)
			break;
		n = 0;
		if (open_) {
			p[n].fd = fds[0];
			p[n++].events = POLLIN;
		}
		if (running && pidfd >= 0) {
			p[n].fd = pidfd;
			p[n++].events = POLLIN;
		}
		if (n == 0) {
			/* Without a pidfd (a kernel before 5.3): 1 ms, doubling to 50. */
			poll(NULL, 0, nap);
			nap = nap < 25 ? nap * 2 : 50;
		} else if (poll(p, n, 100) > 0 && open_ && (p[0].revents & (POLLIN | POLLHUP)))
			open_ = step_read(x, fds[0]);
	}
	if (pidfd >= 0)
		close(pidfd);
	close(fds[0]);
	step_pg = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

/* The log's line that a step starts: its name, or its script's first line. */
void
runner_step_head(struct runner_exec *x, const struct wf_job *job, size_t i)
{
	char	 head[160];
	int	 n;

	if (job->steps[i].name != NULL)
		n = snprintf(head, sizeof head, "==> step %zu/%zu: %.100s\n", i + 1,
		    job->n_steps, job->steps[i].name);
	else
		n = snprintf(head, sizeof head, "==> step %zu/%zu: %.*s\n", i + 1,
		    job->n_steps, (int)strcspn(job->steps[i].run, "\n") > 100 ? 100 :
		    (int)strcspn(job->steps[i].run, "\n"), job->steps[i].run);
	if (n < 0)
		n = 0;
	else if ((size_t)n >= sizeof head)
		n = (int)sizeof head - 1;
	runner_log(x, head, (size_t)n);
}

int
runner_steps(struct runner_exec *x, const struct wf_job *job, char *const *envp,
    const char *cwd)
{
	size_t	 i;

	if (!x->r->cfg->runner_sandbox_none)
		return runner_box_steps(x, job, envp, cwd);
	for (i = 0; i < job->n_steps; i++) {
		if (orphaned) {
			x->end = RUNNER_END_ORPHANED;
			return 1;
		}
		runner_step_head(x, job, i);
		x->exit_code = step_run(x, job->steps[i].run, envp, cwd);
		if (x->end != RUNNER_END_DONE || x->exit_code != 0)
			return 1;
	}
	return 0;
}
