/*
 * rest: an agent backend's requests to the REST server it works against
 * (Jira, a Confluence-style wiki): the server's base URL and credentials,
 * one request at a time over a libcurl handle the caller keeps.  Redirects
 * are never followed, so the credentials go to that server alone; the
 * secret is never logged or put in a message.
 */
#ifndef FM_SDLC_REST_H
#define FM_SDLC_REST_H
#include <stddef.h>

struct curl_body;
struct curl_lib;

struct rest_server {
	const char	*name;		/* the server's kind in messages: "Jira", "Confluence" */
	const char	*url;		/* its base URL, no trailing / */
	const char	*user;		/* basic authentication's login; NULL: a bearer token */
	char		*secret;	/* the API token or password (owned); NULL: none */
	long		 timeout;	/* seconds per request */
};

/*
 * Sets s up; the secret is the first line of token_file (NULL or "": no
 * credentials).  0, or -1 after a message on stderr naming key, the
 * configuration key token_file came from.
 */
int	rest_init(struct rest_server *s, const char *name, const char *url, const char *user,
	    const char *token_file, const char *key, long timeout);
void	rest_release(struct rest_server *s);

/* A request's body: ctype NULL for none. */
struct rest_body {
	const char	*ctype;		/* "application/json", "multipart/form-data; boundary=…" */
	const char	*data;
	size_t		 len;
	const char	*extra;		/* one more header line, or NULL */
};

/*
 * Sends method path (from the base URL) with body (may be NULL), reading
 * at most max bytes of the answer.  0 with any HTTP status in *status, the
 * answer in *a (a->buf the caller's to free) and Retry-After's seconds in
 * *retry_after (-1: none); -1 with the reason, naming the request, in why
 * (nothing in *a) when no whole answer came.
 */
int	rest_call(const struct curl_lib *cl, void *curl, const struct rest_server *s,
	    const char *method, const char *path, const struct rest_body *body, long max,
	    struct curl_body *a, long *status, long *retry_after, char *why, size_t why_len);
/* GET path, as rest_call; a status other than 200 is a failure too. */
int	rest_get_raw(const struct curl_lib *cl, void *curl, const struct rest_server *s,
	    const char *path, long max, struct curl_body *a, char *why, size_t why_len);

#endif
