/* stdio: the MCP stdio transport: one JSON-RPC message per line in, one per line out. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core.h"
#include "err.h"
#include "log.h"
#include "toolset.h"

static void
stdio_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp stdio [--token-file FILE] [--toolsets LIST] [--read-only]\n"
	    "\n"
	    "Serves MCP over stdin/stdout: newline-delimited JSON-RPC, both protocol eras.\n"
	    "The token comes from FORGEMCP_TOKEN or from FILE (one line, not readable by\n"
	    "other users); never from the command line, which every user can read in the\n"
	    "process list. It is checked on every message, so a revoked token stops\n"
	    "working at once. Logs go to stderr.\n"
	    "\n"
	    "  --toolsets LIST  serve only these toolsets (comma-separated: repos, issues,\n"
	    "                   pull_requests, notifications, users, search, ci; default,\n"
	    "                   all)\n"
	    "  --read-only      serve only the tools that change nothing\n");
}

#define STDIO_TOKEN_FILE_MAX	1024	/* far above any token */

int
cli_token_file(char **out, const char *path)
{
	struct stat	 st;
	char		 buf[STDIO_TOKEN_FILE_MAX + 1];
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd = -1, rc = 1;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		cli_fail("token file '%s': %s", path, strerror(errno));
		goto done;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		cli_fail("token file '%s': not a regular file", path);
		goto done;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		cli_fail("token file '%s': other users can read or write it; "
		    "chmod o-rw (or 600) it", path);
		goto done;
	}
	while (len < sizeof(buf) &&
	    (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_fail("token file '%s': %s", path, strerror(errno));
			goto done;
		}
		len += (size_t)n;
	}
	if (len > STDIO_TOKEN_FILE_MAX) {
		cli_fail("token file '%s': longer than %d bytes", path, STDIO_TOKEN_FILE_MAX);
		goto done;
	}
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len == 0 || memchr(buf, '\n', len) != NULL || memchr(buf, '\0', len) != NULL) {
		cli_fail("token file '%s': expected the token on one line", path);
		goto done;
	}
	buf[len] = '\0';
	if ((*out = strdup(buf)) == NULL) {
		cli_fail("out of memory");
		goto done;
	}
	rc = 0;
done:
	explicit_bzero(buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	return rc;
}

int
cli_stdio(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "token", optional_argument, NULL, 't' },	/* refused, to say why */
		{ "token-file", required_argument, NULL, 'f' },
		{ "toolsets", required_argument, NULL, 's' },
		{ "read-only", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct core		 core;
	struct core_request	 req;
	struct core_response	 resp;
	struct err		 e;
	struct toolset_sel	 sel = TOOLSET_SEL_DEFAULT;
	const char		*file = NULL, *env;
	char			*token = NULL, *line = NULL, why[240];
	size_t			 cap = 0;
	ssize_t			 n;
	int			 c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:rh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			return cli_usage("--token is refused: a token on the command line is shown "
			    "to every user of this host in the process list; set FORGEMCP_TOKEN "
			    "or use --token-file FILE");
		case 'f':
			file = optarg;
			break;
		case 's':
			if (toolset_parse(&sel, optarg, strlen(optarg), why, sizeof why) != 0)
				return cli_usage("--toolsets: %s", why);
			break;
		case 'r':
			sel.read_only = 1;
			break;
		case 'h':
			stdio_usage(stdout);
			return 0;
		default:
			return cli_usage("unknown option for stdio");
		}
	}
	if (optind < argc)
		return cli_usage("unexpected argument '%s'", argv[optind]);
	if (file != NULL) {
		if (cli_token_file(&token, file) != 0)
			return 1;
	} else if ((env = getenv("FORGEMCP_TOKEN")) != NULL && *env != '\0') {
		if ((token = strdup(env)) == NULL)
			return cli_fail("out of memory");
	} else
		return cli_fail("no token: set FORGEMCP_TOKEN or use --token-file FILE");
	/* nothing this process starts needs it */
	unsetenv("FORGEMCP_TOKEN");
	err_clear(&e);
	if (config_check_server(&cli->cfg, &e) != 0 || core_init(&core, &cli->cfg, &e) != 0) {
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	if ((rc = core_check_ready(&core, &e)) != 0 && rc != ERR_UNAVAILABLE) {
		core_release(&core);
		rc = cli_fail("%s", e.msg);
		goto done;
	}
	log_info("serving MCP on stdio");
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if ((size_t)n > cli->cfg.max_body) {
			/* The same cap as HTTP: a line this long is refused unread. */
			printf("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
			    "\"message\":\"Request too large: the limit is %zu bytes\"}}\n",
			    cli->cfg.max_body);
			fflush(stdout);
			continue;
		}
		memset(&req, 0, sizeof(req));
		req.transport = CORE_STDIO;
		req.body = line;
		req.body_len = (size_t)n;
		req.stdio_token = token;
		req.toolsets = &sel;
		core_handle(&core, &req, &resp);
		/* Notifications and responses get no reply on stdio. */
		if (resp.body_len > 0 && resp.status != 202) {
			fwrite(resp.body, 1, resp.body_len, stdout);
			fflush(stdout);
		}
		core_response_release(&resp);
		core_idle(&core);
	}
	core_release(&core);
	rc = 0;
done:
	free(line);
	explicit_bzero(token, strlen(token));
	free(token);
	return rc;
}
