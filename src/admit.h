/* admit: a worker's token cache and the account request limit in blocks. */
#ifndef FM_ADMIT_H
#define FM_ADMIT_H
#include <stdint.h>

#include "auth.h"

struct admit;
struct config;
struct db;
struct err;

/* What admit_check or admit_network decided about a request's limit. */
struct admit_verdict {
	int		over;		/* the request is over its limit: answer 429 */
	int		full;		/* over because no bucket could be had */
	int64_t		start;		/* the window: unix seconds */
	int64_t		length;		/* seconds */
};

/*
 * A process's cache (token_cache_seconds, rate_limit, rate_limit_anonymous,
 * rate_window and rate_limit_buckets from cfg).  NULL on no memory.
 */
struct admit	*admit_new(const struct config *cfg);
void		 admit_free(struct admit *a);
/*
 * Authenticates an Authorization header value as auth_check does and
 * counts the request, as cost requests (a batch's calls, at least 1),
 * against its account's rate_limit: over unless all of them fit.  A token checked
 * less than token_cache_seconds ago is answered from the cache; the count
 * goes to the shared table in blocks (see admit.c).  *v says whether the
 * request is over the limit, or (v->full too) that its account has no
 * bucket and cannot have one (logged once a window).  A valid token whose
 * count could not be written is AUTH_UNAVAILABLE (e says why).  Neither
 * request may be served.
 */
enum auth_result admit_check(struct admit *a, struct principal *out, struct db *db,
	    const char *authorization, unsigned cost, struct admit_verdict *v, struct err *e);
/*
 * Whether a slot may hold requests counted and not yet admitted: the
 * front then calls admit_release once no request has come for a while.
 */
int		 admit_holding(const struct admit *a);
/* Gives back to the shared count the requests reserved and not admitted. */
void		 admit_release(struct admit *a, struct db *db);
/*
 * Counts a request without a valid token against its client's network
 * (http_client_network's text) and rate_limit_anonymous.  Returns 0 with
 * *v filled: v->over when it is over the limit, or (v->full too) when no
 * bucket could be had (logged once a window); either way it is refused.
 * ERR_UNAVAILABLE or ERR_DB when the count could not be written (e set):
 * refuse it too.  A limit of 0 admits everything.
 */
int		 admit_network(struct admit *a, struct db *db, const char *network,
		    struct admit_verdict *v, struct err *e);

#endif
