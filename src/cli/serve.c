/*
 * serve: `forgemcp serve` (or `sdlc-hub serve`), a local instance with the
 * sdlc hub for one user, and where `forgemcp mcp` finds it.
 *
 * It is the quick start's stack (MariaDB on a private socket, the FastCGI
 * workers, nginx on a loopback port, the merge worker, the runner and the
 * hub's agent) started by etc/quickstart in its hub mode: with this very
 * binary (nothing is built), without the demo repositories, under the
 * user's data directory instead of the checkout.  The script is the one of
 * the build tree when this binary runs from it, else the installed copy.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "src/cli/build-paths.h"

#define SERVE_SCRIPT	"etc/quickstart"
#define SERVE_ROOT_STATE	"/var/lib/forgemcp-hub"

/*
 * The state directory: $FORGEMCP_STATE; for root SERVE_ROOT_STATE (the
 * services run as the user forgemcp, which must reach it, and /root is
 * closed); else $XDG_DATA_HOME/forgemcp or ~/.local/share/forgemcp.
 */
int
cli_serve_state(char *buf, size_t len)
{
	const char	*v;
	int		 n;

	if ((v = getenv("FORGEMCP_STATE")) != NULL && v[0] != '\0')
		n = snprintf(buf, len, "%s", v);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "%s", SERVE_ROOT_STATE);
	else if ((v = getenv("XDG_DATA_HOME")) != NULL && v[0] == '/')
		n = snprintf(buf, len, "%s/forgemcp", v);
	else if ((v = getenv("HOME")) != NULL && v[0] == '/')
		n = snprintf(buf, len, "%s/.local/share/forgemcp", v);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* This binary's directory, without the last slash. */
static int
serve_bindir(char *buf, size_t len)
{
	ssize_t	 n;
	char	*slash;

	if ((n = readlink("/proc/self/exe", buf, len - 1)) <= 0 || (size_t)n >= len - 1)
		return -1;
	buf[n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL)
		return -1;
	*slash = '\0';
	return 0;
}

static void
serve_usage(FILE *f, const char *prog)
{
	fprintf(f,
	    "usage: %s serve [start|status|stop|env]\n"
	    "\n"
	    "Starts (default), reports, stops or prints the environment of a local forgemcp\n"
	    "instance with the sdlc hub, for the user who runs it: MariaDB on a private\n"
	    "socket, the FastCGI workers, nginx on 127.0.0.1, the merge worker, the CI\n"
	    "runner and the hub's agent with the local backend, as etc/quickstart starts\n"
	    "them, with this binary and without the demo repositories.  A demo tracker\n"
	    "project DEMO is imported once.  Meant for Debian 12; missing packages are\n"
	    "installed with apt-get (FORGEMCP_SKIP_APT=1: never).\n"
	    "\n"
	    "Its state directory is $FORGEMCP_STATE, else (for root) " SERVE_ROOT_STATE ", else\n"
	    "$XDG_DATA_HOME/forgemcp, else ~/.local/share/forgemcp; FORGEMCP_PORT is nginx's\n"
	    "loopback port (default 8080, then the last one used).  `%s mcp jira` finds this hub there (its port and token) when neither\n"
	    "hub_url nor a token is configured.\n", prog, prog);
}

int
cli_serve(const char *prog, int argc, char **argv)
{
	const char	*what = "start";
	char		 bindir[PATH_MAX], builddir[PATH_MAX], state[PATH_MAX];
	char		 script[PATH_MAX + 32];

	if (argc > 2)
		return cli_usage("serve: one of start, status, stop, env; not '%s' after '%s'",
		    argv[2], argv[1]);
	if (argc == 2) {
		what = argv[1];
		if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
			serve_usage(stdout, prog);
			return 0;
		}
		if (strcmp(what, "start") != 0 && strcmp(what, "status") != 0 &&
		    strcmp(what, "stop") != 0 && strcmp(what, "env") != 0)
			return cli_usage("serve: unknown command '%s' (start, status, stop, env)", what);
	}
	if (serve_bindir(bindir, sizeof bindir) != 0)
		return cli_fail("serve: cannot find this program's directory (/proc/self/exe)");
	if (cli_serve_state(state, sizeof state) != 0)
		return cli_fail("serve: no state directory: set FORGEMCP_STATE, XDG_DATA_HOME or HOME");
	/* The build tree's own script, so a build never runs another version's. */
	if (realpath(FORGEMCP_BUILDDIR, builddir) != NULL && strcmp(bindir, builddir) == 0)
		snprintf(script, sizeof script, "%s/%s", FORGEMCP_SRCDIR, SERVE_SCRIPT);
	else
		snprintf(script, sizeof script, "%s/%s", FORGEMCP_PKGDATADIR, SERVE_SCRIPT);
	if (access(script, R_OK) != 0)
		return cli_fail("serve: cannot run %s: %s", script, strerror(errno));
	if (setenv("FORGEMCP_STATE", state, 1) != 0 || setenv("FORGEMCP_BUILD", bindir, 1) != 0 ||
	    setenv("FORGEMCP_QS_MODE", "hub", 1) != 0)
		return cli_fail("out of memory");
	if (setenv("FORGEMCP_QS_PROG", strcmp(prog, "sdlc-hub") == 0 ? "sdlc-hub serve" :
	    "forgemcp serve", 1) != 0)
		return cli_fail("out of memory");
	fflush(NULL);
	execl("/bin/bash", "bash", script, what, (char *)NULL);
	return cli_fail("serve: cannot run /bin/bash %s: %s", script, strerror(errno));
}
