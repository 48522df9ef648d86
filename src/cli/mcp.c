/* mcp: `forgemcp mcp MODULE [--project LABEL]`, a hub module's stdio MCP server. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hub/texts.h"
#include "log.h"
#include "sdlc/sdlc.h"

static void
mcp_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp mcp MODULE [--project LABEL]\n"
	    "\n"
	    "Serves the MCP server of an sdlc hub module over stdin/stdout (newline-delimited\n"
	    "JSON-RPC): jira (the tracker mirror, serverInfo sdlc-jira) or wiki (the copy of a\n"
	    "project's wiki, serverInfo sdlc-wiki).  Each tool is a client of the hub API at\n"
	    "hub_url (default <base_url>/hub) with the token hub_token (or FORGEMCP_HUB_TOKEN,\n"
	    "FORGEMCP_TOKEN); never put the token in .mcp.json.  Logs go to stderr.\n"
	    "\n"
	    "  --project LABEL  bind the session to a project of the hub; without it only\n"
	    "                   the tools that need no project work\n");
}

int
cli_hub_client(const struct cli *cli, struct hub_client *hub, char **url)
{
	memset(hub, 0, sizeof *hub);
	*url = NULL;
	if (cli->cfg.hub_url != NULL)
		hub->url = cli->cfg.hub_url;
	else if (asprintf(url, "%s/hub", cli->cfg.base_url) >= 0)
		hub->url = *url;
	else
		return -1;
	hub->token = cli->cfg.hub_token;
	hub->timeout = (long)cli->cfg.request_timeout + 5;
	return 0;
}

/* Exit 2 with the specification's text and the list of modules. */
static int
mcp_no_module(const char *name)
{
	char	msg[400];

	if (name == NULL)
		hub_textf(msg, sizeof msg, HT_NO_MODULE);
	else
		hub_textf(msg, sizeof msg, HT_UNKNOWN_MODULE, name);
	fprintf(stderr, "%s\n", msg);
	fprintf(stderr, "%s\n", hub_text(HT_MODULES));
	return 2;
}

int
cli_mcp(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hub_client	 hub;
	const char		*project = NULL, *module;
	char			*url = NULL;
	int			 c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			project = optarg;
			break;
		case 'h':
			mcp_usage(stdout);
			return 0;
		default:
			return cli_usage("mcp: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (optind >= argc)
		return mcp_no_module(NULL);
	module = argv[optind];
	if (optind + 1 < argc)
		return cli_usage("mcp: one module, not '%s' after '%s'", argv[optind + 1], module);
	if (strcmp(module, "jira") != 0 && strcmp(module, "wiki") != 0)
		return mcp_no_module(module);
	if (project != NULL && project[0] == '\0')
		return cli_usage("mcp: --project takes a project label");
	if (cli_hub_client(cli, &hub, &url) != 0)
		return cli_fail("out of memory");
	if (hub.token == NULL)
		log_warn("mcp: no hub_token (or FORGEMCP_HUB_TOKEN): the hub will refuse every tool");
	if (hub_client_init() != 0) {
		free(url);
		return 1;
	}
	rc = sdlc_serve(strcmp(module, "wiki") == 0 ? &sdlc_wiki : &sdlc_jira, &hub, project);
	hub_client_shutdown();
	free(url);
	return rc;
}
