/*
 * db_attachments: the tracker's attachments in the mirror (db_tracker.h,
 * schema/017-tracker-attachments.sql): the card's list, the hub's copies
 * and the fetch_attachment commands that make them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
#include "store/db_wiki.h"
#include "store/db.h"
#include "store/db_tracker.h"

/*
 * An attachment as the card and the API show it.  A fetching one whose
 * command ended without a copy (failed, cancelled, handed out too often)
 * is failed, with the command's error.
 */
#define ATT_COLS \
    "SELECT a.id, i.issue_key, a.filename, a.size, a.mime, a.author, " \
    DB_DATE("a.created_at") ", a.in_description," \
    " IF(a.state = 'fetching' AND c.state IN ('done', 'failed', 'cancelled', 'skipped')," \
    "  'failed', a.state)," \
    " a.command_id, COALESCE(a.error, IF(a.state = 'fetching' AND c.state <> 'claimed'" \
    "  AND c.state <> 'queued', COALESCE(c.error, CONCAT('команда ', c.state)), NULL))," \
    " (SELECT GROUP_CONCAT(r.comment_id ORDER BY r.comment_id) FROM" \
    "  tracker_attachment_comments r WHERE r.attachment_id = a.id)" \
    " FROM tracker_attachments a JOIN tracker_issues i ON i.id = a.issue_id" \
    " LEFT JOIN tracker_commands c ON c.id = a.command_id"
static const char SQL_OF_ISSUE[] =
    ATT_COLS " WHERE a.issue_id = ? ORDER BY a.created_at DESC, a.id DESC";
static const char SQL_ONE[] = ATT_COLS " WHERE a.id = ?";
static const char SQL_LOCK[] =
    "SELECT a.state, a.size, c.state FROM tracker_attachments a"
    " LEFT JOIN tracker_commands c ON c.id = a.command_id WHERE a.id = ? FOR UPDATE";
static const char SQL_BATCH_ADD[] =
    "INSERT INTO tracker_batches (project_id, title, author, created_at)"
    " VALUES (NULL, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_ADD[] =
    "INSERT INTO tracker_commands (batch_id, seq, type, params, state, updated_at)"
    " VALUES (?, 1, 'fetch_attachment', ?, 'queued', UTC_TIMESTAMP(3))";
static const char SQL_FETCHING[] =
    "UPDATE tracker_attachments SET state = 'fetching', command_id = ?, error = NULL"
    " WHERE id = ?";
static const char SQL_CONTENT[] =
    "SELECT a.state, LENGTH(c.bytes), c.bytes FROM tracker_attachments a"
    " LEFT JOIN tracker_attachment_contents c ON c.attachment_id = a.id WHERE a.id = ?";
static const char SQL_SOURCE[] =
    "SELECT s.bytes, LENGTH(s.bytes), a.size FROM tracker_attachments a"
    " LEFT JOIN tracker_attachment_sources s ON s.attachment_id = a.id"
    " WHERE a.id = ? AND a.command_id = ? FOR UPDATE";
static const char SQL_STORED[] =
    "SELECT COALESCE(SUM(LENGTH(bytes)), 0) FROM tracker_attachment_contents";
static const char SQL_OLDEST[] =
    "SELECT attachment_id, LENGTH(bytes) FROM tracker_attachment_contents"
    " ORDER BY fetched_at, attachment_id LIMIT 1 FOR UPDATE";
static const char SQL_EVICT[] =
    "DELETE FROM tracker_attachment_contents WHERE attachment_id = ?";
static const char SQL_EVICTED[] =
    "UPDATE tracker_attachments SET state = 'remote' WHERE id = ?";
static const struct db_copies att_copies = { "", SQL_STORED, SQL_OLDEST, SQL_EVICT,
    SQL_EVICTED };
static const char SQL_COPY[] =
    "REPLACE INTO tracker_attachment_contents (attachment_id, bytes, fetched_at)"
    " SELECT attachment_id, bytes, UTC_TIMESTAMP(3) FROM tracker_attachment_sources"
    " WHERE attachment_id = ?";
static const char SQL_END[] =
    "UPDATE tracker_attachments SET state = ?, error = ? WHERE id = ?";
static const char SQL_IMPORT_DROP[] =
    "DELETE FROM tracker_attachments WHERE id = ?";
static const char SQL_IMPORT[] =
    "INSERT INTO tracker_attachments (id, issue_id, filename, size, mime, author, created_at,"
    " in_description) VALUES (?, ?, ?, NULLIF(?, 0), ?, ?,"
    " STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'), ?)";
/*
 * A refresh updates the metadata in place: the hub's copy and its state
 * stay while the file is the one copied (same name and size).
 */
