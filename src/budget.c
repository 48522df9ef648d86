/*
 * budget: the deadline and the search budget of one request.
 *
 * The deadline is CLOCK_MONOTONIC time, read where a loop of the git store
 * checks it (a commit, a file, a diff delta, a few thousand regex steps):
 * a check costs a vDSO call, and a walk stops within one step of it.  The
 * steps are shared by the threads of a search and the calls of a batch, so
 * they are spent with atomic operations.
 */
#include <time.h>

#include "budget.h"
#include "err.h"

static int64_t
budget_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
budget_start(struct budget *b, unsigned seconds)
{
	b->seconds = seconds;
	b->until_ms = seconds == 0 ? 0 : budget_now_ms() + (int64_t)seconds * 1000;
	b->steps = BUDGET_STEPS_MAX;
}

int
budget_expired(const struct budget *b)
{
	return b != NULL && b->until_ms != 0 && budget_now_ms() >= b->until_ms;
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
	return err_set(e, ERR_TOOBIG, "the request took longer than request_timeout (%u s) "
	    "while %s, and was stopped: %s", b != NULL ? b->seconds : 0, what, hint);
}
