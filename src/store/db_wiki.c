/* db_wiki: the reads of the hub's wiki copy (db_wiki.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_wiki.h"

#define WIKI_CANDIDATES		10
#define WIKI_PROJECT		"(SELECT id FROM tracker_projects WHERE label = ?)"

static const char SQL_PROJECT[] =
    "SELECT id, wiki_root, wiki_root_by FROM tracker_projects WHERE label = ?";
static const char SQL_TREE_FROM[] =
    "SELECT ord, ord_end, depth FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND (code = ? OR (? IS NULL AND depth = 0))";
static const char SQL_TREE[] =
    "SELECT code, title, depth - ?, chars FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND ord BETWEEN ? AND ? AND depth <= ? ORDER BY ord";
static const char SQL_PAGE[] =
    "SELECT id, code, title, path, source, " DB_DATE("synced_at") ", chars,"
    " SUBSTRING(body, ? + 1, ?) FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND code = ?";
static const char SQL_ATTACHMENTS[] =
    "SELECT id, name, size, mime, state FROM wiki_attachments WHERE page_id = ? ORDER BY id";
static const char SQL_TITLE_EXACT[] =
    "SELECT code FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND title COLLATE utf8mb4_bin = ? ORDER BY ord LIMIT 2";
static const char SQL_TITLE_LIKE[] =
    "SELECT code, title, path FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND LOCATE(?, title) > 0 ORDER BY ord LIMIT ?";
static const char SQL_TITLE_TEXT[] =
    "SELECT code, title, path FROM wiki_pages WHERE project_id = " WIKI_PROJECT
    " AND MATCH (title, body) AGAINST (?) ORDER BY MATCH (title, body) AGAINST (?) DESC,"
    " ord LIMIT ?";
/* the first of the words found in the body (1 when none is), from 60 characters before it */
#define WIKI_AT \
    "COALESCE(NULLIF(LOCATE(?, body), 0), NULLIF(LOCATE(?, body), 0)," \
    " NULLIF(LOCATE(?, body), 0), 1)"
#define WIKI_SNIPPET(at) \
    "SUBSTRING(body, GREATEST(1, " at " - 60), 200), GREATEST(1, " at " - 60)"
/*
 * The best pages first (ids and scores only), then the snippets of those
 * alone: computing a snippet of every matching page would read every body.
 */
#define WIKI_SEARCH(mode) \
    "SELECT code, title, path, " WIKI_SNIPPET(WIKI_AT) " FROM (SELECT id AS hit, ord AS o," \
    " MATCH (title, body) AGAINST (?" mode ") AS score FROM wiki_pages" \
    " WHERE project_id = " WIKI_PROJECT " AND MATCH (title, body) AGAINST (?" mode ")" \
    " ORDER BY score DESC, ord LIMIT ?) best JOIN wiki_pages ON id = best.hit" \
    " ORDER BY best.score DESC, best.o"
static const char SQL_SEARCH[] = WIKI_SEARCH("");
static const char SQL_SEARCH_BOOLEAN[] = WIKI_SEARCH(" IN BOOLEAN MODE");
static const char SQL_STATUS[] =
    "SELECT p.wiki_root, (SELECT " DB_DATE("MAX(s.finished_at)") " FROM wiki_sync_runs s"
    "  WHERE s.project_id = p.id AND s.state = 'done' AND s.root = p.wiki_root),"
    " (SELECT COUNT(*) FROM wiki_pages w WHERE w.project_id = p.id)"
    " FROM tracker_projects p WHERE p.label = ?";
static const char SQL_LAST_RUN[] =
    "SELECT id, state, pages, revision, error, " DB_DATE("started_at") ", "
    DB_DATE("finished_at") " FROM wiki_sync_runs WHERE project_id = " WIKI_PROJECT
    " ORDER BY id DESC LIMIT 1";
static const char SQL_RUNNING[] =
    "SELECT c.batch_id, c.state FROM tracker_commands c JOIN tracker_batches b"
    " ON b.id = c.batch_id WHERE b.project_id = " WIKI_PROJECT
    " AND c.type = 'wiki_sync' AND c.state IN ('queued', 'claimed') ORDER BY c.id LIMIT 1";
static const char SQL_ATTACHMENT[] =
    "SELECT a.id, w.code, a.name, a.size, a.mime, a.state, a.command_id, a.error, a.source"
    " FROM wiki_attachments a JOIN wiki_pages w ON w.id = a.page_id"
    " WHERE w.project_id = " WIKI_PROJECT " AND a.id = ?";

