/* agent: `forgemcp agent`, the process that executes the hub's commands against a backend. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/confluence.h"
#include "sdlc/jira_backend.h"
#include "sdlc/rest.h"

/* seconds a Confluence or Jira backend has to end a command before it is handed out again */
#define AGENT_REMOTE_LEASE	900

static void
agent_usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp agent --module jira --backend local|jira [--once] [--interval SECONDS]\n"
	    "       forgemcp agent --module wiki --backend git|confluence [--once] [--interval SECONDS]\n"
	    "\n"
	    "Executes the commands of the sdlc hub's batches, each batch in order, and\n"
	    "reports each one: a client of the hub API at hub_url with the token hub_token\n"
	    "(it needs the write scope).  Each claim tells the hub its version, and the\n"
	    "launcher that started it when FORGEMCP_AGENT_LAUNCHER names one.  Backends:\n"
	    "local, the hub's own tracker tables (a tracker without a Jira): ensure_issue,\n"
	    "ensure_fields (each field it changes journalled), ensure_link,\n"
	    "ensure_attachment, ensure_sprint, ensure_sprint_meta, ensure_sprint_state,\n"
	    "ensure_rank, refresh, fetch_attachment (the tracker's file copied to the\n"
	    "hub); jira, the same commands run in a Jira Server or Data Center at\n"
	    "jira_url (REST API 2 and Agile 1.0; the login jira_user and the API token\n"
	    "or password in the file jira_token_file, else a bearer token), a refresh\n"
	    "reading the project's issues (labels = <label>) with their comments, links,\n"
	    "attachments and changelog, and its board's type, columns and sprints into\n"
	    "the hub; a 429 is waited out as Retry-After says and counted; git,\n"
	    "the wiki's pages from a forge repository that the project's wiki root names\n"
	    "(owner/name@branch:DOC-1):\n"
	    "wiki_sync (the copy of the pages), wiki_fetch (an attachment's file);\n"
	    "confluence, the wiki's pages read by this agent from a\n"
	    "Confluence-style REST server at wiki_confluence_url (the login\n"
	    "wiki_confluence_user and the API token or password in the file\n"
	    "wiki_confluence_token_file; without a login the token is a bearer token),\n"
	    "from the page the root names (confluence:DOC-98310: page id 98310, codes\n"
	    "DOC-<page id>), converted to Markdown and sent to the hub: wiki_sync;\n"
	    "an attachment's file read from that server: wiki_fetch.\n"
	    "\n"
	    "  --module jira|wiki   the module whose commands it runs\n"
	    "  --backend NAME       where the commands take effect: local or jira for jira,\n"
	    "                       git or confluence for wiki\n"
	    "  --once               stop when no command is waiting (exit 1 when the hub\n"
	    "                       cannot be asked: down, or the token refused)\n"
	    "  --interval SECONDS   how long to wait when none is (default 1)\n"
	    "\n"
	    "SIGTERM or SIGINT: it stops after the command it is running.\n");
}

/*
 * Claims one command of module and has the backend run it (cf non-NULL:
 * the Confluence backend; jb non-NULL: the Jira backend): 1 ran one, 0
 * none, -1 failed.
 */
static int
agent_step(const struct hub_client *hub, const char *module, const struct rest_server *cf,
    struct jira_backend *jb)
{
	struct json_object	*o = NULL, *cmd, *body, *r = NULL, *said, *why;
	const char		*run = strcmp(module, "wiki") == 0 ? "/agent/wiki_git" :
				    "/agent/local";
	const char		*launcher;
	enum hub_result		 res;
	long			 status;
	int			 ran = -1;

	said = json_object_new_object();
	json_object_object_add(said, "module", json_object_new_string(module));
	json_object_object_add(said, "version", json_object_new_string(PACKAGE_VERSION));
	if ((launcher = getenv("FORGEMCP_AGENT_LAUNCHER")) != NULL && *launcher != '\0')
		json_object_object_add(said, "launcher", json_object_new_string(launcher));
	if (cf != NULL || jb != NULL)
		json_object_object_add(said, "lease_seconds",
		    json_object_new_int(AGENT_REMOTE_LEASE));
	/* the 429s Jira answered since the last claim the hub took */
	if (jb != NULL && jb->rate_limited > 0)
		json_object_object_add(said, "rate_limited",
		    json_object_new_int64(jb->rate_limited));
	res = hub_request(hub, "POST", "/agent/claim", said, &status, &o);
	json_object_put(said);
	if (jb != NULL && res == HUB_ANSWERED && status == 200)
		jb->rate_limited = 0;
	if (res == HUB_ANSWERED && status != 200) {
		/* the hub's {"error": text}, or the gate's JSON-RPC {"error": {"message"}} */
		why = json_object_object_get(o, "error");
		if (json_object_is_type(why, json_type_object))
			why = json_object_object_get(why, "message");
		log_error("agent: claim: the hub answers %ld: %s", status,
		    why != NULL ? json_object_get_string(why) : "(no reason)");
		goto done;
	}
	if (res != HUB_ANSWERED) {
		log_error("agent: claim: %s", res == HUB_DOWN ? "the hub is down" :
		    "its answer cannot be read");
		goto done;
	}
	if ((cmd = json_object_object_get(o, "command")) == NULL) {
		ran = 0;
		goto done;
	}
	if (jb != NULL) {
		ran = jira_backend_run(hub, jb, cmd);
		goto done;
	}
	if (cf != NULL) {
		ran = strcmp(json_object_get_string(json_object_object_get(cmd, "type")),
		    "wiki_fetch") == 0 ? confluence_fetch(hub, cf, cmd) : confluence_run(hub, cf, cmd);
		goto done;
	}
	body = json_object_new_object();
	json_object_object_add(body, "command",
	    json_object_get(json_object_object_get(cmd, "id")));
	json_object_object_add(body, "handout", json_object_new_int64(hub_handout(cmd)));
	res = hub_request(hub, "POST", run, body, &status, &r);
	json_object_put(body);
	if (res != HUB_ANSWERED || status != 200) {
		log_error("agent: command %s: the hub did not run it (HTTP %ld)",
		    json_object_get_string(json_object_object_get(cmd, "id")), status);
		goto done;
	}
	log_info("agent: command %s (%s): %s%s%s",
	    json_object_get_string(json_object_object_get(cmd, "id")),
	    json_object_get_string(json_object_object_get(cmd, "type")),
	    json_object_get_string(json_object_object_get(r, "state")),
	    json_object_object_get(r, "error") != NULL ? ": " : "",
	    json_object_object_get(r, "error") != NULL ?
	    json_object_get_string(json_object_object_get(r, "error")) : "");
	ran = 1;
done:
	json_object_put(o);
	json_object_put(r);
	return ran;
}

