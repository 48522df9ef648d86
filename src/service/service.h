/* service: the mutations of issues, pull requests and comments, with their rules. */
#ifndef FM_SERVICE_H
#define FM_SERVICE_H
#include <stddef.h>
#include <stdint.h>

#include "store/forge.h"

struct db;
struct db_repo;
struct err;
struct repo_cache;

/*
 * Every mutation lives here, once, so the MCP tools and any later front (a
 * web UI, a REST endpoint) run the same validations and authorization.
 * Each one is a single database transaction, retried from the start when
 * the database aborts it (a deadlock or a cluster certification failure).
 * Messages are public and say what to change; a repository the caller
 * cannot see is always "Repository not found or not accessible".
 */

/* What a mutation created. */
struct service_created {
	uint64_t	 id;		/* row id of the issue, pull request or comment */
	int64_t		 number;	/* the issue / pull request number (a comment's parent's) */
	enum forge_kind	 kind;		/* ISSUE or PULL (a comment's parent kind) */
	char		 owner[65];	/* the repository as stored (canonical spelling) */
	char		 name[101];
};

/*
 * Opens an issue on repo as user_id (spec: create_issue).  title must not be blank (surrounding
 * blanks are dropped); body may be NULL.  The number comes from the
 * repository's shared counter in the same transaction.  Returns 0,
 * ERR_NOTFOUND, ERR_INVALID, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	issue_create(struct db *db, struct service_created *out, uint64_t user_id,
	    const struct db_repo *repo, const char *title, const char *body,
	    struct err *e);

/*
 * Opens a pull request from branch head into branch base (spec:
 * create_pull_request) on repo, whose writer role the caller (the tool
 * gate) has checked.  Both branches must
 * exist and differ, the title must not be blank, and no other open pull
 * request may have the same head and base (ERR_EXISTS names it).  draft
 * marks a draft.  issue (0 for none) links an existing issue of the
 * repository (else ERR_INVALID naming it) and never closes it; the issues
 * body declares closed ("Closes #3", closing_parse) are stored with the
 * pull request, for a merge to close.
 */
int	pull_create(struct db *db, struct repo_cache *repos, struct service_created *out,
	    uint64_t user_id, const struct db_repo *repo, const char *title,
	    const char *body, const char *head, const char *base, int draft, int64_t issue,
	    struct err *e);

/*
 * Comments on the issue or pull request number of repo (spec:
 * add_issue_comment); the number resolves to exactly one of them.  body
 * must not be blank.  ERR_NOTFOUND
 * when nothing has that number.
 */
int	comment_add(struct db *db, struct service_created *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, const char *body,
	    struct err *e);

/* ---- repository variables ---- */

#define SERVICE_VARIABLE_NAME_MAX	64	/* bytes of [A-Z_][A-Z0-9_]* */
#define SERVICE_VARIABLE_VALUE_MAX	4096	/* bytes of text */
#define SERVICE_VARIABLES_MAX		100	/* per repository */

/*
 * Creates or replaces the variable var of repo (spec: repository
 * variables), whose manager role the caller (the tool gate) has
 * checked.  var must match [A-Z_][A-Z0-9_]* in at most 64
 * characters; value is value_len bytes of text (no NUL) of at most 4096
 * bytes, and may be empty.  A new variable is refused when the repository
 * has 100 already.  *out receives the stored variable (released by the
 * caller with forge_variable_release, also on error) and *created whether
 * it is new.  Returns 0, ERR_INVALID, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	variable_set(struct db *db, struct forge_variable *out, int *created, uint64_t user_id,
	    const struct db_repo *repo, const char *var, const char *value,
	    size_t value_len, struct err *e);
/*
 * Deletes the variable var of repo, with variable_set's name rule.
 * Idempotent: *deleted is 0, and the call succeeds, when there was no
 * such variable.
 */
int	variable_delete(struct db *db, int *deleted, const struct db_repo *repo, const char *var,
	    struct err *e);

/* ---- the issue lifecycle ---- */

/* An issue after a lifecycle call. */
struct service_issue {
	int64_t		 number;
	int64_t		 edit_version;
	char		*title;		/* owned: release with service_issue_release */
	char		 state[8];	/* open, closed */
	int		 changed;	/* 0: it already was so (nothing recorded) */
	char		 owner[65];	/* the repository as stored (canonical spelling) */
	char		 name[101];
};

