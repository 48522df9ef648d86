/* front-int: what the FastCGI front's two files share (front.c answers requests, master.c runs the process). */
#ifndef FM_FRONT_INT_H
#define FM_FRONT_INT_H

struct config;
struct core;

#define FRONT_MAX_WORKERS	256

/* Serves FastCGI requests on the listening socket sock until told to stop; 0 or -1. */
int	front_worker(struct core *core, const struct config *cfg, int sock);
/* Serves exactly one CGI request from the environment and stdin; 0 or -1. */
int	front_cgi(struct core *core, const struct config *cfg);
/*
 * Waits for libgit2's set-up, begun on a thread at start (front_main); on
 * failure says so and releases core.  Returns 0 or -1.
 */
int	front_git_ready(struct core *core);

#endif
