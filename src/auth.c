/* auth: bearer token parsing, hashing and lookup in the token cache; token scopes. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "auth.h"
#include "err.h"
#include "log.h"
#include "store/db.h"

#define AUTH_TOKEN_PREFIX	"fmcp_"
#define AUTH_TOKEN_BYTES	32

static const struct {
	const char	*name;
	unsigned	 bit;
} scopes[] = {
	{ "read", AUTH_SCOPE_READ },		/* AUTH_SCOPE_READ */
	{ "write", AUTH_SCOPE_WRITE },		/* AUTH_SCOPE_WRITE */
	{ "execute", AUTH_SCOPE_EXECUTE },	/* AUTH_SCOPE_EXECUTE */
	{ "merge", AUTH_SCOPE_MERGE },		/* AUTH_SCOPE_MERGE */
};
#define N_SCOPES	(sizeof(scopes) / sizeof(scopes[0]))

/* Adds the scopes that granted ones include: execute and merge each include write. */
static unsigned
implied(unsigned s)
{
	if (s & (AUTH_SCOPE_EXECUTE | AUTH_SCOPE_MERGE))
		s |= AUTH_SCOPE_WRITE;
	return s;
}

/*
 * Parses a comma list of scope names ("read,write"; spaces around names
 * are allowed, an empty list grants nothing) into *out with implied scopes
 * added.  Returns 0, or -1 on an unknown or empty name (*out untouched).
 */
int
auth_parse_scopes(unsigned *out, const char *list)
{
	const char *p = list, *start;
	unsigned bits = 0;
	size_t len, i;

	if (list == NULL)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0') {
		*out = 0;
		return 0;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		start = p;
		while (*p != '\0' && *p != ',' && *p != ' ' && *p != '\t')
			p++;
		len = (size_t)(p - start);
		for (i = 0; i < N_SCOPES; i++)
			if (strlen(scopes[i].name) == len && memcmp(scopes[i].name, start, len) == 0)
				break;
		if (i == N_SCOPES)
			return -1;
		bits |= scopes[i].bit;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (*p != ',')
			return -1;
		p++;
	}
	*out = implied(bits);
	return 0;
}

/*
 * Writes the scope bits set in scopes as a comma list in canonical order
 * (read,write,execute,merge) into buf, adding no implied scope.  Output is
 * always NUL-terminated and cut at a name boundary when buf is too small.
 */
void
auth_format_scopes(char *buf, size_t len, unsigned scopes_set)
{
	size_t used = 0, n, i;

	if (buf == NULL || len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < N_SCOPES; i++) {
		if (!(scopes_set & scopes[i].bit))
			continue;
		n = strlen(scopes[i].name) + (used > 0);
		if (used + n >= len)
			return;
		if (used > 0)
			buf[used++] = ',';
		memcpy(buf + used, scopes[i].name, strlen(scopes[i].name) + 1);
		used += strlen(scopes[i].name);
	}
}

/* The name of one AUTH_SCOPE_* bit, or NULL when bit is not exactly one known scope. */
const char *
auth_scope_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < N_SCOPES; i++)
		if (scopes[i].bit == bit)
			return scopes[i].name;
	return NULL;
}

/* Whether granted (implications applied here too) covers every bit of needed. */
int
auth_has_scope(unsigned granted, unsigned needed)
{
	return (implied(granted) & needed) == needed;
}

/*
 * Writes the lower-case hex SHA-256 of token[0..len) into out.  Should the
 * digest fail, out is the empty string, which matches no row.
 */