void	service_issue_release(struct service_issue *it);

/*
 * Edits the title and/or the body (NULL: keep) of issue number of
 * repo as user_id (spec: edit_issue); at least one must be given.
 * Needs the writer role or more, or being the issue's author (else
 * ERR_DENIED from service_need_role).  edit_version is the version the
 * caller read: a stale one is refused with ERR_CONFLICT and a message
 * that says to reload, and changes nothing.  The title must not be blank
 * (surrounding blanks are dropped).  An edit that changes nothing (the
 * same text) records nothing and keeps the version (changed 0);
 * otherwise the version advances and an "edited" event is recorded, in
 * one transaction that holds the issue's row lock.  *out is released by
 * the caller, also on error.  Returns 0, ERR_NOTFOUND, ERR_DENIED,
 * ERR_INVALID, ERR_CONFLICT, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	issue_edit(struct db *db, struct service_issue *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, int64_t edit_version,
	    const char *title, const char *body, struct err *e);
/*
 * Closes (issue_close) or reopens (issue_reopen) issue number of
 * repo as user_id, with issue_edit's role rule (spec: close_issue,
 * reopen_issue).  Idempotent: an issue already in that state is left as
 * it is, with changed 0 and no event; a real change records a "closed"
 * or "reopened" event with the actor and cause "user".
 */
int	issue_close(struct db *db, struct service_issue *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, struct err *e);
int	issue_reopen(struct db *db, struct service_issue *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, struct err *e);

/* ---- notifications (notify.c) ---- */

#define NOTIFY_MENTIONS_MAX	50	/* distinct @login looked at per text */

/*
 * One event that tells people: what happened to which issue or pull
 * request (kind, parent_id) of repo_id, who did it (actor_id), and the
 * comment that did it (0 for none).  Each recipient hears of one event
 * once, by the first reason given: notify mentions before "comment".
 * Call the notify functions inside the transaction that makes the event,
 * between notify_event_init and notify_event_release.
 */
struct notify_event {
	uint64_t	 repo_id;
	enum forge_kind	 kind;
	uint64_t	 parent_id;
	uint64_t	 actor_id;
	uint64_t	 comment_id;
	uint64_t	*told;		/* owned: the users told so far */
	size_t		 n_told, cap_told;
};

void	notify_event_init(struct notify_event *ev, uint64_t repo_id, enum forge_kind kind,
	    uint64_t parent_id, uint64_t actor_id, uint64_t comment_id);
void	notify_event_release(struct notify_event *ev);
/*
 * Notifies user_id of ev for reason, unless user_id is the actor (nobody
 * hears of their own action), was told of ev already, or cannot see the
 * repository (then nothing is stored).  user_id 0 is nobody.
 */
int	notify_one(struct db *db, struct notify_event *ev, uint64_t user_id,
	    enum forge_reason reason, struct err *e);
/*
 * Notifies, with reason "mention", every user named as @login in text
 * (Markdown; may be NULL) by notify_one's rules.  A mention is "@" that
 * does not follow a letter, digit or one of _.+-=/\&%~@ (so "a@b.c" is an
 * address, not a mention), then a login ([A-Za-z0-9][A-Za-z0-9_.-]*, a
 * trailing ".", "-" or "_" dropped when no user has the longer name) not
 * followed by "@".  Mentions inside code spans and fenced code blocks do
 * not count; only the first NOTIFY_MENTIONS_MAX distinct ones do.
 */
int	notify_mentions(struct db *db, struct notify_event *ev, const char *text,
	    struct err *e);
/*
 * Counts the users text mentions (as notify_mentions finds them) as told
 * of ev without notifying them: an edited text then tells only the users
 * it newly mentions.
 */
int	notify_mentions_known(struct db *db, struct notify_event *ev, const char *text,
	    struct err *e);
/*
 * The notifications of an opened issue or pull request (kind, parent_id)
 * whose text is body: its mentions.
 */
int	notify_opened(struct db *db, uint64_t repo_id, enum forge_kind kind, uint64_t parent_id,
	    uint64_t actor_id, const char *body, struct err *e);
/*
 * The notifications of comment comment_id (text body) on an issue or pull
 * request: its mentions, then the item's author with reason "comment"
 * (one notification each: a mentioned author hears of the mention).
 */
