/*
 * runner_sandbox: a CI step inside bubblewrap (spec 1.6.8).  A step runs
 * code from anyone who can push; on the forge's own hosts it must reach
 * neither the network (not even loopback: the forge, MariaDB), nor the
 * configuration, the state directory, the repositories or other jobs.  It
 * sees a read-only system, its workspace at /workspace and a tmpfs /tmp,
 * as an unprivileged user, under rlimits.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "service/runner.h"

#define SANDBOX_ARGS	128	/* bwrap's arguments but the environment, with room to spare */

/*
 * What of the host a build sees, read-only: the programs and libraries and
 * the few files of /etc they read.  An allow-list, so that whatever the
 * host keeps elsewhere (the forge's configuration and state, repositories,
 * sockets, home directories) is simply absent.
 */
static const char *const ro_paths[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/passwd",
	"/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/ld.so.cache",
	"/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/os-release",
	"/etc/debian_version", "/etc/gitconfig", "/etc/mime.types", "/etc/shells",
};

/* Whether steps run as nobody: only root can make them, other users use their own uid. */
static int
drops_uid(void)
{
	return geteuid() == 0;
}

/*
 * bwrap's argument vector for `sh -e -c run` in workspace ws, the step's
 * environment envp passed as --setenv pairs; or, with exe (run and envp
 * NULL), for the job's executor: exe bound read-only at RUNNER_EXECUTOR
 * and run as `runner-exec`, with no environment (it gets the job's from
 * the runner).  NULL when out of memory.
 */
static char **
sandbox_argv(const char *ws, const char *run, char *const *envp, const char *exe,
    char lims[4][24])
{
	static const char *const head[] = {
		"bwrap", "--die-with-parent", "--unshare-user", "--unshare-net",
		"--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "ci", "--uid", "65534", "--gid", "65534", "--proc", "/proc",
		"--dev", "/dev", "--tmpfs", "/tmp",
	};
	const char	**argv;
	char		 *name;
	size_t		  n = 0, i, nenv = 0;

	while (envp != NULL && envp[nenv] != NULL)
		nenv++;
	if ((argv = calloc(SANDBOX_ARGS + 3 * nenv, sizeof *argv)) == NULL)
		return NULL;
	for (i = 0; i < sizeof head / sizeof head[0]; i++)
		argv[n++] = head[i];
	for (i = 0; i < sizeof ro_paths / sizeof ro_paths[0]; i++) {
		argv[n++] = "--ro-bind-try";
		argv[n++] = ro_paths[i];
		argv[n++] = ro_paths[i];
	}
	argv[n++] = "--bind";
	argv[n++] = ws;
	argv[n++] = RUNNER_WORKSPACE;
	if (exe != NULL) {
		argv[n++] = "--ro-bind";
		argv[n++] = exe;
		argv[n++] = RUNNER_EXECUTOR;
	}
	/* The root bwrap builds is a tmpfs: nothing is written beside the mounts. */
	argv[n++] = "--remount-ro";
	argv[n++] = "/";
	argv[n++] = "--chdir";
	argv[n++] = RUNNER_WORKSPACE;
	for (i = 0; i < nenv; i++) {
		if ((name = strdup(envp[i])) == NULL)
			return NULL;
		name[strcspn(name, "=")] = '\0';
		argv[n++] = "--setenv";
		argv[n++] = name;
		argv[n++] = strchr(envp[i], '=') != NULL ? strchr(envp[i], '=') + 1 : "";
	}
	argv[n++] = "--";
	if (exe != NULL) {
		argv[n++] = RUNNER_EXECUTOR;
		argv[n++] = "runner-exec";
		for (i = 0; i < 4; i++)
			argv[n++] = lims[i];
	} else {
		argv[n++] = "/bin/sh";
		argv[n++] = "-e";
		argv[n++] = "-c";
		argv[n++] = run;
	}
	argv[n] = NULL;
	return (char **)(void *)argv;
}

/* Sets a limit, 0 leaving it as it is; above a non-root runner's own hard limit that one stays. */
static void
limit(int resource, unsigned long long v)
{
	struct rlimit	 rl;

	if (v == 0)
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	setrlimit(resource, &rl);
}

/*
 * In the step's process: bwrap's arguments, the rlimits, then (sandboxed,
 * as root) nobody's identity, then bwrap or the shell.  Returns only when
 * the exec failed.  Nothing allocates after the rlimits: under the
 * address-space limit a process whose mappings are already large (an
 * AddressSanitizer build) could not, and as nobody it could not even say
 * why.
 */
