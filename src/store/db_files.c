/*
 * db_files: files uploaded to the hub for ensure_attachment (db_tracker.h,
 * schema/017-tracker-attachments.sql), and the local backend's
 * ensure_attachment, which makes one an attachment of an issue.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db.h"
#include "store/db_tracker.h"

/* What one account may hold in files no batch has taken yet: bytes, and files (an empty one too). */
#define FILES_ACCOUNT_MAX	(256ull * 1024 * 1024)
#define FILES_ACCOUNT_COUNT	1000

static const char SQL_EXPIRE[] =
    "DELETE FROM tracker_files WHERE created_at < UTC_TIMESTAMP(3) - INTERVAL 1 DAY"
    " ORDER BY created_at LIMIT 100";
/* written, not only locked: on Galera two nodes then collide (021-account-command-locks.sql) */
static const char SQL_ACCOUNT_LOCK[] =
    "UPDATE users SET lock_count = lock_count + 1 WHERE id = ?";
static const char SQL_HELD[] =
    "SELECT COALESCE(SUM(size), 0), COUNT(*) FROM tracker_files WHERE user_id = ?";
static const char SQL_ADD[] =
    "INSERT INTO tracker_files (user_id, filename, size, created_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_GET[] =
    "SELECT id, filename, size, received FROM tracker_files WHERE id = ? AND user_id = ?";
static const char SQL_LOCK[] =
    "SELECT size, received FROM tracker_files WHERE id = ? AND user_id = ? FOR UPDATE";
static const char SQL_PART[] =
    "INSERT INTO tracker_file_parts (file_id, at_byte, bytes) VALUES (?, ?, ?)";
static const char SQL_RECEIVED[] =
    "UPDATE tracker_files SET received = received + ? WHERE id = ?";
/* ensure_attachment: the file, its parts in order, the issue */
static const char SQL_TAKE[] =
    "SELECT filename, size, received FROM tracker_files WHERE id = ? FOR UPDATE";
static const char SQL_PARTS[] =
    "SELECT bytes, LENGTH(bytes) FROM tracker_file_parts WHERE file_id = ? ORDER BY at_byte";
static const char SQL_ISSUE_ID[] =
    "SELECT id FROM tracker_issues WHERE issue_key = ?";
static const char SQL_NEXT_ATT[] =
    "SELECT COALESCE(MAX(id), 0) + 1 FROM tracker_attachments FOR UPDATE";
static const char SQL_ATT_ADD[] =
    "INSERT INTO tracker_attachments (id, issue_id, filename, size, author, created_at)"
    " VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_SOURCE_ADD[] =
    "INSERT INTO tracker_attachment_sources (attachment_id, bytes) VALUES (?, ?)";
static const char SQL_DROP[] =
    "DELETE FROM tracker_files WHERE id = ?";

/* A file as tracker_file_create was given it, and its id once added. */
struct create_args {
	uint64_t	 user, size, id;
	const char	*name;
};

/*
 * Adds the file when the account's files leave room for it: under the
 * account's users row, written, so that two creates of one account (two
 * workers, two Galera nodes) count one after the other.
 */
static int
create_tx(struct db *db, void *arg, struct err *e)
{
	struct create_args	*a = arg;
	struct db_rows		 r = { 0 };
	uint64_t		 n = 0;
	int			 rc;

	a->id = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_ACCOUNT_LOCK, NULL, &n, NULL, e, "u", a->user)) != 0)
		return rc;
	if (n == 0)
		return err_set(e, ERR_DB, "account %llu has no users row",
		    (unsigned long long)a->user);
	if ((rc = db_run(db, DB_ONCE, SQL_HELD, &r, NULL, NULL, e, "u", a->user)) != 0)
		return rc;
	if (r.n > 0 && (db_to_u64(db_rows_get(&r, 0, 0)) + a->size > FILES_ACCOUNT_MAX ||
	    db_to_u64(db_rows_get(&r, 0, 1)) >= FILES_ACCOUNT_COUNT)) {
		db_rows_release(&r);
		return err_set(e, ERR_TOOBIG, "account");
	}
	db_rows_release(&r);
	return db_run(db, DB_ONCE, SQL_ADD, NULL, NULL, &a->id, e, "usu", a->user, a->name,
	    a->size);
}

