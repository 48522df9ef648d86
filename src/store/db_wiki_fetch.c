/* db_wiki_fetch: the hub's copies of wiki attachments (db_wiki.h, schema/015-wiki-fetch.sql). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
#include "store/db_wiki.h"

#define WIKI_OF_PROJECT \
    " FROM wiki_attachments a JOIN wiki_pages w ON w.id = a.page_id" \
    " JOIN tracker_projects p ON p.id = w.project_id"

static const char SQL_LOCK[] =
    "SELECT a.id, w.code, a.name, a.size, a.mime, a.state, a.command_id, a.error, p.id"
    WIKI_OF_PROJECT " WHERE p.label = ? AND a.id = ? FOR UPDATE";
static const char SQL_BATCH_ADD[] =
    "INSERT INTO tracker_batches (project_id, title, author, created_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_ADD[] =
    "INSERT INTO tracker_commands (batch_id, seq, type, params, state, updated_at)"
    " VALUES (?, 1, 'wiki_fetch', ?, 'queued', UTC_TIMESTAMP(3))";
static const char SQL_FETCHING[] =
    "UPDATE wiki_attachments SET state = 'fetching', command_id = ?, error = NULL WHERE id = ?";
static const char SQL_COMMAND[] =
    "SELECT c.state, c.type, JSON_VALUE(c.params, '$.attachment'), p.label"
    " FROM tracker_commands c JOIN tracker_batches b ON b.id = c.batch_id"
    " JOIN tracker_projects p ON p.id = b.project_id WHERE c.id = ?";
static const char SQL_SOURCE[] =
    "SELECT a.source, a.size, a.name, (SELECT s.revision FROM wiki_sync_runs s"
    "  WHERE s.project_id = p.id AND s.state = 'done' ORDER BY s.id DESC LIMIT 1),"
    " p.wiki_root_by" WIKI_OF_PROJECT " WHERE a.id = ? AND a.command_id = ?";
static const char SQL_ATT_LOCK[] =
    "SELECT a.id, w.project_id FROM wiki_attachments a JOIN wiki_pages w ON w.id = a.page_id"
    " WHERE a.id = ? AND a.command_id = ? FOR UPDATE";
/* the bytes of the project's copies, and the one fetched longest ago */
static const char SQL_STORED[] =
    "SELECT COALESCE(SUM(LENGTH(c.bytes)), 0) FROM wiki_attachment_contents c"
    " JOIN wiki_attachments a ON a.id = c.attachment_id JOIN wiki_pages w ON w.id = a.page_id"
    " WHERE w.project_id = ?";
static const char SQL_OLDEST[] =
    "SELECT a.id, LENGTH(c.bytes) FROM wiki_attachment_contents c"
    " JOIN wiki_attachments a ON a.id = c.attachment_id JOIN wiki_pages w ON w.id = a.page_id"
    " WHERE w.project_id = ? ORDER BY c.fetched_at, a.id LIMIT 1 FOR UPDATE";
static const char SQL_EVICT[] =
    "DELETE FROM wiki_attachment_contents WHERE attachment_id = ?";
static const char SQL_EVICTED[] =
    "UPDATE wiki_attachments SET state = 'remote' WHERE id = ?";
static const struct db_copies wiki_copies = { "u", SQL_STORED, SQL_OLDEST, SQL_EVICT,
    SQL_EVICTED };
static const char SQL_CONTENT_ADD[] =
    "REPLACE INTO wiki_attachment_contents (attachment_id, bytes, fetched_at)"
    " VALUES (?, ?, UTC_TIMESTAMP(3))";
static const char SQL_ATT_END[] =
    "UPDATE wiki_attachments SET state = ?, error = ? WHERE id = ?";
static const char SQL_COMMAND_END[] =
    "UPDATE tracker_commands SET state = ?, error = ?, result = ?,"
    " updated_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_PARTS_DROP[] =
    "DELETE FROM wiki_upload_parts WHERE command_id = ?";
static const char SQL_CONTENT[] =
    "SELECT a.name, a.mime, a.state, LENGTH(c.bytes), c.bytes" WIKI_OF_PROJECT
    " LEFT JOIN wiki_attachment_contents c ON c.attachment_id = a.id"
    " WHERE p.label = ? AND a.id = ?";

