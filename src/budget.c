/*
 * budget: the deadline and the search budget of one request.
 *
 * The deadline is CLOCK_MONOTONIC time, read where a loop of the git store
 * checks it (a commit, a file, a diff delta, a few thousand regex steps):
 * a check costs a vDSO call, and a walk stops within one step of it.  The
 * steps are shared by the threads of a search and the calls of a batch, so
 * they are spent with atomic operations.
 *
 * A client that hung up ends the request as the deadline does.  The same
 * checks ask the front whether it did: the first check of a request, then
 * at most every BUDGET_WATCH_MS (one thread wins the turn), so a walk that
 * checks a million times a second makes some 40 system calls a second, and
 * stops within about BUDGET_WATCH_MS of the hang-up.
 */
#include <time.h>

#include "budget.h"
#include "err.h"

int64_t
budget_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
budget_start(struct budget *b, unsigned seconds, budget_gone_fn gone, void *arg)
{
	int64_t	 now = budget_now_ms();

	b->seconds = seconds;
	b->until_ms = seconds == 0 ? 0 : now + (int64_t)seconds * 1000;
	b->steps = BUDGET_STEPS_MAX;
	b->gone_fn = gone;
	b->gone_arg = arg;
	b->watch_ms = now;
	b->gone = 0;
}

/* Whether the client hung up, asking gone_fn when its turn has come (now). */
static int
budget_watch(struct budget *b, int64_t now)
{
	int64_t	 next;

	if (b->gone_fn == NULL)
		return 0;
	if (__atomic_load_n(&b->gone, __ATOMIC_RELAXED))
		return 1;
	next = __atomic_load_n(&b->watch_ms, __ATOMIC_RELAXED);
	if (now < next || !__atomic_compare_exchange_n(&b->watch_ms, &next,
	    now + BUDGET_WATCH_MS, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	if (!b->gone_fn(b->gone_arg))
		return 0;
	__atomic_store_n(&b->gone, 1, __ATOMIC_RELAXED);
	return 1;
}

int
budget_expired(struct budget *b)
{
	int64_t	 now;

	if (b == NULL)
		return 0;
	now = budget_now_ms();
	if (b->until_ms != 0 && now >= b->until_ms)
		return 1;
	return budget_watch(b, now);
}

int
budget_gone(const struct budget *b)
{
	return b != NULL && __atomic_load_n(&b->gone, __ATOMIC_RELAXED);
}

enum budget_stop
budget_spend(struct budget *b, int64_t n)
{
	if (b == NULL)
		return BUDGET_OK;
	if (__atomic_sub_fetch(&b->steps, n, __ATOMIC_RELAXED) < 0)
		return BUDGET_STEPS;
	return budget_expired(b) ? BUDGET_TIME : BUDGET_OK;
}

int
budget_fail(const struct budget *b, struct err *e, const char *what, const char *hint)
{
	if (budget_gone(b))
		return err_set(e, ERR_TOOBIG, "the client went away while %s, and the work "
		    "was stopped", what);
	return err_set(e, ERR_TOOBIG, "the request took longer than request_timeout (%u s) "
	    "while %s, and was stopped: %s", b != NULL ? b->seconds : 0, what, hint);
}