/* The project's row: ERR_NOTFOUND when there is none. */
static int
wiki_project(struct db *db, const char *label, struct db_rows *r, struct err *e)
{
	int	rc;

	if ((rc = db_run(db, DB_RETRY, SQL_PROJECT, r, NULL, NULL, e, "s", label)) != 0)
		return rc;
	return r->n == 0 ? ERR_NOTFOUND : 0;
}

int
wiki_root_get(struct db *db, const char *label, char **root, uint64_t *by, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*s;
	int		 rc;

	*root = NULL;
	*by = 0;
	if ((rc = wiki_project(db, label, &r, e)) == 0 && (s = db_rows_get(&r, 0, 1)) != NULL &&
	    (*root = strdup(s)) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	if (rc == 0 && db_rows_get(&r, 0, 2) != NULL)
		*by = db_to_u64(db_rows_get(&r, 0, 2));
	db_rows_release(&r);
	return rc;
}

/* Runs sql and puts its rows, as an array, into a new object *out under key. */
static int
wiki_list(struct db *db, struct json_object **out, const char *key, const char *sql,
    const char *const *names, const char *kinds, struct err *e, const char *types, ...)
{
	struct db_rows		 r = { 0 };
	struct json_object	*a = NULL;
	va_list			 ap;
	int			 rc;

	*out = NULL;
	va_start(ap, types);
	rc = db_vrun(db, DB_RETRY, sql, &r, NULL, NULL, e, types, ap);
	va_end(ap);
	if (rc == 0 && ((a = tracker_rows(&r, r.n, names, kinds)) == NULL ||
	    (*out = json_object_new_object()) == NULL ||
	    json_object_object_add(*out, key, a) != 0)) {
		/* a is *out's once added; until then it is ours */
		if (*out == NULL || json_object_object_get(*out, key) != a)
			json_object_put(a);
		json_object_put(*out);
		*out = NULL;
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	db_rows_release(&r);
	return rc;
}

int
wiki_tree(struct db *db, struct json_object **out, const char *label, const char *code,
    int depth, struct err *e)
{
	static const char *const names[] = { "code", "title", "depth", "chars", NULL };
	struct db_rows	 r = { 0 }, p = { 0 };
	int		 rc;

	*out = NULL;
	if ((rc = wiki_project(db, label, &p, e)) != 0 ||
	    (rc = db_run(db, DB_RETRY, SQL_TREE_FROM, &r, NULL, NULL, e, "sss", label, code,
	    code)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = wiki_list(db, out, "pages", SQL_TREE, names, "ssuu", e, "usuuu",
	    db_to_u64(db_rows_get(&r, 0, 2)), label, db_to_u64(db_rows_get(&r, 0, 0)),
	    db_to_u64(db_rows_get(&r, 0, 1)), db_to_u64(db_rows_get(&r, 0, 2)) + (uint64_t)depth);
done:
	db_rows_release(&p);
	db_rows_release(&r);
	return rc;
}

int
wiki_page_get(struct db *db, struct json_object **out, const char *label, const char *code,
    uint64_t offset, uint64_t max, struct err *e)
{
	static const char *const names[] = { "id", "code", "title", "path", "source", "synced",
	    "chars", "text", NULL };
	static const char *const att_names[] = { "id", "name", "size", "mime", "state", NULL };
	struct db_rows		 r = { 0 }, p = { 0 };
	struct json_object	*page = NULL, *atts = NULL;
	uint64_t		 chars;
	int			 rc;

	*out = NULL;
	if ((rc = wiki_project(db, label, &p, e)) != 0 ||
	    (rc = db_run(db, DB_RETRY, SQL_PAGE, &r, NULL, NULL, e, "uuss", offset, max, label,
	    code)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	chars = db_to_u64(db_rows_get(&r, 0, 6));
	if ((*out = json_object_new_object()) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (offset > 0 && offset >= chars) {
		json_object_object_add(*out, "chars", json_object_new_uint64(chars));
		rc = ERR_TOOBIG;
		goto done;
	}
	if ((page = tracker_row(&r, 0, names, "usssssus")) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	/* the text goes beside the page, not in it */
	json_object_object_add(*out, "text", json_object_get(json_object_object_get(page,
	    "text")));
	json_object_object_del(page, "text");
	json_object_object_add(*out, "offset", json_object_new_uint64(offset));
	json_object_object_add(*out, "next", offset + max < chars ?
	    json_object_new_uint64(offset + max) : NULL);
	if ((rc = wiki_list(db, &atts, "attachments", SQL_ATTACHMENTS, att_names, "ssuss", e, "u",
	    db_to_u64(db_rows_get(&r, 0, 0)))) != 0)
		goto done;
	json_object_object_add(page, "attachments",
	    json_object_get(json_object_object_get(atts, "attachments")));
	json_object_object_add(*out, "page", page);
	page = NULL;
done:
	json_object_put(atts);
	json_object_put(page);
	if (rc != 0 && rc != ERR_TOOBIG) {
		json_object_put(*out);
		*out = NULL;
	}
	db_rows_release(&p);
	db_rows_release(&r);
	return rc;
}

int
wiki_title_find(struct db *db, struct json_object **out, const char *label, const char *title,
    struct err *e)
{
	static const char *const names[] = { "code", "title", "path", NULL };
	struct db_rows	 r = { 0 }, p = { 0 };
	int		 rc;

	*out = NULL;
	if ((rc = wiki_project(db, label, &p, e)) != 0 ||
	    (rc = db_run(db, DB_RETRY, SQL_TITLE_EXACT, &r, NULL, NULL, e, "ss", label, title)) != 0)
		goto done;
	if (r.n == 1) {
		if ((*out = json_object_new_object()) == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else
			json_object_object_add(*out, "code",
			    json_object_new_string(db_rows_get(&r, 0, 0)));
		goto done;
	}
	if ((rc = wiki_list(db, out, "candidates", SQL_TITLE_LIKE, names, "sss", e, "ssi", label,
	    title, (int64_t)WIKI_CANDIDATES)) != 0)
		goto done;
	if (json_object_array_length(json_object_object_get(*out, "candidates")) == 0) {
		json_object_put(*out);
		rc = wiki_list(db, out, "candidates", SQL_TITLE_TEXT, names, "sss", e, "sssi",
		    label, title, title, (int64_t)WIKI_CANDIDATES);
	}
done:
	db_rows_release(&p);
	db_rows_release(&r);
	return rc;
}

int
wiki_search(struct db *db, struct json_object **out, const char *label, const char *q,
    int boolean, const char *const words[3], int limit, struct err *e)
{
	static const char *const names[] = { "code", "title", "path", "snippet", "at", NULL };
	struct db_rows	 p = { 0 };
	int		 rc;

	*out = NULL;
	if ((rc = wiki_project(db, label, &p, e)) == 0)
		rc = wiki_list(db, out, "pages", boolean ? SQL_SEARCH_BOOLEAN : SQL_SEARCH, names,
		    "ssssu", e, "sssssssssi", words[0], words[1], words[2], words[0], words[1],
		    words[2], q, label, q, (int64_t)limit);
	db_rows_release(&p);
	return rc;
}

int
wiki_status(struct db *db, struct json_object **out, const char *label, struct err *e)
{
	static const char *const run_names[] = { "id", "state", "pages", "revision", "error",
	    "started", "finished", NULL };
	static const char *const head_names[] = { "root", "synced", "pages", NULL };
	static const char *const batch_names[] = { "id", "state", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*o = NULL;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_STATUS, &r, NULL, NULL, e, "s", label)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	if ((o = tracker_row(&r, 0, head_names, "ssu")) == NULL)
		goto oom;
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_LAST_RUN, &r, NULL, NULL, e, "s", label)) != 0)
		goto done;
	json_object_object_add(o, "last", r.n > 0 ? tracker_row(&r, 0, run_names, "usussss") :
	    NULL);
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_RUNNING, &r, NULL, NULL, e, "s", label)) != 0)
		goto done;
	json_object_object_add(o, "batch", r.n > 0 ? tracker_row(&r, 0, batch_names, "us") : NULL);
	*out = o;
	o = NULL;
	goto done;
oom:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	json_object_put(o);
	db_rows_release(&r);
	return rc;
}

int
wiki_attachment(struct db *db, struct json_object **out, const char *label, uint64_t id,
    struct err *e)
{
	static const char *const names[] = { "id", "page", "name", "size", "mime", "state",
	    "command", "error", "source", NULL };
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_ATTACHMENT, &r, NULL, NULL, e, "su", label, id)) != 0)
		goto done;
	if (r.n == 0)
		rc = ERR_NOTFOUND;
	else if ((*out = tracker_row(&r, 0, names, "ussussuss")) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	db_rows_release(&r);
	return rc;
}