/* The attachment a fetch is asked for, and whether a command was queued for it. */
struct queue_args {
	const char	*label, *author;
	uint64_t	 id;
	int		 queued;
};

/* Locks the attachment and, unless it is ready or on its way, queues its fetch. */
static int
queue_tx(struct db *db, void *arg, struct err *e)
{
	struct queue_args	*a = arg;
	struct db_rows		 r = { 0 };
	struct json_object	*params = NULL;
	uint64_t		 batch = 0, command = 0;
	const char		*state;
	char			 title[96];
	int			 rc;

	a->queued = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_LOCK, &r, NULL, NULL, e, "su", a->label, a->id)) != 0)
		goto done;
	if (r.n == 0 || db_to_u64(db_rows_get(&r, 0, 3)) > WIKI_FETCH_MAX) {
		rc = r.n == 0 ? ERR_NOTFOUND : ERR_TOOBIG;
		goto done;
	}
	state = db_rows_get(&r, 0, 5);
	/* ready or on its way: nothing more is queued */
	if (strcmp(state, "remote") != 0 && strcmp(state, "failed") != 0)
		goto done;
	if ((params = json_object_new_object()) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	json_object_object_add(params, "project", json_object_new_string(a->label));
	json_object_object_add(params, "attachment", json_object_new_uint64(a->id));
	snprintf(title, sizeof title, "wiki attachment %llu", (unsigned long long)a->id);
	if ((rc = db_run(db, DB_ONCE, SQL_BATCH_ADD, NULL, NULL, &batch, e, "uss",
	    db_to_u64(db_rows_get(&r, 0, 8)), title, a->author)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_COMMAND_ADD, NULL, NULL, &command, e, "us", batch,
	    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN))) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_FETCHING, NULL, NULL, NULL, e, "uu", command,
	    a->id)) != 0)
		goto done;
	a->queued = 1;
done:
	db_rows_release(&r);
	json_object_put(params);
	return rc;
}

int
wiki_fetch_queue(struct db *db, struct json_object **out, const char *label, uint64_t id,
    const char *author, struct err *e)
{
	struct queue_args	 a = { label, author, id, 0 };
	struct json_object	*att = NULL;
	int			 rc;

	*out = NULL;
	if ((rc = db_tx(db, queue_tx, &a, e)) != 0 ||
	    (rc = wiki_attachment(db, &att, label, id, e)) != 0)
		return rc;
	*out = json_object_new_object();
	json_object_object_add(*out, "attachment", att);
	json_object_object_add(*out, "queued", json_object_new_boolean(a.queued));
	return 0;
}

int
wiki_fetch_command(struct db *db, uint64_t command, struct wiki_fetch *out, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_COMMAND, &r, NULL, NULL, e, "u", command)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	db_copy_str(out->state, sizeof out->state, db_rows_get(&r, 0, 0));
	db_copy_str(out->type, sizeof out->type, db_rows_get(&r, 0, 1));
	db_copy_str(out->label, sizeof out->label, db_rows_get(&r, 0, 3));
	out->attachment = db_rows_get(&r, 0, 2) != NULL ? db_to_u64(db_rows_get(&r, 0, 2)) : 0;
	db_rows_release(&r);
	if (out->attachment == 0 || (rc = db_run(db, DB_RETRY, SQL_SOURCE, &r, NULL, NULL, e, "uu",
	    out->attachment, command)) != 0)
		goto done;
	/* r.n == 0: the attachment went with a sync, or another fetch took it over */
	if (r.n > 0) {
		out->source = strdup(db_rows_get(&r, 0, 0));
		out->size = db_to_u64(db_rows_get(&r, 0, 1));
		out->name = strdup(db_rows_get(&r, 0, 2));
		out->revision = db_rows_get(&r, 0, 3) != NULL ? strdup(db_rows_get(&r, 0, 3)) : NULL;
		out->root_by = db_rows_get(&r, 0, 4) != NULL ? db_to_u64(db_rows_get(&r, 0, 4)) : 0;
		if (out->source == NULL || out->name == NULL ||
		    (db_rows_get(&r, 0, 3) != NULL && out->revision == NULL))
			rc = err_set(e, ERR_NOMEM, "out of memory");
	}
