/*
 * trivial.c: the ceiling of the benchmark.  A FastCGI responder that does
 * the least a JSON-RPC server must do: read the whole request body, then
 * answer one fixed JSON-RPC result.  t/perf/bench.sh builds it with
 * `cc -O2 trivial.c -lfcgi` and runs it behind the same nginx as forgemcp.
 *
 *   trivial SOCKET [WORKERS]   listen on a unix socket, pre-fork WORKERS (2)
 *
 * Licensed under the ISC license, see LICENSE.
 */
#include <fcgiapp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char reply[] =
    "Status: 200 OK\r\n"
    "Content-Type: application/json\r\n"
    "Cache-Control: no-store\r\n"
    "\r\n"
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n";

static pid_t	kids[64];
static int	nkids;

static void
term(int sig)
{
	int	i;

	(void)sig;
	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGTERM);
	_exit(0);
}

static void
serve(int fd)
{
	FCGX_Request	req;
	char		buf[16384];

	FCGX_InitRequest(&req, fd, 0);
	while (FCGX_Accept_r(&req) >= 0) {
		while (FCGX_GetStr(buf, sizeof buf, req.in) > 0)
			;
		FCGX_PutStr(reply, sizeof reply - 1, req.out);
		FCGX_Finish_r(&req);
	}
	_exit(0);
}

int
main(int argc, char **argv)
{
	int	fd, i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: trivial SOCKET [WORKERS]\n");
		return 2;
	}
	n = argc > 2 ? atoi(argv[2]) : 2;
	if (FCGX_Init() != 0 || (fd = FCGX_OpenSocket(argv[1], 128)) < 0) {
		fprintf(stderr, "trivial: cannot listen on %s\n", argv[1]);
		return 1;
	}
	if (n < 1 || n > 64)
		n = 2;
	for (i = 0; i < n; i++) {
		pid_t	pid = fork();

		if (pid == 0)
			serve(fd);
		if (pid > 0)
			kids[nkids++] = pid;
	}
	/* SIGTERM to the parent ends its workers too */
	signal(SIGTERM, term);
	while (wait(NULL) > 0)
		;
	return 0;
}
