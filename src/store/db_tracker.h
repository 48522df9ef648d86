/*
 * db_tracker: the sdlc hub's tracker mirror in MySQL (schema/012-tracker.sql):
 * projects, issues with their labels, fields, links and comments, and the
 * batches of commands.  Reads answer the JSON objects the hub API sends
 * (doc/sdlc.md, "The hub API"); times are UTC, "YYYY-MM-DDTHH:MM:SSZ".
 */
#ifndef FM_DB_TRACKER_H
#define FM_DB_TRACKER_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;
struct tracker_handout;

/* The filters of GET /hub/issues; NULL members filter nothing. */
struct tracker_filter {
	const char	*project;	/* label: its own issues and their neighbours */
	const char	*status;	/* exact, case-insensitive */
	const char	*assignee;	/* exact, case-insensitive */
	const char	*sprint;	/* exact, case-insensitive */
	const char	*type;		/* exact, case-insensitive */
	const char	*text;		/* a substring of the summary, case-insensitive */
	int		 limit;		/* 1..500 */
};

/*
 * Every project (or only the one of label, when not NULL), by label:
 * {label, name, board_id, board_type, own_issues}, and with wiki
 * {wiki_root, wiki_pages, wiki_synced (the last sync of the root that ended
 * well, or null)} too.
 */
int	tracker_projects(struct db *db, struct json_object **out, int wiki, const char *label,
	    struct err *e);
/*
 * Adds a project and, in the same transaction, its refresh batch (one
 * refresh command of the project, by author).  board_id 0: none.  With
 * wiki_root (NULL: none), the root is set (by user id by; 0: none) and a
 * wiki sync queued too (wiki_batch in *out).
 * ERR_EXISTS when the label is taken (nothing written).  *out is
 * {project: {...}, batch: N}.
 */
int	tracker_project_create(struct db *db, struct json_object **out, const char *label,
	    const char *name, uint64_t board_id, const char *wiki_root, const char *author,
	    uint64_t by, struct err *e);
/*
 * Issues matching f, most recently updated first, at most f->limit:
 * {issues: [{key, summary, status, type, due, assignee, sprint,
 * story_points, own}], truncated}.  own is 1 for an issue with the
 * project's label; the others are its neighbours.
 */
int	tracker_issues(struct db *db, struct json_object **out, const struct tracker_filter *f,
	    struct err *e);
/*
 * One issue by key with everything its card shows: the fields, labels,
 * custom fields, links from both sides, comments newest first, the latest
 * commands that name it, and its latest change journal rows (changes,
 * change_count).  ERR_NOTFOUND when there is no such key.
 */
int	tracker_issue(struct db *db, struct json_object **out, const char *key, struct err *e);
/* The largest attachment the hub keeps a copy of (10 MB): a larger one stays in the tracker. */
#define TRACKER_FETCH_MAX	(10u * 1024 * 1024)

/*
 * An attachment by id: {id, key, name, size, mime, author, created,
 * in_description, state (remote, fetching, ready or failed), command,
 * error, comments (the ids of those that refer to it)}.  ERR_NOTFOUND.
 */
int	tracker_attachment(struct db *db, struct json_object **out, uint64_t id, struct err *e);
/*
 * Queues a fetch_attachment command (a batch of its own, by author) for
 * attachment id unless its copy is ready or a command is on its way: *out
 * {attachment, queued}.  ERR_NOTFOUND; ERR_TOOBIG over TRACKER_FETCH_MAX.
 */
int	tracker_attachment_queue(struct db *db, struct json_object **out, uint64_t id,
	    const char *author, struct err *e);
/*
 * The hub's copy of attachment id: *bytes (malloc'd, NULL when there is
 * none) and *len; its state into state.  ERR_NOTFOUND.
 */
int	tracker_attachment_content(struct db *db, uint64_t id, char **bytes, size_t *len,
	    char *state, size_t state_len, struct err *e);

/*
 * Files uploaded for ensure_attachment (POST /hub/files): a file of
 * account user is {id, name, size, received, complete}.  Creating one
 * drops the files of a day ago no batch took, then counts the account's
 * files and adds the file in one transaction that writes the account's
 * users row (its lock_count); ERR_TOOBIG (message "file")
 * over TRACKER_FETCH_MAX, or ("account") when the account's files would
 * pass 256 MB or 1000 files.  A part is the bytes from at, which must be what was
 * received so far (ERR_CONFLICT, message that count) and must fit
 * (ERR_TOOBIG, message the bytes left).  ERR_NOTFOUND for another
 * account's file or none.
 */
int	tracker_file_create(struct db *db, struct json_object **out, uint64_t user,
	    const char *name, uint64_t size, struct err *e);
int	tracker_file(struct db *db, struct json_object **out, uint64_t user, uint64_t id,
	    struct err *e);
int	tracker_file_part(struct db *db, struct json_object **out, uint64_t user, uint64_t id,
	    uint64_t at, const char *bytes, size_t len, struct err *e);
