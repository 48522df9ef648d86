/* refusal: the table of protocol refusals: HTTP status, JSON-RPC code and text of each. */
#include <stdarg.h>
#include <stdio.h>

#include "protocol.h"
#include "refusal.h"
#include "rpc.h"

#define MODERN	MCP_MODERN_VERSION

static const struct refusal_row refusal_rows[REFUSAL__MAX] = {
	[REFUSAL_INTERNAL] = { 500, RPC_INTERNAL_ERROR, "Internal error" },
	[REFUSAL_NO_MEMORY] = { 500, RPC_INTERNAL_ERROR, "Internal error: out of memory" },
	[REFUSAL_PRM_NONE] = { 404, RPC_INVALID_REQUEST,
	    "Not found: this server uses pre-issued bearer tokens and "
	    "names no authorization server" },
	[REFUSAL_PRM_METHOD] = { 405, RPC_INVALID_REQUEST, "Method not allowed: use GET" },
	/* the endpoint */
	[REFUSAL_NOT_ENDPOINT] = { 404, RPC_INVALID_REQUEST, "Not found: the MCP endpoint is %s" },
	[REFUSAL_ORIGIN] = { 403, RPC_INVALID_REQUEST, "Forbidden: this Origin is not allowed" },
	[REFUSAL_HOST] = { 403, RPC_INVALID_REQUEST, "Forbidden: this Host is not served here" },
	[REFUSAL_POST_ONLY] = { 405, RPC_INVALID_REQUEST,
	    "Method not allowed: the MCP endpoint takes POST only "
	    "(no SSE stream, no sessions)" },
	/* max_body (size_t) */
	[REFUSAL_TOO_LARGE] = { 413, RPC_INVALID_REQUEST,
	    "Request body too large: the limit is %zu bytes" },
	[REFUSAL_MEDIA_TYPE] = { 415, RPC_INVALID_REQUEST,
	    "Unsupported Media Type: Content-Type must be application/json" },
	/* a header's or a toolset choice's whole message */
	[REFUSAL_BAD_REQUEST] = { 400, RPC_INVALID_REQUEST, "%s" },
	[REFUSAL_BODY_SHORT] = { 400, RPC_PARSE_ERROR,
	    "Parse error: the body is shorter than its Content-Length" },
	/* json_perr_text */
	[REFUSAL_PARSE] = { 400, RPC_PARSE_ERROR, "%s" },
	[REFUSAL_NOT_OBJECT] = { 400, RPC_INVALID_REQUEST,
	    "Invalid Request: a message must be a JSON object" },
	[REFUSAL_UNAUTHORIZED] = { 401, RPC_UNAUTHORIZED, "Unauthorized" },
	[REFUSAL_NO_TOKEN] = { 401, RPC_UNAUTHORIZED,
	    "Unauthorized: no token (set FORGEMCP_TOKEN or use --token-file)" },
	[REFUSAL_BAD_TOKEN] = { 401, RPC_UNAUTHORIZED,
	    "Unauthorized: the token is unknown, expired or revoked" },
	[REFUSAL_UNAVAILABLE] = { CORE_UNAVAILABLE_STATUS, RPC_INTERNAL_ERROR,
	    CORE_UNAVAILABLE_MESSAGE },
	[REFUSAL_MISCONFIGURED] = { CORE_UNAVAILABLE_STATUS, RPC_INTERNAL_ERROR,
	    CORE_MISCONFIGURED_MESSAGE },
	/* a CGI run whose configuration cannot be read or used (front_cgi_refuse) */
	[REFUSAL_SERVER_CONFIG] = { CORE_UNAVAILABLE_STATUS, RPC_INTERNAL_ERROR,
	    "Service unavailable: the server's configuration cannot be read or used, a "
	    "configuration error that retrying will not mend; tell the forge's operator" },
	/* limit (unsigned), window, whose limit, seconds left (long long) */
	[REFUSAL_OVER_LIMIT] = { 429, RPC_INVALID_REQUEST,
	    "Too Many Requests: the limit is %u requests per %lld seconds "
	    "%s; retry in %lld seconds" },
	/* seconds left (long long) */
	[REFUSAL_NO_BUCKET] = { 429, RPC_INVALID_REQUEST,
	    "Too Many Requests: every rate limit bucket is in use; retry "
	    "in %lld seconds" },
	/* the account's workers (int) */
	[REFUSAL_ACCOUNT_BUSY] = { 429, RPC_INVALID_REQUEST,
	    "Too Many Requests: this account already has %d requests in progress "
	    "on this server (account_concurrency); retry in 1 second" },
	[REFUSAL_LAST_WORKER] = { 429, RPC_INVALID_REQUEST,
	    "Too Many Requests: every other worker of this server is busy and this account "
	    "already has a request in progress; the last free worker is kept for other "
	    "accounts; retry in 1 second" },
	[REFUSAL_META_VERSION] = { 400, RPC_INVALID_PARAMS,
	    "Invalid params: _meta \"" META_VERSION "\" must be a string" },
	[REFUSAL_META_CAPS] = { 400, RPC_INVALID_PARAMS,
	    "Invalid params: _meta \"" META_CAPS "\" is required and must "
	    "be an object" },
	[REFUSAL_META_LOGLEVEL] = { 400, RPC_INVALID_PARAMS,
	    "Invalid params: _meta \"" META_LOGLEVEL "\" is not a log level" },
	[REFUSAL_VERSION_DIFFERS] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: MCP-Protocol-Version differs from the body's "
	    "protocolVersion" },
	[REFUSAL_METHOD_DIFFERS] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: Mcp-Method differs from the body's method" },
	[REFUSAL_VERSION_UNSUPPORTED] = { 400, RPC_UNSUPPORTED_VERSION,
	    "Unsupported protocol version" },
	[REFUSAL_VERSION_HEADER] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: the MCP-Protocol-Version header is required" },
	[REFUSAL_METHOD_HEADER] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: the Mcp-Method header is required" },
	/* the method */
	[REFUSAL_NAME_HEADER] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: the Mcp-Name header is required for %s" },
	[REFUSAL_NAME_HEADER_BAD] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: the Mcp-Name header is not a valid value" },
	/* the body's member ("name" or "uri") */
	[REFUSAL_NAME_DIFFERS] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: Mcp-Name differs from the body's %s" },
	/* rpc_classify's why */
	[REFUSAL_INVALID] = { 400, RPC_INVALID_REQUEST, "%s" },
	[REFUSAL_INITIALIZE_MODERN] = { 400, RPC_HEADER_MISMATCH,
	    "Header mismatch: initialize is a legacy request but "
	    "MCP-Protocol-Version names " MODERN },
	[REFUSAL_META_MISSING] = { 400, RPC_INVALID_PARAMS,
	    "Invalid params: a " MODERN " request needs params._meta with \""
	    META_VERSION "\" and \"" META_CAPS "\"" },
	/* the header's value */
	[REFUSAL_LEGACY_VERSION] = { 400, RPC_INVALID_REQUEST,
	    "Bad Request: unsupported MCP-Protocol-Version '%.40s'" },
	[REFUSAL_PARAMS] = { 200, RPC_INVALID_PARAMS,
	    "Invalid params: \"params\" must be an object" },
	/* the method */
	[REFUSAL_METHOD_NOT_FOUND] = { 404, RPC_METHOD_NOT_FOUND, "Method not found: %.120s" },
	/* the method */
	[REFUSAL_METHOD_NOT_FOUND_LEGACY] = { 200, RPC_METHOD_NOT_FOUND,
	    "Method not found: %.120s" },
	[REFUSAL_BATCH_EMPTY] = { 400, RPC_INVALID_REQUEST, "Invalid Request: empty batch" },
	/* MCP_BATCH_MAX (int) */
	[REFUSAL_BATCH_TOO_LARGE] = { 400, RPC_INVALID_REQUEST,
	    "Invalid Request: a batch holds at most %d calls; none was run" },
	[REFUSAL_BATCH_VERSION] = { 400, RPC_INVALID_REQUEST,
	    "Invalid Request: JSON-RPC batches exist only in protocol "
	    "version 2025-03-26" },
	[REFUSAL_BATCH_MODERN] = { 400, RPC_INVALID_REQUEST,
	    "Invalid Request: " MODERN " messages cannot be batched" },
	[REFUSAL_BATCH_INITIALIZE] = { 400, RPC_INVALID_REQUEST,
	    "Invalid Request: initialize must not be part of a batch" },
	/* MCP_BATCH_ANSWER_MAX in MiB (unsigned) */
	[REFUSAL_BATCH_ANSWER] = { 200, RPC_INVALID_REQUEST,
	    "Invalid Request: the batch answer passed %u MiB; this call was "
	    "not run" },
	[REFUSAL_CURSOR] = { 200, RPC_INVALID_PARAMS, "Invalid params: unknown cursor" },
	[REFUSAL_URI] = { 200, RPC_INVALID_PARAMS, "Invalid params: \"uri\" must be a string" },
	/* 2026-07-28 moved it from -32002 to -32602 */
	[REFUSAL_RESOURCE_NOT_FOUND] = { 200, RPC_INVALID_PARAMS, "Resource not found" },
	[REFUSAL_RESOURCE_NOT_FOUND_LEGACY] = { 200, RPC_RESOURCE_NOT_FOUND, "Resource not found" },
	[REFUSAL_PROMPT] = { 200, RPC_INVALID_PARAMS, "Invalid params: unknown prompt" },
	[REFUSAL_TOOL_NAME] = { 200, RPC_INVALID_PARAMS,
	    "Invalid params: \"name\" must be a string without NUL characters" },
	/* the tool, the scope it needs */
	[REFUSAL_SCOPE] = { 403, RPC_UNAUTHORIZED,
	    "Forbidden: tool '%s' needs the token scope '%s'" },
	/* the name */
	[REFUSAL_UNKNOWN_TOOL] = { 200, RPC_INVALID_PARAMS, "Unknown tool: %.200s" },
};

const struct refusal_row *
refusal_row(enum refusal r)
{
	return &refusal_rows[(unsigned)r < REFUSAL__MAX ? r : REFUSAL_INTERNAL];
}

/* The formats are this file's own table, each documented with its arguments. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
const char *
refusal_vformat(char *buf, size_t len, enum refusal r, va_list ap)
{
	vsnprintf(buf, len, refusal_row(r)->text, ap);
	return buf;
}
#pragma GCC diagnostic pop
