/* http: CGI environment, repeated headers, MCP header values (SEP-2243), the Origin allow-list, client networks. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "core_io.h"
#include "http.h"
#include "json.h"

#define SENT_PREFIX	"=?base64?"
#define SENT_SUFFIX	"?="
#define SENT_PREFIX_LEN	(sizeof(SENT_PREFIX) - 1)
#define SENT_SUFFIX_LEN	(sizeof(SENT_SUFFIX) - 1)

/*
 * Returns the value of the first "NAME=value" entry of r->env for name
 * (borrowed from the request), or NULL.  *count, when count is not NULL,
 * receives how many entries carry that name.
 */
const char *
http_env(const struct core_request *r, const char *name, int *count)
{
	const char *first = NULL;
	size_t nlen, i;
	int n = 0;

	if (count != NULL)
		*count = 0;
	if (r == NULL || r->env == NULL || name == NULL)
		return NULL;
	nlen = strlen(name);
	for (i = 0; r->env[i] != NULL; i++) {
		if (strncmp(r->env[i], name, nlen) != 0 || r->env[i][nlen] != '=')
			continue;
		if (n++ == 0)
			first = r->env[i] + nlen + 1;
	}
	if (count != NULL)
		*count = n;
	return first;
}

static int
is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Copies value without leading and trailing spaces and tabs; NULL for NULL or on ENOMEM. */
char *
http_trim(const char *value)
{
	const char *end;
	char *out;

	if (value == NULL)
		return NULL;
	while (is_ows(*value))
		value++;
	end = value + strlen(value);
	while (end > value && is_ows(end[-1]))
		end--;
	out = malloc((size_t)(end - value) + 1);
	if (out == NULL)
		return NULL;
	memcpy(out, value, (size_t)(end - value));
	out[end - value] = '\0';
	return out;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decodes canonical RFC 4648 section 4 base64 (padded, no whitespace, zero
 * unused bits) from in[0..inlen).  *outlen is in/out: the room in out on
 * entry (inlen / 4 * 3 always suffices), the decoded length on return.
 * Returns 0, or -1 for non-canonical input or too little room.
 */
int
http_b64_decode(unsigned char *out, size_t *outlen, const char *in, size_t inlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t room = *outlen, o = 0, i, pad = 0;
	int v[4], k;

	*outlen = 0;
	if (inlen % 4 != 0)
		return -1;
	if (inlen > 0 && s[inlen - 1] == '=')
		pad = inlen > 1 && s[inlen - 2] == '=' ? 2 : 1;
	if (inlen / 4 * 3 - pad > room)
		return -1;
	for (i = 0; i < inlen; i += 4) {
		for (k = 0; k < 4; k++) {
			if (i + 4 == inlen && k >= 4 - (int)pad) {
				v[k] = 0;
				continue;
			}
			v[k] = b64_value(s[i + (size_t)k]);
			if (v[k] < 0)
				return -1;
		}
		if (i + 4 == inlen && pad == 2 && (v[1] & 0x0f) != 0)
			return -1;
		if (i + 4 == inlen && pad == 1 && (v[2] & 0x03) != 0)
			return -1;
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (i + 4 < inlen || pad < 2)
			out[o++] = (unsigned char)((v[1] & 0x0f) << 4 | v[2] >> 2);
		if (i + 4 < inlen || pad < 1)
			out[o++] = (unsigned char)((v[2] & 0x03) << 6 | v[3]);
	}
	*outlen = o;
	return 0;
}

/*
 * Decodes an MCP header value (SEP-2243): OWS trimmed, then a value of the
 * form "=?base64?" PAYLOAD "?=" (markers exact, lower-case, not
 * overlapping) is decoded; any other value is a literal.  DECODED needs
 * canonical padded base64 of valid UTF-8 without NUL; LITERAL needs valid
 * UTF-8 without control characters; anything else is BAD.  On LITERAL and
 * DECODED *out is a NUL-terminated copy (caller frees) of *outlen bytes;
 * on BAD *out is NULL, as it is when memory ran out (also BAD).
 */
enum http_sentinel
http_decode_value(char **out, size_t *outlen, const char *value)
{
	enum http_sentinel r;
	char *t = NULL, *dec = NULL;
	size_t len, plen, dlen, i;

	*out = NULL;
	*outlen = 0;
	t = http_trim(value != NULL ? value : "");
	if (t == NULL) {
		r = HTTP_SENT_BAD;
		goto done;
	}
	len = strlen(t);
	if (len >= SENT_PREFIX_LEN + SENT_SUFFIX_LEN &&
	    memcmp(t, SENT_PREFIX, SENT_PREFIX_LEN) == 0 &&
	    memcmp(t + len - SENT_SUFFIX_LEN, SENT_SUFFIX, SENT_SUFFIX_LEN) == 0) {
		plen = len - SENT_PREFIX_LEN - SENT_SUFFIX_LEN;
		dlen = plen / 4 * 3;
		dec = malloc(dlen + 1);
		if (dec == NULL) {
			r = HTTP_SENT_BAD;
			goto done;
		}
		if (http_b64_decode((unsigned char *)dec, &dlen, t + SENT_PREFIX_LEN, plen) < 0 ||
		    memchr(dec, '\0', dlen) != NULL || !json_utf8_valid(dec, dlen)) {
			r = HTTP_SENT_BAD;
			goto done;
		}
		dec[dlen] = '\0';
		*out = dec;
		*outlen = dlen;
		dec = NULL;
		r = HTTP_SENT_DECODED;
		goto done;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] == 0x7f) {
			r = HTTP_SENT_BAD;
			goto done;
		}
	if (!json_utf8_valid(t, len)) {
		r = HTTP_SENT_BAD;
		goto done;
	}
	*out = t;
	*outlen = len;
	t = NULL;
	r = HTTP_SENT_LITERAL;
done:
	free(t);
	free(dec);
	return r;
}

