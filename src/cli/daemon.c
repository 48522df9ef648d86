/* daemon: what the long-running commands (worker, runner) share: stop signals, naps, durations. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "log.h"

volatile sig_atomic_t cli_stopping;

static void
cli_on_stop(int sig)
{
	(void)sig;
	cli_stopping = 1;
}

void
cli_daemon_start(const char *prog)
{
	struct sigaction	 sa;

	log_set_quiet(0);
	log_set_prog(prog);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cli_on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

void
cli_nap(double seconds)
{
	struct timespec	 ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

double
cli_seconds(const char *s, double min, double max)
{
	char	*end;
	double	 v;

	v = strtod(s, &end);
	return *end == '\0' && end != s && v >= min && v <= max ? v : -1;
}
