/*
 * admit: a worker's token cache and the request limits: an account's in
 * blocks, a network's for requests without a valid token.
 *
 * Every request with a token would otherwise cost a database round trip
 * for the lookup and a write for the count.  Here a token checked less
 * than token_cache_seconds ago is answered from this process's memory, so
 * a revoked or expired token is refused at most that long after the fact.
 *
 * The count lives in the shared rate_limits table so the limit holds across
 * workers and hosts (a MEMORY table; on a Galera cluster forgemcp migrate
 * makes it InnoDB, which the cluster replicates: doc/galera.md).  A worker
 * reserves the account's requests there in blocks: one at first, doubling
 * (up to ADMIT_BLOCK_MAX) while each block is used up within a second, and
 * never more than an eighth of what is left under the limit.  The count is
 * never raised over the limit and a refused request is not counted, so an
 * account never gets more than rate_limit requests a window.  Requests a
 * worker reserved and has not admitted are given back to the table once
 * it has had no request for a second (admit_release, from the front's
 * idle wait), when it stops, and when their slot is taken by another
 * token; so over the window an account gets exactly rate_limit requests.
 * The cost: a request can be refused while another worker still holds
 * unused requests of its account, for up to a second, until they come
 * back.  A client slower than about one request a second per worker is
 * counted one request at a time.  A batch costs one request per call: it
 * is admitted only when all of them fit, and its block is at least that
 * large.
 *
 * The table holds at most rate_limit_buckets buckets, one per account and
 * one per network (IPv4 /24, IPv6 /64) of clients without a valid token,
 * so a spread of addresses mints no buckets.  A new bucket takes a free
 * one, else those of ended windows are deleted, else an account takes the
 * least recently used network's; a network never takes another's, as
 * that would hand the other a fresh count.  The rule is that a request
 * whose count cannot be kept is refused, never served: 429 until the
 * window ends when no bucket can be had, 503 when the database fails.
 * The cost is that a flood from more networks than there are buckets
 * refuses new tokenless clients (who would get only 401) for the rest of
 * the window; accounts are refused only when more of them than there are
 * buckets are active in one window.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "admit.h"
#include "auth.h"
#include "budget.h"
#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/db.h"

#define ADMIT_SLOTS		256	/* tokens remembered per process */
#define ADMIT_PROBE		4	/* slots tried per token */
#define ADMIT_BLOCK_MAX		1024	/* largest block of requests reserved at once */
#define ADMIT_HOT_MS		1000	/* a block used up sooner earns a larger one */

struct admit_slot {
	char		 hash[65];	/* "" when free */
	struct principal who;
	int64_t		 checked_ms;	/* when the token was last looked up */
	int64_t		 window;	/* the window of the block (unix seconds) */
	uint64_t	 left;		/* requests of the block not yet admitted */
	uint64_t	 block;		/* the block's size */
	uint64_t	 count;		/* the account's shared count after the block */
	int64_t		 block_ms;	/* when the block was reserved */
};

struct admit {
	int64_t			 ttl_ms;
	int64_t			 window;	/* rate_window, seconds */
	unsigned		 limit;
	unsigned		 anon_limit;	/* rate_limit_anonymous */
	unsigned		 buckets;	/* rate_limit_buckets */
	int64_t			 full_logged;	/* the window a refusal for want of a bucket was logged */
	int			 holding;	/* a slot may hold requests not yet admitted */
	struct admit_slot	 slot[ADMIT_SLOTS];
};

struct admit *
admit_new(const struct config *cfg)
{
	struct admit	*a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->ttl_ms = (int64_t)cfg->token_cache_seconds * 1000;
	a->limit = cfg->rate_limit;
	a->anon_limit = cfg->rate_limit_anonymous;
	a->buckets = cfg->rate_limit_buckets;
	a->window = cfg->rate_window > 0 ? (int64_t)cfg->rate_window : 60;
	return a;
}

void
admit_free(struct admit *a)
{
	if (a != NULL)
		explicit_bzero(a, sizeof(*a));
	free(a);
}

/* A request refused for want of a bucket: logged once a window per process, not per request. */
static void
admit_full(struct admit *a, struct admit_verdict *v)
{
	v->over = 1;
	v->full = 1;
	if (a->full_logged == v->start)
		return;
	a->full_logged = v->start;
	log_warn("no rate limit bucket is free (rate_limit_buckets is %u): requests that "
	    "need a new one are refused until the window ends", a->buckets);
}

/* The slot holding hash (*hit set), else the one to reuse for it. */
static struct admit_slot *
admit_slot(struct admit *a, const char *hash, int *hit)
{
	struct admit_slot	*s, *victim = NULL;
	unsigned		 h = 0;
	int			 i;

	for (i = 0; i < 8; i++)
		h = h * 16 + (unsigned)(hash[i] <= '9' ? hash[i] - '0' : hash[i] - 'a' + 10);
	*hit = 0;
	for (i = 0; i < ADMIT_PROBE; i++) {
		s = &a->slot[(h + (unsigned)i) % ADMIT_SLOTS];
		/* a cache hit is a final check of the digest too: constant time */
		if (s->hash[0] != '\0' && CRYPTO_memcmp(s->hash, hash, 64) == 0) {
			*hit = 1;
			return s;
		}
		if (victim == NULL || s->hash[0] == '\0' ||
		    (victim->hash[0] != '\0' && s->checked_ms < victim->checked_ms))
			victim = s;
	}
	return victim;
}

