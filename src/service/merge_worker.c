/* merge_worker: the merge queue's worker: claims queued merges, merges with libgit2, moves the ref, records the result. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "buf.h"
#include "err.h"
#include "hold.h"
#include "log.h"
#include "service/closing.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

#define MERGE_MOVE_ATTEMPTS	3	/* builds on a target that keeps moving */
#define MERGE_LOCK_WAIT		50	/* seconds a worker waits for a repository's merge lock */

/* ---- the worker ---- */

void
merge_worker_init(struct merge_worker *w, struct db *db, struct repo_cache *repos,
    const char *base_url)
{
	static char	 mail[256];
	const char	*p;
	size_t		 n;

	memset(w, 0, sizeof *w);
	w->db = db;
	w->repos = repos;
	w->stale_seconds = MERGE_STALE_SECONDS;
	w->interval_ms = 1000;
	if (gethostname(w->host, sizeof w->host - 1) != 0 || w->host[0] == '\0')
		snprintf(w->host, sizeof w->host, "localhost");
	snprintf(w->claimed_by, sizeof w->claimed_by, "%.200s:%ld", w->host, (long)getpid());
	/* The host of base_url: between "://" and the next ":" or "/". */
	snprintf(mail, sizeof mail, "localhost");
	if (base_url != NULL && (p = strstr(base_url, "://")) != NULL) {
		p += 3;
		n = strcspn(p, ":/?#");
		if (n > 0 && n < sizeof mail && p[0] != '[')
			snprintf(mail, sizeof mail, "%.*s", (int)n, p);
	}
	w->mail_host = mail;
}

int
merge_worker_beat(struct merge_worker *w, struct err *e)
{
	return forge_merge_worker_beat(w->db, w->claimed_by, w->interval_ms, e);
}

int
merge_worker_stopped(struct merge_worker *w, struct err *e)
{
	return forge_merge_worker_stop(w->db, w->claimed_by, e);
}

#ifdef FM_DEBUG_HOOKS
/*
 * The hooks below let the tests crash or stop a worker at a chosen point of
 * a merge.  Only --enable-debug builds have them: a production worker does
 * not look at these variables.
 */

/* FORGEMCP_WORKER_FAULT=point: dies at that point, as a crash would (tests only). */
static void
fault(const char *point)
{
	const char	*f = getenv("FORGEMCP_WORKER_FAULT");

	if (f != NULL && strcmp(f, point) == 0) {
		log_warn("FORGEMCP_WORKER_FAULT=%s: exiting on purpose", point);
		_exit(1);
	}
}

/*
 * FORGEMCP_WORKER_PAUSE=point with FORGEMCP_WORKER_PAUSE_FILE=path: at that
 * point the worker, once, creates path and waits (at most 60 s) until it
 * is removed, so a test can move a branch in the middle of a merge (tests
 * only).
 */
static void
pause_at(const char *point)
{
	const char	*p = getenv("FORGEMCP_WORKER_PAUSE");
	const char	*path = getenv("FORGEMCP_WORKER_PAUSE_FILE");
	static int	 paused;

	if (paused || p == NULL || path == NULL || strcmp(p, point) != 0)
		return;
	paused = 1;
	log_warn("FORGEMCP_WORKER_PAUSE=%s: waiting for %s to go", point, path);
	hold_until_removed(path);
}
#else
#define fault(point)	((void)0)
#define pause_at(point)	((void)0)
#endif

/* The pull request, its revision and the commit identity of a merge. */
struct merge_job {
	struct forge_merge	*m;
	struct forge_item	 pr;
	struct forge_revision	 rev;
	char			 login[65];
	char			*who;		/* owned: the requester's name, NULL for none */
	char			 email[400];
	char			*message;	/* owned */
};

static void
job_release(struct merge_job *j)
{
	forge_item_release(&j->pr);
	free(j->who);
	free(j->message);
	j->who = j->message = NULL;
}