int	notify_commented(struct db *db, uint64_t repo_id, enum forge_kind kind,
	    uint64_t parent_id, uint64_t actor_id, uint64_t comment_id, const char *body,
	    struct err *e);
/*
 * Marks user_id's notification id read, or all of them when id is 0 (spec:
 * mark_notification_read), in one transaction.  *marked counts those that
 * were unread until now (marking again succeeds and keeps the first
 * read_at); *unread is how many of the user's listed notifications remain
 * unread.  ERR_NOTFOUND "notification N not found" when id is not one of
 * the caller's notifications (or its repository is no longer visible).
 */
int	notify_mark_read(struct db *db, uint64_t *marked, int64_t *unread, uint64_t user_id,
	    uint64_t id, struct err *e);

/* ---- pull request revisions ---- */

struct db_repo;

/*
 * One numbered revision of a pull request: what its head and its target
 * were when it was recorded.  merge_base is "" when the two histories
 * share no commit.
 */
struct pull_revision {
	int64_t		 version;
	char		 head_commit[41];
	char		 base_ref[256];
	char		 base_commit[41];
	char		 merge_base[41];	/* "" when none */
	char		 reason[8];		/* opened, push, target */
	char		 created_at[21];	/* YYYY-MM-DDTHH:MM:SSZ */
	int		 head_gone;		/* pull_revision_current: the head branch no longer exists */
	int		 base_gone;		/* pull_revision_current: the base branch no longer exists */
};

/*
 * Records a new revision of pull request pr of repo if its head branch
 * moved since the latest one (or none exists yet: reason "opened" then,
 * "push" otherwise) and returns the current one in *out.  When the head
 * branch is gone the latest revision is kept and out->head_gone is set.
 * Runs in its own transaction (the pull request row is locked, so two
 * readers noticing one push add one revision); safe to call on every read.
 */
int	pull_revision_current(struct db *db, struct repo_cache *repos, const struct db_repo *repo,
	    const struct forge_item *pr, struct pull_revision *out, struct err *e);
/*
 * Revision version of pull request pull_request_id (version 0: the
 * latest).  ERR_NOTFOUND names the version asked for and the versions
 * that exist.
 */
int	pull_revision_get(struct db *db, uint64_t pull_request_id, int64_t version,
	    struct pull_revision *out, struct err *e);

#define PULL_HEAD_GONE	1	/* pull_revision_resolve: the head branch does not exist */
#define PULL_BASE_GONE	2	/* pull_revision_resolve: the base branch does not exist */
/*
 * The revision branches head and base of repo make now (head and base
 * commits, merge base and base_ref; version and reason are left to the
 * caller) into *out.  *gone receives PULL_HEAD_GONE and/or PULL_BASE_GONE
 * for a missing branch (then *out is empty and 0 is returned).
 */
int	pull_revision_resolve(struct repo_cache *repos, const struct db_repo *repo,
	    const char *head, const char *base, struct forge_revision *out, int *gone,
	    struct err *e);

/* A pull request after pull_edit. */
struct service_pull {
	int64_t		 number;
	int64_t		 edit_version;
	int64_t		 version;	/* current revision */
	int		 changed;	/* 0: nothing differed (nothing recorded) */
	int		 target_changed;	/* a new revision was recorded for the target */
	char		 owner[65];	/* the repository as stored (canonical spelling) */
	char		 name[101];
};

/*
 * Edits pull request number of repo as user_id (spec:
 * edit_pull_request): title, description and/or target (NULL: keep; at
 * least one given).  Needs the writer role or more, or being its author.
 * A stale edit_version is ERR_CONFLICT ("reload ... and retry").  A new
 * description replaces the closing declarations.  A target change needs
 * an open pull request with no merge queued or running, an existing
 * branch other than the head, and records a revision (reason "target").
 * Values equal to the current ones change nothing (changed 0).
 */
int	pull_edit(struct db *db, struct repo_cache *repos, struct service_pull *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    int64_t edit_version, const char *title, const char *body, const char *target,
	    struct err *e);

/* A pull request after pull_close or pull_reopen. */
struct service_pull_state {
	int64_t		 number;
	char		 state[8];	/* open, closed */
	int		 changed;	/* 0: it already was so (nothing recorded) */
	char		 owner[65];	/* the repository as stored (canonical spelling) */
	char		 name[101];
};

