/* merge: queueing a pull request's merge and the worker that does it (spec: merge_merge_request; the merge queue). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "log.h"
#include "service/closing.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

#define MERGE_MOVE_ATTEMPTS	3	/* builds on a target that keeps moving */
#define MERGE_LOCK_WAIT		50	/* seconds a worker waits for a repository's merge lock */

/* ---- merge_pull_request ---- */

struct queue_tx {
	const struct db_repo	*repo;
	uint64_t		 user_id;
	int64_t			 number, version, edit_version;
	const char		*strategy;
	struct forge_item	 it;
	struct forge_pull_status st;
	uint64_t		 merge_id;
	int			 refused;	/* 1: the state changed (message in why) */
	int			 stale;		/* 1: version moved, 2: edit_version moved */
	char			 why[300];
};

/* "#3, #4" from the stored form "3,4". */
static void
issues_text(char *buf, size_t len, const char *stored)
{
	struct closing_list	 l;
	size_t			 i, at = 0;
	int			 n;

	buf[0] = '\0';
	closing_read(&l, stored);
	for (i = 0; i < l.n && at < len; i++) {
		n = snprintf(buf + at, len - at, "%s#%lld", i > 0 ? ", " : "",
		    (long long)l.numbers[i]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

/* Why a pull request in this state cannot be queued, or NULL when it can. */
static const char *
queue_refusal(char *buf, size_t len, const struct db_repo *repo, const struct forge_item *it,
    const struct forge_pull_status *st)
{
	if (strcmp(it->state, "open") != 0)
		snprintf(buf, len, "pull request #%lld of %s/%s is %s: only an open pull request "
		    "can be merged", (long long)it->number, repo->owner, repo->name, it->state);
	else if (it->draft)
		snprintf(buf, len, "pull request #%lld of %s/%s is a draft: mark it ready for "
		    "review before merging", (long long)it->number, repo->owner, repo->name);
	else if (strcmp(st->merge_state, "queued") == 0 || strcmp(st->merge_state, "running") == 0)
		snprintf(buf, len, "pull request #%lld of %s/%s already has a merge %s: read "
		    "get_pull_request for merge_state and wait for it to finish",
		    (long long)it->number, repo->owner, repo->name, st->merge_state);
	else
		return NULL;
	return buf;
}

static int
queue_tx(struct db *db, void *arg, struct err *e)
{
	struct queue_tx	*t = arg;
	int		 rc;

	forge_item_release(&t->it);
	t->refused = t->stale = 0;
	t->merge_id = 0;
	if ((rc = forge_pull_lock(db, &t->it, &t->st, t->repo->id, t->number, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "pull request #%lld no longer exists",
		    (long long)t->number) : rc;
	if (queue_refusal(t->why, sizeof t->why, t->repo, &t->it, &t->st) != NULL) {
		t->refused = 1;
		return 0;
	}
	if (t->st.version != t->version) {
		t->stale = 1;
		return 0;
	}
	if (t->it.closing != NULL && t->it.closing[0] != '\0' &&
	    t->it.edit_version != t->edit_version) {
		t->stale = 2;
		return 0;
	}
	return forge_merge_queue(db, &t->merge_id, t->repo->id, t->it.id, t->version,
	    t->strategy, t->user_id, e);
}

/* The stale-version refusal: the caller's version is not the current revision. */
static int
stale_version(const struct db_repo *repo, int64_t number, int64_t now, int64_t passed,
    struct err *e)
{
	return err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s is at version %lld, not the "
	    "version %lld you passed (its head or target moved): reload it with "
	    "get_pull_request, review the new revision and retry with version %lld",
	    (long long)number, repo->owner, repo->name, (long long)now, (long long)passed,
	    (long long)now);
}

/* The refusals about the declared closures; 0 when there are none to confirm. */
static int
closing_refusal(const struct db_repo *repo, const struct forge_item *it, int64_t edit_version,
    struct err *e)
{
	char	 issues[1200];

	if (it->closing == NULL || it->closing[0] == '\0' || it->edit_version == edit_version)
		return 0;
	issues_text(issues, sizeof issues, it->closing);
	if (edit_version == 0)
		return err_set(e, ERR_INVALID, "the description of pull request #%lld of %s/%s "
		    "declares that merging closes %s: pass the edit_version you read with "
		    "get_pull_request (it is %lld) to confirm", (long long)it->number,
		    repo->owner, repo->name, issues, (long long)it->edit_version);
	return err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s has changed since you read "
	    "it (edit_version is now %lld, you passed %lld; merging closes %s): reload it "
	    "with get_pull_request and retry", (long long)it->number, repo->owner, repo->name,
	    (long long)it->edit_version, (long long)edit_version, issues);
}

int
merge_queue(struct db *db, struct repo_cache *repos, struct service_merge_queued *out,
    uint64_t user_id, const char *owner, const char *name, int64_t number,
    int64_t version, int64_t edit_version, const char *strategy, struct err *e)
{
	struct db_repo		 repo;
	struct forge_item	 pr;
	struct forge_pull_status st;
	struct pull_revision	 rev;
	struct queue_tx		 t;
	char			 action[64], why[300], *failing = NULL;
	int			 rc, ok = 0;

	memset(out, 0, sizeof *out);
	memset(&repo, 0, sizeof repo);
	memset(&pr, 0, sizeof pr);
	memset(&t, 0, sizeof t);
	if (strategy == NULL)
		strategy = "merge";
	if (strcmp(strategy, "merge") != 0 && strcmp(strategy, "squash") != 0 &&
	    strcmp(strategy, "fast_forward") != 0)
		return err_set(e, ERR_INVALID, "strategy '%s' is not one of merge, squash, "
		    "fast_forward", strategy);
	if ((rc = db_repo_find_visible(db, &repo, user_id, owner, name, e)) != 0)
		goto done;
	snprintf(action, sizeof action, "merge pull request #%lld", (long long)number);
	if ((rc = service_need_role(db, &repo, user_id, FORGE_ROLE_MANAGER, action, NULL,
	    e)) != 0)
		goto done;
	rc = forge_item_get(db, &pr, FORGE_KIND_PULL, repo.id, number, e);
	if (rc == ERR_NOTFOUND)
		rc = service_not_found(db, &repo, FORGE_KIND_PULL, number,
		    "only pull requests are merged", e);
	if (rc != 0)
		goto done;
	if ((rc = forge_pull_status_get(db, &st, pr.id, e)) != 0)
		goto done;
	if (queue_refusal(why, sizeof why, &repo, &pr, &st) != NULL) {
		rc = err_set(e, ERR_INVALID, "%s", why);
		goto done;
	}
	if ((rc = pull_revision_current(db, repos, &repo, &pr, &rev, e)) != 0)
		goto done;
	if (rev.head_gone || rev.base_gone) {
		rc = err_set(e, ERR_INVALID, "the %s branch '%s' of pull request #%lld no longer "
		    "exists: it cannot be merged", rev.head_gone ? "head" : "target",
		    rev.head_gone ? pr.head : pr.base, (long long)number);
		goto done;
	}
	if (rev.version != version) {
		rc = stale_version(&repo, number, rev.version, version, e);
		goto done;
	}
	if ((rc = closing_refusal(&repo, &pr, edit_version, e)) != 0)
		goto done;
	if ((rc = pull_checks_passing(db, &repo, &pr, &rev, &ok, &failing, e)) != 0)
		goto done;
	if (!ok) {
		rc = err_set(e, ERR_INVALID, "cannot merge: %s", failing != NULL ? failing :
		    "the required checks have not passed");
		goto done;
	}
	t.repo = &repo;
	t.user_id = user_id;
	t.number = number;
	t.version = version;
	t.edit_version = edit_version;
	t.strategy = strategy;
	if ((rc = service_transaction(db, queue_tx, &t, e)) != 0)
		goto done;
	if (t.refused) {
		rc = err_set(e, ERR_INVALID, "%s", t.why);
		goto done;
	}
	if (t.stale == 1) {
		rc = stale_version(&repo, number, t.st.version, version, e);
		goto done;
	}
	if (t.stale == 2) {
		rc = closing_refusal(&repo, &t.it, edit_version, e);
		goto done;
	}
	out->merge_id = t.merge_id;
	out->number = number;
	out->version = version;
	snprintf(out->strategy, sizeof out->strategy, "%s", strategy);
	snprintf(out->closing, sizeof out->closing, "%s", t.it.closing != NULL ?
	    t.it.closing : "");
	memcpy(out->owner, repo.owner, sizeof out->owner);
	memcpy(out->name, repo.name, sizeof out->name);
done:
	free(failing);
	forge_item_release(&t.it);
	forge_item_release(&pr);
	db_repo_release(&repo);
	return rc;
}

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
	FILE		*f;
	int		 i;

	if (paused || p == NULL || path == NULL || strcmp(p, point) != 0)
		return;
	paused = 1;
	log_warn("FORGEMCP_WORKER_PAUSE=%s: waiting for %s to go", point, path);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	for (i = 0; i < 1200 && access(path, F_OK) == 0; i++)
		usleep(50 * 1000);
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
	return forge_merge_mark_failed(w->db, m->id, m->pull_request_id, why, e);
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
	int			 rc, attempt;

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
	if ((rc = forge_merge_claim(w->db, &m, &found, w->claimed_by, e)) != 0 || !found)
		return rc;
	*did = 1;
	if ((rc = forge_merge_lock(w->db, &got, m.repo_id, MERGE_LOCK_WAIT, e)) != 0)
		return rc;
	if (!got) {
		/* Another worker is merging into this repository; recovery takes it up later. */
		log_warn("merge %llu: the merge lock of %s/%s stayed busy", (unsigned long long)m.id,
		    m.owner, m.name);
		return 0;
	}
	rc = merge_process(w, &m, e);
	err_clear(&ignore);
	forge_merge_unlock(w->db, m.repo_id, &ignore);
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
		if ((rc = forge_merge_lock(w->db, &got, v[i].repo_id, 0, e)) != 0 || !got)
			continue;
		rc = recover_one(w, &v[i], e);
		err_clear(&ignore);
		forge_merge_unlock(w->db, v[i].repo_id, &ignore);
		if (rc == 0)
			(*recovered)++;
	}
	free(v);
	return rc;
}
