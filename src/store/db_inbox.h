/*
 * db_inbox: the MySQL store of notifications: who is told what, read and
 * unread. Implemented in db_inbox.c.
 */
#ifndef FM_DB_INBOX_H
#define FM_DB_INBOX_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

/* Why a user is notified (notifications.reason). */
enum forge_reason {
	FORGE_REASON_MENTION,		/* FORGE_REASON_MENTION: @login in a body or comment */
	FORGE_REASON_COMMENT,		/* FORGE_REASON_COMMENT: on the user's issue or pull request */
	FORGE_REASON_REPLY,		/* FORGE_REASON_REPLY: in a discussion the user started */
	FORGE_REASON_MERGED,		/* FORGE_REASON_MERGED: the user's pull request */
	FORGE_REASON_REVIEW_REQUESTED,	/* FORGE_REASON_REVIEW_REQUESTED */
	FORGE_REASON__MAX
};

/* One entry of a user's inbox, with its subject (an issue or a pull request). */
struct forge_notification {
	uint64_t	 id;
	char		 reason[20];	/* "mention", "comment", ... */
	char		 owner[65];	/* the repository */
	char		 name[101];
	enum forge_kind	 kind;		/* ISSUE or PULL */
	int64_t		 number;
	char		*title;		/* owned: the subject's title */
	char		 actor[65];	/* who caused it */
	uint64_t	 comment_id;	/* the comment that caused it, 0 for none */
	char		 created_at[32];
	char		 read_at[32];	/* "" while unread */
};

/* The id of the user login, 0 in *out when there is none (for use in a transaction). */
int	forge_user_id(struct db *db, uint64_t *out, const char *login, struct err *e);
/* The author of the issue or pull request (kind) id, 0 in *out when there is none. */
int	forge_item_author(struct db *db, uint64_t *out, enum forge_kind kind, uint64_t id,
	    struct err *e);
/*
 * Notifies user_id of something actor_id did to the issue or pull request
 * (kind) parent_id of repo_id, caused by comment_id (0 for none) -- only
 * when user_id can see the repository (public, owned or shared);
 * otherwise nothing is stored and *id is 0.  Call inside a transaction.
 */
int	forge_notification_insert(struct db *db, uint64_t *id, uint64_t user_id,
	    enum forge_reason reason, uint64_t repo_id, enum forge_kind kind, uint64_t parent_id,
	    uint64_t actor_id, uint64_t comment_id, struct err *e);
/*
 * user_id's notifications, newest (highest id) first, skipping offset and
 * returning at most limit; unread_only keeps the unread ones.  Only those
 * whose repository the user can still see.  *out is freed with
 * forge_notification_list_free.
 */
int	forge_notification_list(struct db *db, struct forge_notification **out, size_t *n,
	    uint64_t user_id, int unread_only, int64_t offset, int limit, struct err *e);
void	forge_notification_list_free(struct forge_notification *v, size_t n);
/* How many of user_id's notifications that forge_notification_list shows are unread. */
int	forge_notification_unread(struct db *db, int64_t *out, uint64_t user_id, struct err *e);
/*
 * Marks user_id's notification id read (id 0: all of them that are
 * listed); *changed counts those unread until now.  A notification read
 * before keeps its read_at.  ERR_NOTFOUND ("notification N not found")
 * when id is not one of user_id's listed notifications.  Call inside a
 * transaction.
 */
int	forge_notification_mark(struct db *db, uint64_t *changed, uint64_t user_id, uint64_t id,
	    struct err *e);

#endif