static const char SQL_REFRESH[] =
    "INSERT INTO tracker_attachments (id, issue_id, filename, size, mime, author, created_at,"
    " in_description) VALUES (?, ?, ?, NULLIF(?, 0), ?, ?,"
    " STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'), ?) ON DUPLICATE KEY UPDATE"
    " state = IF(filename = VALUES(filename) AND size <=> VALUES(size), state, 'remote'),"
    " issue_id = VALUES(issue_id), filename = VALUES(filename), size = VALUES(size),"
    " mime = VALUES(mime), author = VALUES(author), created_at = VALUES(created_at),"
    " in_description = VALUES(in_description)";
static const char SQL_REFRESH_REFS[] =
    "DELETE FROM tracker_attachment_comments WHERE attachment_id = ?";
static const char SQL_REFRESH_GONE[] =
    "DELETE FROM tracker_attachments WHERE issue_id = ? AND NOT JSON_CONTAINS(?, CAST(id AS CHAR))";
static const char SQL_IMPORT_REF[] =
    "INSERT IGNORE INTO tracker_attachment_comments (attachment_id, comment_id) VALUES (?, ?)";
static const char SQL_IMPORT_SOURCE[] =
    "INSERT INTO tracker_attachment_sources (attachment_id, bytes) VALUES (?, ?)";

/* Row i of an ATT_COLS result as an object; NULL when out of memory. */
static struct json_object *
att_row(const struct db_rows *r, size_t i)
{
	static const char *const names[] = { "id", "key", "name", "size", "mime", "author",
	    "created", "in_description", "state", "command", "error", "comments", NULL };
	struct json_object	*o, *refs;
	const char		*list = db_rows_get(r, i, 11), *p;

	if ((o = tracker_row(r, i, names, "ussnsssbsuss")) == NULL ||
	    (refs = json_object_new_array()) == NULL) {
		json_object_put(o);
		return NULL;
	}
	for (p = list; p != NULL && *p != '\0'; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		json_object_array_add(refs, json_object_new_uint64(db_to_u64(p)));
	json_object_object_add(o, "comments", refs);	/* for the list GROUP_CONCAT made */
	return o;
}

int
tracker_issue_attachments(struct db *db, struct json_object *o, uint64_t issue, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*a, *x;
	size_t			 i;
	int			 rc;

	if ((rc = db_run(db, DB_RETRY, SQL_OF_ISSUE, &r, NULL, NULL, e, "u", issue)) != 0)
		return rc;
	if ((a = json_object_new_array()) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	for (i = 0; rc == 0 && i < r.n; i++)
		if ((x = att_row(&r, i)) == NULL || json_object_array_add(a, x) != 0)
			rc = err_set(e, ERR_NOMEM, "out of memory");
	db_rows_release(&r);
	if (rc == 0)
		json_object_object_add(o, "attachments", a);
	else
		json_object_put(a);
	return rc;
}

int
tracker_attachment(struct db *db, struct json_object **out, uint64_t id, struct err *e)
{
	struct db_rows	r = { 0 };
	int		rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_ONE, &r, NULL, NULL, e, "u", id)) != 0)
		return rc;
	if (r.n == 0)
		rc = ERR_NOTFOUND;
	else if ((*out = att_row(&r, 0)) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	db_rows_release(&r);
	return rc;
}

/* The attachment a fetch is asked for, and whether a command was queued for it. */
struct queue_args {
	uint64_t	 id;
	const char	*author;
	int		 queued;
};

/* Locks the attachment and, unless it is ready or on its way, queues its fetch. */
static int
queue_tx(struct db *db, void *arg, struct err *e)
{
	struct queue_args	*a = arg;
	struct db_rows		 r = { 0 };
	struct json_object	*params;
	const char		*state, *cstate;
	uint64_t		 batch = 0, command = 0;
	char			 title[96];
	int			 rc;

	a->queued = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_LOCK, &r, NULL, NULL, e, "u", a->id)) != 0)
		return rc;
	if (r.n == 0 || db_to_u64(db_rows_get(&r, 0, 1)) > TRACKER_FETCH_MAX) {
		rc = r.n == 0 ? ERR_NOTFOUND : ERR_TOOBIG;
		goto done;
	}
	state = db_rows_get(&r, 0, 0);
	cstate = db_rows_get(&r, 0, 2);
	/* ready, or on its way (its command still queued or at the agent): nothing more */
	if (strcmp(state, "remote") == 0 || strcmp(state, "failed") == 0 ||
	    (strcmp(state, "fetching") == 0 && (cstate == NULL ||
	    (strcmp(cstate, "queued") != 0 && strcmp(cstate, "claimed") != 0)))) {
		params = json_object_new_object();
		json_object_object_add(params, "attachment", json_object_new_uint64(a->id));
		snprintf(title, sizeof title, "attachment %llu", (unsigned long long)a->id);
		if ((rc = db_run(db, DB_ONCE, SQL_BATCH_ADD, NULL, NULL, &batch, e, "ss", title,
		    a->author)) == 0 &&
		    (rc = db_run(db, DB_ONCE, SQL_COMMAND_ADD, NULL, NULL, &command, e, "us", batch,
		    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN))) == 0)
			rc = db_run(db, DB_ONCE, SQL_FETCHING, NULL, NULL, NULL, e, "uu", command,
			    a->id);
		json_object_put(params);
		a->queued = rc == 0;
	}
