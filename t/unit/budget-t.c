/* budget-t: unit tests for the request budget's watch on a client that hangs up. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "err.h"
#include "tap.h"

#define THREADS	4
#define RUN_MS	200

/* What the front's callback saw and says. */
struct client {
	int	 asked;		/* times the callback was called (atomic) */
	int	 gone;		/* what it answers */
};

static int
client_gone(void *arg)
{
	struct client	*c = arg;

	__atomic_add_fetch(&c->asked, 1, __ATOMIC_RELAXED);
	return c->gone;
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(long ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* A search thread: checks the budget as fast as it can for RUN_MS. */
static void *
spender(void *arg)
{
	struct budget	*b = arg;
	int64_t		 end = now_ms() + RUN_MS;

	while (now_ms() < end) {
		(void)budget_expired(b);
		(void)budget_spend(b, 1);
	}
	return NULL;
}

static void
test_unwatched(void)
{
	struct budget	 b;

	budget_start(&b, 10, NULL, NULL);
	ok(!budget_expired(&b), "a budget nobody watches is not expired before its deadline");
	ok(!budget_gone(&b), "and its client is not gone");
	is_int(budget_spend(&b, 1), BUDGET_OK, "it spends steps");
	ok(!budget_expired(NULL) && !budget_gone(NULL), "no budget: never expired, never gone");
	is_int(budget_spend(NULL, 1), BUDGET_OK, "no budget: spending is always fine");
}

static void
test_rate(void)
{
	struct client	 c = { 0, 0 };
	struct budget	 b;
	int64_t		 t0, ms;
	int		 i;

	budget_start(&b, 10, client_gone, &c);
	t0 = now_ms();
	ok(!budget_expired(&b), "a client still there does not expire the budget");
	is_int(c.asked, 1, "the first check asks the front at once");
	for (i = 0; i < 1000; i++)
		(void)budget_expired(&b);
	ms = now_ms() - t0;
	ok(c.asked <= ms / BUDGET_WATCH_MS + 1, "a thousand checks in %lld ms ask it %d times",
	    (long long)ms, c.asked);
	sleep_ms(BUDGET_WATCH_MS + 10);
	(void)budget_spend(&b, 1);
	ok(c.asked >= 2, "after BUDGET_WATCH_MS a spend asks again (%d)", c.asked);
}

static void
test_gone(void)
{
	struct client	 c = { 0, 1 };
	struct budget	 b;
	struct err	 e;
	int		 asked;

	budget_start(&b, 10, client_gone, &c);
	ok(budget_expired(&b), "a client that hung up expires the budget at the first check");
	ok(budget_gone(&b), "budget_gone says so");
	asked = c.asked;
	sleep_ms(BUDGET_WATCH_MS + 10);
	is_int(budget_spend(&b, 1), BUDGET_TIME, "spending then stops as at the deadline");
	is_int(c.asked, asked, "once gone, the front is not asked again");
	err_clear(&e);
	is_int(budget_fail(&b, &e, "reading the history", "narrow it"), ERR_TOOBIG,
	    "budget_fail answers ERR_TOOBIG");
	ok(strstr(e.msg, "the client went away while reading the history") != NULL,
	    "and says the client went away: %s", e.msg);
}

static void
test_threads(void)
{
	struct client	 c = { 0, 0 };
	struct budget	 b;
	pthread_t	 t[THREADS];
	int64_t		 t0, ms;
	int		 i, started = 0;

	budget_start(&b, 10, client_gone, &c);
	t0 = now_ms();
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[started], NULL, spender, &b) == 0)
			started++;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	ms = now_ms() - t0;
	ok(started == THREADS, "%d threads check one budget", started);
	ok(c.asked >= 1 && c.asked <= ms / BUDGET_WATCH_MS + 1,
	    "they asked the front %d times in %lld ms, at most once per %d ms", c.asked,
	    (long long)ms, BUDGET_WATCH_MS);
	c.gone = 1;
	sleep_ms(BUDGET_WATCH_MS + 10);
	ok(budget_expired(&b) && budget_gone(&b), "a hang-up is seen at the next turn");
}

int
main(void)
{
	test_unwatched();
	test_rate();
	test_gone();
	test_threads();
	return done_testing();
}
