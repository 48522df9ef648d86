/* websearch: web search providers behind one adapter boundary, and the per-user hourly limit. */
#ifndef FM_WEBSEARCH_H
#define FM_WEBSEARCH_H
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct config;
struct db;

#define WEBSEARCH_COUNT_MIN	1
#define WEBSEARCH_COUNT_MAX	10
#define WEBSEARCH_RESPONSE_MAX	(1024 * 1024)	/* bytes read from a provider at most */

/*
 * Failures of the provider (an HTTP status, a timeout, a response that is
 * not the documented JSON) are ERR_UPSTREAM: public, so the model sees them.
 */
#define WEBSEARCH_ERR_UPSTREAM	ERR_UPSTREAM

/* One result, the same shape for every provider.  Strings are owned, never NULL. */
struct websearch_result {
	char	*title;
	char	*url;
	char	*description;
};

/*
 * Searches the web with the provider cfg->search_provider names, asking for
 * count results (clamped to WEBSEARCH_COUNT_MIN..MAX).  On success *out is an
 * array of *n results (possibly 0) the caller frees with
 * websearch_results_free.  Errors, each with a message a model can show:
 * ERR_CONFIG for an unknown provider (naming it and the supported ones) or a
 * missing API key (naming BRAVE_SEARCH_API_KEY); WEBSEARCH_ERR_UPSTREAM for an
 * HTTP status other than 200 ("search provider returned HTTP 429"), a
 * timeout, a failed connection or an unparseable response; ERR_NOMEM.  The
 * API key is never logged nor put in a message.  The HTTP handle is kept for
 * the life of the process so connections are reused.
 */
int	websearch_run(struct websearch_result **out, size_t *n, const struct config *cfg,
	    const char *query, int count, struct err *e);
void	websearch_results_free(struct websearch_result *v, size_t n);
/*
 * Checks that cfg names a known provider and that its API key is set:
 * ERR_CONFIG with the same messages as websearch_run otherwise.  Cheap: no
 * network, no database, so a caller can refuse before counting a search.
 */
int	websearch_check(const struct config *cfg, struct err *e);

/*
 * Admits one search by user_id under a sliding window of one hour, shared
 * by every worker and host: in one transaction it locks the user's counter
 * row, purges that user's events older than an hour, counts the rest and,
 * when fewer than limit, records this search.  Returns 0 when admitted.
 * When the window is full returns ERR_TOOBIG with a message saying how many
 * seconds remain until the next search is allowed (also stored in
 * *retry_after when not NULL).  ERR_DB / ERR_UNAVAILABLE on database failure.
 */
int	db_websearch_admit(struct db *db, uint64_t user_id, unsigned limit, int64_t *retry_after,
	    struct err *e);

#endif
