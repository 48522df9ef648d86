/*
 * runner_executor: a CI job's steps inside the job's sandbox (runner.h).
 * The runner starts one bubblewrap a job, not one a step: setting up and
 * tearing down its namespaces costs some 50 ms, a step of `true` some 2.
 * Inside runs this program (the forgemcp binary, bound read-only, as
 * `forgemcp runner-exec CPU MEMORY PROCESSES FILE_SIZE`), which runs each
 * step it is sent in a session of its own under the job's rlimits (they
 * are not its own: the executor is the runner's code) and says how it
 * ended.
 *
 * From the runner, on standard input, messages "<type> <length>\n<bytes>":
 *   V  the job's environment, KEY=VALUE strings each ended by a NUL
 *   R  a step: `/bin/sh -e -c <bytes>` (stdin /dev/null, output the job's log)
 *   T  SIGTERM to the running step's process group; K: SIGKILL
 * To the runner, on descriptor 3, "<status>\n" as each step ends: its exit
 * code, 128 + the signal when one ended it.  What a step leaves in its group
 * is killed when it ends.  At the end of its input it kills the running
 * step's group and exits; the sandbox, a PID namespace, goes with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "service/runner.h"

#define EXEC_MSG_MAX	(4u << 20)	/* bytes of one message: a workflow is at most 1 MB */
#define EXEC_ENV_MAX	4096		/* variables of the job's environment */

/* Reads n bytes; 0, or -1 at the end of the input or on an error. */
static int
exec_read(char *buf, size_t n)
{
	ssize_t	r;

	while (n > 0) {
		if ((r = read(0, buf, n)) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The next message: its type and its bytes (*body, NUL-terminated; caller frees); -1 at the end. */
static int
exec_message(char *type, char **body, size_t *len)
{
	char	 line[32];
	size_t	 i = 0;
	char	*end;
	unsigned long n;

	*body = NULL;
	while (i < sizeof line - 1) {
		if (exec_read(line + i, 1) != 0)
			return -1;
		if (line[i] == '\n')
			break;
		i++;
	}
	line[i] = '\0';
	if (i < 3 || line[1] != ' ' || (n = strtoul(line + 2, &end, 10)) > EXEC_MSG_MAX ||
	    *end != '\0' || (*body = malloc(n + 1)) == NULL || exec_read(*body, n) != 0) {
		free(*body);
		*body = NULL;
		return -1;
	}
	(*body)[n] = '\0';
	*type = line[0];
	*len = n;
	return 0;
}

/* The environment block (len bytes of NUL-ended strings) as a vector into env. */
static void
exec_environ(char *block, size_t len, char **env)
{
	size_t	at = 0, n = 0;

	while (at < len && n < EXEC_ENV_MAX) {
		env[n++] = block + at;
		at += strlen(block + at) + 1;
	}
	env[n] = NULL;
}

/* The job's limits: CPU seconds, address space, processes, file size (0: none). */
static unsigned long long	exec_limits[4];

/*
 * Starts a step: its own session, the job's limits, stdin /dev/null,
 * output the log; its pid, or -1.
 */
static pid_t
exec_step(const char *run, char *const *env)
{
	static const int	 res[4] = { RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_FSIZE };
	struct rlimit		 rl;
	pid_t			 pid;
	int			 in, i;

	if ((pid = fork()) != 0)
		return pid;
	setsid();
	for (i = 0; i < 4; i++)
		if (exec_limits[i] != 0) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)exec_limits[i];
			setrlimit(res[i], &rl);
		}
	signal(SIGPIPE, SIG_DFL);
	if ((in = open("/dev/null", O_RDONLY)) < 0 || dup2(in, 0) < 0)
		_exit(127);
	/* the runner's pipe and the status descriptor are not the step's */
	if (close_range(3, ~0U, 0) != 0)
		close(3);
	execle("/bin/sh", "sh", "-e", "-c", run, (char *)NULL, env);
	_exit(127);
}

/* Ends step pid (exited): its group killed, its status to the runner. */
static void
exec_ended(pid_t pid, int status)
{
	char	line[16];
	int	code, n;

	kill(-pid, SIGKILL);
	code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
	    WIFEXITED(status) ? WEXITSTATUS(status) : 127;
	n = snprintf(line, sizeof line, "%d\n", code);
	while (write(3, line, (size_t)n) < 0 && errno == EINTR)
		;
}

int
runner_executor_main(char **limits)
{
	static char	*env[EXEC_ENV_MAX + 1];
	struct pollfd	 p[2];
	char		*body, *block = NULL, type;
	size_t		 len;
	pid_t		 step = 0;
	nfds_t		 n;
	int		 pidfd = -1, status;

	for (n = 0; n < 4; n++)
		exec_limits[n] = strtoull(limits[n], NULL, 10);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		n = 0;
		p[n].fd = 0;
		p[n++].events = POLLIN;
		if (pidfd >= 0) {
			p[n].fd = pidfd;
			p[n++].events = POLLIN;
		}
		/* without a pidfd (a kernel before 5.3) the step is looked at every 20 ms */
		if (poll(p, n, step > 0 && pidfd < 0 ? 20 : -1) < 0 && errno != EINTR)
			break;
		if (step > 0 && waitpid(step, &status, WNOHANG) == step) {
			exec_ended(step, status);
			if (pidfd >= 0)
				close(pidfd);
			pidfd = -1;
			step = 0;
			continue;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (exec_message(&type, &body, &len) != 0)
			break;
		if (type == 'V') {
			free(block);
			block = body;
			exec_environ(block, len, env);
			continue;
		}
		if (type == 'R' && step == 0 && (step = exec_step(body, env)) > 0)
			pidfd = (int)syscall(SYS_pidfd_open, step, 0);
		else if (type == 'R' && step <= 0) {
			/* a fork that failed is a step that could not run */
			step = 0;
			while (write(3, "127\n", 4) < 0 && errno == EINTR)
				;
		} else if ((type == 'T' || type == 'K') && step > 0)
			kill(-step, type == 'T' ? SIGTERM : SIGKILL);
		free(body);
	}
	if (step > 0) {
		kill(-step, SIGKILL);
		while (waitpid(step, &status, 0) < 0 && errno == EINTR)
			;
	}
	/* nothing to free at the end: _exit, no leak report in a sanitizer build */
	_exit(0);
}
