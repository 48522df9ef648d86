/* stdio: the MCP stdio transport: one JSON-RPC message per line in, one per line out. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core.h"
#include "err.h"
#include "log.h"
#include "toolset.h"

static void
stdio_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp stdio [--token TOKEN] [--toolsets LIST] [--read-only]\n"
	    "\n"
	    "Serves MCP over stdin/stdout: newline-delimited JSON-RPC, both protocol eras.\n"
	    "The token comes from --token or FORGEMCP_TOKEN; it is checked on every\n"
	    "message, so a revoked token stops working at once. Logs go to stderr.\n"
	    "\n"
	    "  --toolsets LIST  serve only these toolsets (comma-separated: repos, issues,\n"
	    "                   pull_requests, notifications, users, search; default, all)\n"
	    "  --read-only      serve only the tools that change nothing\n");
}

int
cli_stdio(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "token", required_argument, NULL, 't' },
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
	const char		*token = getenv("FORGEMCP_TOKEN");
	char			 why[240];
	char			*line = NULL;
	size_t			 cap = 0;
	ssize_t			 n;
	int			 c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:rh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			token = optarg;
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
	if (token == NULL || *token == '\0')
		return cli_fail("no token: pass --token TOKEN or set FORGEMCP_TOKEN");
	err_clear(&e);
	if (config_check_server(&cli->cfg, &e) != 0 || core_init(&core, &cli->cfg, &e) != 0)
		return cli_fail("%s", e.msg);
	if ((rc = core_check_ready(&core, &e)) != 0 && rc != ERR_UNAVAILABLE) {
		core_release(&core);
		return cli_fail("%s", e.msg);
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
	free(line);
	core_release(&core);
	return 0;
}
