/* api_batches: the hub API's batches and command registry (api-int.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "hub/commands.h"
#include "store/db_batches.h"
#include "store/db_tracker.h"

#define HUB_TITLE_MAX	500	/* bytes of a batch's title */

void
hub_commands(struct core_response *resp)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "commands", hub_commands_json());
	core_response_json(resp, 200, o);
}

struct hub_own {
	struct db	*db;
	const char	*label;
	int		 failed;
	struct err	 e;
};

static int
hub_own(void *arg, const char *key)
{
	struct hub_own	*o = arg;
	int		 own;

	if (tracker_is_own(o->db, o->label, key, &own, &o->e) != 0) {
		o->failed = 1;
		return -1;
	}
	return own;
}

/*
 * The files of a batch's ensure_attachment commands: each an upload of
 * this account that is complete (a file is only its uploader's to attach),
 * its filename the upload's when the command names none.  0 when refused.
 */
static int
hub_batch_files(struct db *db, const struct principal *who, struct json_object *checked,
    struct core_response *resp)
{
	struct json_object	*c, *v;
	char			 name[256], msg[300];
	uint64_t		 file;
	size_t			 i;
	struct err		 e;
	int			 usable, rc;

	for (i = 0; i < json_object_array_length(checked); i++) {
		c = json_object_array_get_idx(checked, i);
		if (strcmp(json_object_get_string(json_object_object_get(c, "type")),
		    "ensure_attachment") != 0 || !json_object_object_get_ex(c, "file", &v))
			continue;
		file = (uint64_t)json_object_get_int64(v);
		err_clear(&e);
		if ((rc = tracker_file_usable(db, who->user_id, file, name, sizeof name, &usable,
		    &e)) != 0) {
			hub_failed(resp, rc, &e);
			return 0;
		}
		if (!usable) {
			snprintf(msg, sizeof msg, "команда #%zu (ensure_attachment): файла %llu нет "
			    "среди загруженных вами или он загружен не до конца (POST /hub/files)",
			    i + 1, (unsigned long long)file);
			hub_refuse_msg(resp, 422, msg);
			return 0;
		}
		if (!json_object_object_get_ex(c, "filename", NULL))
			json_object_object_add(c, "filename", json_object_new_string(name));
	}
	return 1;
}

/*
 * Checks commands for the project (NULL: none) and stores them as a batch:
 * 201 {id, project, commands, estimate_seconds}, or the refusal.
 */
static void
hub_batch_queue(struct db *db, const struct principal *who, const char *project,
    const char *title, const char *author, struct json_object *commands,
    struct core_response *resp)
{
	struct hub_batch_ctx	 ctx = { 0 };
	struct hub_own		 own = { 0 };
	struct json_object	*labels = NULL, *checked, *o;
	uint64_t		 project_id = 0, id;
	double			 estimate;
	struct err		 e;
	char			 msg[600];
	int			 rc;

