/* master: the FastCGI front's process: the listening socket (its own or inherited), pre-forked workers, CGI detection, options. */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcgiapp.h>

#include "conf.h"
#include "core.h"
#include "err.h"
#include "fair.h"
#include "front.h"
#include "front-int.h"
#include "log.h"

extern char **environ;

/* The inherited listening socket: systemd's LISTEN_FDS (fd 3), else fd 0. */
static int
front_inherited_socket(void)
{
	const char	*fds = getenv("LISTEN_FDS"), *pid = getenv("LISTEN_PID");

	if (fds != NULL && atoi(fds) >= 1 && (pid == NULL || atol(pid) == (long)getpid())) {
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDNAMES");
		return 3;
	}
	return 0;
}

int
front_detect(void)
{
	const char	*fds = getenv("LISTEN_FDS");

	if (fds != NULL && atoi(fds) >= 1)
		return 1;
	return !FCGX_IsCGI() || getenv("GATEWAY_INTERFACE") != NULL;
}

int
front_is_cgi(void)
{
	const char	*fds = getenv("LISTEN_FDS");

	return (fds == NULL || atoi(fds) < 1) && FCGX_IsCGI() &&
	    getenv("GATEWAY_INTERFACE") != NULL;
}

int
front_refuse(const char *why)
{
	if (front_is_cgi())
		return front_cgi_refuse(why);
	return front_fcgi_refuse(front_inherited_socket(), why);
}

/* Starts the worker of slot in fair; returns its pid or -1. */
static pid_t
front_spawn(const struct config *cfg, int sock, struct fair *fair, int slot)
{
	struct core	core;
	struct err	e;
	pid_t		pid;
	int		rc;

	if ((pid = fork()) != 0)
		return pid;
	signal(SIGCHLD, SIG_DFL);
	err_clear(&e);
	if (core_init(&core, cfg, &e) != 0) {
		log_error("worker cannot start: %s", e.msg);
		_exit(3);
	}
	core.fair = fair;
	core.slot = slot;
	rc = front_worker(&core, cfg, sock);
	core_release(&core);
	_exit(rc);
}

static volatile sig_atomic_t	master_term;

static void
master_on_term(int sig)
{
	(void)sig;
	master_term = 1;
}

/*
 * FCGX_Init takes SIGTERM and SIGUSR1 for libfcgi, whose handler only marks
 * a shutdown that every later accept() obeys at once: a SIGTERM before the
 * master's own handler was in place was swallowed, and every worker forked
 * after it inherited the mark, failed its first accept() and was started
 * again, without end.  So the signals are blocked around FCGX_Init and the
 * master's handler (master_on_term, which front_master obeys) takes SIGTERM
 * and SIGINT back, and SIGUSR1 is ignored, before they are let in.  Returns
 * FCGX_Init's result.
 */
static int
front_init_fcgi(void)
{
	struct sigaction	 sa;
	sigset_t		 set, old;
	int			 rc;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	rc = FCGX_Init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = master_on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Pre-forks n workers on sock and keeps n running until SIGTERM. */
static int
front_master(const struct config *cfg, int sock, int n)
{
	pid_t			 pids[FRONT_MAX_WORKERS], pid;
	struct fair		*fair = NULL;
	sigset_t		 set, old;
	time_t			 last_fail = 0;
	int			 i, status, alive, limit, fails = 0;

	/* One account may hold account_concurrency workers: by default half of them. */
	limit = cfg->account_concurrency != 0 ? (int)cfg->account_concurrency : n / 2;
	if (limit < 1)
		limit = 1;
	/* A limit of n or more can never refuse: no table, no lock per request. */
	if (limit < n && (fair = fair_new(n, limit)) == NULL) {
		log_error("cannot share the workers' table: %s", strerror(errno));
		return 1;
	}
	/* A SIGTERM during start-up (front_init_fcgi's handler): no worker at all. */
	if (master_term) {
		fair_free(fair);
		log_info("stopped before serving");
		return 0;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	for (i = 0; i < n; i++) {
		/* Block SIGTERM across fork so a child installs its own handler first. */
		sigprocmask(SIG_BLOCK, &set, &old);
		pids[i] = front_spawn(cfg, sock, fair, i);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (fair != NULL)
		log_info("serving with %d workers, at most %d per account", n, limit);
	else
		log_info("serving with %d workers", n);
	while (!master_term) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			if (pids[i] != pid)
				continue;
			if (WIFSIGNALED(status))
				log_error("worker %ld died on signal %d; starting another", (long)pid,
				    WTERMSIG(status));
			else
				log_warn("worker %ld exited with status %d; starting another",
				    (long)pid, WEXITSTATUS(status));
			if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
				/* Failures at start-up or accept() repeat: give up rather than spin. */
				if (time(NULL) - last_fail < 2 && ++fails >= 5) {
					log_error("workers keep failing at start-up; stopping");
					master_term = 1;
					break;
				}
				last_fail = time(NULL);
			}
			fair_leave(fair, i);
			if (master_term)
				break;
			sigprocmask(SIG_BLOCK, &set, &old);
			pids[i] = front_spawn(cfg, sock, fair, i);
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	}
	/* Let in-flight requests finish: workers leave after their current one. */
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	for (alive = n; alive > 0;) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		alive--;
	}
	fair_free(fair);
	log_info("stopped");
	return fails >= 5 ? 1 : 0;
}