done:
	db_rows_release(&r);
	return rc;
}

void
wiki_fetch_release(struct wiki_fetch *f)
{
	free(f->source);
	free(f->name);
	free(f->revision);
	memset(f, 0, sizeof *f);
}

/* A wiki_fetch command's end as wiki_fetch_end was given it. */
struct end_args {
	uint64_t		 command, attachment, cap;
	struct tracker_handout	*h;
	const char		*bytes, *why;
	size_t			 len;
};

static int
end_tx(struct db *db, void *arg, struct err *e)
{
	static const char *const types[] = { "wiki_fetch", NULL };
	struct end_args		*a = arg;
	struct db_rows		 r = { 0 };
	const char		*why = a->why;
	char			 over[160];
	int			 rc;

	if ((rc = tracker_handout_lock(db, a->command, types, a->h, NULL, e)) != 0)
		return rc;
	/* The attachment may have gone with a sync meanwhile: the command still ends. */
	if ((rc = db_run(db, DB_ONCE, SQL_ATT_LOCK, &r, NULL, NULL, e, "uu", a->attachment,
	    a->command)) != 0)
		return rc;
	if (r.n == 0 && why == NULL)
		why = "вложения больше нет в копии вики (она пересинхронизирована): возьмите id "
		    "из page";
	if (r.n > 0 && why == NULL &&
	    (rc = db_copies_room(db, &wiki_copies, db_to_u64(db_rows_get(&r, 0, 1)), a->len,
	    a->cap, e)) != 0) {
		if (rc != ERR_TOOBIG)
			goto done;
		snprintf(over, sizeof over, "файл больше, чем хаб хранит копий вложений проекта "
		    "(wiki_copies_mb = %llu)", (unsigned long long)(a->cap >> 20));
		why = over;
	}
	if (r.n > 0 && why == NULL &&
	    (rc = db_run(db, DB_ONCE, SQL_CONTENT_ADD, NULL, NULL, NULL, e, "ub", a->attachment,
	    a->bytes, a->len)) != 0)
		goto done;
	if (r.n > 0 && (rc = db_run(db, DB_ONCE, SQL_ATT_END, NULL, NULL, NULL, e, "ssu",
	    why == NULL ? "ready" : "failed", why, a->attachment)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "sssu",
	    why == NULL ? "done" : "failed", why, why == NULL ? "{\"stored\":true}" : NULL,
	    a->command)) == 0)
		rc = db_run(db, DB_ONCE, SQL_PARTS_DROP, NULL, NULL, NULL, e, "u", a->command);
done:
	db_rows_release(&r);
	return rc;
}

int
wiki_fetch_end(struct db *db, uint64_t command, struct tracker_handout *h,
    uint64_t attachment, const char *bytes, size_t len, const char *why, uint64_t cap,
    struct err *e)
{
	struct end_args	 a = { command, attachment, cap, h, bytes, why, len };

	return db_tx(db, end_tx, &a, e);
}

int
wiki_attachment_content(struct db *db, struct wiki_content *out, const char *label,
    uint64_t id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_CONTENT, &r, NULL, NULL, e, "su", label, id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	db_copy_str(out->state, sizeof out->state, db_rows_get(&r, 0, 2));
	db_copy_str(out->mime, sizeof out->mime, db_rows_get(&r, 0, 1));
	if ((out->name = strdup(db_rows_get(&r, 0, 0))) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (strcmp(out->state, "ready") != 0 || db_rows_get(&r, 0, 4) == NULL)
		goto done;
	out->len = (size_t)db_to_u64(db_rows_get(&r, 0, 3));
	if ((out->bytes = malloc(out->len + 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	memcpy(out->bytes, db_rows_get(&r, 0, 4), out->len);
	out->bytes[out->len] = '\0';
done:
	db_rows_release(&r);
	if (rc != 0)
		wiki_content_release(out);
	return rc;
}

void
wiki_content_release(struct wiki_content *c)
{
	free(c->name);
	free(c->bytes);
	c->name = c->bytes = NULL;
	c->len = 0;
}
