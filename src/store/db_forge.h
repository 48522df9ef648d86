/* db_forge: the MySQL store of issues, pull requests, comments and repository roles. */
#ifndef FM_DB_FORGE_H
#define FM_DB_FORGE_H
#include <stddef.h>
#include <stdint.h>

struct db;
struct err;

/* A caller's role on a repository, weakest first (collaborators.role, or ownership). */
enum forge_role {
	FORGE_ROLE_NONE,	/* FORGE_ROLE_NONE: no role (a stranger on a public repository) */
	FORGE_ROLE_READER,	/* FORGE_ROLE_READER */
	FORGE_ROLE_WRITER,	/* FORGE_ROLE_WRITER */
	FORGE_ROLE_MANAGER,	/* FORGE_ROLE_MANAGER */
	FORGE_ROLE_OWNER,	/* FORGE_ROLE_OWNER */
	FORGE_ROLE__MAX
};

/* What a number of the shared issue / pull request number space names. */
enum forge_kind {
	FORGE_KIND_NONE,	/* FORGE_KIND_NONE: nothing has this number */
	FORGE_KIND_ISSUE,	/* FORGE_KIND_ISSUE */
	FORGE_KIND_PULL,	/* FORGE_KIND_PULL */
	FORGE_KIND__MAX
};

/*
 * An issue or a pull request (head, base, merged_at, draft, linked_issue
 * and closing are empty for issues).
 */
struct forge_item {
	uint64_t	 id;
	int64_t		 number;
	uint64_t	 author_id;
	int64_t		 edit_version;	/* counts metadata edits, from 1 */
	int		 draft;		/* pull requests: 1 for a draft */
	int64_t		 linked_issue;	/* pull requests: the linked issue, 0 for none */
	char		*closing;	/* owned, may be NULL: "3,4", the declared closures */
	char		*title;		/* owned */
	char		*body;		/* owned, may be NULL */
	char		 state[8];	/* open, closed, merged */
	char		 author[65];
	char		 head[256];
	char		 base[256];
	char		 created_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
	char		 updated_at[32];
	char		 closed_at[32];		/* "" when not closed */
	char		 merged_at[32];		/* "" when not merged */
};

struct forge_comment {
	uint64_t	 id;
	char		 author[65];
	char		*body;		/* owned */
	char		 created_at[32];
};

/* The caller's role on repo_id: owner, else the collaborator role, else none. */
int	forge_role(struct db *db, enum forge_role *out, uint64_t repo_id, uint64_t user_id,
	    struct err *e);
/* The name of a role ("reader", ...). */
const char *forge_role_name(enum forge_role r);

/*
 * Issues (kind FORGE_KIND_ISSUE) or pull requests (FORGE_KIND_PULL) of a
 * repository, highest number first.  state NULL means every state; query
 * (may be NULL) keeps those whose title or body contains it, ignoring
 * case; the first offset rows are skipped.  At most limit rows; *out is
 * freed with forge_item_list_free.
 */
int	forge_item_list(struct db *db, struct forge_item **out, size_t *n, enum forge_kind kind,
	    uint64_t repo_id, const char *state, const char *query, int64_t offset, int limit,
	    struct err *e);
void	forge_item_list_free(struct forge_item *v, size_t n);
/*
 * One issue or pull request by number.  ERR_NOTFOUND (no message: the
 * caller names the object) when that kind has no such number.
 */
int	forge_item_get(struct db *db, struct forge_item *out, enum forge_kind kind,
	    uint64_t repo_id, int64_t number, struct err *e);
void	forge_item_release(struct forge_item *it);

/* What number names in repo_id, and that record's id (*id 0 for none). */
int	forge_number_kind(struct db *db, enum forge_kind *out, uint64_t *id, uint64_t repo_id,
	    int64_t number, struct err *e);

/*
 * The comments of one issue or pull request, oldest first, skipping offset
 * and returning at most limit; *total receives how many there are in all.
 * *out is freed with forge_comment_list_free.
 */
int	forge_comment_list(struct db *db, struct forge_comment **out, size_t *n, size_t *total,
	    enum forge_kind kind, uint64_t parent_id, int64_t offset, int limit, struct err *e);
void	forge_comment_list_free(struct forge_comment *v, size_t n);

/* ---- writes: call these inside a transaction (db_tx, service_transaction) ---- */

/*
 * Writes repo_id's row (lock_count) and so locks it until the transaction
 * ends: a decision on the repository taken after it (a cap, "only one open
 * pull request from a branch into a base", whether a revision is approved)
 * is serialised with every other transaction that writes that row, issue
 * numbering included, also across Galera nodes, which certify written rows
 * only.  ERR_NOTFOUND when the repository is gone.
 */
int	forge_repo_lock(struct db *db, uint64_t repo_id, struct err *e);
/*
 * Takes the next number of repo_id's shared issue / pull request number
 * space: locks the repository row until the transaction ends and advances
 * the counter, so a rollback gives the number back.
 */
int	forge_number_next(struct db *db, int64_t *out, uint64_t repo_id, struct err *e);
/* Inserts an open issue; *id receives its row id. */
int	forge_issue_insert(struct db *db, uint64_t *id, uint64_t repo_id, int64_t number,
	    uint64_t author_id, const char *title, const char *body, struct err *e);
/*
 * Inserts an open pull request from head into base; *id receives its row
 * id.  draft is 0 or 1; linked_issue is 0 for none; closing is the stored
 * form of the declared closures ("3,4"), NULL for none.
 */
int	forge_pull_insert(struct db *db, uint64_t *id, uint64_t repo_id, int64_t number,
	    uint64_t author_id, const char *title, const char *body, const char *head,
	    const char *base, int draft, int64_t linked_issue, const char *closing,
	    struct err *e);
/* The number of an open pull request from head into base, or 0 in *out. */
int	forge_pull_find_open(struct db *db, int64_t *out, uint64_t repo_id, const char *head,
	    const char *base, struct err *e);
/* Adds a comment to the issue or pull request parent_id; *id receives its id. */
int	forge_comment_insert(struct db *db, uint64_t *id, enum forge_kind kind, uint64_t parent_id,
	    uint64_t author_id, const char *body, struct err *e);

#endif
