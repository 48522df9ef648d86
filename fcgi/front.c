/* front: answering requests: the FastCGI worker loop and plain CGI (the master is in master.c). */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fastcgi.h>
#include <fcgiapp.h>

#include "budget.h"
#include "conf.h"
#include "core.h"
#include "err.h"
#include "front.h"
#include "front-int.h"
#include "log.h"

#define FRONT_IDLE_MS		1000	/* idle time after which a worker gives back what it holds */

extern char **environ;

static volatile sig_atomic_t	front_stop;	/* SIGTERM/SIGINT seen */
static int			front_listen = -1;	/* the worker's listening socket */
static int			front_null = -1;	/* /dev/null, to put in its place */

/* Reads the body per CONTENT_LENGTH, not past the cap; fills the request fields. */
typedef int (*front_read_fn)(void *arg, char *buf, size_t n);

static char *
front_body(struct core_request *req, const struct config *cfg, const char *clen,
    front_read_fn rd, void *arg)
{
	char		*body = NULL, *end;
	unsigned long	 want;
	size_t		 got = 0;
	int		 n;

	req->body = NULL;
	req->body_len = 0;
	if (clen == NULL || *clen == '\0')
		want = 0;
	else {
		errno = 0;
		want = strtoul(clen, &end, 10);
		if (errno != 0 || *end != '\0' || clen[0] == '-') {
			req->body_short = 1;
			return NULL;
		}
	}
	if (want > cfg->max_body) {
		req->body_unread = 1;
		req->body_len = want;
		return NULL;
	}
	if ((body = malloc(want + 1)) == NULL)
		return NULL;
	while (got < want) {
		n = rd(arg, body + got, want - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < want)
		req->body_short = 1;
	body[got] = '\0';
	req->body = body;
	req->body_len = got;
	return body;
}

static int
front_fcgx_read(void *arg, char *buf, size_t n)
{
	return FCGX_GetStr(buf, (int)(n > 65536 ? 65536 : n), (FCGX_Stream *)arg);
}

/*
 * Reads the stdin stream past the body to its end, the empty record the web
 * server sends last.  Apache's mod_proxy_fcgi may still be writing that
 * record when a quick answer is out; a connection closed before it arrives
 * fails Apache's write and Apache answers 503 instead of ours.  Returns 0
 * at the end of the stream, -1 on an error or if more than a few KiB
 * follow the body (then libfcgi's lingering close takes them).
 */
static int
front_stdin_end(FCGX_Stream *in)
{
	char	 buf[4096];
	int	 i, n;

	for (i = 0; i < 4; i++) {
		n = FCGX_GetStr(buf, (int)sizeof(buf), in);
		if (n == 0)
			return FCGX_GetError(in) == 0 ? 0 : -1;
		if (n < 0)
			return -1;
	}
	return -1;
}

static int
front_stdin_read(void *arg, char *buf, size_t n)
{
	ssize_t	r;

	(void)arg;
	do
		r = read(STDIN_FILENO, buf, n);
	while (r < 0 && errno == EINTR);
	return (int)r;
}

/*
 * Whether the web server hung up the request's connection (arg: the
 * FCGX_Request), which it does when its client hangs up: nginx's default
 * (fastcgi_ignore_client_abort off).  A hang-up or an error says so, and
 * so does the end of the stream; bytes the web server sent that libfcgi has
 * not read yet (the empty record that ends stdin) are only peeked at, never
 * taken, and mean it is still there.  POLLRDHUP is taken as a hang-up too:
 * the end of the request is a record, not a shutdown, and the web servers
 * in front (nginx, Apache) keep their sending side open while they wait for
 * the answer.  The budget asks this now and then while the request runs.
 */
static int
front_gone(void *arg)
{
	FCGX_Request	*fr = arg;
	struct pollfd	 pfd = { .fd = fr->ipcFd, .events = POLLIN | POLLRDHUP };
	char		 c;

	if (fr->ipcFd < 0 || poll(&pfd, 1, 0) <= 0)
		return 0;
	if (pfd.revents & (POLLHUP | POLLERR | POLLRDHUP))
		return 1;
	if (pfd.revents & POLLIN)
		return recv(fr->ipcFd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
	return 0;
}

/*
 * Sends resp on fr, then reads stdin to its end if it can.  With stdin read
 * to its end nothing is left unread on the connection, so a plain close()
 * loses nothing: detaching skips libfcgi's lingering close (shutdown, then
 * up to 2 s waiting for the web server to hang up) that would hold this
 * worker idle.
 */
static void
front_answer(FCGX_Request *fr, const struct core_request *req,
    const struct core_response *resp)
{
	char	 head[4096];
	int	 n;

	if ((n = front_head(head, sizeof(head), resp)) > 0 &&
	    front_send(fr, head, (size_t)n, resp->body, resp->body_len) != 0) {
		FCGX_PutStr(head, n, fr->out);
		if (resp->body_len > 0)
			FCGX_PutStr(resp->body, (int)resp->body_len, fr->out);
	}
	if (!req->body_unread && !req->body_short && front_stdin_end(fr->in) == 0)
		FCGX_Detach(fr);
}

/*
 * The web server hung up (front_gone): nothing is written, not even the
 * end of the request, and the connection is closed at once.
 */
static void
front_drop(FCGX_Request *fr)
{
	fr->out->wasFCloseCalled = 1;
	fr->err->wasFCloseCalled = 1;
	fr->keepConnection = 0;
	FCGX_Detach(fr);
}

static void
front_on_term(int sig)
{
	(void)sig;
	front_stop = 1;
	/*
	 * SIGTERM is let through only while the worker waits for a
	 * connection (front_next), so this runs between requests.  /dev/null
	 * takes the listening socket's place: an accept() waiting ends (with a
	 * receive timeout it is not restarted: EINTR), one about to start
	 * fails on the new file, and the loop ends; a connection accept()
	 * already returned is served first.
	 */
	if (front_null >= 0 && front_listen >= 0)
		dup2(front_null, front_listen);
	else
		_exit(0);	/* no /dev/null: nothing taken yet, nothing to finish */
}

/* Whether the peer of a TCP connection is in FCGI_WEB_SERVER_ADDRS (when set). */
static int
front_peer_ok(const struct sockaddr_storage *ss, const char *allowed)
{
	char		 addr[INET6_ADDRSTRLEN];
	const void	*a;
	const char	*p;
	size_t		 n;

	if (allowed == NULL || *allowed == '\0')
		return 1;
	if (ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)ss)->sin_addr;
	else
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (inet_ntop(ss->ss_family, a, addr, sizeof(addr)) == NULL)
		return 0;
	n = strlen(addr);
	for (p = allowed; *p != '\0'; p += strcspn(p, ",")) {
		p += strspn(p, ", ");
		if (strncmp(p, addr, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
			return 1;
	}
	return 0;
}

#define FRONT_FIRST_MS	2000	/* a new connection's first bytes are awaited this long */
#define FRONT_LOOK_MS	250	/* a worker waiting in accept looks at the time this often */

/*
 * Takes the next connection into fr with SIGTERM held, and lets SIGTERM
 * (and SIGINT) through only while it waits: waiting is the signal mask
 * with them let through.  libfcgi's own accept cannot be used: it waits up to
 * 2 s for a unix-socket connection's first bytes, and a signal in that
 * wait makes it close the connection, which nginx answers with 502.  So
 * the worker accepts here and gives libfcgi the connection (fr's
 * listening socket is /dev/null, which libfcgi never accepts on).  A
 * connection the web server keeps open (FCGI_KEEP_CONN) is waited on the
 * same way, up to idle (NULL: no limit).  A blocking accept wakes one
 * worker per connection, where a poll would wake them all; the socket's
 * receive timeout (FRONT_LOOK_MS, front_worker) ends it now and then so
 * the worker can look at the time.  Returns 1 with fr->ipcFd set, 0 to
 * look again, 2 when the wait ended with nothing to take, -1 to stop (an
 * error is logged).
 */
static int
front_next(FCGX_Request *fr, int sock, const sigset_t *waiting, const struct timespec *idle)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);
	struct pollfd		 pfd = { .events = POLLIN };
	sigset_t		 held;
	int			 fd, one = 1, err, n;

	if (fr->ipcFd >= 0) {
		pfd.fd = fr->ipcFd;
		if ((n = ppoll(&pfd, 1, idle, waiting)) <= 0)
			return front_stop ? -1 : n == 0 ? 2 : 0;
		return 1;
	}
	sigprocmask(SIG_SETMASK, waiting, &held);
	fd = accept4(sock, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
	err = errno;
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (fd < 0) {
		if (front_stop)
			return -1;
		if (err == EAGAIN || err == EWOULDBLOCK)
			return 2;
		/* a connection that failed before it was taken (accept(2)) */
		if (err == EINTR || err == ECONNABORTED || err == EPROTO ||
		    err == ECONNRESET || err == ETIMEDOUT || err == ENETDOWN ||
		    err == ENETUNREACH || err == EHOSTDOWN || err == EHOSTUNREACH ||
		    err == ENOPROTOOPT || err == ENONET || err == EOPNOTSUPP)
			return 0;
		log_error("FastCGI accept failed: %s", strerror(err));
		return -1;
	}
	if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!front_peer_ok(&ss, getenv("FCGI_WEB_SERVER_ADDRS"))) {
			close(fd);
			return 0;
		}
	}
	pfd.fd = fd;
	if (poll(&pfd, 1, FRONT_FIRST_MS) != 1 || !(pfd.revents & POLLIN)) {
		close(fd);
		return 0;
	}
	fr->ipcFd = fd;
	return 1;
}