void
auth_token_hash(char out[65], const char *token, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	out[0] = '\0';
	if (EVP_Digest(token, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		return;
	for (i = 0; i < mdlen; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 0xf];
	}
	out[64] = '\0';
	OPENSSL_cleanse(md, sizeof(md));
}

/*
 * Makes a new token: "fmcp_" and 43 base64url characters (no padding) of
 * 32 random bytes, NUL-terminated in out.  Returns 0, or ERR_IO when the
 * random generator fails (out is then the empty string).
 */
int
auth_token_generate(char out[64])
{
	static const char b64url[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char raw[AUTH_TOKEN_BYTES];
	size_t i, o, bits = 0;
	unsigned acc = 0;

	out[0] = '\0';
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return ERR_IO;
	memcpy(out, AUTH_TOKEN_PREFIX, sizeof(AUTH_TOKEN_PREFIX) - 1);
	o = sizeof(AUTH_TOKEN_PREFIX) - 1;
	for (i = 0; i < sizeof(raw); i++) {
		acc = (acc << 8 | raw[i]) & 0xffff;
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = b64url[(acc >> bits) & 0x3f];
		}
	}
	if (bits > 0)
		out[o++] = b64url[(acc << (6 - bits)) & 0x3f];
	out[o] = '\0';
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

static int
is_token68(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

/*
 * Splits an Authorization header value "Bearer <token68>" (scheme case
 * insensitive, one or more spaces, surrounding spaces and tabs ignored).
 * On AUTH_OK *tok and *len point into header.  Returns AUTH_MISSING for a
 * NULL or blank value or another scheme (RFC 6750 3.1: no error code for
 * an unsupported method), AUTH_INVALID for a Bearer value that is not
 * exactly one token68.
 */
enum auth_result
auth_parse_bearer(const char *header, const char **tok, size_t *len)
{
	const char *p = header, *end, *t;

	*tok = NULL;
	*len = 0;
	if (header == NULL)
		return AUTH_MISSING;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p)
		return AUTH_MISSING;
	if (end - p < 6 || strncasecmp(p, "bearer", 6) != 0 ||
	    (end - p > 6 && p[6] != ' ' && p[6] != '\t'))
		return AUTH_MISSING;
	p += 6;
	if (p == end || *p != ' ')
		return AUTH_INVALID;
	while (p < end && *p == ' ')
		p++;
	t = p;
	while (p < end && is_token68((unsigned char)*p))
		p++;
	while (p < end && *p == '=')
		p++;
	if (p == t || p != end || *t == '=')
		return AUTH_INVALID;
	*tok = t;
	*len = (size_t)(end - t);
	return AUTH_OK;
}

/* The lookup key of a raw token: AUTH_MISSING when empty, AUTH_INVALID when too long. */
static enum auth_result
token_hash(char hash[65], const char *tok, size_t len)
{
	if (len == 0)
		return AUTH_MISSING;
	if (len > AUTH_TOKEN_MAX)
		return AUTH_INVALID;
	auth_token_hash(hash, tok, len);
	if (hash[0] == '\0') {
		log_error("auth: sha-256 failed");
		return AUTH_UNAVAILABLE;
	}
	return AUTH_OK;
}

enum auth_result
auth_lookup(struct principal *out, struct db *db, const char *hash, struct db_bump *count,
    int *full, struct err *e)
{
	struct db_token row;
	unsigned bits;
	int rc;

	memset(&row, 0, sizeof(row));
	if (count != NULL) {
		*full = 0;
		rc = db_token_admit(db, &row, hash, count, e);
		if (rc == ERR_TOOBIG) {
			*full = 1;	/* the token is valid; the caller refuses it */
			err_clear(e);
			rc = 0;
		}
	} else
		rc = db_token_lookup(db, &row, hash, e);
	if (rc == ERR_NOTFOUND)
		return AUTH_INVALID;
	if (rc < 0)
		return AUTH_UNAVAILABLE;
	/* The index found the row; the digests themselves are compared in constant time. */
	if (strlen(row.token_hash) != 64 || CRYPTO_memcmp(row.token_hash, hash, 64) != 0)
		return AUTH_INVALID;
	if (row.revoked || row.expired) {
		log_info("auth: token %llu is %s", (unsigned long long)row.id,
		    row.revoked ? "revoked" : "expired");
		return AUTH_INVALID;
	}
	row.scopes[sizeof(row.scopes) - 1] = '\0';
	if (auth_parse_scopes(&bits, row.scopes) < 0) {
		log_warn("auth: token %llu has unknown scopes in the token cache",
		    (unsigned long long)row.id);
		return AUTH_INVALID;
	}
	memset(out, 0, sizeof(*out));
	out->user_id = row.user_id;
	out->token_id = row.id;
	row.login[sizeof(row.login) - 1] = '\0';
	memcpy(out->login, row.login, sizeof(out->login));
	out->scopes = bits;
	return AUTH_OK;
}

enum auth_result
auth_bearer_hash(char hash[65], const char *authorization)
{
	const char *tok;
	size_t len;
	enum auth_result r;

	if ((r = auth_parse_bearer(authorization, &tok, &len)) != AUTH_OK)
		return r;
	return token_hash(hash, tok, len);
}

static enum auth_result
check_raw(struct principal *out, struct db *db, const char *tok, size_t len, struct err *e)
{
	char hash[65];
	enum auth_result r;

	if ((r = token_hash(hash, tok, len)) != AUTH_OK)
		return r;
	return auth_lookup(out, db, hash, NULL, NULL, e);
}

/*
 * Authenticates an Authorization header value (may be NULL): AUTH_MISSING
 * without a Bearer credential, AUTH_INVALID for a malformed, unknown,
 * expired or revoked token, AUTH_UNAVAILABLE when the token cache could not
 * be read (e holds the logged detail).  On AUTH_OK fills *out with implied
 * scopes added.  The token never reaches a log or a message.
 */
enum auth_result
auth_check(struct principal *out, struct db *db, const char *authorization, struct err *e)
{
	char hash[65];
	enum auth_result r;

	if ((r = auth_bearer_hash(hash, authorization)) != AUTH_OK)
		return r;
	return auth_lookup(out, db, hash, NULL, NULL, e);
}

/* As auth_check for a raw token (stdio --token); NULL or empty is AUTH_MISSING. */
enum auth_result
auth_check_token(struct principal *out, struct db *db, const char *token, struct err *e)
{
	if (token == NULL)
		return AUTH_MISSING;
	return check_raw(out, db, token, strlen(token), e);
}