/*
 * The expiry is a statement of its own, before the transaction: it deletes
 * other accounts' files too, and in the transaction those rows would be
 * locked while the account's lock is held, and on Galera certified with
 * it, making creates of different accounts collide.
 */
int
tracker_file_create(struct db *db, struct json_object **out, uint64_t user, const char *name,
    uint64_t size, struct err *e)
{
	struct create_args	 a = { user, size, 0, name };
	int			 rc;

	*out = NULL;
	if (size > TRACKER_FETCH_MAX)
		return err_set(e, ERR_TOOBIG, "file");
	if ((rc = db_run(db, DB_ONCE, SQL_EXPIRE, NULL, NULL, NULL, e, "")) != 0 ||
	    (rc = db_tx(db, create_tx, &a, e)) != 0)
		return rc;
	return tracker_file(db, out, user, a.id, e);
}

int
tracker_file(struct db *db, struct json_object **out, uint64_t user, uint64_t id,
    struct err *e)
{
	static const char *const names[] = { "id", "name", "size", "received", NULL };
	struct db_rows	r = { 0 };
	int		rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_GET, &r, NULL, NULL, e, "uu", id, user)) != 0)
		return rc;
	if (r.n == 0)
		rc = ERR_NOTFOUND;
	else if ((*out = tracker_row(&r, 0, names, "usuu")) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	else
		json_object_object_add(*out, "complete", json_object_new_boolean(
		    strcmp(db_rows_get(&r, 0, 2), db_rows_get(&r, 0, 3)) == 0));
	db_rows_release(&r);
	return rc;
}

/* A part of a file as tracker_file_part was given it. */
struct part_args {
	uint64_t	 user, id, at;
	const char	*bytes;
	size_t		 len;
};

/* Adds the part when it starts where the file's bytes end and fits in what is left. */
static int
part_tx(struct db *db, void *arg, struct err *e)
{
	struct part_args	*a = arg;
	struct db_rows		 r = { 0 };
	uint64_t		 size, received;
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_LOCK, &r, NULL, NULL, e, "uu", a->id, a->user)) != 0)
		return rc;
	if (r.n == 0) {
		db_rows_release(&r);
		return ERR_NOTFOUND;
	}
	size = db_to_u64(db_rows_get(&r, 0, 0));
	received = db_to_u64(db_rows_get(&r, 0, 1));
	db_rows_release(&r);
	if (a->at != received)
		return err_set(e, ERR_CONFLICT, "%llu", (unsigned long long)received);
	if (a->len == 0 || a->len > size - received)
		return err_set(e, ERR_TOOBIG, "%llu", (unsigned long long)(size - received));
	if ((rc = db_run(db, DB_ONCE, SQL_PART, NULL, NULL, NULL, e, "uub", a->id, a->at,
	    a->bytes, a->len)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_RECEIVED, NULL, NULL, NULL, e, "uu", (uint64_t)a->len,
	    a->id);
}

int
tracker_file_part(struct db *db, struct json_object **out, uint64_t user, uint64_t id,
    uint64_t at, const char *bytes, size_t len, struct err *e)
{
	struct part_args	 a = { user, id, at, bytes, len };
	int			 rc;

	*out = NULL;
	if ((rc = db_tx(db, part_tx, &a, e)) != 0)
		return rc;
	return tracker_file(db, out, user, id, e);
}

/* The parts of file id, in order, as one malloc'd buffer of *len bytes; NULL when out of memory. */
static char *
files_join(struct db *db, uint64_t id, uint64_t size, size_t *len, int *rc, struct err *e)
{
	struct db_rows	 r = { 0 };
	char		*data;
	size_t		 i, n;

	*len = 0;
	if ((*rc = db_run(db, DB_ONCE, SQL_PARTS, &r, NULL, NULL, e, "u", id)) != 0)
		return NULL;
	if ((data = malloc((size_t)size + 1)) == NULL) {
		*rc = err_set(e, ERR_NOMEM, "out of memory");
		db_rows_release(&r);
		return NULL;
	}
	for (i = 0; i < r.n; i++) {
		n = (size_t)db_to_u64(db_rows_get(&r, i, 1));
		if (*len + n > size)
			break;
		memcpy(data + *len, db_rows_get(&r, i, 0), n);
		*len += n;
	}
	db_rows_release(&r);
	return data;
}

