/* call: the HTTP client of `forgemcp call`, shared by call.c and call_http.c. */
#ifndef FM_CLI_CALL_H
#define FM_CLI_CALL_H
#include <json-c/json.h>

/* The exit statuses a runbook branches on (forgemcp(1), EXIT STATUS). */
enum call_exit {
	CALL_OK = 0,		/* CALL_OK: the tool answered */
	CALL_TOOL_ERROR = 1,	/* CALL_TOOL_ERROR: the tool answered isError */
	CALL_USAGE = 2,		/* CALL_USAGE: bad command line, unknown tool, bad argument */
	CALL_PROTOCOL = 3,	/* CALL_PROTOCOL: no answer, HTTP error, not JSON-RPC, an error */
	CALL_AUTH = 4,		/* CALL_AUTH: 401 or 403 */
	CALL_RATE = 5,		/* CALL_RATE: 429 */
};

#define CALL_MODERN_VERSION	"2026-07-28"
#define CALL_LEGACY_VERSION	"2025-06-18"

/* One endpoint and how to reach it; the fields are the caller's. */
struct call_conn {
	const char	*url;
	const char	*token;		/* NULL: no Authorization header */
	long		 timeout;	/* seconds for the whole exchange */
	int		 legacy;	/* 2025-06-18 requests instead of 2026-07-28 */
};

/* Sets up libcurl and the one handle; returns 0, or CALL_PROTOCOL after a message. */
int	call_http_init(void);
/* Closes the handle and its connection; call_http_init's pair. */
void	call_http_shutdown(void);

/*
 * Sends one JSON-RPC request METHOD with PARAMS (borrowed; may be NULL, the
 * era's _meta is added to a copy) to conn.  name goes in the Mcp-Name header
 * of a 2026-07-28 tools/call.  On an answer with a result, *out is that
 * result (caller puts) and CALL_OK is returned; otherwise *out is NULL and
 * the return is CALL_PROTOCOL, CALL_AUTH or CALL_RATE after a one-line
 * message on stderr.
 */
int	call_rpc(struct json_object **out, const struct call_conn *conn, const char *method,
	    const char *name, struct json_object *params);

#endif