/* Whether file id is user's and complete (*usable), and its name into name. */
int	tracker_file_usable(struct db *db, uint64_t user, uint64_t id, char *name, size_t len,
	    int *usable, struct err *e);

/*
 * GET /hub/agile: the project's board ({id, type} or null) and its
 * sprints: active, future, then the 10 latest closed ({name, state, start,
 * end, goal, issues, done, sp, sp_done, unestimated}: the project's own
 * issues in each), closed_more the closed ones left out.  A sprint: the
 * same with "sprint" (label's active one, or the one named; null when
 * none) and its "issues" ({key, summary, status, column, assignee,
 * story_points}) by board column.  The backlog: the project's own issues
 * not done and in no open sprint, by rank: "issues" (the first limit) and
 * "total".  ERR_NOTFOUND for a label the hub lacks.
 */
int	tracker_agile(struct db *db, struct json_object **out, const char *label, struct err *e);
int	tracker_sprint(struct db *db, struct json_object **out, const char *label,
	    const char *name, struct err *e);
int	tracker_backlog(struct db *db, struct json_object **out, const char *label, int limit,
	    struct err *e);

/* The change feed's question (GET /hub/changes). */
struct tracker_period {
	const char	*since, *until;	/* UTC, "YYYY-MM-DD HH:MM:SS": since <= t < until
					   (NULL: no end, up to this instant) */
	const char	*project;	/* a label: its own issues; NULL: any */
	const char	*key;		/* one issue; NULL: any */
	const char	*journal_kinds;	/* "status,due,...": the journal's kinds wanted */
	int		 comments;	/* whether comments are wanted */
	int		 limit;		/* the newest this many events */
};

/*
 * The events of a period, newest first: {events: [{key, summary, status
 * (the issue's current one), at, author, kind (status, description, due,
 * start, end, field or comment), field, from, to (a comment's text)}],
 * truncated, limit}; values are cut to 500 characters.  ERR_NOTFOUND
 * (message "key" or "project") when the issue or the project is not there.
 */
int	tracker_changes(struct db *db, struct json_object **out, const struct tracker_period *p,
	    struct err *e);
/*
 * Journals what ensure_fields params are about to change in issue key
 * (inside the caller's transaction, before the update), by author: one row
 * per field whose value differs.  Nothing when the issue is not there.
 */
int	tracker_journal_fields(struct db *db, const char *key, const char *author,
	    struct json_object *params, struct err *e);
/*
 * Loads a fixture document ({projects: [...], issues: [...]}, doc/sdlc.md
 * "Fixtures") in one transaction: an issue or comment id that exists is
 * replaced.  *n_projects and *n_issues receive the counts loaded.
 * ERR_INVALID naming the first bad member (nothing written).
 */
int	tracker_import(struct db *db, struct json_object *doc, int *n_projects, int *n_issues,
	    struct err *e);
/*
 * The file of the claimed ensure_attachment command (db_files.c), for an
 * agent that sends it to the tracker itself: its name and bytes (*data,
 * len; the caller frees).  ERR_NOTFOUND when the command is not a claimed
 * ensure_attachment or its file is gone or not wholly uploaded.
 */
int	tracker_command_file(struct db *db, uint64_t command, char *name, size_t name_len,
	    char **data, size_t *len, struct err *e);
/*
 * The end of a fetch_attachment an agent ran elsewhere (db_attachments.c):
 * the file's bytes (len) stored as the hub's copy of the attachment the
 * claimed command is fetching, within cap bytes of copies, or the command
 * and the attachment failed with failed (or *why: another size than the
 * tracker said, over the cap, the attachment gone).  The parts the agent
 * uploaded are dropped.  One transaction; ERR_INVALID when the command is
 * not a claimed fetch_attachment in hand-out h->handout (h says why,
 * db_agent.h).
 */
int	tracker_fetch_end(struct db *db, uint64_t command, struct tracker_handout *h,
	    const char *bytes, size_t len, const char *failed, uint64_t cap, char **why,
	    struct err *e);
/*
 * A page of a Jira agent's refresh (db_import.c) for command, which must
 * be a claimed refresh: body {project?: {board_type?, sprints?, columns?},
 * issues?: [...], more?: {key, comments? changes?}} in the fixture format
 * (a link may name the other end as "from"), each issue carrying the
 * command's project label; more adds to an issue of the project that a
 * page before carried (a list too long to go with it).  The board's
 * sprints and columns given replace the old; each issue is updated in
 * place (its hub-side state kept) with what the tracker holds of it
 * replaced.  One transaction; *n the issues written.  ERR_INVALID when the
 * command is not a claimed refresh in hand-out h->handout (h says why,
 * db_agent.h), or when the page itself is bad (h then the holder's, e
 * naming the member).
 */
int	tracker_refresh_page(struct db *db, uint64_t command, struct tracker_handout *h,
	    struct json_object *body, int *n, struct err *e);

#endif