/*
 * Closes (pull_close) or reopens (pull_reopen) pull request number of
 * repo as user_id (spec: closing an unmerged merge request leaves
 * its issues open).  Needs the writer role or more, or being its author
 * (ERR_DENIED from service_need_role).  Refused with ERR_INVALID and
 * nothing changed: a merged pull request; one with a merge queued or
 * running; reopening when its head branch is gone.  ERR_EXISTS when
 * another open pull request has the same head and target.  Idempotent:
 * one already in that state is left as it is (changed 0, no event);
 * a real change records a "closed" or "reopened" event, in one
 * transaction holding the pull request's row lock.  The declared closing
 * issues are never touched.  Returns 0, ERR_NOTFOUND, ERR_DENIED,
 * ERR_INVALID, ERR_EXISTS, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM/ERR_GIT.
 */
int	pull_close(struct db *db, struct repo_cache *repos, struct service_pull_state *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    struct err *e);
int	pull_reopen(struct db *db, struct repo_cache *repos, struct service_pull_state *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    struct err *e);

/* ---- checks (checks.c) ---- */

/*
 * One check of a pull request's revision.  A required check nobody has
 * reported on the head commit yet has status "expected" (and no details
 * or updated_at); otherwise status is the reported pending, running,
 * success, failure or cancelled.
 */
struct service_check {
	char		 name[FORGE_CHECK_NAME_MAX + 32];	/* "<workflow>/<job>" fits */
	char		 status[12];
	int		 required;	/* named by the target branch's rule */
	char		*details;	/* owned, may be NULL */
	char		 updated_at[32];	/* "" for an expected check */
};

/* The checks of a pull request's current revision (checks_get). */
struct service_checks {
	struct pull_revision		 rev;
	struct service_check		*v;		/* owned: required ones by name, then the others */
	size_t				 n;
	int				 passing;	/* every required check is success */
	struct forge_check_approval	 approval;
};

void	service_checks_release(struct service_checks *c);

/*
 * The checks of the current revision of pull request number of repo
 * (spec: get_merge_request_checks): for each check the target
 * branch's rule requires, its status on the head commit ("expected" when
 * unreported), then every other check reported on it (not required);
 * passing; and whether (by whom, when) a manager approved this
 * revision's checks.  Records a
 * new revision when the head branch moved (pull_revision_current).
 * Released with service_checks_release, also on error.  Returns 0,
 * ERR_NOTFOUND, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM/ERR_GIT.
 */
int	checks_get(struct db *db, struct repo_cache *repos, struct service_checks *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    struct err *e);

/* What checks_approve did. */
struct service_approval {
	int64_t				 version;	/* the revision approved */
	int				 changed;	/* 0: it was approved already */
	struct forge_check_approval	 approval;	/* who approved it first, and when */
	int64_t				*runs_started;	/* owned (free()): the runs it queued */
	size_t				 n_started;
};

/*
 * Approves the checks of the current revision of open pull request
 * number of repo as user_id (spec: approve_merge_checks), whose manager
 * role and execute scope the caller (the tool gate) has checked.  version (0: not given) is the
 * revision the caller observed: a stale one is ERR_CONFLICT naming the
 * current one ("reload ... and retry").  Idempotent: approving an
 * approved revision changes nothing (changed 0) and keeps the first
 * approver.  A new revision (a push, a target change) is not approved.
 * Returns 0, ERR_NOTFOUND, ERR_INVALID (not open), ERR_CONFLICT, or
 * ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM/ERR_GIT.
 */
int	checks_approve(struct db *db, struct repo_cache *repos, struct service_approval *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    int64_t version, struct err *e);

/*
 * Whether every check the rule of rev's target branch requires succeeded
 * on rev's head commit (*ok 1; also when the branch has no rule).  When
 * not, *failing (caller frees) is a public sentence naming each failing
 * check and its status, for the merge's refusal; NULL when *ok.
 * repo and pr name the pull request in that sentence.
 */
int	pull_checks_passing(struct db *db, const struct db_repo *repo,
	    const struct forge_item *pr, const struct pull_revision *rev, int *ok,
	    char **failing, struct err *e);

/* ---- review discussions (discussions.c) ---- */

#define DISCUSSION_CONTEXT_LINES	3	/* diff lines saved either side of an anchor */