/* A unix socket bound at path (an existing file there removed first); -1 with errno. */
static int
front_bind_unix(const char *path, int backlog)
{
	struct sockaddr_un	 sun;
	int			 fd, save;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 || listen(fd, backlog) != 0) {
		save = errno;
		close(fd);
		errno = save;
		return -1;
	}
	return fd;
}

/*
 * A TCP socket bound at host:port, as libfcgi reads it: an empty host is
 * every IPv4 address, a name is looked up for IPv4, an address with colons
 * (in brackets or not) is IPv6.  -1 with the reason in why.
 */
static int
front_bind_tcp(const char *addr, int backlog, char *why, size_t len)
{
	struct addrinfo	 hints, *res = NULL;
	const char	*colon = strrchr(addr, ':');
	char		 host[256];
	size_t		 n;
	int		 fd = -1, on = 1, rc;

	if (colon == NULL || colon[1] == '\0' || (n = (size_t)(colon - addr)) >= sizeof(host)) {
		snprintf(why, len, "not a unix socket path or HOST:PORT");
		return -1;
	}
	memcpy(host, addr, n);
	host[n] = '\0';
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = '\0';
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = strchr(host, ':') != NULL ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((rc = getaddrinfo(host[0] != '\0' ? host : NULL, colon + 1, &hints, &res)) != 0) {
		snprintf(why, len, "%s", gai_strerror(rc));
		return -1;
	}
	if ((fd = socket(res->ai_family, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
		snprintf(why, len, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * The socket --listen names, bound and listening, with mode for a unix
 * socket; -1 after saying on stderr "cannot listen on ADDR: REASON", with
 * what to do when the socket's directory is missing or closed to us.
 */
static int
front_listen_on(const char *addr, int backlog, long mode)
{
	char	 why[256], dir[4096];
	int	 fd, save;

	if (addr[0] != '/') {
		if ((fd = front_bind_tcp(addr, backlog, why, sizeof(why))) < 0)
			fprintf(stderr, "forgemcp: cannot listen on %s: %s\n", addr, why);
		return fd;
	}
	if ((fd = front_bind_unix(addr, backlog)) >= 0) {
		chmod(addr, (mode_t)mode);
		return fd;
	}
	save = errno;
	snprintf(dir, sizeof(dir), "%s", addr);
	if (save == ENOENT)
		fprintf(stderr, "forgemcp: cannot listen on %s: %s (create the directory %s, "
		    "writable by the user forgemcp runs as)\n", addr, strerror(save), dirname(dir));
	else if (save == EACCES)
		fprintf(stderr, "forgemcp: cannot listen on %s: %s (the user forgemcp runs as "
		    "must be able to write in %s)\n", addr, strerror(save), dirname(dir));
	else
		fprintf(stderr, "forgemcp: cannot listen on %s: %s\n", addr, strerror(save));
	return -1;
}

static void
front_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp fcgi [--listen PATH|HOST:PORT] [--workers N] [--socket-mode M]\n"
	    "\n"
	    "Serves the MCP endpoint as a FastCGI responder.\n"
	    "  --listen ADDR   bind a unix socket PATH or a TCP HOST:PORT (e.g. 127.0.0.1:9000)\n"
	    "                  instead of using the inherited socket (spawn-fcgi, systemd\n"
	    "                  socket activation, Apache mod_fcgid)\n"
	    "  --workers N     pre-fork N single-threaded workers and replace any that die\n"
	    "                  (default 1 with --listen; with an inherited socket the default\n"
	    "                  is to serve in this process)\n"
	    "  --backlog N     listen backlog (default 128)\n"
	    "  --socket-mode M permissions of a unix socket, octal (default 0660); the\n"
	    "                  web server's user must be able to connect\n"
	    "SIGTERM lets in-flight requests finish, then exits.\n"
	    "Run with no arguments as CGI (GATEWAY_INTERFACE set) it serves one request.\n");
}

int
front_main(const struct config *cfg, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "workers", required_argument, NULL, 'w' },
		{ "backlog", required_argument, NULL, 'b' },
		{ "socket-mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct core	 core;
	struct err	 e;
	const char	*listen_addr = NULL;
	char		*end;
	long		 mode = 0660;
	int		 c, workers = 0, backlog = 128, sock, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "l:w:b:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'w':
			workers = atoi(optarg);
			if (workers < 1 || workers > FRONT_MAX_WORKERS) {
				fprintf(stderr, "forgemcp: --workers must be between 1 and %d\n",
				    FRONT_MAX_WORKERS);
				return 2;
			}
			break;
		case 'b':
			backlog = atoi(optarg);
			if (backlog < 1) {
				fprintf(stderr, "forgemcp: --backlog must be positive\n");
				return 2;
			}
			break;
		case 'm':
			mode = strtol(optarg, &end, 8);
			if (*optarg == '\0' || *end != '\0' || mode < 0 || mode > 0777) {
				fprintf(stderr, "forgemcp: --socket-mode must be octal, e.g. 0660\n");
				return 2;
			}
			break;
		case 'h':
			front_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "forgemcp: unknown option; see 'forgemcp fcgi --help'\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "forgemcp: unexpected argument '%s'; see 'forgemcp fcgi --help'\n",
		    argv[optind]);
		return 2;
	}
	err_clear(&e);
	if (config_check_server(cfg, &e) != 0) {
		if (listen_addr == NULL && front_is_cgi())
			return front_cgi_refuse(e.msg);
		fprintf(stderr, "forgemcp: %s\n", e.msg);
		return 1;
	}
	if (front_init_fcgi() != 0) {
		fprintf(stderr, "forgemcp: cannot initialise libfcgi\n");
		return 1;
	}
	if (listen_addr != NULL) {
		if ((sock = front_listen_on(listen_addr, backlog, mode)) < 0)
			return 1;
		if (workers == 0)
			workers = 1;
	} else if (FCGX_IsCGI() && getenv("LISTEN_FDS") == NULL) {
		/* Plain CGI: one request, then exit; signals do what they would. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		err_clear(&e);
		if (core_init(&core, cfg, &e) != 0)
			return front_cgi_refuse(e.msg);
		if (front_git_ready(&core) != 0)
			return 1;
		rc = front_cgi(&core, cfg);
		core_release(&core);
		return rc;
	} else
		sock = front_inherited_socket();

	/* Refuse a bad configuration or database now, not at the first request. */
	err_clear(&e);
	if (core_init(&core, cfg, &e) != 0) {
		fprintf(stderr, "forgemcp: %s\n", e.msg);
		return 1;
	}
	if ((rc = core_check_ready(&core, &e)) == ERR_UNAVAILABLE && core_db_refused(&core)) {
		log_error("database login refused at start: %s: a configuration error, not an "
		    "outage, that will not pass by itself; answering 503 until it is fixed", e.msg);
	} else if (rc == ERR_UNAVAILABLE) {
		log_warn("database unavailable at start (%s); serving 503 until it is back", e.msg);
	} else if (rc != 0) {
		fprintf(stderr, "forgemcp: %s\n", e.msg);
		core_release(&core);
		return 1;
	} else
		core_hub_started(&core);
	/* libgit2's set-up ran on a thread meanwhile (main); it ends before any fork. */
	if (front_git_ready(&core) != 0)
		return 1;
	if (workers == 0) {
		rc = front_worker(&core, cfg, sock);
		core_release(&core);
		return rc;
	}
	core_release(&core);
	return front_master(cfg, sock, workers);
}
