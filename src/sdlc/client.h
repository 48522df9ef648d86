/*
 * client: the sdlc module servers' HTTP client of the hub API (libcurl,
 * one handle and its kept-alive connection).  Short requests only: a
 * waiting tool polls with them, so no request holds a FastCGI worker for
 * longer than one answer takes.
 */
#ifndef FM_SDLC_CLIENT_H
#define FM_SDLC_CLIENT_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

enum hub_result {
	HUB_ANSWERED,	/* HUB_ANSWERED: an HTTP answer with a JSON object (any status) */
	HUB_DOWN,	/* HUB_DOWN: no connection, or no answer in time */
	HUB_GARBLED,	/* HUB_GARBLED: an answer that is not a JSON object */
};

struct hub_client {
	const char	*url;		/* the hub API's base, without a trailing slash */
	const char	*token;		/* the bearer token; NULL: none */
	long		 timeout;	/* seconds a request may take */
};

/* Loads libcurl; 0, or -1 after a message on stderr. */
int	hub_client_init(void);
void	hub_client_shutdown(void);
/*
 * Sends method to url + path (path starts with '/', its query already
 * escaped), with body (borrowed, may be NULL) as JSON.  On HUB_ANSWERED,
 * *status is the HTTP status and *out the answer (caller puts);
 * otherwise *out is NULL and *status the status seen (0: none).
 */
enum hub_result hub_request(const struct hub_client *c, const char *method, const char *path,
	    struct json_object *body, long *status, struct json_object **out);
/*
 * GET url + path for bytes (at most max): on HUB_ANSWERED with *status 200,
 * *data (caller frees; len bytes) is the answer; with another status,
 * *out is its JSON object.  HUB_GARBLED for an answer over max or, when
 * not 200, not JSON.
 */
enum hub_result hub_download(const struct hub_client *c, const char *path, size_t max,
	    long *status, char **data, size_t *len, struct json_object **out);
/*
 * The hand-out a claimed command cmd (the claim's {command}) is of: its
 * handouts, which every request of the agent for it names (handout), so
 * that the hub refuses a request of an agent whose lease ran out.
 */
int64_t	hub_handout(struct json_object *cmd);
/*
 * A file an agent read for the claimed command id (of hand-out handout),
 * sent to path (the hub's /agent/wiki_fetch or /agent/jira_fetch) in
 * base64 parts of HUB_FILE_PART bytes, each a request body the hub takes:
 * 0 with the hub's end of it in end ("done", "failed: why"), or -1 with
 * why when the hub did not take a part.  hub_send_failure tells it the
 * file could not be read, with error.
 */
#define HUB_FILE_PART	30000
int	hub_send_file(const struct hub_client *hub, const char *path, int64_t id,
	    int64_t handout, const unsigned char *data, size_t len, char *end, size_t end_len,
	    char *why, size_t why_len);
int	hub_send_failure(const struct hub_client *hub, const char *path, int64_t id,
	    int64_t handout, const char *error, char *end, size_t end_len, char *why,
	    size_t why_len);
/* A query value escaped for a URL (caller frees); NULL when out of memory. */
char	*hub_escape(const char *s);

#endif
