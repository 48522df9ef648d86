/* mcp: `forgemcp mcp MODULE [--project LABEL]`, a hub module's stdio MCP server. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	    "hub_url with the token hub_token (or FORGEMCP_HUB_TOKEN, FORGEMCP_TOKEN); never\n"
	    "put the token in .mcp.json.  With no hub_url, the hub is the local one of\n"
	    "`forgemcp serve` when its state directory has one (with its token when none is\n"
	    "given), else <base_url>/hub.  A configuration file the user may not read is\n"
	    "skipped.  Logs go to stderr.\n"
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

/*
 * With no hub_url: the hub of `forgemcp serve` (cli_serve_state), when its
 * state directory names a port, and its token when none is configured and
 * this user may read it.  *url and *token are replaced (the caller frees).
 */
static int
mcp_local_hub(struct hub_client *hub, char **url, char **token)
{
	char	 state[PATH_MAX], path[PATH_MAX + 16], line[16], *end;
	FILE	*f;
	long	 port;

	if (cli_serve_state(state, sizeof state) != 0)
		return 0;
	snprintf(path, sizeof path, "%s/port", state);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	fclose(f);
	port = strtol(line, &end, 10);
	if (end == line || (*end != '\n' && *end != '\0') || port < 1 || port > 65535)
		return 0;
	free(*url);
	if (asprintf(url, "http://127.0.0.1:%ld/hub", port) < 0) {
		*url = NULL;
		cli_fail("out of memory");
		return -1;
	}
	hub->url = *url;
	snprintf(path, sizeof path, "%s/token", state);
	if (hub->token == NULL && access(path, R_OK) == 0) {
		if (cli_token_file(token, path) != 0)
			return -1;
		hub->token = *token;
	}
	log_debug("mcp: the local hub of forgemcp serve in %s: %s", state, hub->url);
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
	char			*url = NULL, *token = NULL, state[PATH_MAX];
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
	if (cli->cfg.hub_url == NULL && mcp_local_hub(&hub, &url, &token) != 0) {
		free(url);
		return 1;
	}
	if (hub.token == NULL)
		log_warn("mcp: no hub_token (or FORGEMCP_HUB_TOKEN): the hub will refuse every tool");
	if (hub_client_init() != 0) {
		free(url);
		free(token);
		return 1;
	}
	rc = sdlc_serve(strcmp(module, "wiki") == 0 ? &sdlc_wiki : &sdlc_jira, &hub, project,
	    cli_serve_state(state, sizeof state) == 0 ? state : NULL);
	hub_client_shutdown();
	free(url);
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	return rc;
}