/* The next block for a slot: doubling while the last one went within ADMIT_HOT_MS. */
static uint64_t
admit_block(const struct admit *a, const struct admit_slot *s, int hit, int64_t window,
    int64_t now)
{
	uint64_t	 b = 1, room;

	if (a->ttl_ms == 0 || !hit || s->window != window || now - s->block_ms >= ADMIT_HOT_MS)
		return 1;
	b = s->block * 2 < ADMIT_BLOCK_MAX ? s->block * 2 : ADMIT_BLOCK_MAX;
	room = s->count < a->limit ? (a->limit - s->count) / 8 : 0;
	if (b > room)
		b = room;
	return b < 1 ? 1 : b;
}

/* The window (unix seconds) a request now falls in. */
static int64_t
admit_window(const struct admit *a)
{
	int64_t	 wall = (int64_t)time(NULL);

	return wall - wall % a->window;
}

/*
 * Gives back the requests slot s counted in the current window and did
 * not admit, so another worker can admit them.  One that cannot be given
 * back is lost to the account for the window (logged).
 */
static void
admit_give_back(struct admit *a, struct db *db, struct admit_slot *s)
{
	struct err	 e;

	if (s->left == 0 || s->hash[0] == '\0')
		return;
	err_clear(&e);
	if (s->window == admit_window(a) &&
	    db_ratelimit_return(db, s->who.user_id, s->window, s->left, &e) != 0)
		log_warn("rate limit: %llu requests of account %llu could not be given back: %s",
		    (unsigned long long)s->left, (unsigned long long)s->who.user_id, e.msg);
	err_clear(&e);
	s->left = 0;
}

int
admit_holding(const struct admit *a)
{
	return a->holding;
}

void
admit_release(struct admit *a, struct db *db)
{
	int	 i;

	if (!a->holding)
		return;
	for (i = 0; i < ADMIT_SLOTS; i++)
		admit_give_back(a, db, &a->slot[i]);
	a->holding = 0;
}

enum auth_result
admit_check(struct admit *a, struct principal *out, struct db *db, const char *authorization,
    unsigned cost, struct admit_verdict *v, struct err *e)
{
	struct admit_slot	*s;
	struct db_bump		 w;
	enum auth_result	 r;
	char			 hash[65];
	int64_t			 now;
	uint64_t		 held, have;
	int			 hit, full = 0;

	v->over = 0;
	v->full = 0;
	if (cost < 1)
		cost = 1;
	if ((r = auth_bearer_hash(hash, authorization)) != AUTH_OK)
		return r;
	v->length = a->window;
	v->start = admit_window(a);
	now = budget_now_ms();
	s = admit_slot(a, hash, &hit);
	if (hit && now - s->checked_ms < a->ttl_ms &&
	    (a->limit == 0 || (s->window == v->start && s->left >= cost))) {
		if (a->limit > 0)
			s->left -= cost;
		*out = s->who;
		return AUTH_OK;
	}
	/* what this slot holds of the window stays its account's; another's goes back */
	if (!hit)
		admit_give_back(a, db, s);
	held = hit && s->window == v->start ? s->left : 0;
	memset(&w, 0, sizeof(w));
	w.window_start = v->start;
	w.buckets = a->buckets;
	w.limit = a->limit;
	if ((w.block = admit_block(a, s, hit, v->start, now)) + held < cost)
		w.block = cost - held;
	r = auth_lookup(out, db, hash, a->limit > 0 ? &w : NULL, &full, e);
	if (r != AUTH_OK) {
		if (hit) {
			admit_give_back(a, db, s);
			memset(s, 0, sizeof(*s));
		}
		return r;
	}
	memset(s, 0, sizeof(*s));
	memcpy(s->hash, hash, sizeof(s->hash));
	s->who = *out;
	s->checked_ms = now;
	if (a->limit == 0) {
		if (a->ttl_ms == 0)
			memset(s, 0, sizeof(*s));	/* no cache */
		return AUTH_OK;
	}
	have = held + w.granted;
	s->window = v->start;
	s->block = w.block;
	s->count = w.before + w.granted;
	s->block_ms = now;
	if (full)
		admit_full(a, v);
	else if (have < cost)
		v->over = 1;	/* what it has waits for a smaller request or goes back */
	else
		have -= cost;
	s->left = have;
	if (have > 0)
		a->holding = 1;
	if (a->ttl_ms == 0) {
		admit_give_back(a, db, s);	/* no cache: nothing is kept between requests */
		memset(s, 0, sizeof(*s));
	}
	return AUTH_OK;
}

int
admit_network(struct admit *a, struct db *db, const char *network, struct admit_verdict *v,
    struct err *e)
{
	struct db_bump	 b = { 0 };
	int		 rc;

	v->over = 0;
	v->full = 0;
	v->length = a->window;
	v->start = admit_window(a);
	if (a->anon_limit == 0)
		return 0;
	b.window_start = v->start;
	b.block = 1;
	b.limit = a->anon_limit;
	b.buckets = a->buckets;
	rc = db_ratelimit_hit(db, 'a', network, &b, e);
	if (rc == ERR_TOOBIG) {
		err_clear(e);
		admit_full(a, v);
		return 0;
	}
	if (rc != 0)
		return rc;
	v->over = b.granted == 0;
	return 0;
}
