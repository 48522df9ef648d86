/*
 * refusal: every protocol refusal the server answers, as one enum and one
 * table of {HTTP status, JSON-RPC code, text}.  The HTTP gate (core) and the
 * MCP layer name a refusal; only this table says what it looks like on the
 * wire.  A text with a variable part is a printf format.
 */
#ifndef FM_REFUSAL_H
#define FM_REFUSAL_H
#include <stdarg.h>
#include <stddef.h>

enum refusal {
	/* the HTTP gate */
	REFUSAL_INTERNAL,
	REFUSAL_NO_MEMORY,
	REFUSAL_PRM_NONE,
	REFUSAL_PRM_METHOD,
	REFUSAL_NOT_ENDPOINT,
	REFUSAL_ORIGIN,
	REFUSAL_HOST,
	REFUSAL_POST_ONLY,
	REFUSAL_TOO_LARGE,
	REFUSAL_MEDIA_TYPE,
	REFUSAL_BAD_REQUEST,
	REFUSAL_BODY_SHORT,
	REFUSAL_PARSE,
	REFUSAL_NOT_OBJECT,
	REFUSAL_UNAUTHORIZED,
	REFUSAL_NO_TOKEN,
	REFUSAL_BAD_TOKEN,
	REFUSAL_UNAVAILABLE,
	REFUSAL_MISCONFIGURED,
	REFUSAL_SERVER_CONFIG,
	REFUSAL_OVER_LIMIT,
	REFUSAL_NO_BUCKET,
	REFUSAL_ACCOUNT_BUSY,
	REFUSAL_LAST_WORKER,
	/* the 2026-07-28 checks */
	REFUSAL_META_VERSION,
	REFUSAL_META_CAPS,
	REFUSAL_META_LOGLEVEL,
	REFUSAL_VERSION_DIFFERS,
	REFUSAL_METHOD_DIFFERS,
	REFUSAL_VERSION_UNSUPPORTED,
	REFUSAL_VERSION_HEADER,
	REFUSAL_METHOD_HEADER,
	REFUSAL_NAME_HEADER,
	REFUSAL_NAME_HEADER_BAD,
	REFUSAL_NAME_DIFFERS,
	/* dispatch */
	REFUSAL_INVALID,
	REFUSAL_INITIALIZE_MODERN,
	REFUSAL_META_MISSING,
	REFUSAL_LEGACY_VERSION,
	REFUSAL_PARAMS,
	REFUSAL_METHOD_NOT_FOUND,
	REFUSAL_METHOD_NOT_FOUND_LEGACY,
	/* batches */
	REFUSAL_BATCH_EMPTY,
	REFUSAL_BATCH_TOO_LARGE,
	REFUSAL_BATCH_VERSION,
	REFUSAL_BATCH_MODERN,
	REFUSAL_BATCH_INITIALIZE,
	REFUSAL_BATCH_ANSWER,
	/* the methods */
	REFUSAL_CURSOR,
	REFUSAL_URI,
	REFUSAL_RESOURCE_NOT_FOUND,
	REFUSAL_RESOURCE_NOT_FOUND_LEGACY,
	REFUSAL_PROMPT,
	REFUSAL_TOOL_NAME,
	REFUSAL_SCOPE,
	REFUSAL_UNKNOWN_TOOL,
	REFUSAL__MAX
};

struct refusal_row {
	int		 status;	/* HTTP status (200: the error is in-band) */
	int		 code;		/* JSON-RPC error code */
	const char	*text;		/* the message, or a printf format for it */
};

/* The row of r. */
const struct refusal_row *refusal_row(enum refusal r);
/*
 * Writes r's text, formatted with the arguments its row's format takes,
 * into buf (len bytes, cut to fit) and returns buf.
 */
const char *refusal_vformat(char *buf, size_t len, enum refusal r, va_list ap);

#endif