done:
	db_rows_release(&r);
	return rc;
}

int
tracker_attachment_queue(struct db *db, struct json_object **out, uint64_t id,
    const char *author, struct err *e)
{
	struct queue_args	 a = { id, author, 0 };
	struct json_object	*att = NULL;
	int			 rc;

	*out = NULL;
	if ((rc = db_tx(db, queue_tx, &a, e)) != 0 ||
	    (rc = tracker_attachment(db, &att, id, e)) != 0)
		return rc;
	*out = json_object_new_object();
	json_object_object_add(*out, "attachment", att);
	json_object_object_add(*out, "queued", json_object_new_boolean(a.queued));
	return 0;
}

int
tracker_attachment_content(struct db *db, uint64_t id, char **bytes, size_t *len, char *state,
    size_t state_len, struct err *e)
{
	struct db_rows	r = { 0 };
	int		rc;

	*bytes = NULL;
	*len = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_CONTENT, &r, NULL, NULL, e, "u", id)) != 0)
		return rc;
	if (r.n == 0) {
		db_rows_release(&r);
		return ERR_NOTFOUND;
	}
	snprintf(state, state_len, "%s", db_rows_get(&r, 0, 0));
	if (db_rows_get(&r, 0, 2) != NULL) {
		*len = (size_t)db_to_u64(db_rows_get(&r, 0, 1));
		if ((*bytes = malloc(*len + 1)) == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else
			memcpy(*bytes, db_rows_get(&r, 0, 2), *len);
	}
	db_rows_release(&r);
	return rc;
}

int
db_copies_room(struct db *db, const struct db_copies *q, uint64_t scope, uint64_t len,
    uint64_t cap, struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 stored, id;
	int		 rc;

	if (len > cap)
		return ERR_TOOBIG;
	if ((rc = db_run(db, DB_ONCE, q->stored, &r, NULL, NULL, e, q->scope, scope)) != 0)
		return rc;
	stored = db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	while (stored + len > cap) {
		if ((rc = db_run(db, DB_ONCE, q->oldest, &r, NULL, NULL, e, q->scope, scope)) != 0)
			return rc;
		if (r.n == 0)
			break;
		id = db_to_u64(db_rows_get(&r, 0, 0));
		stored -= db_to_u64(db_rows_get(&r, 0, 1));
		db_rows_release(&r);
		if ((rc = db_run(db, DB_ONCE, q->evict, NULL, NULL, NULL, e, "u", id)) != 0 ||
		    (rc = db_run(db, DB_ONCE, q->evicted, NULL, NULL, NULL, e, "u", id)) != 0)
			return rc;
	}
	db_rows_release(&r);
	return 0;
}

/* Room for a copy of len bytes within cap; *why set (rc 0) when it is larger than cap. */
static int
att_room(struct db *db, uint64_t len, uint64_t cap, char **why, struct err *e)
{
	int	rc;

	if ((rc = db_copies_room(db, &att_copies, 0, len, cap, e)) != ERR_TOOBIG)
		return rc;
	if (asprintf(why, "файл больше, чем хаб хранит копий вложений трекера "
	    "(tracker_copies_mb = %llu)", (unsigned long long)(cap >> 20)) < 0)
		*why = NULL;
	return 0;
}