static void
sandbox_exec(const struct config *cfg, const char *ws, const char *run, char *const *envp,
    const char *exe)
{
	static char	*none[] = { NULL };
	static char	 lims[4][24];
	char		**argv = NULL;

	/*
	 * bwrap runs outside the sandbox: with the job's environment a
	 * workflow's env (LD_PRELOAD) would run its code there.  It gets none;
	 * the step gets the job's through --setenv.  The child only execs or
	 * exits, so nothing is freed.
	 */
	/* the executor sets a job's limits on each step, not on itself and bwrap */
	snprintf(lims[0], sizeof lims[0], "%llu", (unsigned long long)cfg->runner_limit_cpu);
	snprintf(lims[1], sizeof lims[1], "%llu", (unsigned long long)cfg->runner_limit_memory);
	snprintf(lims[2], sizeof lims[2], "%llu",
	    (unsigned long long)cfg->runner_limit_processes);
	snprintf(lims[3], sizeof lims[3], "%llu",
	    (unsigned long long)cfg->runner_limit_file_size);
	if (!cfg->runner_sandbox_none && (cfg->runner_bwrap[0] != '/' ||
	    (argv = sandbox_argv(ws, run, envp, exe, lims)) == NULL))
		return;
	if (exe == NULL) {
		limit(RLIMIT_CPU, cfg->runner_limit_cpu);
		limit(RLIMIT_AS, cfg->runner_limit_memory);
		limit(RLIMIT_NPROC, cfg->runner_limit_processes);
		limit(RLIMIT_FSIZE, cfg->runner_limit_file_size);
	}
	if (cfg->runner_sandbox_none) {
		execle("/bin/sh", "sh", "-e", "-c", run, (char *)NULL, envp);
		return;
	}
	/*
	 * Root's processes are exempt from RLIMIT_NPROC and would be root
	 * outside the user namespace: the sandbox is entered as nobody.
	 */
	if (drops_uid() && (setgroups(0, NULL) != 0 || setgid((gid_t)cfg->runner_uid) != 0 ||
	    setuid((uid_t)cfg->runner_uid) != 0))
		return;
	execve(cfg->runner_bwrap, argv, none);
}

void
runner_sandbox_exec(const struct config *cfg, const char *ws, const char *run,
    char *const *envp)
{
	sandbox_exec(cfg, ws, run, envp, NULL);
}

void
runner_sandbox_executor(const struct config *cfg, const char *ws, const char *exe)
{
	sandbox_exec(cfg, ws, NULL, NULL, exe);
}

/* The owner chown_one gives a workspace's files (nftw passes no argument). */
static uid_t	chown_uid;

static int
chown_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, chown_uid, (gid_t)chown_uid) != 0 ? -1 : 0;
}

/* The first line of what the probe wrote, without bwrap's "bwrap: " prefix. */
static void
first_line(char *buf, size_t n, char *why, size_t whysize)
{
	char	*p = buf;

	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(p, "bwrap: ", 7) == 0)
		p += 7;
	snprintf(why, whysize, "%s", p[0] != '\0' ? p : "it failed without a message");
}

/* Runs `true` in the sandbox of workspace ws; 0 when it could, else why says what happened. */
static int
probe(const struct config *cfg, const char *ws, char *why, size_t whysize)
{
	static char		 path[] = "PATH=/usr/bin:/bin";
	char			*envp[] = { path, NULL }, buf[512];
	size_t			 n = 0;
	ssize_t			 r;
	pid_t			 pid;
	int			 fds[2], status, in;

	if (pipe(fds) != 0) {
		snprintf(why, whysize, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		snprintf(why, whysize, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		if ((in = open("/dev/null", O_RDONLY)) >= 0)
			dup2(in, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		runner_sandbox_exec(cfg, ws, "true", envp);
		dprintf(2, "cannot execute %s: %s\n", cfg->runner_bwrap, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (n < sizeof buf - 1 && ((r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0 ||
	    (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	first_line(buf, n, why, whysize);
	return -1;
}

int
runner_sandbox_prepare(const struct config *cfg, const char *ws, char *why, size_t whysize)
{
	if (cfg->runner_sandbox_none)
		return 0;
	/* A relative path would be looked up in the workspace, which the workflow wrote. */
	if (cfg->runner_bwrap[0] != '/') {
		snprintf(why, whysize, "runner_bwrap must be an absolute path, not '%s'",
		    cfg->runner_bwrap);
		return -1;
	}
	chown_uid = (uid_t)cfg->runner_uid;
	if (drops_uid() && nftw(ws, chown_one, 16, FTW_PHYS) != 0) {
		snprintf(why, whysize, "cannot give the workspace to uid %u: %s", cfg->runner_uid,
		    strerror(errno));
		return -1;
	}
	return probe(cfg, ws, why, whysize);
}
