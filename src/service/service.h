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
 * request may have the same head and base (ERR_EXISTS names it).
 */
int	pull_create(struct db *db, struct repo_cache *repos, struct service_created *out,
	    uint64_t user_id, const char *owner, const char *name, const char *title,
	    const char *body, const char *head, const char *base, struct err *e);

/*
 * Comments on the issue or pull request number of owner/name (spec:
 * add_issue_comment); the number resolves to exactly one of them.  Anyone
 * who can see the repository may.  body must not be blank.  ERR_NOTFOUND
 * when nothing has that number.
 */
int	comment_add(struct db *db, struct service_created *out, uint64_t user_id,
	    const char *owner, const char *name, int64_t number, const char *body,
	    struct err *e);

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
