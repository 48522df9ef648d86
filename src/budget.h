/* budget: what one request may spend, a deadline and a search budget, shared by its calls. */
#ifndef FM_BUDGET_H
#define FM_BUDGET_H
#include <stdint.h>

/*
 * Whether the client has hung up (1) or not (0); arg is what the front
 * passed with it.  Asked from any thread of the request, at most every
 * BUDGET_WATCH_MS; it must not block.
 */
typedef int (*budget_gone_fn)(void *arg);

/*
 * Fixed when a request starts (core_handle) and handed down explicitly:
 * the tool gate puts it in the tool context, the git store takes it as a
 * parameter.  Every call of a batch spends the same budget.
 */
struct budget {
	int64_t		 until_ms;	/* CLOCK_MONOTONIC milliseconds; 0: no deadline */
	unsigned	 seconds;	/* request_timeout it was set from */
	int64_t		 steps;		/* search steps left (updated atomically) */
	budget_gone_fn	 gone_fn;	/* asks whether the client hung up; NULL: nobody can tell */
	void		*gone_arg;
	int64_t		 watch_ms;	/* when gone_fn may be asked next (updated atomically) */
	int		 gone;		/* gone_fn said the client hung up (set atomically) */
};

enum budget_stop {
	BUDGET_OK,		/* BUDGET_OK: within both */
	BUDGET_TIME,		/* BUDGET_TIME: the deadline passed */
	BUDGET_STEPS,		/* BUDGET_STEPS: the search steps are spent */
	BUDGET__MAX
};

/* Search steps a request may spend: pcre2 steps, plus BUDGET_HIT_STEPS per match found. */
#define BUDGET_STEPS_MAX	30000000
#define BUDGET_HIT_STEPS	300

/* How often, at most, the budget asks whether the client hung up. */
#define BUDGET_WATCH_MS		25

/* CLOCK_MONOTONIC milliseconds: the clock deadlines and idle times are kept in. */
int64_t	budget_now_ms(void);
/*
 * Starts a budget of seconds from now (0: no deadline) and BUDGET_STEPS_MAX
 * steps.  gone (NULL: none) tells whether the client hung up; a client
 * that did ends the request as its deadline does.
 */
void	budget_start(struct budget *b, unsigned seconds, budget_gone_fn gone, void *arg);
/*
 * Whether the deadline has passed or the client hung up (b NULL: never).
 * Safe from several threads; asks the budget's gone_fn at most every
 * BUDGET_WATCH_MS, so it is cheap enough for every step of a walk.
 */
int	budget_expired(struct budget *b);
/* Whether the client was found to have hung up (b NULL: no). */
int	budget_gone(const struct budget *b);
/*
 * Spends n search steps (safe from several threads); BUDGET_STEPS when
 * none were left, BUDGET_TIME when the deadline has passed or the client
 * hung up, else BUDGET_OK.  b NULL: always BUDGET_OK.
 */
enum budget_stop budget_spend(struct budget *b, int64_t n);
struct err;
/*
 * Records in e that the deadline passed (or the client hung up) while
 * doing what ("reading the history") and how to narrow the call (hint);
 * returns ERR_TOOBIG, whose message the client sees as an isError result.
 */
int	budget_fail(const struct budget *b, struct err *e, const char *what, const char *hint);

#endif
