/*
 * db_wiki: the sdlc hub's wiki copy in MySQL (schema/013-wiki.sql): pages
 * with codes, their tree, Markdown and attachments, the project's wiki
 * root, and the sync runs.  Reads answer the JSON objects the hub API
 * sends (doc/sdlc.md, "The wiki"); each write is one transaction, and a
 * sync replaces a project's pages whole or not at all.  A project is named
 * by its label: ERR_NOTFOUND when the hub has no such project.
 */
#ifndef FM_DB_WIKI_H
#define FM_DB_WIKI_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;
struct tracker_handout;

#define WIKI_TREE_DEPTH_MAX	64	/* levels below the root a sync accepts */

/* A page as a sync loads it, in tree (pre-order) order: the root first. */
struct wiki_page_in {
	const char	*code;
	const char	*title;
	const char	*path;		/* the titles from the root, " / " between them */
	const char	*body;		/* Markdown, valid UTF-8 */
	const char	*source;	/* its address in the source */
	size_t		 parent;	/* index of its parent in the array; the root: itself */
	unsigned	 depth;		/* 0 for the root */
	unsigned	 ord_end;	/* index of the last page of its subtree */
	size_t		 chars;		/* code points of body */
};

/* An attachment as a sync records it (its content stays in the source). */
struct wiki_attachment_in {
	size_t		 page;		/* index of its page in the pages loaded */
	const char	*name;
	uint64_t	 size;
	const char	*mime;
	const char	*source;	/* its address in the source */
};

/*
 * The project's wiki root into *root (caller frees; NULL when none is set)
 * and the user who set it into *by (0: not a user, e.g. an import).
 */
int	wiki_root_get(struct db *db, const char *label, char **root, uint64_t *by,
	    struct err *e);
/*
 * Sets the project's wiki root, set by user id by (0: none), and queues a
 * sync of it (a batch of one wiki_sync command, by author), in one
 * transaction: *out is {project: {label, wiki_root}, batch: N}.
 */
int	wiki_root_set(struct db *db, struct json_object **out, const char *label,
	    const char *root, const char *author, uint64_t by, struct err *e);
/* wiki_root_set inside an open transaction, of the project's id: *batch the sync's. */
int	wiki_root_set_tx(struct db *db, uint64_t project, const char *label, const char *root,
	    const char *author, uint64_t by, uint64_t *batch, struct err *e);
/*
 * Queues a sync of the project's wiki, or finds the one queued or running:
 * *out is {batch: N, queued: true|false}.  ERR_INVALID when the project has
 * no wiki root.
 */
int	wiki_sync_queue(struct db *db, struct json_object **out, const char *label,
	    const char *author, struct err *e);
/*
 * The tree from the root, or from the page code (NULL: the root), depth
 * levels below it: {pages: [{code, title, depth, chars}]} in tree order,
 * depth counted from the first page.  ERR_NOTFOUND for a code not there.
 */
int	wiki_tree(struct db *db, struct json_object **out, const char *label, const char *code,
	    int depth, struct err *e);
/*
 * The page code with at most max characters of its Markdown from offset
 * (characters): {page: {id, code, title, path, source, synced, chars,
 * attachments: [{id, name, size, mime, state}]}, offset, text, next (the
 * offset of what is left, or null)}.  ERR_NOTFOUND for no such page;
 * ERR_TOOBIG when offset is past the end (*out then holds {chars}).
 */
int	wiki_page_get(struct db *db, struct json_object **out, const char *label,
	    const char *code, uint64_t offset, uint64_t max, struct err *e);
/*
 * A title: {code} of the one page with exactly that title, else
 * {candidates: [{code, title, path}]}: at most 10 whose title contains it,
 * or failing those the best full-text matches.
 */
int	wiki_title_find(struct db *db, struct json_object **out, const char *label,
	    const char *title, struct err *e);
/*
 * Full-text search (InnoDB FULLTEXT over title and body; boolean mode
 * when boolean is set), best first, at most limit: {pages: [{code, title,
 * path, snippet, at}]}: snippet is up to 200 characters of the body from
 * 60 before the first of words (up to 3, NULL for none) found in it, at
 * the character it starts at (1 based).
 */
int	wiki_search(struct db *db, struct json_object **out, const char *label, const char *q,
	    int boolean, const char *const words[3], int limit, struct err *e);
/*
 * {root, synced (the last sync of this root that ended well, or null),
 * pages, last: {id, state, pages, revision, error, started, finished} or
 * null, batch: {id, state} of the sync queued or running, or null}.
 */
int	wiki_status(struct db *db, struct json_object **out, const char *label, struct err *e);
/*
 * An attachment of the project's pages: {id, page, name, size, mime, state
 * (remote, fetching, ready, failed), command (the last wiki_fetch), error,
 * source (its address in the source)}.
 */
