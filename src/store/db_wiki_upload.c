/*
 * db_wiki_upload: the parts of a wiki copy an agent uploads (db_wiki.h,
 * schema/014-wiki-upload.sql).  Each part is its own short transaction,
 * which checks on the locked command row that the part is of the current
 * hand-out and writes that row (tracker_handout_lock): two parts of one
 * command, on one server or on two Galera nodes, are taken one after the
 * other, each seeing the parts and the hand-out before it.  The parts are
 * dropped by the transaction that ends the sync.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
#include "store/db_wiki.h"

static const char SQL_PARTS_DROP[] =
    "DELETE FROM wiki_upload_parts WHERE command_id = ?";
static const char SQL_PARTS_SIZE[] =
    "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM wiki_upload_parts"
    " WHERE command_id = ?";
static const char SQL_PART_ADD[] =
    "INSERT INTO wiki_upload_parts (command_id, part, bytes, data) VALUES (?, ?, ?, ?)";
static const char SQL_PARTS[] =
    "SELECT data FROM wiki_upload_parts WHERE command_id = ? ORDER BY part";

/* A part as wiki_upload_part was given it, and the bytes uploaded with it. */
struct part_args {
	uint64_t		 command;
	struct tracker_handout	*h;
	unsigned		 part;
	const char		*text;
	size_t			 len, max, *total;
};

static int
part_tx(struct db *db, void *arg, struct err *e)
{
	static const char *const types[] = { "wiki_sync", "wiki_fetch", "fetch_attachment",
	    NULL };
	struct part_args	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	*a->total = 0;
	if ((rc = tracker_handout_lock(db, a->command, types, a->h, NULL, e)) != 0)
		return rc;
	if (a->part == 0 && (rc = db_run(db, DB_ONCE, SQL_PARTS_DROP, NULL, NULL, NULL, e, "u",
	    a->command)) != 0)
		return rc;
	if ((rc = db_run(db, DB_ONCE, SQL_PARTS_SIZE, &r, NULL, NULL, e, "u", a->command)) != 0)
		return rc;
	*a->total = (size_t)db_to_u64(db_rows_get(&r, 0, 1));
	if (db_to_u64(db_rows_get(&r, 0, 0)) != a->part)
		rc = err_set(e, ERR_CONFLICT, "part %u: the hub has %s", a->part,
		    db_rows_get(&r, 0, 0));
	else if (*a->total + a->len > a->max)
		rc = ERR_TOOBIG;
	else {
		*a->total += a->len;
		rc = db_run(db, DB_ONCE, SQL_PART_ADD, NULL, NULL, NULL, e, "uuus", a->command,
		    (uint64_t)a->part, (uint64_t)a->len, a->text);
	}
	db_rows_release(&r);
	return rc;
}

int
wiki_upload_part(struct db *db, uint64_t command, struct tracker_handout *h, unsigned part,
    const char *text, size_t len, size_t max, size_t *total, struct err *e)
{
	struct part_args	 a = { command, h, part, text, len, max, total };

	*total = 0;
	return db_tx(db, part_tx, &a, e);
}

int
wiki_upload_read(struct db *db, uint64_t command, char **out, size_t *len, struct err *e)
{
	struct db_rows	 r = { 0 };
	size_t		 i, n = 0, k;
	char		*p;
	int		 rc;

	*out = NULL;
	*len = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_PARTS, &r, NULL, NULL, e, "u", command)) != 0)
		return rc;
	for (i = 0; i < r.n; i++)
		n += strlen(db_rows_get(&r, i, 0));
	if ((p = malloc(n + 1)) == NULL) {
		db_rows_release(&r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (i = 0, n = 0; i < r.n; i++) {
		k = strlen(db_rows_get(&r, i, 0));
		memcpy(p + n, db_rows_get(&r, i, 0), k);
		n += k;
	}
	p[n] = '\0';
	db_rows_release(&r);
	*out = p;
	*len = n;
	return 0;
}

int
wiki_upload_drop(struct db *db, uint64_t command, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_PARTS_DROP, NULL, NULL, NULL, e, "u", command);
}