int
tracker_local_fetch(struct db *db, uint64_t command, struct json_object *params,
    uint64_t cap, char **why, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*v;
	uint64_t		 id = 0;
	int			 rc, mine;

	if (json_object_object_get_ex(params, "attachment", &v))
		id = (uint64_t)json_object_get_int64(v);
	if ((rc = db_run(db, DB_ONCE, SQL_SOURCE, &r, NULL, NULL, e, "uu", id, command)) != 0)
		return rc;
	if (r.n == 0)
		*why = strdup("вложения нет, или его скачивает другая команда");
	else if (db_rows_get(&r, 0, 0) == NULL)
		*why = strdup("в локальном трекере нет файла этого вложения");
	else if (db_rows_get(&r, 0, 2) != NULL &&
	    strcmp(db_rows_get(&r, 0, 1), db_rows_get(&r, 0, 2)) != 0) {
		if (asprintf(why, "файл в трекере — %s байт, а не %s, как сказано в задаче",
		    db_rows_get(&r, 0, 1), db_rows_get(&r, 0, 2)) < 0)
			*why = NULL;
	} else if ((rc = att_room(db, db_to_u64(db_rows_get(&r, 0, 1)), cap, why, e)) == 0 &&
	    *why == NULL)
		rc = db_run(db, DB_ONCE, SQL_COPY, NULL, NULL, NULL, e, "u", id);
	mine = r.n > 0;
	db_rows_release(&r);
	/* an attachment another command has taken over is that command's */
	if (rc == 0 && mine)
		rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "ssu",
		    *why == NULL ? "ready" : "failed", *why, id);
	return rc;
}

static const char SQL_FETCHED_BY[] =
    "SELECT id, size FROM tracker_attachments WHERE command_id = ? AND state = 'fetching'"
    " FOR UPDATE";
static const char SQL_PUT[] =
    "REPLACE INTO tracker_attachment_contents (attachment_id, bytes, fetched_at)"
    " VALUES (?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_END[] =
    "UPDATE tracker_commands SET state = ?, error = ?, updated_at = UTC_TIMESTAMP(3)"
    " WHERE id = ?";

/* A fetch_attachment command's end as tracker_fetch_end was given it, and why it failed. */
struct end_args {
	uint64_t		 command, cap;
	struct tracker_handout	*h;
	const char		*bytes, *failed;
	size_t			 len;
	char			**why;
};

static int
end_tx(struct db *db, void *arg, struct err *e)
{
	static const char *const types[] = { "fetch_attachment", NULL };
	struct end_args	*a = arg;
	struct db_rows	 r = { 0 };
	uint64_t	 id = 0;
	int		 rc;

	free(*a->why);
	*a->why = NULL;
	if ((rc = tracker_handout_lock(db, a->command, types, a->h, NULL, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_FETCHED_BY, &r, NULL, NULL, e, "u", a->command)) != 0)
		return rc;
	if (r.n == 0)
		*a->why = strdup("вложения нет, или его скачивает другая команда");
	else if (a->failed != NULL)
		*a->why = strdup(a->failed);
	else if (db_rows_get(&r, 0, 1) != NULL && db_to_u64(db_rows_get(&r, 0, 1)) != a->len) {
		if (asprintf(a->why, "файл в трекере — %zu байт, а не %s, как сказано в задаче",
		    a->len, db_rows_get(&r, 0, 1)) < 0)
			*a->why = NULL;
	} else if ((rc = att_room(db, a->len, a->cap, a->why, e)) == 0 && *a->why == NULL)
		rc = db_run(db, DB_ONCE, SQL_PUT, NULL, NULL, NULL, e, "ub",
		    db_to_u64(db_rows_get(&r, 0, 0)), a->bytes, a->len);
	if (r.n > 0)
		id = db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	if (rc != 0 || (id != 0 && (rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "ssu",
	    *a->why == NULL ? "ready" : "failed", *a->why, id)) != 0) ||
	    (rc = db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "ssu",
	    *a->why == NULL ? "done" : "failed", *a->why, a->command)) != 0)
		return rc;
	return wiki_upload_drop(db, a->command, e);
}

int
tracker_fetch_end(struct db *db, uint64_t command, struct tracker_handout *h,
    const char *bytes, size_t len, const char *failed, uint64_t cap, char **why,
    struct err *e)
{
	struct end_args	 a = { command, cap, h, bytes, failed, len, why };
	int		 rc;

	*why = NULL;
	if ((rc = db_tx(db, end_tx, &a, e)) != 0) {
		free(*why);
		*why = NULL;
	}
	return rc;
}

