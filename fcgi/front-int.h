/* front-int: what the FastCGI front's files share (front.c answers requests, front_reply.c writes the answers, master.c runs the process). */
#ifndef FM_FRONT_INT_H
#define FM_FRONT_INT_H

#include <stddef.h>

struct config;
struct core;
struct core_response;
struct FCGX_Request;

#define FRONT_MAX_WORKERS	256

/* Serves FastCGI requests on the listening socket sock until told to stop; 0 or -1. */
int	front_worker(struct core *core, const struct config *cfg, int sock);
/* Serves exactly one CGI request from the environment and stdin; 0 or -1. */
int	front_cgi(struct core *core, const struct config *cfg);
/* Whether this process was started as plain CGI, to serve exactly one request. */
int	front_is_cgi(void);
/*
 * front_refuse's two halves: the one CGI request (its body read first, so
 * the web server's write of it does not fail), or every FastCGI request on
 * the listening socket sock.  Each logs why; each returns 1.
 */
int	front_cgi_refuse(const char *why);
int	front_fcgi_refuse(int sock, const char *why);
/*
 * Waits for libgit2's set-up, begun on a thread at start (front_main); on
 * failure says so and releases core.  Returns 0 or -1.
 */
int	front_git_ready(struct core *core);

/* Formats the CGI response head of r into out; returns its length, -1 when it does not fit. */
int	front_head(char *out, size_t len, const struct core_response *r);
/* Writes the whole answer of fr with one writev (front_reply.c); -1 when it needs libfcgi's stream. */
int	front_send(struct FCGX_Request *fr, const char *head, size_t hlen, const char *body,
	    size_t blen);

#endif
