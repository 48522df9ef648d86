/* admit: a worker's token cache and the account request limit in blocks. */
#ifndef FM_ADMIT_H
#define FM_ADMIT_H
#include <stdint.h>

#include "auth.h"

struct admit;
struct config;
struct db;
struct err;

/* What admit_check decided about the account's request limit. */
struct admit_verdict {
	int		over;		/* the request is over rate_limit: answer 429 */
	int64_t		start;		/* the window: unix seconds */
	int64_t		length;		/* seconds */
};

/* A process's cache (token_cache_seconds and rate_limit from cfg).  NULL on no memory. */
struct admit	*admit_new(const struct config *cfg);
void		 admit_free(struct admit *a);
/*
 * Authenticates an Authorization header value as auth_check does and
 * counts the request against its account's rate_limit.  A token checked
 * less than token_cache_seconds ago is answered from the cache; the count
 * goes to the shared table in blocks (see admit.c).  *v says whether the
 * request is over the limit.
 */
enum auth_result admit_check(struct admit *a, struct principal *out, struct db *db,
	    const char *authorization, struct admit_verdict *v, struct err *e);

#endif