int
front_worker(struct core *core, const struct config *cfg, int sock)
{
	FCGX_Request		 fr;
	struct core_request	 req;
	struct core_response	 resp;
	struct sigaction	 sa;
	sigset_t		 set, waiting;
	char			*body;
	struct timespec		 idle;
	struct timeval		 look = { 0, FRONT_LOOK_MS * 1000L };
	int64_t			 rest_at = 0;
	int			 status = 0, rc;

	front_listen = sock;
	front_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = front_on_term;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The master blocks SIGTERM across fork(), and the worker keeps it
	 * blocked but while it waits for a connection (front_next): a request
	 * taken is answered before the worker leaves.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &waiting);
	sigdelset(&waiting, SIGTERM);
	sigdelset(&waiting, SIGINT);
	if (FCGX_InitRequest(&fr, front_null, 0) != 0) {
		log_error("cannot set up the FastCGI request");
		return 1;
	}
	/* without it an idle worker keeps what it holds until its next request */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &look, sizeof(look)) != 0)
		log_warn("cannot set the FastCGI socket's receive timeout: %s", strerror(errno));
	while (!front_stop) {
		/*
		 * Left large by a request, or holding requests of an
		 * account's block: once no request came for FRONT_IDLE_MS
		 * (rest_at), give them back.  A request that comes first, on
		 * a new connection or a kept one, is served first (its own
		 * core_idle decides again).
		 */
		if (rest_at != 0) {
			int64_t	 left = rest_at - budget_now_ms();

			if (left <= 0) {
				core_rest(core);
				rest_at = 0;
				continue;
			}
			idle.tv_sec = left / 1000;
			idle.tv_nsec = (left % 1000) * 1000000L;
		}
		if ((rc = front_next(&fr, sock, &waiting, rest_at != 0 ? &idle : NULL)) != 1) {
			if (rc < 0) {
				status = front_stop ? 0 : 1;
				break;
			}
			continue;
		}
		/*
		 * libfcgi reads the request on the connection taken; it must
		 * not close that connection before (keepConnection), and it
		 * closes it when the request cannot be read, then fails on
		 * its /dev/null listening socket.
		 */
		fr.keepConnection = 1;
		if (FCGX_Accept_r(&fr) < 0)
			continue;
		memset(&req, 0, sizeof(req));
		req.transport = CORE_HTTP;
		req.env = fr.envp;
		req.client_gone = front_gone;
		req.client_arg = &fr;
		body = front_body(&req, cfg, FCGX_GetParam("CONTENT_LENGTH", fr.envp),
		    front_fcgx_read, fr.in);
		core_handle(core, &req, &resp);
		if (resp.client_gone)
			front_drop(&fr);
		else
			front_answer(&fr, &req, &resp);
		core_response_release(&resp);
		free(body);
		FCGX_Finish_r(&fr);
		rest_at = core_idle(core) ? budget_now_ms() + FRONT_IDLE_MS : 0;
	}
	core_rest(core);	/* the requests it holds go back before it leaves */
	if (fr.ipcFd >= 0)
		FCGX_Free(&fr, 1);
	return status;
}