int	wiki_attachment(struct db *db, struct json_object **out, const char *label, uint64_t id,
	    struct err *e);

/*
 * The end of the claimed wiki_sync command: replaces the project's pages by
 * pages[0..n) (the root first) with their attachments atts[0..n_atts),
 * records a sync run of root at revision,
 * and reports the command done, in one transaction.  ERR_INVALID when the
 * command is not claimed or is in another hand-out than h->handout (h says
 * which, db_agent.h); ERR_CONFLICT (nothing written) when the project's
 * root is no longer root.
 */
int	wiki_load(struct db *db, uint64_t command, struct tracker_handout *h, const char *label,
	    const char *root, const char *revision, const struct wiki_page_in *pages, size_t n,
	    const struct wiki_attachment_in *atts, size_t n_atts, struct err *e);
/*
 * The failed end of a wiki_sync command: records a failed sync run with
 * why and reports the command failed, in one transaction; the pages stay.
 * ERR_INVALID as wiki_load.
 */
int	wiki_sync_failed(struct db *db, uint64_t command, struct tracker_handout *h,
	    const char *label, const char *root, const char *why, struct err *e);

/* ---- the hub's copies of attachments (db_wiki_fetch.c) ---- */

#define WIKI_FETCH_MAX	(10u * 1024 * 1024)	/* bytes: larger ones stay in the source */

/*
 * Asks for the hub's copy of attachment id of the project: unless it is
 * ready or being fetched, queues a wiki_fetch command (a batch of one) and
 * marks it fetching, in one transaction.  {attachment (as wiki_attachment),
 * queued}; ERR_NOTFOUND, or ERR_TOOBIG over WIKI_FETCH_MAX.
 */
int	wiki_fetch_queue(struct db *db, struct json_object **out, const char *label,
	    uint64_t id, const char *author, struct err *e);

/* A wiki_fetch command and what its backend needs. */
struct wiki_fetch {
	char		 state[16], type[32], label[64];
	uint64_t	 attachment;	/* 0: the command names none */
	char		*source;	/* NULL: the attachment is no longer this command's */
	char		*name;
	char		*revision;	/* of the project's last good sync; NULL: none */
	uint64_t	 size;
	uint64_t	 root_by;	/* who set the project's wiki root; 0: none */
};
/* ERR_NOTFOUND when there is no such command.  Release with wiki_fetch_release. */
int	wiki_fetch_command(struct db *db, uint64_t command, struct wiki_fetch *out,
	    struct err *e);
void	wiki_fetch_release(struct wiki_fetch *f);
/*
 * The end of the claimed wiki_fetch command: the copy (bytes, len) stored
 * and the attachment ready, or with why (not NULL) the attachment failed
 * with it; the command done or failed; one transaction.  The project's
 * copies are kept within cap bytes: the ones fetched longest ago are
 * dropped (their attachments remote again) to make room, and a file over
 * cap fails.  ERR_INVALID when the command is not claimed or is in
 * another hand-out than h->handout (h says which, db_agent.h).
 */
int	wiki_fetch_end(struct db *db, uint64_t command, struct tracker_handout *h,
	    uint64_t attachment, const char *bytes, size_t len, const char *why, uint64_t cap,
	    struct err *e);

/* An attachment's copy: bytes NULL unless state is "ready". */
struct wiki_content {
	char	 state[16], mime[256];
	char	*name;
	char	*bytes;
	size_t	 len;
};
/* ERR_NOTFOUND when the project has no such attachment.  Release with wiki_content_release. */
int	wiki_attachment_content(struct db *db, struct wiki_content *out, const char *label,
	    uint64_t id, struct err *e);
void	wiki_content_release(struct wiki_content *c);
/*
 * Adds part (0, 1, ... in order; 0 drops the parts before) of the copy
 * the agent uploads for the claimed wiki_sync, wiki_fetch or fetch_attachment command
 * (the tracker's file an agent read from Jira), in one transaction;
 * h->handout is the hand-out the part is of, checked on the locked command
 * row (db_agent.h); *total receives the bytes uploaded with it.
 * ERR_INVALID when the command is not claimed or is in another hand-out
 * (h says which); ERR_CONFLICT for a part out of order, ERR_TOOBIG when
 * the parts would pass max bytes.
 */
int	wiki_upload_part(struct db *db, uint64_t command, struct tracker_handout *h,
	    unsigned part, const char *text, size_t len, size_t max, size_t *total,
	    struct err *e);
/* The parts of command joined in order into *out (len bytes, NUL-terminated; caller frees). */
int	wiki_upload_read(struct db *db, uint64_t command, char **out, size_t *len, struct err *e);
/* Drops the parts of command: inside the transaction that ends its sync. */
int	wiki_upload_drop(struct db *db, uint64_t command, struct err *e);

#endif
