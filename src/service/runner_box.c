/*
 * runner_box: a job's steps in one sandbox (runner.h): one bubblewrap a
 * job with the executor (runner_executor.c) inside, which it sends each
 * step to and hears each end from; the log read as the steps write it.
 * A step to stop is sent SIGTERM through the executor, then the whole
 * sandbox is killed; when the runner dies the job's process kills it
 * (runner_orphan_guard), and the PID namespace takes every process of
 * the job with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "service/runner.h"
#include "service/workflow.h"

#define ORPHAN_SIGNAL	SIGUSR2	/* as runner_exec.c: blocked while the sandbox starts */

struct box {
	pid_t	 pid;		/* bwrap, a session of its own */
	int	 ctl;		/* the executor's messages */
	int	 out;		/* the steps' output */
	int	 st;		/* the steps' ends */
	int	 pidfd;		/* readable when bwrap has exited */
	char	 line[32];	/* an end not yet whole */
	size_t	 len;
};

/* Sends message type with n bytes; -1 when the executor is gone. */
static int
box_send(struct box *b, char type, const char *p, size_t n)
{
	char	 head[40];
	ssize_t	 w;
	int	 k;

	k = snprintf(head, sizeof head, "%c %zu\n", type, n);
	while (k > 0) {
		if ((w = write(b->ctl, head, (size_t)k)) < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		memmove(head, head + w, (size_t)(k - w));
		k -= (int)w;
	}
	while (n > 0) {
		if ((w = write(b->ctl, p, n)) < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The job's sandbox started in cwd, the job's environment sent to its executor; 0 or -1. */
static int
box_start(struct runner_exec *x, struct box *b, char *const *envp, const char *cwd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGCHLD, SIGPIPE, SIGHUP, SIGUSR1,
	    ORPHAN_SIGNAL };
	char		 exe[4096], *block;
	sigset_t	 block_set, old, none;
	ssize_t		 k;
	size_t		 i, n = 0, at = 0;
	int		 ctl[2], out[2], st[2], rc;

	memset(b, 0, sizeof *b);
	b->pidfd = -1;
	/* a sandbox that died leaves a pipe without a reader: the write fails, the job goes on */
	signal(SIGPIPE, SIG_IGN);
	if ((k = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return -1;
	exe[k] = '\0';
	if (pipe(ctl) != 0)
		return -1;
	if (pipe(out) != 0) {
		close(ctl[0]);
		close(ctl[1]);
		return -1;
	}
	if (pipe(st) != 0) {
		close(ctl[0]);
		close(ctl[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	sigemptyset(&block_set);
	sigaddset(&block_set, ORPHAN_SIGNAL);
	sigprocmask(SIG_BLOCK, &block_set, &old);
	if ((b->pid = fork()) == 0) {
		setsid();
		for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			signal(sigs[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(ctl[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0 ||
		    dup2(st[1], 3) < 0 || chdir(cwd) != 0)
			_exit(127);
		if (close_range(4, ~0U, 0) != 0)
			for (i = 4; i < 1024; i++)
				close((int)i);
		runner_sandbox_executor(x->r->cfg, cwd, exe);
		_exit(127);
	}
	if (b->pid > 0)
		runner_step_group(b->pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ctl[0]);
	close(out[1]);
	close(st[1]);
	b->ctl = ctl[1];
	b->out = out[0];
	b->st = st[0];
	if (b->pid < 0)
		return -1;
	fcntl(b->out, F_SETFL, O_NONBLOCK);
	fcntl(b->st, F_SETFL, O_NONBLOCK);
	b->pidfd = (int)syscall(SYS_pidfd_open, b->pid, 0);
	/* the environment goes as a message: bwrap and the executor run without it */
	for (i = 0; envp[i] != NULL; i++)
		n += strlen(envp[i]) + 1;
	if ((block = malloc(n + 1)) == NULL)
		return -1;
	for (i = 0; envp[i] != NULL; i++) {
		memcpy(block + at, envp[i], strlen(envp[i]) + 1);
		at += strlen(envp[i]) + 1;
	}
	rc = box_send(b, 'V', block, n);
	free(block);
	return rc;
}

/* The sandbox gone (it exited or was killed): its status as a step's exit code. */
static int
box_died(struct box *b)
{
	int	status = 0;

	while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
		;
	b->pid = 0;
	runner_step_group(0);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 127;
}

/* Reads the steps' ends; the code of one that ended, or -1 when none has. */
static int
box_end_read(struct box *b)
{
	char	*nl;
	ssize_t	 r;
	int	 code;

	if ((r = read(b->st, b->line + b->len, sizeof b->line - 1 - b->len)) > 0)
		b->len += (size_t)r;
	b->line[b->len] = '\0';
	if ((nl = strchr(b->line, '\n')) == NULL)
		return -1;
	code = atoi(b->line);
	b->len -= (size_t)(nl + 1 - b->line);
	memmove(b->line, nl + 1, b->len);
	return code;
}

/*
 * Runs one step in the job's sandbox until it ends, reading the log; when
 * the job must end early the step is asked to stop (SIGTERM to its group),
 * then made to (the whole sandbox killed).  Returns its exit code.
 */
static int
box_step(struct runner_exec *x, struct box *b, const char *run)
{
	struct pollfd	 p[3];
	siginfo_t	 info;
	double		 now, kill_at = 0;
	nfds_t		 n;
	int		 code = -1, open_ = 1;

	if (b->pid <= 0 || box_send(b, 'R', run, strlen(run)) != 0)
		return b->pid > 0 ? box_died(b) : 127;
	for (;;) {
		now = runner_now();
		runner_step_tick(x, now);
		if (x->end != RUNNER_END_DONE) {
			if (kill_at == 0) {
				box_send(b, 'T', "", 0);
				kill_at = now + RUNNER_KILL_AFTER;
			} else if (now >= kill_at) {
				kill(-b->pid, SIGKILL);
				kill_at = now + 3600;
			}
		}
		n = 0;
		p[n].fd = b->st;
		p[n++].events = POLLIN;
		if (open_) {
			p[n].fd = b->out;
			p[n++].events = POLLIN;
		}
		if (b->pidfd >= 0) {
			p[n].fd = b->pidfd;
			p[n++].events = POLLIN;
		}
		poll(p, n, b->pidfd >= 0 ? 100 : 20);
		if (open_)
			open_ = runner_read_some(x, b->out);
		if ((code = box_end_read(b)) >= 0)
			break;
		/* the sandbox gone without saying the step ended (killed, or its executor) */
		memset(&info, 0, sizeof info);
		if (waitid(P_PID, (id_t)b->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == b->pid) {
			/* an end it wrote as it went is still in the pipe */
			if ((code = box_end_read(b)) < 0)
				code = box_died(b);
			break;
		}
	}
	/* what the step wrote before it ended is in the pipe: all of it into the log */
	while (open_ && (open_ = runner_read_some(x, b->out)) == 2)
		;
	return code;
}

/* Ends the job's sandbox: its executor told to stop, then made to. */
static void
box_stop(struct box *b)
{
	struct pollfd	 p;
	int		 waited = 0;

	close(b->ctl);
	if (b->pid > 0) {
		p.fd = b->pidfd;
		p.events = POLLIN;
		/* the executor ends at once when its input ends; a stuck one is killed */
		while (b->pidfd >= 0 && waited < 50 && poll(&p, 1, 100) == 0)
			waited++;
		if (waitpid(b->pid, NULL, WNOHANG) != b->pid) {
			kill(-b->pid, SIGKILL);
			while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	if (b->pidfd >= 0)
		close(b->pidfd);
	close(b->out);
	close(b->st);
	runner_step_group(0);
}

int
runner_box_steps(struct runner_exec *x, const struct wf_job *job, char *const *envp,
    const char *cwd)
{
	struct box	 b;
	size_t		 i;
	int		 failed = 0;

	if (box_start(x, &b, envp, cwd) != 0) {
		runner_log(x, "runner: cannot start the job's sandbox\n", 38);
		x->exit_code = 127;
		if (b.pid > 0 || b.ctl > 0)
			box_stop(&b);
		return 1;
	}
	for (i = 0; i < job->n_steps && !failed; i++) {
		if (runner_orphaned()) {
			x->end = RUNNER_END_ORPHANED;
			failed = 1;
			break;
		}
		runner_step_head(x, job, i);
		x->exit_code = box_step(x, &b, job->steps[i].run);
		failed = x->end != RUNNER_END_DONE || x->exit_code != 0;
	}
	box_stop(&b);
	return failed;
}

