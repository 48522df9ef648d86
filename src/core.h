/* core: one request in, one response out; every front calls only this. */
#ifndef FM_CORE_H
#define FM_CORE_H
#include <stddef.h>

#include "core_io.h"

struct admit;
struct config;
struct db;
struct repo_cache;

/* Per-process state the core keeps between requests. */
struct core {
	const struct config	*cfg;
	struct db		*db;		/* persistent connection, reconnects itself */
	struct repo_cache	*repos;		/* open libgit2 repositories */
	struct admit		*admit;		/* this process's token cache and request blocks */
	struct fair		*fair;		/* the host's workers per account (FastCGI --workers) */
	int			 slot;		/* this worker's place in fair */
};

/*
 * Sets up per-process state: parses every tool schema (refusing duplicates
 * or bad schemas), opens the database connection lazily.  Returns 0 or an
 * ERR_* with the message in e.
 */
struct err;
int	core_init(struct core *out, const struct config *cfg, struct err *e);
void	core_release(struct core *c);
/*
 * Checks at start-up that the database schema is the one this binary
 * speaks.  Returns 0, ERR_CONFIG (refuse to start), or ERR_UNAVAILABLE
 * (the database cannot be used: serve anyway, requests answer 503 until it
 * can; core_db_refused says whether that is an outage or a refused login).
 */
int	core_check_ready(struct core *c, struct err *e);
/*
 * Whether the database's last ERR_UNAVAILABLE was a refused login or
 * database (db_user, db_password, db_name): a configuration error that
 * will not pass by itself, not an outage.
 */
int	core_db_refused(const struct core *c);
/* Waits for libgit2's start-up, begun in the background at launch; 0 when git is usable. */
int	core_git_ready(void);

/*
 * Between requests: gives memory back when a request left the process
 * large (a big repository's packs and caches), so a long-lived worker stays
 * small.  Fronts that serve many requests call it after each answer.  While
 * requests keep coming it keeps the cached repositories (the next search
 * would pay to open them again) and trims at most once a second; it returns
 * 1 when the process is still larger than an idle one needs to be or holds
 * requests of an account's block it has not admitted, and the front then
 * calls core_rest once no request has come for a while.
 */
int	core_idle(struct core *c);
/* Counts us microseconds spent serving toward core_idle's next look (core_handle). */
void	core_served(long us);
/*
 * The worker is idle, or stops: gives back the requests of its blocks
 * (admit_release) and, when it is large, closes the cached repositories
 * and gives all free heap back.
 */
void	core_rest(struct core *c);
/*
 * Notes that the hub started (a FastCGI master, once the database is
 * ready): an agent that has not claimed since has not reported to it.
 */
void	core_hub_started(struct core *c);
/*
 * Handles one request; always fills resp (release it with
 * core_response_release).  When req->client_gone says the client hung up
 * while the work ran, the work stops as at the deadline, one line is
 * logged, and resp->client_gone tells the front to send nothing.
 */
void	core_handle(struct core *c, const struct core_request *req, struct core_response *resp);

#endif
