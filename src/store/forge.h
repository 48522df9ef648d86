/* forge: the MySQL store of issues, pull requests, comments and repository roles. */
#ifndef FM_FORGE_H
#define FM_FORGE_H
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

/* ---- writes: call these between forge_begin and forge_commit ---- */

/*
 * One transaction (db_begin/db_commit/db_rollback for the layers above the
 * store).  After any failure inside, call forge_rollback.
 */
int	forge_begin(struct db *db, struct err *e);
int	forge_commit(struct db *db, struct err *e);
void	forge_rollback(struct db *db);

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

/* ---- notifications ---- */

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

/* ---- repository variables ---- */

/* One repository variable (public configuration, never a credential). */
struct forge_variable {
	char		 name[65];	/* [A-Z_][A-Z0-9_]*, at most 64 */
	char		*value;		/* owned; text of at most 4096 bytes */
	char		 updated_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
	char		 updated_by[65];	/* the login, "" when that user is gone */
};

/*
 * The variables of repo_id by name, skipping offset and returning at most
 * limit; *out is freed with forge_variable_list_free.
 */
int	forge_variable_list(struct db *db, struct forge_variable **out, size_t *n,
	    uint64_t repo_id, int64_t offset, int limit, struct err *e);
void	forge_variable_list_free(struct forge_variable *v, size_t n);
/* One variable by name; ERR_NOTFOUND (no message) when repo_id has none by that name. */
int	forge_variable_get(struct db *db, struct forge_variable *out, uint64_t repo_id,
	    const char *name, struct err *e);
void	forge_variable_release(struct forge_variable *v);
/* How many variables repo_id has. */
int	forge_variable_count(struct db *db, int64_t *out, uint64_t repo_id, struct err *e);
/*
 * Locks repo_id's row until the transaction ends, so variable writers of
 * one repository (and its count) are serialised.  ERR_NOTFOUND when the
 * repository is gone.
 */
int	forge_variable_lock(struct db *db, uint64_t repo_id, struct err *e);
/*
 * Creates or replaces the variable name of repo_id, recording user_id as
 * its last writer; *created is 1 when it did not exist.  The caller has
 * validated name and value.  Call inside a transaction.
 */
int	forge_variable_set(struct db *db, int *created, uint64_t repo_id, const char *name,
	    const char *value, uint64_t user_id, struct err *e);
/* Deletes the variable name of repo_id; *deleted is 1 when it existed. */
int	forge_variable_delete(struct db *db, int *deleted, uint64_t repo_id, const char *name,
	    struct err *e);

/* ---- events ---- */