static int
job_load(struct merge_worker *w, struct merge_job *j, struct err *e)
{
	struct buf	 b;
	int		 rc;

	if ((rc = forge_item_get(w->db, &j->pr, FORGE_KIND_PULL, j->m->repo_id, j->m->number,
	    e)) != 0)
		return rc;
	if ((rc = forge_revision_get(w->db, &j->rev, j->pr.id, j->m->version, e)) != 0)
		return rc;
	if ((rc = forge_user_get(w->db, j->login, &j->who, j->m->requested_by, e)) != 0)
		return rc;
	snprintf(j->email, sizeof j->email, "%s@%s", j->login, w->mail_host);
	buf_init(&b);
	if (strcmp(j->m->strategy, "squash") == 0)
		buf_printf(&b, "%s\n", j->pr.title);
	else
		buf_printf(&b, "Merge pull request #%lld from %s\n\n%s\n", (long long)j->m->number,
		    j->pr.head, j->pr.title);
	if (strcmp(j->m->strategy, "squash") == 0 && j->pr.body != NULL &&
	    !service_blank(j->pr.body))
		buf_printf(&b, "\n%s\n", j->pr.body);
	if ((j->message = buf_steal(&b, NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

struct complete_tx {
	const struct forge_merge *m;
	const char		*commit;
	int			 done;
};

/* Marks the merge and the pull request merged, closes the declared issues, tells the author. */
static int
complete_tx(struct db *db, void *arg, struct err *e)
{
	struct complete_tx	*t = arg;
	struct forge_item	 pr, issue;
	struct forge_pull_status st;
	struct closing_list	 l;
	struct notify_event	 ev;
	size_t			 i;
	int			 rc;

	memset(&pr, 0, sizeof pr);
	memset(&issue, 0, sizeof issue);
	t->done = 0;
	if ((rc = forge_pull_lock(db, &pr, &st, t->m->repo_id, t->m->number, e)) != 0)
		goto done;
	if ((rc = forge_merge_mark_merged(db, &t->done, t->m->id, pr.id, t->commit, e)) != 0 ||
	    !t->done)
		goto done;
	closing_read(&l, pr.closing);
	for (i = 0; i < l.n; i++) {
		forge_item_release(&issue);
		rc = forge_issue_lock(db, &issue, t->m->repo_id, l.numbers[i], e);
		if (rc == ERR_NOTFOUND) {
			rc = 0;
			continue;
		}
		if (rc != 0)
			goto done;
		if (strcmp(issue.state, "open") != 0)
			continue;
		if ((rc = forge_issue_set_state(db, issue.id, 1, e)) != 0 ||
		    (rc = forge_event_insert(db, FORGE_KIND_ISSUE, issue.id, t->m->requested_by,
		    FORGE_EVENT_CLOSED, FORGE_CAUSE_MERGE, t->m->number, 0, e)) != 0)
			goto done;
	}
	if ((rc = forge_event_insert(db, FORGE_KIND_PULL, pr.id, t->m->requested_by,
	    FORGE_EVENT_MERGED, FORGE_CAUSE_USER, 0, 0, e)) != 0)
		goto done;
	notify_event_init(&ev, t->m->repo_id, FORGE_KIND_PULL, pr.id, t->m->requested_by, 0);
	rc = notify_one(db, &ev, pr.author_id, FORGE_REASON_MERGED, e);
	notify_event_release(&ev);
done:
	forge_item_release(&issue);
	forge_item_release(&pr);
	return rc;
}

static int
merge_complete(struct merge_worker *w, struct forge_merge *m, const char *commit,
    struct err *e)
{
	struct complete_tx	 t;
	int			 rc;

	memset(&t, 0, sizeof t);
	t.m = m;
	t.commit = commit;
	if ((rc = service_transaction(w->db, complete_tx, &t, e)) != 0)
		return rc;
	if (t.done)
		log_info("merge %llu: %s/%s#%lld merged as %s", (unsigned long long)m->id,
		    m->owner, m->name, (long long)m->number, commit);
	return 0;
}

static int
merge_fail(struct merge_worker *w, struct forge_merge *m, const char *why, struct err *e)
{
	log_info("merge %llu: %s/%s#%lld failed: %s", (unsigned long long)m->id, m->owner,
	    m->name, (long long)m->number, why);
	return forge_merge_mark_failed(w->db, m->id, m->pull_request_id, m->requested_by, why, e);
}

static enum repo_merge_strategy
strategy_of(const char *s)
{
	if (strcmp(s, "squash") == 0)
		return REPO_MERGE_SQUASH;
	if (strcmp(s, "fast_forward") == 0)
		return REPO_MERGE_FAST_FORWARD;
	return REPO_MERGE_COMMIT;
}

/*
 * What merge_queue checked, checked again at merge time, since a role, a
 * token or a check can change while the merge waits: the requester still
 * has the manager role and a token with the merge scope that is neither
 * revoked nor expired, and the target's required checks pass on the
 * commit being merged.  *why is "" when all hold, else the public reason.
 */
static int
merge_recheck(struct merge_worker *w, const struct merge_job *j, char *why, size_t len,
    struct err *e)
{
	struct db_repo		 repo;
	struct pull_revision	 rev;
	enum forge_role		 role = FORGE_ROLE_NONE;
	char			*failing = NULL;
	int			 rc, ok = 0;

	why[0] = '\0';
	if ((rc = forge_role(w->db, &role, j->m->repo_id, j->m->requested_by, e)) != 0)
		return rc;
	if (role < FORGE_ROLE_MANAGER) {
		snprintf(why, len, "%s, who queued the merge, no longer has the manager role on "
		    "%s/%s (their role is %s): nothing was merged; a manager can merge again",
		    j->login, j->m->owner, j->m->name, forge_role_name(role));
		return 0;
	}
	if ((rc = db_token_has_scope(w->db, &ok, j->m->requested_by, "merge", e)) != 0)
		return rc;
	if (!ok) {
		snprintf(why, len, "%s, who queued the merge, no longer has a valid token with "
		    "the merge scope (revoked or expired): nothing was merged; merge again with "
		    "a valid token", j->login);
		return 0;
	}
	memset(&repo, 0, sizeof repo);
	repo.id = j->m->repo_id;
	snprintf(repo.owner, sizeof repo.owner, "%s", j->m->owner);
	snprintf(repo.name, sizeof repo.name, "%s", j->m->name);
	memset(&rev, 0, sizeof rev);
	rev.version = j->rev.version;
	snprintf(rev.head_commit, sizeof rev.head_commit, "%s", j->rev.head_commit);
	snprintf(rev.base_ref, sizeof rev.base_ref, "%s", j->rev.base_ref);
	if ((rc = pull_checks_passing(w->db, &repo, &j->pr, &rev, &ok, &failing, e)) != 0)
		return rc;
	if (!ok)
		snprintf(why, len, "nothing was merged: %s", failing != NULL ? failing :
		    "the required checks have not passed");
	free(failing);
	return 0;
}

/*
 * Builds, records, moves and completes merge m; the caller holds the
 * repository's merge lock.  A merge that cannot be made is failed.
 */
static int
merge_process(struct merge_worker *w, struct forge_merge *m, struct err *e)
{
	struct merge_job	 j;
	struct repo_merge_req	 req;
	struct err		 local;
	char			 base[41], result[41], why[600];
	int			 rc, attempt, got;

	memset(&j, 0, sizeof j);
	j.m = m;
	if (m->attempts > MERGE_MAX_ATTEMPTS) {
		rc = merge_fail(w, m, "the merge was attempted too many times without finishing: "
		    "merge again", e);
		goto done;
	}
	if ((rc = job_load(w, &j, e)) != 0) {
		if (rc == ERR_NOTFOUND)
			rc = merge_fail(w, m, "the pull request's revision is gone: reload and merge "
			    "again", e);
		goto done;
	}
	if (strcmp(j.pr.state, "open") != 0) {
		snprintf(why, sizeof why, "pull request #%lld was %s before the merge ran",
		    (long long)m->number, j.pr.state);
		rc = merge_fail(w, m, why, e);
		goto done;
	}
	if ((rc = merge_recheck(w, &j, why, sizeof why, e)) != 0)
		goto done;
	if (why[0] != '\0') {
		rc = merge_fail(w, m, why, e);
		goto done;
	}
	memset(&req, 0, sizeof req);
	req.strategy = strategy_of(m->strategy);
	req.head_branch = j.pr.head;
	req.head_commit = j.rev.head_commit;
	req.target_branch = j.rev.base_ref;
	req.message = j.message;
	req.who = j.who != NULL && !service_blank(j.who) ? j.who : j.login;
	req.email = j.email;
	req.version = (long long)m->version;
	for (attempt = 1; attempt <= MERGE_MOVE_ATTEMPTS; attempt++) {
		err_clear(&local);
		rc = repo_merge_build(w->repos, base, result, m->owner, m->name, &req, &local);
		if (rc == ERR_CONFLICT || rc == ERR_INVALID || rc == ERR_NOTFOUND) {
			rc = merge_fail(w, m, local.msg, e);
			goto done;
		}
		if (rc != 0) {
			rc = err_set(e, rc, "merge %llu: %s", (unsigned long long)m->id, local.msg);
			goto done;
		}
		if ((rc = forge_merge_set_result(w->db, m->id, base, result, e)) != 0)
			goto done;
		/* the lock's beat with the merge's: neither looks stale while it is built */
		err_clear(&local);
		(void)forge_merge_lock(w->db, &got, m->repo_id, w->claimed_by, NULL,
		    w->stale_seconds, 0, &local);
		fault("after-result");
		pause_at("after-result");
		snprintf(why, sizeof why, "forgemcp: merge pull request #%lld (%s)",
		    (long long)m->number, m->strategy);
		err_clear(&local);
		rc = repo_merge_move(w->repos, m->owner, m->name, j.rev.base_ref, result, base, why,
		    &local);
		if (rc == ERR_CONFLICT) {
			log_info("merge %llu: '%s' moved while merging, building again",
			    (unsigned long long)m->id, j.rev.base_ref);
			continue;
		}
		if (rc != 0) {
			rc = err_set(e, rc, "merge %llu: %s", (unsigned long long)m->id, local.msg);
			goto done;
		}
		fault("after-ref");
		rc = merge_complete(w, m, result, e);
		goto done;
	}
	snprintf(why, sizeof why, "the target branch '%s' kept moving during the merge: merge "
	    "again", j.rev.base_ref);
	rc = merge_fail(w, m, why, e);
done:
	job_release(&j);
	return rc;
}

int
merge_worker_run_one(struct merge_worker *w, int *did, struct err *e)
{
	struct forge_merge	 m;
	struct err		 ignore;
	int			 rc, found = 0, got = 0;

	*did = 0;
	rc = forge_merge_claim(w->db, &m, &found, w->claimed_by, e);
	if (rc == ERR_CONFLICT) {
		/* a worker on another node of a cluster claimed it at the same moment */
		log_info("the next merge was claimed by another worker");
		err_clear(e);
		return 0;
	}
	if (rc != 0 || !found)
		return rc;
	*did = 1;
	if ((rc = forge_merge_lock(w->db, &got, m.repo_id, w->claimed_by, NULL, w->stale_seconds,
	    MERGE_LOCK_WAIT, e)) != 0)
		return rc;
	if (!got) {
		/* Another worker is merging into this repository; recovery takes it up later. */
		log_warn("merge %llu: the merge lock of %s/%s stayed busy", (unsigned long long)m.id,
		    m.owner, m.name);
		return 0;
	}
	rc = merge_process(w, &m, e);
	err_clear(&ignore);
	forge_merge_unlock(w->db, m.repo_id, w->claimed_by, &ignore);
	return rc;
}

/* Whether claimed_by names a process of this host that no longer runs. */
static int
claimer_dead(const struct merge_worker *w, const char *claimed_by)
{
	const char	*colon = strrchr(claimed_by, ':');
	char		*end;
	long		 pid;

	if (colon == NULL || (size_t)(colon - claimed_by) != strlen(w->host) ||
	    strncmp(claimed_by, w->host, strlen(w->host)) != 0)
		return 0;
	errno = 0;
	pid = strtol(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || pid <= 0 || pid == (long)getpid())
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Takes up abandoned merge m; the caller holds its repository's merge lock. */
static int
recover_one(struct merge_worker *w, struct forge_merge *m, struct err *e)
{
	struct forge_revision	 rev;
	struct err		 local;
	char			 now[41];
	int			 rc, taken = 0, contains = 0;

	if ((rc = forge_merge_take_over(w->db, &taken, m->id, m->claimed_by, w->claimed_by,
	    e)) != 0 || !taken)
		return rc;
	if ((rc = forge_merge_get(w->db, m, m->id, e)) != 0)
		return rc;
	log_info("merge %llu: taking up %s/%s#%lld (attempt %lld)", (unsigned long long)m->id,
	    m->owner, m->name, (long long)m->number, (long long)m->attempts);
	if (m->result_commit[0] != '\0') {
		if ((rc = forge_revision_get(w->db, &rev, m->pull_request_id, m->version, e)) != 0)
			return rc == ERR_NOTFOUND ? merge_process(w, m, e) : rc;
		err_clear(&local);
		if ((rc = repo_merge_contains(w->repos, now, &contains, m->owner, m->name,
		    rev.base_ref, m->result_commit, &local)) != 0)
			return err_set(e, rc, "merge %llu: %s", (unsigned long long)m->id, local.msg);
		/* The ref moved before the crash: only the database was left to do. */
		if (contains)
			return merge_complete(w, m, m->result_commit, e);
	}
	return merge_process(w, m, e);
}

int
merge_worker_recover(struct merge_worker *w, size_t *recovered, struct err *e)
{
	struct forge_merge	*v = NULL;
	struct err		 ignore;
	size_t			 n = 0, i;
	int			 rc, got;

	*recovered = 0;
	if ((rc = forge_merge_running(w->db, &v, &n, e)) != 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		/* Our own rows too: one left when the lock stayed busy is taken up once stale. */
		if (!claimer_dead(w, v[i].claimed_by) && v[i].heartbeat_age >= 0 &&
		    v[i].heartbeat_age < w->stale_seconds)
			continue;
		got = 0;
		if ((rc = forge_merge_lock(w->db, &got, v[i].repo_id, w->claimed_by,
		    claimer_dead(w, v[i].claimed_by) ? v[i].claimed_by : NULL, w->stale_seconds, 0,
		    e)) != 0 || !got)
			continue;
		rc = recover_one(w, &v[i], e);
		err_clear(&ignore);
		forge_merge_unlock(w->db, v[i].repo_id, w->claimed_by, &ignore);
		if (rc == 0)
			(*recovered)++;
	}
	free(v);
	return rc;
}