/* A discussion after a discussions call. */
struct service_discussion {
	uint64_t	 id;		/* the discussion */
	uint64_t	 pull_request_id;
	uint64_t	 reply_id;	/* discussion_reply: the new reply */
	int64_t		 number;	/* the pull request */
	int64_t		 version;	/* the revision it was made on */
	char		 state[9];	/* open, resolved */
	int64_t		 state_version;
	int		 changed;	/* resolve/reopen: 0 when it already was so */
	char		 owner[65];	/* the repository as stored (canonical spelling) */
	char		 name[101];
};

/*
 * Opens a review discussion on pull request number of repo as
 * user_id (spec: create_pull_request_discussion).  body must not be
 * blank.  path NULL makes a
 * general thread (line must be 0 and side NULL then); otherwise it is
 * anchored to line (from 1) of side "old" or "new" (NULL: "new") of the
 * diff of revision version (0: the current one, pull_revision_current),
 * the diff from its merge base to its head: the path must be in that
 * diff and the line shown in one of its hunks on that side (ERR_INVALID
 * names the valid lines otherwise), and the diff lines around it are
 * saved with the discussion.  Mentions in body, and the pull request's
 * author (reason "comment"), are notified.  Returns 0, ERR_NOTFOUND,
 * ERR_INVALID, or ERR_DB/ERR_GIT/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	discussion_create(struct db *db, struct repo_cache *repos, struct service_discussion *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    const char *body, const char *path, int64_t line, const char *side, int64_t version,
	    struct err *e);
/*
 * Replies to discussion id of pull request number of repo (spec:
 * reply_pull_request_discussion); anyone who can read the repository
 * may, also in a resolved discussion.  The discussion's author hears of
 * it (reason "reply"), and the people body mentions.  ERR_NOTFOUND when
 * that pull request has no such discussion.
 */
int	discussion_reply(struct db *db, struct service_discussion *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, uint64_t id, const char *body,
	    struct err *e);
/*
 * Resolves (discussion_resolve) or reopens (discussion_reopen) discussion
 * id of pull request number (spec: resolve_pull_request_discussion,
 * reopen_pull_request_discussion).  Needs the writer role or more, or
 * being the discussion's or the pull request's author.  A discussion
 * already in that state is left as it is (changed 0, success); otherwise
 * state_version must be the caller's observed one (else ERR_CONFLICT
 * "reload ... and retry", nothing changes), and it advances.
 */
int	discussion_resolve(struct db *db, struct service_discussion *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, uint64_t id,
	    int64_t state_version, struct err *e);
int	discussion_reopen(struct db *db, struct service_discussion *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, uint64_t id,
	    int64_t state_version, struct err *e);

/* ---- the merge queue (merge.c) ---- */

#define MERGE_STALE_SECONDS	60	/* a running merge without a heartbeat this long is recovered */
#define MERGE_MAX_ATTEMPTS	5	/* claims of one merge before it is failed */
#define MERGE_WORKER_POLLS	3	/* polls a worker may miss before it counts as gone */
#define MERGE_WORKER_QUIET_MS	10000	/* ... but it counts as gone no sooner than this */

/* What merge_queue queued. */
struct service_merge_queued {
	uint64_t	 merge_id;
	int64_t		 number;
	int64_t		 version;
	char		 strategy[16];
	char		 closing[1200];		/* the declared closures as stored, "" for none */
	char		 owner[65];		/* the repository as stored (canonical spelling) */
	char		 name[101];
};

/*
 * Queues the merge of pull request number of repo as user_id (spec:
 * merge_merge_request), whose manager role the caller (the tool gate) has
 * checked.  Refused, with
 * nothing changed: a pull request that is not open, a draft, one with a
 * merge already queued or running; version not the current revision
 * (pull_revision_current notices a push first; ERR_CONFLICT "reload ...
 * and retry"); a description declaring closures without edit_version (0:
 * not given; ERR_INVALID naming the issues) or with a stale one
 * (ERR_CONFLICT); required checks not passing on that revision
 * (ERR_INVALID naming them).  strategy is merge, squash or fast_forward.
 * One transaction inserts the merges row and sets merge_state queued;
 * nothing is merged or closed here.
 */
int	merge_queue(struct db *db, struct repo_cache *repos, struct service_merge_queued *out,
	    uint64_t user_id, const struct db_repo *repo, int64_t number,
	    int64_t version, int64_t edit_version, const char *strategy, struct err *e);

