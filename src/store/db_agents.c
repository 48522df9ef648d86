/* db_agents: the hub's agents, publications and starts (db_agents.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agents.h"

static const char SQL_SEEN[] =
    "INSERT INTO tracker_agents (module, version, launcher, update_state, update_target,"
    " update_error, update_hint, settings_version, last_seen)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3)) ON DUPLICATE KEY UPDATE"
    " version = VALUES(version), launcher = VALUES(launcher),"
    " update_state = VALUES(update_state), update_target = VALUES(update_target),"
    " update_error = VALUES(update_error), update_hint = VALUES(update_hint),"
    " settings_version = VALUES(settings_version), last_seen = VALUES(last_seen)";
static const char SQL_429[] =
    "INSERT INTO tracker_agent_429 (module, count, at) VALUES (?, ?, UTC_TIMESTAMP(3))";
static const char SQL_STATUS[] =
    "SELECT version, launcher, update_state, update_target, update_error, update_hint,"
    " settings_version, " DB_DATE("last_seen") ","
    " last_seen > UTC_TIMESTAMP(3) - INTERVAL ? SECOND,"
    " last_seen >= COALESCE((SELECT MAX(started_at) FROM tracker_hub_starts), last_seen),"
    " (SELECT COALESCE(SUM(count), 0) FROM tracker_agent_429 q WHERE q.module = a.module"
    "  AND q.at > UTC_TIMESTAMP(3) - INTERVAL 1 DAY)"
    " FROM tracker_agents a WHERE module = ?";
static const char SQL_CLAIMED[] =
    "SELECT id, type, batch_id, handouts FROM tracker_commands WHERE state = 'claimed'"
    " ORDER BY claimed_at DESC, id DESC LIMIT 50";
static const char SQL_PUBLICATION[] =
    "SELECT version, " DB_DATE("published_at") " FROM tracker_publications WHERE module = ?"
    " ORDER BY id DESC LIMIT 1";
static const char SQL_SETTINGS_VERSION[] =
    "SELECT COALESCE(MAX(version), 0) FROM tracker_settings";
static const char SQL_PUBLISH[] =
    "INSERT INTO tracker_publications (module, version, published_at)"
    " VALUES (?, ?, UTC_TIMESTAMP(3))";
static const char SQL_HUB_START[] =
    "INSERT INTO tracker_hub_starts (started_at) VALUES (UTC_TIMESTAMP(3))";

/* A string member, or NULL. */
static const char *
agents_str(struct json_object *o, const char *name)
{
	struct json_object	*v;

	return o != NULL && json_object_object_get_ex(o, name, &v) &&
	    json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

struct seen_args {
	const char		*module;
	struct json_object	*said;
};

static int
seen_tx(struct db *db, void *arg, struct err *e)
{
	struct seen_args	*a = arg;
	struct json_object	*v;
	const char		*sv = NULL;
	int64_t			 n429 = 0;
	int			 rc;

	if (a->said != NULL && json_object_object_get_ex(a->said, "settings_version", &v) &&
	    json_object_is_type(v, json_type_int))
		sv = json_object_get_string(v);
	if (a->said != NULL && json_object_object_get_ex(a->said, "rate_limited", &v) &&
	    json_object_is_type(v, json_type_int))
		n429 = json_object_get_int64(v);
	if ((rc = db_run(db, DB_ONCE, SQL_SEEN, NULL, NULL, NULL, e, "ssssssss", a->module,
	    agents_str(a->said, "version"), agents_str(a->said, "launcher"),
	    agents_str(a->said, "update_state"), agents_str(a->said, "update_target"),
	    agents_str(a->said, "update_error"), agents_str(a->said, "update_hint"), sv)) != 0)
		return rc;
	if (n429 > 0)
		rc = db_run(db, DB_ONCE, SQL_429, NULL, NULL, NULL, e, "si", a->module, n429);
	return rc;
}

/* One row per module, written at every claim of every agent: a hot row, run again on a collision. */
int
tracker_agent_seen(struct db *db, const char *module, struct json_object *said, struct err *e)
{
	struct seen_args	 a = { module, said };

	return db_tx(db, seen_tx, &a, e);
}

static void
agents_add(struct json_object *o, const char *name, const char *v)
{
	json_object_object_add(o, name, v != NULL ? json_object_new_string(v) : NULL);
}

int
tracker_agent_status(struct db *db, struct json_object **out, const char *module,
    struct err *e)
{
	static const char *const said[] = { "version", "launcher", "update_state",
	    "update_target", "update_error", "update_hint", "settings_version", "last_seen" };
	struct db_rows		 r = { 0 };
	struct json_object	*o, *again, *c;
	size_t			 i;
	int			 rc;

	*out = o = json_object_new_object();
	agents_add(o, "module", module);
	if ((rc = db_run(db, DB_RETRY, SQL_STATUS, &r, NULL, NULL, e, "is",
	    (int64_t)TRACKER_AGENT_ONLINE, module)) != 0)
		goto fail;
	json_object_object_add(o, "seen", json_object_new_boolean(r.n > 0));
	for (i = 0; i < 8; i++)
		agents_add(o, said[i], r.n > 0 ? db_rows_get(&r, 0, i) : NULL);
	json_object_object_add(o, "online", json_object_new_boolean(r.n > 0 &&
	    strcmp(db_rows_get(&r, 0, 8), "1") == 0));
	json_object_object_add(o, "reported", json_object_new_boolean(r.n > 0 &&
	    strcmp(db_rows_get(&r, 0, 9), "1") == 0));
	json_object_object_add(o, "count_429", json_object_new_uint64(r.n > 0 ?
	    db_to_u64(db_rows_get(&r, 0, 10)) : 0));
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_CLAIMED, &r, NULL, NULL, e, "")) != 0)
		goto fail;
	again = json_object_new_array();
	for (i = 0; i < r.n; i++) {
		c = json_object_new_object();
		json_object_object_add(c, "id", json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 0))));
		json_object_object_add(c, "type", json_object_new_string(db_rows_get(&r, i, 1)));
		json_object_object_add(c, "batch",
		    json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 2))));
		json_object_object_add(c, "handouts",
		    json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 3))));
		if (i == 0)
			json_object_object_add(o, "current", json_object_get(c));
		if (db_to_u64(db_rows_get(&r, i, 3)) >= 2)
			json_object_array_add(again, c);
		else
			json_object_put(c);
	}
	if (r.n == 0)
		json_object_object_add(o, "current", NULL);
	json_object_object_add(o, "handed_again", again);
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_PUBLICATION, &r, NULL, NULL, e, "s", module)) != 0)
		goto fail;
	if (r.n > 0) {
		c = json_object_new_object();
		agents_add(c, "version", db_rows_get(&r, 0, 0));
		agents_add(c, "published_at", db_rows_get(&r, 0, 1));
		json_object_object_add(o, "publication", c);
	} else
		json_object_object_add(o, "publication", NULL);
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_SETTINGS_VERSION, &r, NULL, NULL, e, "")) != 0)
		goto fail;
	json_object_object_add(o, "hub_settings_version",
	    json_object_new_uint64(db_to_u64(db_rows_get(&r, 0, 0))));
	db_rows_release(&r);
	return 0;
fail:
	db_rows_release(&r);
	json_object_put(o);
	*out = NULL;
	return rc;
}

int
tracker_publish(struct db *db, const char *module, const char *version, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_PUBLISH, NULL, NULL, NULL, e, "ss", module, version);
}

int
tracker_hub_start(struct db *db, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_HUB_START, NULL, NULL, NULL, e, "");
}