int
front_git_ready(struct core *core)
{
	if (core_git_ready() == 0)
		return 0;
	fprintf(stderr, "forgemcp: cannot initialise libgit2\n");
	core_release(core);
	return -1;
}

/* Writes a CGI answer (head and body) on stdout, and releases it. */
static void
front_cgi_write(struct core_response *resp)
{
	char	head[4096];
	int	n;

	if ((n = front_head(head, sizeof(head), resp)) > 0) {
		fwrite(head, 1, (size_t)n, stdout);
		if (resp->body_len > 0)
			fwrite(resp->body, 1, resp->body_len, stdout);
	}
	fflush(stdout);
	core_response_release(resp);
}

int
front_cgi(struct core *core, const struct config *cfg)
{
	struct core_request	 req;
	struct core_response	 resp;
	char			*body;

	memset(&req, 0, sizeof(req));
	req.transport = CORE_HTTP;
	req.env = environ;
	body = front_body(&req, cfg, getenv("CONTENT_LENGTH"), front_stdin_read, NULL);
	core_handle(core, &req, &resp);
	front_cgi_write(&resp);
	free(body);
	core_rest(core);	/* a refused batch's requests go back */
	return 0;
}

#define FRONT_DRAIN_MAX	(1UL << 20)	/* body bytes a refused CGI request reads at most */

