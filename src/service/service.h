/* service: the mutations of issues, pull requests and comments, with their rules. */
#ifndef FM_SERVICE_H
#define FM_SERVICE_H
#include <stddef.h>
#include <stdint.h>

#include "store/forge.h"

struct db;
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
 * Opens an issue on owner/name as user_id (spec: create_issue).  Anyone
 * who can see the repository may.  title must not be blank (surrounding
 * blanks are dropped); body may be NULL.  The number comes from the
 * repository's shared counter in the same transaction.  Returns 0,
 * ERR_NOTFOUND, ERR_INVALID, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	issue_create(struct db *db, struct service_created *out, uint64_t user_id,
	    const char *owner, const char *name, const char *title, const char *body,
	    struct err *e);

/*
 * Opens a pull request from branch head into branch base (spec:
 * create_pull_request).  Needs write access: the owner or a collaborator
 * with the writer role or more (else ERR_DENIED).  Both branches must
 * exist and differ, the title must not be blank, and no other open pull
 * request may have the same head and base (ERR_EXISTS names it).  draft
 * marks a draft.  issue (0 for none) links an existing issue of the
 * repository (else ERR_INVALID naming it) and never closes it; the issues
 * body declares closed ("Closes #3", closing_parse) are stored with the
 * pull request, for a merge to close.
 */
int	pull_create(struct db *db, struct repo_cache *repos, struct service_created *out,
	    uint64_t user_id, const char *owner, const char *name, const char *title,
	    const char *body, const char *head, const char *base, int draft, int64_t issue,
	    struct err *e);

/*
 * Comments on the issue or pull request number of owner/name (spec:
 * add_issue_comment); the number resolves to exactly one of them.  Anyone
 * who can see the repository may.  body must not be blank.  ERR_NOTFOUND
 * when nothing has that number.
 */
int	comment_add(struct db *db, struct service_created *out, uint64_t user_id,
	    const char *owner, const char *name, int64_t number, const char *body,
	    struct err *e);

/* ---- repository variables ---- */

#define SERVICE_VARIABLE_NAME_MAX	64	/* bytes of [A-Z_][A-Z0-9_]* */
#define SERVICE_VARIABLE_VALUE_MAX	4096	/* bytes of text */
#define SERVICE_VARIABLES_MAX		100	/* per repository */

/*
 * Creates or replaces the variable var of owner/name (spec: repository
 * variables).  Needs the manager role or more (ERR_DENIED from
 * service_need_role).  var must match [A-Z_][A-Z0-9_]* in at most 64
 * characters; value is value_len bytes of text (no NUL) of at most 4096
 * bytes, and may be empty.  A new variable is refused when the repository
 * has 100 already.  *out receives the stored variable (released by the
 * caller with forge_variable_release, also on error) and *created whether
 * it is new.  Returns 0, ERR_NOTFOUND, ERR_DENIED, ERR_INVALID, or
 * ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.
 */
int	variable_set(struct db *db, struct forge_variable *out, int *created, uint64_t user_id,
	    const char *owner, const char *name, const char *var, const char *value,
	    size_t value_len, struct err *e);
/*
 * Deletes the variable var of owner/name, with variable_set's role and
 * name rules.  Idempotent: *deleted is 0, and the call succeeds, when
 * there was no such variable.
 */
int	variable_delete(struct db *db, int *deleted, uint64_t user_id, const char *owner,
	    const char *name, const char *var, struct err *e);

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
 * owner/name as user_id (spec: edit_issue); at least one must be given.
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
	    const char *owner, const char *name, int64_t number, int64_t edit_version,
	    const char *title, const char *body, struct err *e);
/*
 * Closes (issue_close) or reopens (issue_reopen) issue number of
 * owner/name as user_id, with issue_edit's role rule (spec: close_issue,
 * reopen_issue).  Idempotent: an issue already in that state is left as
 * it is, with changed 0 and no event; a real change records a "closed"
 * or "reopened" event with the actor and cause "user".
 */
int	issue_close(struct db *db, struct service_issue *out, uint64_t user_id,
	    const char *owner, const char *name, int64_t number, struct err *e);
int	issue_reopen(struct db *db, struct service_issue *out, uint64_t user_id,
	    const char *owner, const char *name, int64_t number, struct err *e);

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

/* ---- shared by the service files ---- */

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

/* Whether s is NULL or holds only blanks (space, tab, CR, LF, FF, VT). */
int	service_blank(const char *s);
/* A copy of s without leading and trailing blanks (caller frees); NULL on no memory. */
char	*service_trim(const char *s);

typedef int (*service_tx_fn)(struct db *db, void *arg, struct err *e);
/*
 * Runs fn between db_begin and db_commit, rolling back on any failure, and
 * runs it again (up to three times in all) when the database aborted it
 * (ERR_DB: deadlock, lock wait timeout, certification failure).  fn must
 * be safe to re-run after a rollback.
 */
int	service_transaction(struct db *db, service_tx_fn fn, void *arg, struct err *e);

#endif