int
cli_agent(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "backend", required_argument, NULL, 'b' },
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hub_client	 hub;
	struct rest_server	 cf;
	struct jira_backend	 jb;
	const char		*module = NULL, *backend = NULL;
	char			*url = NULL;
	double			 interval = 1;
	int			 c, once = 0, n, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:b:oi:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			module = optarg;
			break;
		case 'b':
			backend = optarg;
			break;
		case 'o':
			once = 1;
			break;
		case 'i':
			if ((interval = cli_seconds(optarg, 0.05, 3600)) < 0)
				return cli_usage("agent: --interval takes 0.05 to 3600 seconds, "
				    "not '%s'", optarg);
			break;
		case 'h':
			agent_usage(stdout);
			return 0;
		default:
			return cli_usage("agent: unknown option '%s'", cli_bad_option(argv));
		}
	}
	if (optind < argc)
		return cli_usage("agent: unexpected argument '%s'", argv[optind]);
	if (module == NULL || (strcmp(module, "jira") != 0 && strcmp(module, "wiki") != 0))
		return cli_usage("agent: --module jira or --module wiki");
	if (backend == NULL || (strcmp(module, "wiki") == 0 ? strcmp(backend, "git") != 0 &&
	    strcmp(backend, "confluence") != 0 : strcmp(backend, "local") != 0 &&
	    strcmp(backend, "jira") != 0))
		return cli_usage("agent: the %s module's backend is --backend %s", module,
		    strcmp(module, "wiki") == 0 ? "git or --backend confluence" :
		    "local or --backend jira");
	memset(&cf, 0, sizeof cf);
	memset(&jb, 0, sizeof jb);
	if (strcmp(backend, "jira") == 0) {
		if (cli->cfg.jira_url == NULL)
			return cli_usage("agent: the jira backend needs jira_url, the Jira server's "
			    "base URL (FORGEMCP_JIRA_URL)");
		if (jira_backend_init(&jb, cli->cfg.jira_url, cli->cfg.jira_user,
		    cli->cfg.jira_token_file, (long)cli->cfg.jira_timeout) != 0)
			return 1;
	}
	if (strcmp(backend, "confluence") == 0) {
		if (cli->cfg.wiki_confluence_url == NULL)
			return cli_usage("agent: the confluence backend needs wiki_confluence_url, "
			    "the server's base URL (FORGEMCP_WIKI_CONFLUENCE_URL)");
		if (rest_init(&cf, "Confluence", cli->cfg.wiki_confluence_url,
		    cli->cfg.wiki_confluence_user, cli->cfg.wiki_confluence_token_file,
		    "wiki_confluence_token_file", (long)cli->cfg.wiki_confluence_timeout) != 0)
			return 1;
	}
	if (cli_hub_client(cli, &hub, &url) != 0) {
		rest_release(&cf);
		jira_backend_release(&jb);
		return cli_fail("out of memory");
	}
	cli_daemon_start("forgemcp-agent");
	if (hub_client_init() != 0) {
		rest_release(&cf);
		jira_backend_release(&jb);
		free(url);
		return 1;
	}
	log_info("agent: module %s, backend %s, hub %s%s%s%s%s", module, backend, hub.url,
	    cf.url != NULL ? ", Confluence " : "", cf.url != NULL ? cf.url : "",
	    jb.srv.url != NULL ? ", Jira " : "", jb.srv.url != NULL ? jb.srv.url : "");
	rc = 0;
	while (!cli_stopping) {
		n = agent_step(&hub, module, strcmp(backend, "confluence") == 0 ? &cf : NULL,
		    strcmp(backend, "jira") == 0 ? &jb : NULL);
		/* --once: a hub that cannot be asked (down, a refused token) is a failure */
		if (n < 0 && once)
			rc = 1;
		if (n <= 0 && once)
			break;
		if (n <= 0)
			cli_nap(interval);
	}
	hub_client_shutdown();
	rest_release(&cf);
	jira_backend_release(&jb);
	free(url);
	return rc;
}
