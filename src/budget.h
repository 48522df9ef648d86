/* budget: what one request may spend, a deadline and a search budget, shared by its calls. */
#ifndef FM_BUDGET_H
#define FM_BUDGET_H
#include <stdint.h>

/*
 * Fixed when a request starts (core_handle) and handed down explicitly:
 * the tool gate puts it in the tool context, the git store takes it as a
 * parameter.  Every call of a batch spends the same budget.
 */
struct budget {
	int64_t		 until_ms;	/* CLOCK_MONOTONIC milliseconds; 0: no deadline */
	unsigned	 seconds;	/* request_timeout it was set from */
	int64_t		 steps;		/* search steps left (updated atomically) */
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

/* Starts a budget of seconds from now (0: no deadline) and BUDGET_STEPS_MAX steps. */
void	budget_start(struct budget *b, unsigned seconds);
/* Whether the deadline has passed (b NULL: never). */
int	budget_expired(const struct budget *b);
/*
 * Spends n search steps (safe from several threads); BUDGET_STEPS when
 * none were left, BUDGET_TIME when the deadline has passed, else BUDGET_OK.
 * b NULL: always BUDGET_OK.
 */
enum budget_stop budget_spend(struct budget *b, int64_t n);
struct err;
/*
 * Records in e that the deadline passed while doing what ("reading the
 * history") and how to narrow the call (hint); returns ERR_TOOBIG, whose
 * message the client sees as an isError result.
 */
int	budget_fail(const struct budget *b, struct err *e, const char *what, const char *hint);

#endif