/*
 * Whether a single-valued header arrived more than once.  Which copy a
 * front keeps differs (nginx passes every copy, the first wins in
 * http_env; Apache joins them), so a repeat is refused rather than guessed.
 */
int
http_repeated(const struct core_request *r, char *msg, size_t len)
{
	static const struct {
		const char	*cgi;
		const char	*shown;
	} once[] = {
		{ "HTTP_CONTENT_TYPE", "Content-Type" },
		{ "HTTP_AUTHORIZATION", "Authorization" },
		{ "HTTP_MCP_PROTOCOL_VERSION", "MCP-Protocol-Version" },
		{ "HTTP_MCP_METHOD", "Mcp-Method" },
		{ "HTTP_MCP_NAME", "Mcp-Name" },
	};
	size_t	i;
	int	n;

	for (i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		http_env(r, once[i].cgi, &n);
		if (n > 1) {
			snprintf(msg, len, "Bad Request: the %s header is repeated; send it once",
			    once[i].shown);
			return 1;
		}
	}
	return 0;
}

/*
 * Whether an Origin header value is on the configured allow-list: exact,
 * case-sensitive comparison with each allowed_origins entry.  "null", an
 * empty value and a list of several origins are never allowed.  Whether a
 * missing Origin passes is the caller's decision.
 */
int
http_origin_ok(const struct config *c, const char *origin)
{
	size_t i;

	if (c == NULL || origin == NULL || origin[0] == '\0')
		return 0;
	if (strcmp(origin, "null") == 0 || strchr(origin, ',') != NULL)
		return 0;
	for (i = 0; i < c->n_allowed_origins && i < CONFIG_MAX_LIST; i++)
		if (c->allowed_origins[i] != NULL && strcmp(c->allowed_origins[i], origin) == 0)
			return 1;
	return 0;
}

/*
 * The network a client address is counted by when it has no valid token:
 * a.b.c.0/24 for IPv4 (an IPv4-mapped IPv6 address included), the first
 * 64 bits and "/64" for IPv6.  Anything else (an empty or non-numeric
 * REMOTE_ADDR, a scoped address) is "-", one network for all of them.
 */
void
http_client_network(char *out, size_t len, const char *addr)
{
	struct in6_addr	 a6;
	struct in_addr	 a4;
	char		 text[INET6_ADDRSTRLEN];
	int		 n = -1;

	if (addr != NULL && inet_pton(AF_INET, addr, &a4) == 1) {
		a4.s_addr &= htonl(0xffffff00U);
		if (inet_ntop(AF_INET, &a4, text, sizeof(text)) != NULL)
			n = snprintf(out, len, "%s/24", text);
	} else if (addr != NULL && inet_pton(AF_INET6, addr, &a6) == 1) {
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			memcpy(&a4, &a6.s6_addr[12], 4);
			a4.s_addr &= htonl(0xffffff00U);
			if (inet_ntop(AF_INET, &a4, text, sizeof(text)) != NULL)
				n = snprintf(out, len, "%s/24", text);
		} else {
			memset(&a6.s6_addr[8], 0, 8);
			if (inet_ntop(AF_INET6, &a6, text, sizeof(text)) != NULL)
				n = snprintf(out, len, "%s/64", text);
		}
	}
	if (n < 0 || (size_t)n >= len)
		snprintf(out, len, "-");
}
