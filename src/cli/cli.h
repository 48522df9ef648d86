/* cli: the forgemcp command's subcommands. */
#ifndef FM_CLI_H
#define FM_CLI_H
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include "conf.h"

/*
 * Each subcommand gets argv with argv[0] set to its own name (e.g. "user")
 * and the loaded configuration.  It prints results on stdout, a one-line
 * reason on stderr via cli_fail, supports --help, and returns the process
 * exit status: 0 success, 1 failure, 2 usage error.
 */
struct cli {
	struct config	 cfg;
	const char	*config_path;	/* NULL: default */
};

int	cli_migrate(struct cli *cli, int argc, char **argv);
int	cli_user(struct cli *cli, int argc, char **argv);		/* add | list */
int	cli_token(struct cli *cli, int argc, char **argv);		/* create | list | revoke */
int	cli_repo(struct cli *cli, int argc, char **argv);		/* create | import | list */
int	cli_collaborator(struct cli *cli, int argc, char **argv);	/* add | remove | list */
int	cli_stdio(struct cli *cli, int argc, char **argv);
int	cli_branch_rule(struct cli *cli, int argc, char **argv);	/* set | list */
int	cli_check(struct cli *cli, int argc, char **argv);		/* report */
int	cli_worker(struct cli *cli, int argc, char **argv);		/* the merge queue */
int	cli_runner(struct cli *cli, int argc, char **argv);		/* CI jobs */
int	cli_call(struct cli *cli, int argc, char **argv);		/* a tool, over HTTP */
int	cli_mcp(struct cli *cli, int argc, char **argv);		/* a hub module's stdio server */
int	cli_tracker(struct cli *cli, int argc, char **argv);		/* import */
int	cli_agent(struct cli *cli, int argc, char **argv);		/* the hub's commands */
/* A local instance with the hub (etc/quickstart's hub mode); prog is the name it was called by. */
int	cli_serve(const char *prog, int argc, char **argv);
/* Its state directory into buf: $FORGEMCP_STATE, $XDG_DATA_HOME/forgemcp, ~/.local/share/forgemcp. */
int	cli_serve_state(char *buf, size_t len);

struct hub_client;
/*
 * The hub API client of the configuration: hub_url (or <base_url>/hub, in
 * *url, which the caller frees), hub_token, request_timeout + 5 s.  -1
 * when out of memory.
 */
int	cli_hub_client(const struct cli *cli, struct hub_client *hub, char **url);
/*
 * Prints one tab-separated field of a listing: tabs and line breaks become
 * spaces so a record stays one line; a NULL or empty s prints empty.
 */
void	cli_put_field(const char *s, const char *empty);

/* The option getopt just refused, for the message. */
const char *cli_bad_option(char **argv);
/* Splits "owner/name" into owner[olen] and name[nlen]; cli_usage's 2 when it is not that. */
int	cli_split_full(char *owner, size_t olen, char *name, size_t nlen, const char *full);

/*
 * Reads a token from path into *out (caller frees and wipes): one line, its
 * line break dropped.  Refuses a file other users can read or write, one
 * that is not a regular file, and an empty or over-long one.  Returns 0, or
 * 1 after cli_fail.
 */
int	cli_token_file(char **out, const char *path);

/* Prints "forgemcp: <message>" on stderr; returns 1 for `return cli_fail(...)`. */
int	cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_fail's printing, for a caller with its own exit status. */
void	cli_vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Prints "forgemcp: <message>" plus a hint to use --help; returns 2. */
int	cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set by SIGTERM or SIGINT once cli_daemon_start has run (daemon.c). */
extern volatile sig_atomic_t cli_stopping;
/*
 * For a long-running command (worker, runner): logs to stderr as prog,
 * and SIGTERM or SIGINT set cli_stopping (without SA_RESTART, so a sleep
 * or a wait ends early).
 */
void	cli_daemon_start(const char *prog);
/* Sleeps seconds, or less when a signal arrives. */
void	cli_nap(double seconds);
/* s as a number of seconds from min to max, or -1. */
double	cli_seconds(const char *s, double min, double max);

#endif
