/* auth: bearer token -> SHA-256 -> token cache row -> principal; scopes. */
#ifndef FM_AUTH_H
#define FM_AUTH_H
#include <stdint.h>
#include <stddef.h>

struct db;
struct err;

enum auth_scope {
	AUTH_SCOPE_READ = 1 << 0,	/* read */
	AUTH_SCOPE_WRITE = 1 << 1,	/* write */
	AUTH_SCOPE_EXECUTE = 1 << 2,	/* execute: includes write */
	AUTH_SCOPE_MERGE = 1 << 3,	/* merge: includes write */
};

#define AUTH_TOKEN_MAX	512	/* longer bearer tokens are refused unhashed */

struct principal {
	uint64_t	user_id;
	uint64_t	token_id;
	char		login[65];
	unsigned	scopes;		/* AUTH_SCOPE_* as granted, implied scopes added */
};

enum auth_result {
	AUTH_OK,		/* AUTH_OK */
	AUTH_MISSING,		/* AUTH_MISSING: no Authorization: Bearer header */
	AUTH_INVALID,		/* AUTH_INVALID: unknown, expired, revoked or malformed */
	AUTH_UNAVAILABLE,	/* AUTH_UNAVAILABLE: the token cache could not be read */
	AUTH__MAX
};

/*
 * Parses "read,write,..." into AUTH_SCOPE_* bits with implications applied
 * (execute and merge each include write).  Returns -1 on an unknown name.
 */
int	auth_parse_scopes(unsigned *out, const char *list);
/* Writes the canonical comma list of the granted bits (not implied ones) into buf. */
void	auth_format_scopes(char *buf, size_t len, unsigned scopes);
/* Name of a single scope bit. */
const char *auth_scope_name(unsigned bit);
/* Whether granted covers needed. */
int	auth_has_scope(unsigned granted, unsigned needed);

/* Lower-case hex SHA-256 of a token (65 bytes with the NUL). */
void	auth_token_hash(char out[65], const char *token, size_t len);
/* Makes a new random token ("fmcp_" + 43 base64url chars) into out (64 bytes). */
int	auth_token_generate(char out[64]);

/*
 * Splits an Authorization header value into its Bearer token: *tok and *len
 * point into header on AUTH_OK.  AUTH_MISSING for NULL, blank or another
 * scheme; AUTH_INVALID when the Bearer credential is not exactly one token68.
 */
enum auth_result auth_parse_bearer(const char *header, const char **tok, size_t *len);

/*
 * Authenticates an Authorization header value (may be NULL).  Only the
 * "Bearer" scheme is accepted.  On AUTH_OK fills *out.
 */
enum auth_result auth_check(struct principal *out, struct db *db, const char *authorization,
	    struct err *e);
/*
 * The lookup key (lower-case hex SHA-256) of an Authorization header's
 * Bearer token; AUTH_MISSING or AUTH_INVALID as auth_check would answer.
 */
enum auth_result auth_bearer_hash(char hash[65], const char *authorization);
/*
 * Looks up the token whose SHA-256 is hash (lower-case hex) and, with
 * count (store/db.h; NULL: none), bumps its account's rate-limit bucket in
 * the same database round trip.  Results as auth_check; a valid token
 * whose account has no bucket and cannot have one is AUTH_OK with *full
 * set, and one whose count could not be written AUTH_UNAVAILABLE: either
 * way the request must not be served.
 */
struct db_bump;
enum auth_result auth_lookup(struct principal *out, struct db *db, const char *hash,
	    struct db_bump *count, int *full, struct err *e);
/* The same for a raw token (stdio). */
enum auth_result auth_check_token(struct principal *out, struct db *db, const char *token,
	    struct err *e);

#endif