/* A merge worker: its connections and who it is. */
struct merge_worker {
	struct db		*db;
	struct repo_cache	*repos;
	char			 host[256];		/* this host's name */
	char			 claimed_by[300];	/* "host:pid" */
	const char		*mail_host;		/* e-mail domain of commit identities */
	int			 stale_seconds;		/* MERGE_STALE_SECONDS, or less in tests */
	int64_t			 interval_ms;		/* how often it polls (1000 unless set) */
};

/* Fills w's identity (host, pid) and mail host from base_url ("localhost" when none). */
void	merge_worker_init(struct merge_worker *w, struct db *db, struct repo_cache *repos,
	    const char *base_url);
/*
 * Claims the oldest queued merge and does it (spec: the merge queue):
 * under the repository's merge lock, builds the result on the target's
 * current commit, records it, moves the target ref by compare-and-swap
 * (rebuilding up to three times when the target moved), then completes in
 * one transaction (pull request merged, declared issues closed, author
 * notified); a merge that cannot be made is marked failed with a public
 * reason.  *did is 0 when nothing was queued.  Errors are the database's
 * or the storage's: the merge then stays running and merge_worker_recover
 * takes it up later.
 */
int	merge_worker_run_one(struct merge_worker *w, int *did, struct err *e);
/*
 * merge_worker_beat records that w is alive and polls every
 * w->interval_ms (call it on each poll), merge_worker_stopped that it
 * stopped cleanly; merge_wait_note reads what they record.
 */
int	merge_worker_beat(struct merge_worker *w, struct err *e);
int	merge_worker_stopped(struct merge_worker *w, struct err *e);
/*
 * What get_pull_request says of a queued merge: into note (len bytes),
 * "" while a merge worker runs, else that none does since when and that
 * an operator must start one.
 */
int	merge_wait_note(struct db *db, char *note, size_t len, struct err *e);
/*
 * Takes up running merges whose worker is gone (its heartbeat is older
 * than stale_seconds, or its pid on this host is dead) and whose
 * repository lock is free: a recorded result the target already contains
 * is completed; otherwise the merge is built again on the current target.
 * *recovered counts them.
 */
int	merge_worker_recover(struct merge_worker *w, size_t *recovered, struct err *e);

/* ---- shared by the service files ---- */

/*
 * The ERR_NOTFOUND of a number that names no `want` (FORGE_KIND_ISSUE or
 * FORGE_KIND_PULL) in repo: "#N in owner/name is an issue, not a pull
 * request: <purpose>" when it names the other kind, else "pull request #N
 * not found in owner/name: list_pull_requests gives the numbers" (or the
 * issue's equivalent).
 */
int	service_not_found(struct db *db, const struct db_repo *repo, enum forge_kind want,
	    int64_t number, const char *purpose, struct err *e);
/* The pull request number of repo into *out, or service_not_found's error. */
int	service_find_pull(struct db *db, struct forge_item *out, const struct db_repo *repo,
	    int64_t number, const char *purpose, struct err *e);

struct db_repo;

/*
 * Refuses (ERR_DENIED) a caller whose role on repo is below need, with
 * the message every role check uses, which tools and tests rely on:
 * "you cannot <action> on owner/name: that needs the <need> role or more,
 * and your role is <role>".  action is a verb phrase ("close issue #3").
 * *role (may be NULL) receives the caller's role.
 */
int	service_need_role(struct db *db, const struct db_repo *repo, uint64_t user_id,
	    enum forge_role need, const char *action, enum forge_role *role, struct err *e);

/*
 * The title of an issue (kind FORGE_KIND_ISSUE) or a pull request without
 * its surrounding blanks into *clean (caller frees); ERR_INVALID when it is
 * blank, ERR_NOMEM.
 */
int	service_title(const char *title, enum forge_kind kind, char **clean, struct err *e);
/* Whether s is NULL or holds only blanks (space, tab, CR, LF, FF, VT). */
int	service_blank(const char *s);
/* A copy of s without leading and trailing blanks (caller frees); NULL on no memory. */
char	*service_trim(const char *s);

typedef int (*service_tx_fn)(struct db *db, void *arg, struct err *e);
/*
 * Runs fn between db_begin and db_commit, rolling back on any failure, and
 * runs it again when the database aborted it as colliding with a concurrent
 * transaction (db_tx in store/db.h).  fn must be safe to re-run after a
 * rollback.
 */
int	service_transaction(struct db *db, service_tx_fn fn, void *arg, struct err *e);

#endif