	err_clear(&e);
	if (project != NULL &&
	    (rc = tracker_project_get(db, project, &project_id, &ctx.board_id, &e)) != 0) {
		if (rc == ERR_NOTFOUND)
			hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, project);
		else
			hub_failed(resp, rc, &e);
		return;
	}
	if ((rc = tracker_labels(db, &labels, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	ctx.project = project;
	ctx.labels = labels;
	own.db = db;
	own.label = project;
	err_clear(&own.e);
	ctx.own = hub_own;
	ctx.own_arg = &own;
	checked = hub_batch_check(&ctx, commands, &estimate, msg, sizeof msg);
	json_object_put(labels);
	if (checked == NULL) {
		if (own.failed)
			hub_failed(resp, ERR_DB, &own.e);
		else
			hub_refuse_msg(resp, 422, msg);
		return;
	}
	if (!hub_batch_files(db, who, checked, resp)) {
		json_object_put(checked);
		return;
	}
	if ((rc = tracker_batch_add(db, &id, project_id, title, author, checked, &e)) != 0) {
		json_object_put(checked);
		hub_failed(resp, rc, &e);
		return;
	}
	log_info("hub: batch %llu of %zu commands queued by %s (%s)", (unsigned long long)id,
	    json_object_array_length(checked), who->login, author);
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_uint64(id));
	json_object_object_add(o, "project", project != NULL ? json_object_new_string(project) : NULL);
	json_object_object_add(o, "commands",
	    json_object_new_uint64(json_object_array_length(checked)));
	json_object_object_add(o, "estimate_seconds", json_object_new_int64((int64_t)estimate));
	json_object_put(checked);
	core_response_json(resp, 201, o);
}

/* The author of a request body: its "author", or api. */
static const char *
hub_author(struct json_object *body)
{
	const char	*author;
	int		 present;

	author = body != NULL ? hub_member(body, "author", &present) : NULL;
	return author == NULL || author[0] == '\0' || strlen(author) > 64 ? "api" : author;
}

/* POST /hub/batches {project?, title, author?, commands} */
static void
hub_batch_create(struct db *db, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	const char	*title, *project;
	int		 present;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	title = hub_member(body, "title", &present);
	if (title == NULL || title[0] == '\0' || strlen(title) > HUB_TITLE_MAX) {
		hub_refuse_msg(resp, 422, "title — непустой текст до 500 байт");
		return;
	}
	project = hub_member(body, "project", &present);
	if (present && project == NULL) {
		hub_refuse_msg(resp, 422, "project — метка проекта");
		return;
	}
	hub_batch_queue(db, who, project, title, hub_author(body),
	    json_object_object_get(body, "commands"), resp);
}

/* GET /hub/batches/{id} */
static void
hub_batch_get(struct db *db, const char *sid, struct core_response *resp)
{
	struct json_object	*b, *cmds, *c, *o;
	const char		*state;
	struct err		 e;
	char			*end;
	unsigned long long	 id = strtoull(sid, &end, 10);
	double			 left = 0;
	size_t			 i;
	int			 rc;

	err_clear(&e);
	if (*end != '\0' || id == 0 || sid[0] == '0' || strlen(sid) > 19 ||
	    (rc = tracker_batch_get(db, &b, (uint64_t)id, &e)) == ERR_NOTFOUND) {
		hub_refuse(resp, 404, HT_NO_BATCH, sid);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	cmds = json_object_object_get(b, "commands");
	for (i = 0; i < json_object_array_length(cmds); i++) {
		c = json_object_array_get_idx(cmds, i);
		state = json_object_get_string(json_object_object_get(c, "state"));
		if (strcmp(state, "queued") == 0 || strcmp(state, "claimed") == 0)
			left += hub_command_seconds(json_object_get_string(
			    json_object_object_get(c, "type")));
	}
	json_object_object_add(b, "estimate_seconds", json_object_new_int64((int64_t)left));
	o = json_object_new_object();
	json_object_object_add(o, "batch", b);
	core_response_json(resp, 200, o);
}

/* GET /hub/batches?project=P&limit=N */
static void
hub_batch_list(struct db *db, const char *query, struct core_response *resp)
{
	char			 project[HUB_QUERY_MAX], limit[32], *end;
	struct json_object	*o;
	struct err		 e;
	const char		*label;
	long			 n = 20;
	int			 rc, bad = 0;

	label = hub_query(query, "project", project, sizeof project, &bad);
	if (hub_query(query, "limit", limit, sizeof limit, &bad) != NULL) {
		n = strtol(limit, &end, 10);
		if (*end != '\0' || n < 1 || n > HUB_LIMIT_MAX) {
			hub_refuse(resp, 422, HT_HUB_BAD_LIMIT, limit);
			return;
		}
	}
	if (bad) {
		hub_refuse(resp, 400, HT_HUB_BAD_BODY, "query");
		return;
	}
	err_clear(&e);
	if ((rc = tracker_batches(db, &o, label, (int)n, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	core_response_json(resp, 200, o);
}

static uint64_t	hub_id(const char *s);
static void	hub_batch_cancel(struct db *db, const struct principal *who, uint64_t id,
		    struct core_response *resp);

void
hub_batches_route(struct db *db, const struct principal *who, const char *method,
    const char *path, const char *query, struct json_object *body,
    struct core_response *resp)
{
	const char	*rest;
	int		 get = strcmp(method, "GET") == 0;

	if (strcmp(path, "batches") == 0) {
		if (get)
			hub_batch_list(db, query, resp);
		else if (body != NULL)
			hub_batch_create(db, who, body, resp);
		else
			hub_refuse(resp, 400, HT_HUB_BAD_BODY, "пусто");
		return;
	}
	if (get && strchr(path + 8, '/') == NULL) {
		hub_batch_get(db, path + 8, resp);
		return;
	}
	rest = path + 8 + strspn(path + 8, "0123456789");
	if (!get && strcmp(rest, "/cancel") == 0 && rest > path + 8) {
		hub_batch_cancel(db, who, hub_id(path + 8), resp);
		return;
	}
	hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
}

/* The id at the start of s (digits up to '/' or the end); 0 when there is none. */
static uint64_t
hub_id(const char *s)
{
	char			*end;
	unsigned long long	 v;

	if (*s < '1' || *s > '9' || strspn(s, "0123456789") > 19)
		return 0;
	v = strtoull(s, &end, 10);
	return *end == '\0' || *end == '/' ? (uint64_t)v : 0;
}

/* POST /hub/batches/{id}/cancel: the queued commands; the batch after. */
static void
hub_batch_cancel(struct db *db, const struct principal *who, uint64_t id,
    struct core_response *resp)
{
	struct json_object	*b, *o;
	uint64_t		 n;
	struct err		 e;
	char			 sid[24];
	int			 rc;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	err_clear(&e);
	snprintf(sid, sizeof sid, "%llu", (unsigned long long)id);
	if (id == 0 || (rc = tracker_batch_cancel(db, id, &n, &e)) == ERR_NOTFOUND) {
		hub_refuse(resp, 404, HT_NO_BATCH, sid);
		return;
	}
	if (rc != 0 || (rc = tracker_batch_get(db, &b, id, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	log_info("hub: batch %llu cancelled by %s: %llu commands", (unsigned long long)id,
	    who->login, (unsigned long long)n);
	o = json_object_new_object();
	json_object_object_add(o, "batch", b);
	json_object_object_add(o, "cancelled", json_object_new_uint64(n));
	core_response_json(resp, 200, o);
}

/* POST /hub/commands/{id}/cancel {force?} */
static void
hub_command_cancel(struct db *db, uint64_t id, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*v, *o;
	char			 state[32], msg[300];
	struct err		 e;
	int			 force = 0, rc;

	if (body != NULL && json_object_object_get_ex(body, "force", &v))
		force = json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
	err_clear(&e);
	rc = tracker_command_cancel(db, id, force, state, sizeof state, &e);
	if (rc == ERR_NOTFOUND) {
		hub_say(msg, sizeof msg, "команды %llu нет", (unsigned long long)id);
		hub_refuse_msg(resp, 404, msg);
		return;
	}
	if (rc == ERR_INVALID) {
		if (strcmp(state, "claimed") == 0)
			hub_textf(msg, sizeof msg, HT_AT_AGENT, (unsigned long long)id,
			    (unsigned long long)id);
		else
			hub_say(msg, sizeof msg, "команда %llu уже завершена: %s",
			    (unsigned long long)id, state);
		hub_refuse_msg(resp, 409, msg);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "state", json_object_new_string("cancelled"));
	core_response_json(resp, 200, o);
}

/* POST /hub/commands/{id}/retry {project?, author?}: the command again, in a new batch. */
static void
hub_command_retry(struct db *db, const struct principal *who, uint64_t id,
    struct json_object *body, struct core_response *resp)
{
	struct json_object	*c, *cmds;
	const char		*project = NULL, *own;
	char			 msg[300], title[64];
	struct err		 e;
	int			 rc, present;

	if (body != NULL)
		project = hub_member(body, "project", &present);
	err_clear(&e);
	if ((rc = tracker_command_get(db, &c, id, &e)) == ERR_NOTFOUND) {
		hub_say(msg, sizeof msg, "команды %llu нет", (unsigned long long)id);
		hub_refuse_msg(resp, 404, msg);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	own = json_object_get_string(json_object_object_get(c, "project"));
	if (project != NULL && (own == NULL || strcmp(own, project) != 0)) {
		if (own == NULL)
			hub_say(msg, sizeof msg, "команда %llu из пакета без проекта: в сессии "
			    "проекта %s её не повторить", (unsigned long long)id, project);
		else
			hub_say(msg, sizeof msg, "команда %llu из пакета проекта %s: в сессии "
			    "проекта %s её не повторить", (unsigned long long)id, own, project);
		json_object_put(c);
		hub_refuse_msg(resp, 422, msg);
		return;
	}
	snprintf(title, sizeof title, "повтор команды %llu", (unsigned long long)id);
	cmds = json_object_new_array();
	json_object_array_add(cmds, json_object_get(json_object_object_get(c, "command")));
	hub_batch_queue(db, who, project, title, hub_author(body), cmds, resp);
	json_object_put(cmds);
	json_object_put(c);
}

void
hub_commands_route(struct db *db, const struct principal *who, const char *method,
    const char *path, struct json_object *body, struct core_response *resp)
{
	const char	*rest = path + 9 + strspn(path + 9, "0123456789");
	uint64_t	 id = hub_id(path + 9);

	if (strcmp(method, "POST") != 0 || id == 0 ||
	    (strcmp(rest, "/cancel") != 0 && strcmp(rest, "/retry") != 0)) {
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
		return;
	}
	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	if (strcmp(rest, "/cancel") == 0)
		hub_command_cancel(db, id, body, resp);
	else
		hub_command_retry(db, who, id, body, resp);
}
