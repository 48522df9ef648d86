/* core: one request in, one response out; every front calls only this. */
#ifndef FM_CORE_H
#define FM_CORE_H
#include <stddef.h>

struct admit;
struct config;
struct db;
struct repo_cache;

enum core_transport {
	CORE_HTTP,	/* CORE_HTTP: FastCGI or CGI behind a web server */
	CORE_STDIO,	/* CORE_STDIO: one JSON-RPC line, token fixed at start */
	CORE__MAX
};

/*
 * A request as the front saw it.  env holds CGI meta-variables
 * ("REQUEST_METHOD=POST", "HTTP_ORIGIN=...", possibly repeated), NULL
 * terminated.  The front does not read a body longer than the configured
 * cap: it sets body NULL and body_unread.  A body shorter than
 * CONTENT_LENGTH says is passed with body_short set.
 */
struct core_request {
	enum core_transport	 transport;
	char *const		*env;
	const char		*body;
	size_t			 body_len;
	int			 body_unread;	/* longer than the cap: not read */
	int			 body_short;	/* fewer bytes than CONTENT_LENGTH */
	const char		*stdio_token;	/* CORE_STDIO: the token from --token */
};

#define CORE_MAX_HEADERS	12

struct core_header {
	const char	*name;	/* static string */
	char		*value;	/* owned */
};

struct core_response {
	int			 status;	/* HTTP status; 0 for "no reply" on stdio */
	struct core_header	 headers[CORE_MAX_HEADERS];
	size_t			 n_headers;
	char			*body;		/* owned, may be NULL */
	size_t			 body_len;
	const char		*content_type;	/* static, NULL when no body */
	char			 request_id[33];
	/* For the log line: filled in as far as the request got. */
	unsigned long long	 user_id;	/* 0 before authentication */
	char			 rpc_method[48];	/* "batch" for a batch */
	char			 tool[64];		/* tools/call only */
};

/* Per-process state the core keeps between requests. */
struct core {
	const struct config	*cfg;
	struct db		*db;		/* persistent connection, reconnects itself */
	struct repo_cache	*repos;		/* open libgit2 repositories */
	struct admit		*admit;		/* this process's token cache and request blocks */
};

/*
 * Sets up per-process state: parses every tool schema (refusing duplicates
 * or bad schemas), opens the database connection lazily.  Returns 0 or an
 * ERR_* with the message in e.
 */
struct err;
int	core_init(struct core *out, const struct config *cfg, struct err *e);
void	core_release(struct core *c);
/*
 * Checks at start-up that the database schema is the one this binary
 * speaks.  Returns 0, ERR_CONFIG (refuse to start), or ERR_UNAVAILABLE
 * (the database is down: serve anyway, requests answer 503 until it is back).
 */
int	core_check_ready(struct core *c, struct err *e);

/*
 * Formats a WWW-Authenticate Bearer challenge into buf: realm, then
 * error (may be NULL) and scope (may be NULL), then resource_metadata
 * when an authorization server is configured.
 */
void	core_challenge(char *buf, size_t len, const struct config *cfg, const char *error,
	    const char *scope);

/*
 * The answer while the database cannot be reached, wherever a request
 * needs it (token check, or a tool's own queries): HTTP 503 with
 * Retry-After (seconds) and a JSON-RPC error (-32603) carrying this text.
 */
#define CORE_UNAVAILABLE_STATUS		503
#define CORE_UNAVAILABLE_RETRY_AFTER	"1"
#define CORE_UNAVAILABLE_MESSAGE \
	"Service unavailable: the forge's database cannot be reached; retry shortly"

/*
 * Between requests: gives memory back when a request left the process
 * large (a big repository's packs and caches), so a long-lived worker stays
 * small.  Fronts that serve many requests call it after each answer.  While
 * requests keep coming it keeps the cached repositories (the next search
 * would pay to open them again) and trims at most once a second; it returns
 * 1 when the process is still larger than an idle one needs to be, and the
 * front then calls core_shrink once no request has come for a while.
 */
int	core_idle(struct core *c);
/* Closes the cached repositories and gives all free heap back. */
void	core_shrink(struct core *c);
/* Handles one request; always fills resp (release it with core_response_release). */
void	core_handle(struct core *c, const struct core_request *req, struct core_response *resp);
void	core_response_init(struct core_response *r);
void	core_response_release(struct core_response *r);
/* Adds a header to a response (value copied). */
int	core_response_header(struct core_response *r, const char *name, const char *value);
/* Sets status and a JSON body (serialised; takes body, which may be NULL for no body). */
struct json_object;
void	core_response_json(struct core_response *r, int status, struct json_object *body);
/* Sets status and a JSON-RPC error body (id may be NULL: "id": null). */
void	core_response_error(struct core_response *r, int status, struct json_object *id,
	    int code, const char *message, struct json_object *data);

#endif
