/* core_io: the request and response the core exchanges with the fronts, shared by its layers. */
/*
 * The fronts fill a core_request and send the core_response; the layers
 * under core_handle (http, mcp) read the one and write the other.  They
 * live here, not in core.h, so that no layer below the core includes it.
 */
#ifndef FM_CORE_IO_H
#define FM_CORE_IO_H
#include <stddef.h>

#include "protocol.h"
#include "refusal.h"

struct budget;
struct config;
struct json_object;
struct toolset_sel;

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
	/*
	 * The tools the client chose (toolset.h); NULL: the default.  stdio's
	 * front sets it from --toolsets and --read-only; for HTTP the core
	 * reads the path and the X-MCP-Toolsets and X-MCP-Readonly headers.
	 */
	const struct toolset_sel *toolsets;
	/* What the request may spend (budget.h): set by core_handle as it starts. */
	struct budget		*budget;
	/*
	 * Whether the client has hung up (1) or not (0), asked with
	 * client_arg now and then while the request runs (budget.h's
	 * budget_gone_fn); NULL: the front cannot tell (CGI, stdio).
	 */
	int			(*client_gone)(void *arg);
	void			*client_arg;
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
	int			 client_gone;	/* the client hung up: send nothing */
};

/* The OAuth protected resource metadata document's path (RFC 9728). */
#define CORE_PRM_PATH	"/.well-known/oauth-protected-resource"

/*
 * Formats a WWW-Authenticate Bearer challenge into buf: realm, then
 * error (may be NULL) and scope (may be NULL), then resource_metadata
 * when an authorization server is configured.
 */
void	core_challenge(char *buf, size_t len, const struct config *cfg, const char *error,
	    const char *scope);

void	core_response_init(struct core_response *r);
void	core_response_release(struct core_response *r);
/* Adds a header to a response (value copied). */
int	core_response_header(struct core_response *r, const char *name, const char *value);
/* Sets status and a JSON body (serialised; takes body, which may be NULL for no body). */
void	core_response_json(struct core_response *r, int status, struct json_object *body);
/*
 * Sets a refusal's status and JSON-RPC error body (refusal.h's table; the
 * arguments are what its text's format takes); id may be NULL ("id": null),
 * data taken (may be NULL).
 */
void	core_refuse(struct core_response *r, struct json_object *id, struct json_object *data,
	    enum refusal why, ...);

#endif
