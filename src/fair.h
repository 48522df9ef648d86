/*
 * fair: at most a set number of a host's FastCGI workers serve one account
 * at once, so one account's flood of slow calls cannot take every worker;
 * and the last free worker goes only to an account that holds none, so
 * accounts flooding together cannot take every worker either.
 *
 * The master makes the table before it forks (fair_new); each worker owns
 * one slot, names the account it serves there for the length of a request
 * (fair_enter, fair_leave), and the master empties the slot of a worker that
 * died (fair_clear).  The table lives in memory shared by the workers, under
 * a process-shared robust mutex: a worker killed while holding it leaves it
 * usable.  A process that serves alone (CGI, stdio, one worker) has no table.
 */
#ifndef FM_FAIR_H
#define FM_FAIR_H
#include <stdint.h>

struct fair;

/* A table of n slots allowing limit of them per account; NULL on failure. */
struct fair	*fair_new(int n, int limit);
void		 fair_free(struct fair *f);
int		 fair_limit(const struct fair *f);
enum fair_verdict {
	FAIR_OK,	/* FAIR_OK: the request may go on; the slot names the account */
	FAIR_SHARE,	/* FAIR_SHARE: limit other slots serve the account already */
	FAIR_LAST,	/* FAIR_LAST: it holds another, and this is the last free one */
	FAIR__MAX
};

/*
 * Puts account in slot unless that takes more than its share: the limit,
 * or the last free worker while it holds another.  A NULL table: FAIR_OK.
 */
enum fair_verdict fair_enter(struct fair *f, int slot, uint64_t account);
/* Empties slot (the request ended, or the worker that owned it died). */
void		 fair_leave(struct fair *f, int slot);

#endif