/* What happened to an issue or a pull request (events.kind). */
enum forge_event_kind {
	FORGE_EVENT_OPENED,	/* FORGE_EVENT_OPENED */
	FORGE_EVENT_EDITED,	/* FORGE_EVENT_EDITED: the title or the body changed */
	FORGE_EVENT_CLOSED,	/* FORGE_EVENT_CLOSED */
	FORGE_EVENT_REOPENED,	/* FORGE_EVENT_REOPENED */
	FORGE_EVENT_COMMENTED,	/* FORGE_EVENT_COMMENTED: comment_id names the comment */
	FORGE_EVENT_MERGED,	/* FORGE_EVENT_MERGED */
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
	char		 kind[12];	/* "opened", "edited", ... */
	char		 cause[8];	/* "user" or "merge" */
	char		 actor[65];	/* the login */
	int64_t		 source_number;	/* the merged pull request, 0 for none */
	uint64_t	 comment_id;	/* 0 for none */
	char		*body;		/* owned: a "commented" entry's comment, else NULL */
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

/* ---- discussions ---- */

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

/* ---- pull request revisions (db_revisions.c) ---- */

/* One row of pull_request_revisions. */
struct forge_revision {
	int64_t	 version;
	char	 head_commit[41];
	char	 base_ref[256];
	char	 base_commit[41];
	char	 merge_base[41];	/* "" when the histories share no commit */
	char	 reason[8];		/* opened, push, target */
	char	 created_at[32];
};

/* What pull_requests holds beyond struct forge_item: the revision and the merge. */
struct forge_pull_status {
	int64_t	 version;		/* the current revision, 0 before the first */
	char	 merge_state[8];	/* none, queued, running, merged, failed */
	char	 merge_commit[41];	/* "" until merged */
};

int	forge_pull_status_get(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
	    struct err *e);
/*
 * Revision version of pull request pull_id, or the latest one when
 * version is 0.  ERR_NOTFOUND (no message) when there is no such one.
 */
int	forge_revision_get(struct db *db, struct forge_revision *out, uint64_t pull_id,
	    int64_t version, struct err *e);
/*
 * Locks pull request pull_id's row until the transaction ends and reads
 * its status; ERR_NOTFOUND (no message) when it is gone.
 */
int	forge_revision_lock(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
	    struct err *e);
/*
 * Adds rev (rev->version the next number) to pull request pull_id and
 * makes it the current version, inside a transaction that holds
 * forge_revision_lock (or that inserted the pull request).
 */
int	forge_revision_insert(struct db *db, uint64_t pull_id, const struct forge_revision *rev,
	    struct err *e);
/*
 * Reads pull request number of repo_id as forge_item_get does and locks
 * its row until the transaction ends; *st receives its status.
 * ERR_NOTFOUND (no message) when repo_id has no such pull request.
 */
int	forge_pull_lock(struct db *db, struct forge_item *out, struct forge_pull_status *st,
	    uint64_t repo_id, int64_t number, struct err *e);
/*
 * Replaces title, body (may be NULL), base_ref and closing_issue_numbers
 * (closing NULL for none) of pull request id and advances edit_version,
 * provided it is still expect: otherwise nothing changes and *stale is 1.
 */
int	forge_pull_update(struct db *db, int *stale, uint64_t id, int64_t expect,
	    const char *title, const char *body, const char *base, const char *closing,
	    struct err *e);

/* ---- checks ---- */

#define FORGE_CHECK_NAME_MAX	100	/* bytes of a check name */
#define FORGE_CHECK_DETAILS_MAX	4096	/* bytes of a check result's details */

/* One required check of a branch (branch_rules). */
struct forge_branch_rule {
	char		 branch[256];
	char		 check_name[FORGE_CHECK_NAME_MAX + 1];
};

/* One reported check result of a commit (check_results). */
struct forge_check {
	char		 name[FORGE_CHECK_NAME_MAX + 1];
	char		 status[12];	/* pending, running, success, failure, cancelled */
	char		*details;	/* owned, may be NULL */
	char		 updated_at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/* The approval of one revision's checks (check_approvals). */
struct forge_check_approval {
	int		 approved;	/* 0: none recorded (the rest is empty) */
	char		 by[65];	/* the approver's login */
	char		 at[32];	/* "YYYY-MM-DDTHH:MM:SSZ" */
};

/*
 * Whether name is a usable check name: 1 to FORGE_CHECK_NAME_MAX bytes of
 * UTF-8 text without control characters, not starting or ending with a
 * blank.  ERR_INVALID with a message quoting it otherwise.
 */
int	forge_check_name_valid(const char *name, struct err *e);
/* Whether status is one of pending, running, success, failure, cancelled. */
int	forge_check_status_valid(const char *status);

/*
 * Replaces the required checks of branch of repo_id with names[0..n)
 * (duplicates count once; n 0 clears the rule), in one transaction of
 * its own.  The caller has validated the names (forge_check_name_valid).
 */
int	forge_branch_rule_set(struct db *db, uint64_t repo_id, const char *branch,
	    const char *const *names, size_t n, struct err *e);
/*
 * The required checks of repo_id by branch and name; of one branch when
 * branch is not NULL.  *out is freed with free().
 */
int	forge_branch_rule_list(struct db *db, struct forge_branch_rule **out, size_t *n,
	    uint64_t repo_id, const char *branch, struct err *e);

/*
 * Records the result of check name on commit (40 lower-case hex digits)
 * of repo_id, replacing an earlier one of that name and commit; details
 * may be NULL.  The caller has validated name and status.
 */
int	forge_check_report(struct db *db, uint64_t repo_id, const char *commit, const char *name,
	    const char *status, const char *details, struct err *e);
/*
 * The check results of commit of repo_id by name; *out is freed with
 * forge_check_list_free.
 */
int	forge_check_list(struct db *db, struct forge_check **out, size_t *n, uint64_t repo_id,
	    const char *commit, struct err *e);
void	forge_check_list_free(struct forge_check *v, size_t n);

/*
 * Records that user_id approved the checks of revision version of pull
 * request pull_request_id; an existing approval is kept (*inserted 0).
 */
int	forge_check_approve(struct db *db, int *inserted, uint64_t pull_request_id,
	    int64_t version, uint64_t user_id, struct err *e);
/* The approval of revision version of pull request pull_request_id (approved 0: none). */
int	forge_check_approval_get(struct db *db, struct forge_check_approval *out,
	    uint64_t pull_request_id, int64_t version, struct err *e);

/* ---- merges (db_merges.c) ---- */

/* One row of the merge queue, with the pull request and repository it merges. */
struct forge_merge {
	uint64_t	 id;
	uint64_t	 repo_id;
	uint64_t	 pull_request_id;
	uint64_t	 requested_by;
	int64_t		 version;		/* the revision the caller observed */
	int64_t		 attempts;		/* claims so far, this one included */
	int64_t		 heartbeat_age;		/* seconds since heartbeat_at (-1: none) */
	int64_t		 number;		/* the pull request's number */
	char		 strategy[16];		/* merge, squash, fast_forward */
	char		 state[8];		/* queued, running, merged, failed */
	char		 base_commit[41];	/* "" until built: the target it was built on */
	char		 result_commit[41];	/* "" until built: what the target moves to */
	char		 claimed_by[129];	/* "host:pid", "" when unclaimed */
	char		 owner[65];		/* the repository */
	char		 name[101];
};

/*
 * Queues a merge of revision version of pull request pull_request_id of
 * repo_id with strategy by user_id and sets the pull request's
 * merge_state to queued; *id receives the row's id.  Call inside a
 * transaction that holds the pull request's row lock (forge_pull_lock).
 */
int	forge_merge_queue(struct db *db, uint64_t *id, uint64_t repo_id, uint64_t pull_request_id,
	    int64_t version, const char *strategy, uint64_t user_id, struct err *e);
/*
 * Claims the oldest queued merge in a transaction of its own (SELECT ...
 * FOR UPDATE SKIP LOCKED, so two workers never claim one row): state
 * running, claimed_by, heartbeat now, attempts + 1, and the pull
 * request's merge_state running.  *found is 0 when nothing is queued.
 */
int	forge_merge_claim(struct db *db, struct forge_merge *out, int *found,
	    const char *claimed_by, struct err *e);
/* Merge id as stored now; ERR_NOTFOUND (no message) when it is gone. */
int	forge_merge_get(struct db *db, struct forge_merge *out, uint64_t id, struct err *e);
/* The running merges, oldest first (at most 100); *out is freed with free(). */
int	forge_merge_running(struct db *db, struct forge_merge **out, size_t *n, struct err *e);
/*
 * Takes over running merge id from claimed_by old (the heartbeat and the
 * owner are renewed, attempts + 1); *taken is 0 when someone else changed
 * the row first.
 */
int	forge_merge_take_over(struct db *db, int *taken, uint64_t id, const char *old,
	    const char *claimed_by, struct err *e);
/*
 * Records, committed at once, the target commit running merge id was
 * built on and the commit the target is about to move to, and renews its
 * heartbeat.  The ref moves only after this returned 0.
 */
int	forge_merge_set_result(struct db *db, uint64_t id, const char *base_commit,
	    const char *result_commit, struct err *e);
/*
 * Marks running merge id merged (*done 0 when it was not running any
 * more: nothing changes) and its pull request merged with merge_commit.
 * Call inside a transaction.
 */
int	forge_merge_mark_merged(struct db *db, int *done, uint64_t id, uint64_t pull_request_id,
	    const char *merge_commit, struct err *e);
/*
 * Marks running merge id failed with error (a public sentence) and its
 * pull request's merge_state failed (the pull request stays open), in a
 * transaction of its own.
 */
int	forge_merge_mark_failed(struct db *db, uint64_t id, uint64_t pull_request_id,
	    const char *error, struct err *e);
/*
 * The error of the latest merge of pull request pull_request_id when it
 * failed; *out (caller frees) is NULL otherwise.
 */
int	forge_merge_last_error(struct db *db, char **out, uint64_t pull_request_id,
	    struct err *e);
/*
 * Takes (GET_LOCK, waiting at most wait seconds) or releases the named
 * lock that serialises merges into repository repo_id; it belongs to this
 * connection.  *got is 0 when another connection holds it.
 */
int	forge_merge_lock(struct db *db, int *got, uint64_t repo_id, int wait, struct err *e);
int	forge_merge_unlock(struct db *db, uint64_t repo_id, struct err *e);

#endif
