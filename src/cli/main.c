/* main: the forgemcp command: global options, configuration, subcommand dispatch. */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "front.h"
#include "log.h"
#include "service/runner.h"
#include "store/repo.h"

/* Whether this build has the test-only hooks of --enable-debug; --version says. */
#ifdef FM_DEBUG_HOOKS
#define CLI_DEBUG_HOOKS	"yes"
#else
#define CLI_DEBUG_HOOKS	"no"
#endif

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: forgemcp [--config FILE] COMMAND [ARGS]\n"
	    "\n"
	    "An MCP server for a self-hosted software forge.\n"
	    "\n"
	    "Commands:\n"
	    "  fcgi          serve the MCP endpoint as a FastCGI responder\n"
	    "  stdio         serve MCP over stdin/stdout for a local client\n"
	    "  migrate       apply pending database migrations\n"
	    "  user          add or list users\n"
	    "  token         create, list or revoke access tokens\n"
	    "  repo          create, import or list repositories\n"
	    "  collaborator  give, take away or list the roles on a repository\n"
	    "  branch-rule   set or list the checks a branch requires\n"
	    "  check         report a check result on a commit\n"
	    "  worker        do the queued merges (a long-running process)\n"
	    "  runner        execute the jobs of CI runs (a long-running process)\n"
	    "  call          call one tool of an endpoint over HTTP (for scripts and runbooks)\n"
	    "  mcp           serve an sdlc hub module (jira) over stdio, a client of the hub API\n"
	    "  tracker       import fixtures into the hub's tracker mirror\n"
	    "  agent         execute the sdlc hub's commands (a long-running process)\n"
	    "  serve         start, stop or report a local instance with the sdlc hub\n"
	    "\n"
	    "Installed also as sdlc-hub, which has the commands mcp and serve.\n"
	    "\n"
	    "Run with no command under a FastCGI socket (spawn-fcgi, systemd, Apache) it\n"
	    "serves FastCGI; run as CGI (GATEWAY_INTERFACE set) it serves one request.\n"
	    "\n"
	    "Options:\n"
	    "  --config FILE  configuration file (default $FORGEMCP_CONFIG or %s);\n"
	    "                 every key can be overridden by FORGEMCP_<KEY>\n"
	    "  --help         this text; 'forgemcp COMMAND --help' for a command\n"
	    "  --version      print the version and whether the build has debug hooks\n",
	    CONFIG_DEFAULT_PATH);
}

/* Installed also as sdlc-hub (a link to forgemcp): the hub's two commands. */
static void
hub_usage(FILE *f)
{
	fprintf(f,
	    "usage: sdlc-hub mcp MODULE [--project LABEL]\n"
	    "       sdlc-hub serve [start|status|stop|env]\n"
	    "\n"
	    "The sdlc hub's commands of forgemcp: mcp serves a hub module (jira) over\n"
	    "stdio; serve starts a local instance with the hub.  'sdlc-hub COMMAND --help'\n"
	    "for a command; every other command is forgemcp's.\n");
}

/* argv[0]'s last component is sdlc-hub. */
static int
called_as_hub(const char *argv0)
{
	const char	*slash = argv0 != NULL ? strrchr(argv0, '/') : NULL;

	return argv0 != NULL && strcmp(slash != NULL ? slash + 1 : argv0, "sdlc-hub") == 0;
}

const char *
cli_bad_option(char **argv)
{
	static char	 shortopt[3] = "-?";

	if (optopt != 0) {
		shortopt[1] = (char)optopt;
		return shortopt;
	}
	return argv[optind - 1];
}

