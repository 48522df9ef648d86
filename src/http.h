/* http: the HTTP gate and header decoding, before any JSON is read. */
#ifndef FM_HTTP_H
#define FM_HTTP_H
#include <stddef.h>

struct config;
struct core_request;

/*
 * Looks up a CGI meta-variable (e.g. "HTTP_ORIGIN", "REQUEST_METHOD") in the
 * request's environment.  Returns the first value or NULL.  count, when not
 * NULL, receives how many times the name occurs.
 */
const char	*http_env(const struct core_request *r, const char *name, int *count);

/* Copies value with leading/trailing spaces and tabs removed (caller frees). */
char		*http_trim(const char *value);

enum http_sentinel {
	HTTP_SENT_LITERAL,	/* HTTP_SENT_LITERAL: not wrapped, use as is */
	HTTP_SENT_DECODED,	/* HTTP_SENT_DECODED: =?base64?...?= decoded to valid UTF-8 */
	HTTP_SENT_BAD,		/* HTTP_SENT_BAD: wrapped but not canonical padded base64 or not UTF-8 */
	HTTP_SENT__MAX
};

/*
 * Decodes an MCP header value (SEP-2243 value encoding): trims OWS, and if
 * the result is exactly "=?base64?" PAYLOAD "?=" decodes PAYLOAD, which must
 * be canonical padded RFC 4648 base64 of valid UTF-8.  *out is the decoded
 * or literal text (caller frees; may contain no NUL: a NUL makes it BAD).
 * Running out of memory is also HTTP_SENT_BAD, with *out NULL.
 */
enum http_sentinel http_decode_value(char **out, size_t *outlen, const char *value);

/*
 * Whether a header that must appear once (Content-Type, Authorization,
 * MCP-Protocol-Version, Mcp-Method, Mcp-Name) reached us more than once, as
 * a front such as nginx passes each copy.  Returns 1 with a message naming
 * the header written into msg, else 0.
 */
int		 http_repeated(const struct core_request *r, char *msg, size_t len);

/*
 * Whether an Origin value is exactly one of cfg->allowed_origins (case-
 * sensitive).  "null" and comma-joined lists are never allowed.
 */
int		 http_origin_ok(const struct config *c, const char *origin);

/*
 * Base64 (RFC 4648, padded).  *outlen is the room in out on entry and the
 * decoded length on return.  Returns -1 on non-canonical input or too little room.
 */
int		 http_b64_decode(unsigned char *out, size_t *outlen, const char *in, size_t inlen);

/* Room for http_client_network's answer. */
#define HTTP_NETWORK_MAX	48
/*
 * Writes into out (len bytes, HTTP_NETWORK_MAX is enough) the network a
 * client without a valid token is counted by, from its REMOTE_ADDR (may be
 * NULL): "a.b.c.0/24" for IPv4 and IPv4-mapped IPv6, "p:q:r:s::/64" for
 * IPv6, "-" for anything else.
 */
void		 http_client_network(char *out, size_t len, const char *addr);

#endif