/* The answer to a request of a server whose configuration cannot be used. */
static void
front_refusal(struct core_response *resp)
{
	core_response_init(resp);
	core_response_header(resp, "Cache-Control", "no-store");
	core_refuse(resp, NULL, NULL, REFUSAL_SERVER_CONFIG);
}

int
front_cgi_refuse(const char *why)
{
	struct core_response	 resp;
	const char		*clen = getenv("CONTENT_LENGTH");
	char			 buf[4096];
	unsigned long		 left = 0;
	int			 n;

	log_error("cannot serve the request: %s", why);
	/*
	 * Read the body the web server is writing (up to a cap), so that its
	 * write does not fail on a program that left: mod_cgi logs that, and
	 * may drop the answer.
	 */
	if (clen != NULL && clen[0] >= '0' && clen[0] <= '9')
		left = strtoul(clen, NULL, 10);
	if (left > FRONT_DRAIN_MAX)
		left = FRONT_DRAIN_MAX;
	while (left > 0 &&
	    (n = front_stdin_read(NULL, buf, left < sizeof(buf) ? left : sizeof(buf))) > 0)
		left -= (unsigned long)n;
	front_refusal(&resp);
	front_cgi_write(&resp);
	return 1;
}

int
front_fcgi_refuse(int sock, const char *why)
{
	FCGX_Request		 fr;
	struct core_request	 req;
	struct core_response	 resp;

	log_error("cannot serve requests: %s; answering each with 503 until the configuration "
	    "is fixed and the process restarted", why);
	/* Nothing in flight is worth finishing: a stop is immediate. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (FCGX_InitRequest(&fr, sock, 0) != 0)
		return 1;
	while (FCGX_Accept_r(&fr) >= 0) {
		log_error("cannot serve the request: %s", why);
		memset(&req, 0, sizeof(req));
		front_refusal(&resp);
		front_answer(&fr, &req, &resp);
		core_response_release(&resp);
		FCGX_Finish_r(&fr);
	}
	return 1;
}