/* A fixture's base64 content into (out, *len); -1 when it is not base64. */
static int
att_decode(const char *b64, unsigned char **out, size_t *len)
{
	size_t	n = strlen(b64);
	int	k;

	if (n % 4 != 0 || (*out = malloc(n / 4 * 3 + 1)) == NULL)
		return -1;
	if ((k = EVP_DecodeBlock(*out, (const unsigned char *)b64, (int)n)) < 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	/* EVP_DecodeBlock counts the padding's bytes too */
	*len = (size_t)k - (n > 0 && b64[n - 1] == '=') - (n > 1 && b64[n - 2] == '=');
	return 0;
}

/* Loads one fixture attachment a of issue (its content, when given, as the tracker's file). */
static const struct tracker_width att_widths[] = {
	{ "name", 255 }, { "mime", 255 }, { "author", 255 }, { NULL, 0 }
};

static int
att_import_one(struct db *db, struct json_object *a, uint64_t issue, const char *key,
    size_t j, int refresh, struct err *e)
{
	struct json_object	*v, *refs = NULL;
	const char		*name = NULL, *author = NULL, *created = NULL, *mime = NULL,
				*b64 = NULL;
	unsigned char		*bytes = NULL;
	uint64_t		 id = 0, size = 0;
	size_t			 len = 0, k;
	int			 rc = 0, bad = !json_object_is_type(a, json_type_object);

#define ATT_STR(n, var) if (json_object_object_get_ex(a, n, &v) && v != NULL) { \
	if (!json_object_is_type(v, json_type_string)) bad = 1; else var = json_object_get_string(v); }
	ATT_STR("name", name)
	ATT_STR("author", author)
	ATT_STR("created", created)
	ATT_STR("mime", mime)
	ATT_STR("content", b64)
#undef ATT_STR
	if (json_object_object_get_ex(a, "id", &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0)
		id = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(a, "size", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			bad = 1;
		size = (uint64_t)json_object_get_int64(v);
	}
	if (json_object_object_get_ex(a, "comments", &refs) && refs != NULL &&
	    !json_object_is_type(refs, json_type_array))
		bad = 1;
	if (bad || id == 0 || name == NULL || name[0] == '\0' || author == NULL ||
	    !tracker_time_ok(created) || (b64 != NULL && att_decode(b64, &bytes, &len) != 0))
		return err_set(e, ERR_INVALID, "%s: attachments[%zu]: id, name, author and created "
		    "(YYYY-MM-DDTHH:MM:SSZ) are required; size a count, comments an array of "
		    "comment ids, content base64", key, j);
	if (tracker_too_long(a, att_widths) != NULL) {
		free(bytes);
		return err_set(e, ERR_INVALID, "%s: attachments[%zu]: %s is over 255 characters",
		    key, j, tracker_too_long(a, att_widths));
	}
	if (b64 != NULL && size == 0)
		size = len;
	if ((rc = db_run(db, DB_ONCE, refresh ? SQL_REFRESH_REFS : SQL_IMPORT_DROP, NULL, NULL,
	    NULL, e, "u", id)) != 0 ||
	    (rc = db_run(db, DB_ONCE, refresh ? SQL_REFRESH : SQL_IMPORT, NULL, NULL, NULL, e,
	    "uususs" "si", id, issue,
	    name, size, mime, author, created, (int64_t)json_object_get_boolean(
	    json_object_object_get(a, "in_description")))) != 0)
		goto done;
	for (k = 0; refs != NULL && rc == 0 && k < json_object_array_length(refs); k++)
		rc = db_run(db, DB_ONCE, SQL_IMPORT_REF, NULL, NULL, NULL, e, "ui", id,
		    json_object_get_int64(json_object_array_get_idx(refs, k)));
	if (rc == 0 && bytes != NULL)
		rc = db_run(db, DB_ONCE, SQL_IMPORT_SOURCE, NULL, NULL, NULL, e, "ub", id,
		    (const char *)bytes, len);
done:
	free(bytes);
	return rc == ERR_EXISTS ? err_set(e, ERR_INVALID, "%s: attachments[%zu]: id %llu "
	    "twice", key, j, (unsigned long long)id) : rc;
}

int
tracker_import_attachments(struct db *db, struct json_object *list, uint64_t issue,
    const char *key, int refresh, struct err *e)
{
	struct json_object	*ids;
	size_t			 j;
	int			 rc = 0;

	for (j = 0; list != NULL && rc == 0 && j < json_object_array_length(list); j++)
		rc = att_import_one(db, json_object_array_get_idx(list, j), issue, key, j,
		    refresh, e);
	if (rc != 0 || !refresh)
		return rc;
	/* those the tracker no longer has go, with their copies */
	ids = json_object_new_array();
	for (j = 0; list != NULL && j < json_object_array_length(list); j++)
		json_object_array_add(ids, json_object_get(json_object_object_get(
		    json_object_array_get_idx(list, j), "id")));
	rc = db_run(db, DB_ONCE, SQL_REFRESH_GONE, NULL, NULL, NULL, e, "us", issue,
	    json_object_to_json_string_ext(ids, JSON_C_TO_STRING_PLAIN));
	json_object_put(ids);
	return rc;
}