int
cli_split_full(char *owner, size_t olen, char *name, size_t nlen, const char *full)
{
	const char	*slash = strchr(full, '/');
	size_t		 n;

	if (slash == NULL || slash == full || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
		return cli_usage("expected OWNER/NAME, got '%s'", full);
	n = (size_t)(slash - full);
	if (n >= olen || strlen(slash + 1) >= nlen)
		return cli_usage("'%s' is too long", full);
	memcpy(owner, full, n);
	owner[n] = '\0';
	snprintf(name, nlen, "%s", slash + 1);
	return 0;
}

void
cli_put_field(const char *s, const char *empty)
{
	if (s == NULL || s[0] == '\0') {
		fputs(empty, stdout);
		return;
	}
	for (; *s != '\0'; s++)
		putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void
cli_vsay(const char *fmt, va_list ap)
{
	fputs("forgemcp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int
cli_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_vsay(fmt, ap);
	va_end(ap);
	return 1;
}

int
cli_usage(const char *fmt, ...)
{
	va_list	ap;

	fputs("forgemcp: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	return 2;
}

static const struct {
	const char	*name;
	int		(*fn)(struct cli *, int, char **);
} commands[] = {
	{ "branch-rule", cli_branch_rule },
	{ "check", cli_check },
	{ "collaborator", cli_collaborator },
	{ "migrate", cli_migrate },
	{ "repo", cli_repo },
	{ "stdio", cli_stdio },
	{ "token", cli_token },
	{ "user", cli_user },
	{ "worker", cli_worker },
	{ "runner", cli_runner },
	{ "mcp", cli_mcp },
	{ "tracker", cli_tracker },
	{ "agent", cli_agent },
};

int
main(int argc, char **argv)
{
	struct cli	 cli;
	struct err	 e;
	const char	*cmd;
	char		*fcgi_argv[] = { (char *)(uintptr_t)"fcgi", NULL };
	size_t		 i;
	int		 rc, ai = 1, help = 0, hub = called_as_hub(argv[0]);

	/* Inside a CI job's sandbox: no configuration, no database, nothing else. */
	if (argc == 6 && strcmp(argv[1], "runner-exec") == 0)
		return runner_executor_main(argv + 2);
	memset(&cli, 0, sizeof(cli));
	while (ai < argc && argv[ai][0] == '-') {
		if (strcmp(argv[ai], "--help") == 0 || strcmp(argv[ai], "-h") == 0) {
			hub ? hub_usage(stdout) : usage(stdout);
			return 0;
		}
		if (strcmp(argv[ai], "--version") == 0) {
			printf("forgemcp %s\ndebug hooks: %s\n", PACKAGE_VERSION, CLI_DEBUG_HOOKS);
			return 0;
		}
		if (strcmp(argv[ai], "--config") == 0 && ai + 1 < argc) {
			cli.config_path = argv[ai + 1];
			ai += 2;
			continue;
		}
		if (strncmp(argv[ai], "--config=", 9) == 0) {
			cli.config_path = argv[ai] + 9;
			ai++;
			continue;
		}
		return cli_usage("unknown option '%s'", argv[ai]);
	}
	cmd = ai < argc ? argv[ai] : NULL;
	if (hub && (cmd == NULL || strcmp(cmd, "help") == 0)) {
		hub_usage(cmd == NULL ? stderr : stdout);
		return cmd == NULL ? 2 : 0;
	}
	if (hub && strcmp(cmd, "mcp") != 0 && strcmp(cmd, "serve") != 0)
		return cli_usage("sdlc-hub: unknown command '%s' (mcp, serve)", cmd);
	if (cmd != NULL && strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	/* The local instance is started by a script: no configuration, no database. */
	if (cmd != NULL && strcmp(cmd, "serve") == 0)
		return cli_serve(hub ? "sdlc-hub" : "forgemcp", argc - ai, argv + ai);
	if (cmd == NULL && !front_detect()) {
		usage(stderr);
		return 2;
	}
	/* A runbook host has the URL and a token, no configuration file and no database. */
	if (cmd != NULL && strcmp(cmd, "call") == 0)
		return cli_call(&cli, argc - ai, argv + ai);
	err_clear(&e);
	for (i = (size_t)ai + 1; i < (size_t)argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			help = 1;
	/* Help must work before any configuration exists. */
	if (help ? config_defaults(&cli.cfg, &e) != 0 :
	    config_load(&cli.cfg, cli.config_path,
	    cmd != NULL && strcmp(cmd, "mcp") == 0 ? CONFIG_CLIENT : 0, &e) != 0) {
		/* Started by a web server: each request gets an answer, a 503, not its 500. */
		if (cmd == NULL)
			return front_refuse(e.msg);
		return cli_fail("%s", e.msg);
	}
	log_set_level((enum log_level)cli.cfg.log_level);
	if (cmd == NULL && config_check_server(&cli.cfg, &e) != 0) {
		rc = front_refuse(e.msg);
		config_release(&cli.cfg);
		return rc;
	}
	if (cmd == NULL || strcmp(cmd, "fcgi") == 0) {
		/* The server waits for it before it serves (front_main). */
		if ((help ? repo_global_init() : repo_global_start()) != 0) {
			config_release(&cli.cfg);
			return cli_fail("cannot initialise libgit2");
		}
		if (cmd == NULL)
			rc = front_main(&cli.cfg, 1, fcgi_argv);
		else
			rc = front_main(&cli.cfg, argc - ai, argv + ai);
		goto done;
	}
	if (repo_global_init() != 0) {
		config_release(&cli.cfg);
		return cli_fail("cannot initialise libgit2");
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, cmd) == 0)
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		rc = cli_usage("unknown command '%s'", cmd);
		goto done;
	}
	/* Admin commands answer with one line; their log detail shows at debug level. */
	if (strcmp(cmd, "stdio") != 0 && strcmp(cmd, "mcp") != 0 && cli.cfg.log_level < LOG_DEBUG)
		log_set_quiet(1);
	rc = commands[i].fn(&cli, argc - ai, argv + ai);
done:
	repo_global_shutdown();
	config_release(&cli.cfg);
	return rc;
}
