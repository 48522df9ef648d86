/*
 * db_activity: the MySQL store of the activity of issues and pull requests:
 * events, and the locks and updates that record them. Implemented in
 * db_activity.c.
 */
#ifndef FM_DB_ACTIVITY_H
#define FM_DB_ACTIVITY_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

/* What happened to an issue or a pull request (events.kind). */
enum forge_event_kind {
	FORGE_EVENT_OPENED,	/* FORGE_EVENT_OPENED */
	FORGE_EVENT_EDITED,	/* FORGE_EVENT_EDITED: the title or the body changed */
	FORGE_EVENT_CLOSED,	/* FORGE_EVENT_CLOSED */
	FORGE_EVENT_REOPENED,	/* FORGE_EVENT_REOPENED */
	FORGE_EVENT_COMMENTED,	/* FORGE_EVENT_COMMENTED: comment_id names the comment */
	FORGE_EVENT_MERGED,	/* FORGE_EVENT_MERGED */
	FORGE_EVENT_MERGE_FAILED,	/* FORGE_EVENT_MERGE_FAILED: detail says why */
	FORGE_EVENT__MAX
};

/* Why a state changed (events.cause). */
enum forge_cause {
	FORGE_CAUSE_USER,	/* FORGE_CAUSE_USER: a tool call by the actor */
	FORGE_CAUSE_MERGE,	/* FORGE_CAUSE_MERGE: the merge of pull request source_number */
	FORGE_CAUSE__MAX
};

#define FORGE_EVENTS_PAGE	50	/* activity entries per page */

/* One entry of an issue's or a pull request's activity. */
struct forge_event {
	uint64_t	 id;
	char		 kind[16];	/* "opened", "edited", ... */
	char		 cause[8];	/* "user" or "merge" */
	char		 actor[65];	/* the login */
	int64_t		 source_number;	/* the merged pull request, 0 for none */
	uint64_t	 comment_id;	/* 0 for none */
	char		*body;		/* owned: a "commented" entry's comment, else NULL */
	char		*detail;	/* owned: a "merge_failed" entry's reason, else NULL */
	char		 created_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/*
 * Records that actor_id did what to the issue or pull request (kind)
 * parent_id, for cause; source_number (0 for none) is the pull request
 * whose merge caused it, comment_id (0 for none) the comment a
 * "commented" entry shows.  Call inside the transaction of the action.
 */
int	forge_event_insert(struct db *db, enum forge_kind kind, uint64_t parent_id,
	    uint64_t actor_id, enum forge_event_kind what, enum forge_cause cause,
	    int64_t source_number, uint64_t comment_id, struct err *e);
/*
 * Page page (from 1) of the activity of the issue or pull request (kind)
 * parent_id, oldest first, FORGE_EVENTS_PAGE entries a page; *has_more
 * says whether a later page has entries.  *out is freed with
 * forge_event_list_free.
 */
int	forge_event_list(struct db *db, struct forge_event **out, size_t *n, int *has_more,
	    enum forge_kind kind, uint64_t parent_id, int64_t page, struct err *e);
void	forge_event_list_free(struct forge_event *v, size_t n);

/*
 * Reads issue number of repo_id and locks its row until the transaction
 * ends, so edits and state changes of one issue are serialised.  Fills
 * id, number, author_id, edit_version, title, body and state of *out
 * (released with forge_item_release).  ERR_NOTFOUND (no message) when
 * repo_id has no such issue.
 */
int	forge_issue_lock(struct db *db, struct forge_item *out, uint64_t repo_id, int64_t number,
	    struct err *e);
/*
 * Replaces the title and body (may be NULL) of issue id and advances its
 * edit_version, provided it is still expect: otherwise nothing changes
 * and *stale is 1.  Call inside a transaction.
 */
int	forge_issue_update(struct db *db, int *stale, uint64_t id, int64_t expect,
	    const char *title, const char *body, struct err *e);
/* Sets issue id open (closed 0) or closed (closed 1, closed_at now). */
int	forge_issue_set_state(struct db *db, uint64_t id, int closed, struct err *e);

/* The login and name (NULL when unset; caller frees) of user_id; ERR_NOTFOUND. */
int	forge_user_get(struct db *db, char login[65], char **name, uint64_t user_id,
	    struct err *e);

#endif
