/*
 * db_discussions: the MySQL store of review discussions on pull requests and
 * their replies. Implemented in db_discussions.c.
 */
#ifndef FM_DB_DISCUSSIONS_H
#define FM_DB_DISCUSSIONS_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

#define FORGE_DISCUSSIONS_PAGE	50	/* discussions, and replies of one, per page */
#define FORGE_PREVIEW_CHARS	200	/* characters of a body in a preview */
#define FORGE_RECENT_REPLIES	3	/* replies shown with each listed discussion */

/* One reply in a discussion. */
struct forge_reply {
	uint64_t	 id;
	char		 author[65];
	char		*body;		/* owned: the body, or its preview in a list */
	int		 cut;		/* body is a preview of a longer one */
	char		 created_at[32];
};

/* A review discussion of a pull request: a general thread, or one anchored to a diff line. */
struct forge_discussion {
	uint64_t	 id;
	uint64_t	 author_id;
	char		 author[65];
	int64_t		 version;	/* the revision it was made on */
	char		*path;		/* owned; NULL for a general thread */
	int64_t		 line;		/* 0 for a general thread */
	char		 side[4];	/* "old", "new"; "" for a general thread */
	char		*anchor_context;	/* owned, NULL in lists and for a general thread */
	char		*body;		/* owned: the body, or its preview in a list */
	int		 cut;		/* body is a preview of a longer one */
	char		 state[9];	/* open, resolved */
	int64_t		 state_version;	/* from 1; advances with each resolve or reopen */
	int64_t		 replies_count;
	struct forge_reply *recent;	/* owned: lists only, the newest replies, oldest first */
	size_t		 n_recent;
	char		 created_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
	char		 updated_at[32];
};

void	forge_discussion_release(struct forge_discussion *d);
void	forge_discussion_list_free(struct forge_discussion *v, size_t n);
void	forge_reply_list_free(struct forge_reply *v, size_t n);
/*
 * The discussions of pull request pull_request_id, oldest first, skipping
 * offset and returning at most limit, each with the preview of its body
 * (FORGE_PREVIEW_CHARS characters), its reply count and its
 * FORGE_RECENT_REPLIES newest replies (previews, oldest first).  *out is
 * freed with forge_discussion_list_free.
 */
int	forge_discussion_list(struct db *db, struct forge_discussion **out, size_t *n,
	    uint64_t pull_request_id, int64_t offset, int limit, struct err *e);
/*
 * Discussion id of pull request pull_request_id in full (body and anchor
 * context; no replies).  ERR_NOTFOUND (no message) when that pull request
 * has no such discussion.  Released with forge_discussion_release.
 */
int	forge_discussion_get(struct db *db, struct forge_discussion *out,
	    uint64_t pull_request_id, uint64_t id, struct err *e);
/*
 * The replies of discussion id, oldest first, skipping offset and
 * returning at most limit; *out is freed with forge_reply_list_free.
 */
int	forge_reply_list(struct db *db, struct forge_reply **out, size_t *n, uint64_t id,
	    int64_t offset, int limit, struct err *e);
/*
 * Inserts an open discussion; path NULL makes a general thread (line and
 * side are then ignored), else side is "old" or "new" and
 * anchor_context the saved context.  *id receives its id.  Call inside a
 * transaction.
 */
int	forge_discussion_insert(struct db *db, uint64_t *id, uint64_t pull_request_id,
	    uint64_t author_id, int64_t version, const char *path, int64_t line,
	    const char *side, const char *anchor_context, const char *body, struct err *e);
/*
 * Reads discussion id of pull request pull_request_id and locks its row
 * until the transaction ends (fills id, author_id, author, state,
 * state_version, path, line, side, version and dates; no body).
 * ERR_NOTFOUND (no message) when there is no such discussion.
 */
int	forge_discussion_lock(struct db *db, struct forge_discussion *out,
	    uint64_t pull_request_id, uint64_t id, struct err *e);
/* Adds a reply to discussion id (and touches its updated_at); *out receives the reply's id. */
int	forge_reply_insert(struct db *db, uint64_t *out, uint64_t id, uint64_t author_id,
	    const char *body, struct err *e);
/*
 * Sets discussion id resolved (resolved 1) or open, by user_id, and
 * advances its state_version, provided it is still expect: otherwise
 * nothing changes and *stale is 1.  Call inside a transaction.
 */
int	forge_discussion_set_state(struct db *db, int *stale, uint64_t id, int64_t expect,
	    int resolved, uint64_t user_id, struct err *e);

#endif