int
tracker_local_attach(struct db *db, const char *author, struct json_object *p,
    struct json_object **result, char **why, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*v;
	const char		*key = NULL, *name = NULL;
	char			*data = NULL, filename[256];
	uint64_t		 file = 0, size, issue, att;
	size_t			 len;
	int			 rc;

	if (json_object_object_get_ex(p, "key", &v))
		key = json_object_get_string(v);
	if (json_object_object_get_ex(p, "file", &v))
		file = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(p, "filename", &v))
		name = json_object_get_string(v);
	if ((rc = db_run(db, DB_ONCE, SQL_TAKE, &r, NULL, NULL, e, "u", file)) != 0)
		return rc;
	if (r.n == 0 || strcmp(db_rows_get(&r, 0, 1), db_rows_get(&r, 0, 2)) != 0) {
		if (asprintf(why, "файла %llu нет в хабе или он загружен не до конца",
		    (unsigned long long)file) < 0)
			*why = NULL;
		goto done;
	}
	snprintf(filename, sizeof filename, "%s", name != NULL ? name : db_rows_get(&r, 0, 0));
	size = db_to_u64(db_rows_get(&r, 0, 1));
	db_rows_release(&r);
	if ((rc = db_run(db, DB_ONCE, SQL_ISSUE_ID, &r, NULL, NULL, e, "s", key)) != 0)
		goto done;
	if (r.n == 0) {
		if (asprintf(why, "задачи %s нет в трекере", key) < 0)
			*why = NULL;
		goto done;
	}
	issue = db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	if ((rc = db_run(db, DB_ONCE, SQL_NEXT_ATT, &r, NULL, NULL, e, "")) != 0)
		goto done;
	att = db_to_u64(db_rows_get(&r, 0, 0));
	if ((data = files_join(db, file, size, &len, &rc, e)) == NULL ||
	    (rc = db_run(db, DB_ONCE, SQL_ATT_ADD, NULL, NULL, NULL, e, "uusus", att, issue,
	    filename, (uint64_t)len, author)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_SOURCE_ADD, NULL, NULL, NULL, e, "ub", att, data,
	    len)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_DROP, NULL, NULL, NULL, e, "u", file)) != 0)
		goto done;
	*result = json_object_new_object();
	json_object_object_add(*result, "attachment", json_object_new_uint64(att));
	json_object_object_add(*result, "key", json_object_new_string(key));
done:
	free(data);
	db_rows_release(&r);
	return rc;
}

int
tracker_file_usable(struct db *db, uint64_t user, uint64_t id, char *name, size_t len,
    int *usable, struct err *e)
{
	struct db_rows	r = { 0 };
	int		rc;

	*usable = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_GET, &r, NULL, NULL, e, "uu", id, user)) != 0)
		return rc;
	if (r.n > 0 && strcmp(db_rows_get(&r, 0, 2), db_rows_get(&r, 0, 3)) == 0) {
		*usable = 1;
		snprintf(name, len, "%s", db_rows_get(&r, 0, 1));
	}
	db_rows_release(&r);
	return 0;
}

static const char SQL_COMMAND_FILE[] =
    "SELECT f.id, f.filename, f.size, f.received FROM tracker_commands c"
    " JOIN tracker_files f ON f.id = JSON_VALUE(c.params, '$.file')"
    " WHERE c.id = ? AND c.state = 'claimed' AND c.type = 'ensure_attachment'";

int
tracker_command_file(struct db *db, uint64_t command, char *name, size_t name_len,
    char **data, size_t *len, struct err *e)
{
	struct db_rows	r = { 0 };
	int		rc;

	*data = NULL;
	*len = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_COMMAND_FILE, &r, NULL, NULL, e, "u", command)) != 0)
		return rc;
	if (r.n == 0 || strcmp(db_rows_get(&r, 0, 2), db_rows_get(&r, 0, 3)) != 0)
		rc = ERR_NOTFOUND;
	else {
		db_copy_str(name, name_len, db_rows_get(&r, 0, 1));
		*data = files_join(db, db_to_u64(db_rows_get(&r, 0, 0)),
		    db_to_u64(db_rows_get(&r, 0, 2)), len, &rc, e);
	}
	db_rows_release(&r);
	return rc;
}
