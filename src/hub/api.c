/* api: the routes of the hub API (hub.h) and the answers of each. */
#include <ctype.h>
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
#include "hub/hub.h"
#include "hub/texts.h"
#include "hub/wiki.h"
#include "store/db_batches.h"
#include "store/db_tracker.h"


void
hub_refuse(struct core_response *resp, int status, enum hub_text t, ...)
{
	struct json_object	*o;
	char			 msg[1200];
	va_list			 ap;

	va_start(ap, t);
	hub_vsay(msg, sizeof msg, hub_text(t), ap);
	va_end(ap);
	o = json_object_new_object();
	if (o != NULL)
		json_object_object_add(o, "error", json_object_new_string(msg));
	core_response_json(resp, status, o);
}

void
hub_refuse_msg(struct core_response *resp, int status, const char *msg)
{
	struct json_object	*o = json_object_new_object();

	if (o != NULL)
		json_object_object_add(o, "error", json_object_new_string(msg));
	core_response_json(resp, status, o);
}

void
hub_failed(struct core_response *resp, int rc, const struct err *e)
{
	if (rc == ERR_UNAVAILABLE) {
		log_error("hub: the database is unavailable: %s", e->msg);
		core_response_header(resp, "Retry-After", "5");
		hub_refuse(resp, 503, HT_HUB_ERROR);
		return;
	}
	if (rc == ERR_CONFLICT) {
		/* db_tx already ran it again and again: nothing of it was written */
		log_warn("hub: %s", e->msg);
		core_response_header(resp, "Retry-After", "1");
		hub_refuse(resp, 503, HT_HUB_BUSY);
		return;
	}
	log_error("hub: %s", e->msg[0] != '\0' ? e->msg : err_name(rc));
	hub_refuse(resp, 500, HT_HUB_ERROR);
}

static int
hub_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A path segment of n bytes percent-decoded into out (len bytes); 0, or -1
 * when it does not fit or decodes to a NUL or a '/'.
 */
static int
hub_segment(const char *in, size_t n, char *out, size_t len)
{
	size_t	i, o = 0;
	int	hi, lo;

	for (i = 0; i < n; i++) {
		if (o + 1 >= len)
			return -1;
		if (in[i] == '%' && i + 2 < n &&
		    (hi = hub_hex(in[i + 1])) >= 0 && (lo = hub_hex(in[i + 2])) >= 0) {
			out[o] = (char)(hi * 16 + lo);
			i += 2;
		} else
			out[o] = in[i];
		if (out[o] == '\0' || out[o] == '/')
			return -1;
		o++;
	}
	out[o] = '\0';
	return 0;
}

/* hub_query ('+' is a space). */
const char *
hub_query(const char *query, const char *name, char *buf, size_t len, int *bad)
{
	const char	*p = query, *end;
	size_t		 n = strlen(name), o;
	int		 hi, lo;

	while (p != NULL && *p != '\0') {
		end = p + strcspn(p, "&");
		if ((size_t)(end - p) > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			for (p += n + 1, o = 0; p < end; p++) {
				if (o + 1 >= len) {
					*bad = 1;
					return NULL;
				}
				if (*p == '%' && end - p >= 3 && (hi = hub_hex(p[1])) >= 0 &&
				    (lo = hub_hex(p[2])) >= 0) {
					buf[o++] = (char)(hi * 16 + lo);
					p += 2;
				} else
					buf[o++] = *p == '+' ? ' ' : *p;
				if (buf[o - 1] == '\0') {
					*bad = 1;
					return NULL;
				}
			}
			buf[o] = '\0';
			return o > 0 ? buf : NULL;
		}
		p = *end == '&' ? end + 1 : end;
	}
	return NULL;
}

/* The id in "<id>" or "<id>/<what>": 0 when it is not one; *what after it ("" for none). */
uint64_t
hub_path_id(const char *rest, const char **what)
{
	char			*end;
	unsigned long long	 n;

	if (rest[0] < '1' || rest[0] > '9')
		return 0;
	n = strtoull(rest, &end, 10);
	if (*end != '\0' && *end != '/')
		return 0;
	*what = *end == '/' ? end + 1 : end;
	return (uint64_t)n;
}

int
hub_fetch_answer(struct core_response *resp, int rc, const struct err *e,
    struct json_object *out, uint64_t id, unsigned max_mb, const char *only_in)
{
	char	msg[160];

	if (rc == ERR_NOTFOUND)
		return -1;
	if (rc == ERR_TOOBIG) {
		snprintf(msg, sizeof msg, "вложение %llu больше %u МБ — только в %s",
		    (unsigned long long)id, max_mb, only_in);
		hub_refuse_msg(resp, 413, msg);
	} else if (rc != 0)
		hub_failed(resp, rc, e);
	else
		core_response_json(resp, json_object_get_boolean(json_object_object_get(out,
		    "queued")) ? 202 : 200, out);
	return 0;
}

void
hub_copy_answer(struct core_response *resp, char *bytes, size_t len, uint64_t id,
    const char *state, const char *fetch_path)
{
	char	msg[200];

	if (bytes == NULL) {
		snprintf(msg, sizeof msg, "копии вложения %llu в хабе нет (состояние %s): сначала "
		    "POST %s/%llu/fetch", (unsigned long long)id, state, fetch_path,
		    (unsigned long long)id);
		hub_refuse_msg(resp, 409, msg);
		return;
	}
	resp->status = 200;
	resp->body = bytes;
	resp->body_len = len;
	resp->content_type = "application/octet-stream";
}

/* Whether label is a project label: [A-Z][A-Z0-9_]{0,63}. */
static int
hub_label_ok(const char *label)
{
	size_t	i;

	if (label == NULL || !(label[0] >= 'A' && label[0] <= 'Z'))
		return 0;
	for (i = 1; label[i] != '\0'; i++)
		if (i >= 64 || !((label[i] >= 'A' && label[i] <= 'Z') ||
		    (label[i] >= '0' && label[i] <= '9') || label[i] == '_'))
			return 0;
	return 1;
}

/* GET /hub/projects[?module=wiki], or GET /hub/projects/<label> (label: one row, or 404). */
static void
hub_projects(struct db *db, const char *query, const char *label, struct core_response *resp)
{
	struct json_object	*list, *o;
	struct err		 e;
	char			 module[16];
	int			 rc, bad = 0;

	err_clear(&e);
	if ((rc = tracker_projects(db, &list, hub_query(query, "module", module, sizeof module,
	    &bad) != NULL && strcmp(module, "wiki") == 0, label, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if (label != NULL && json_object_array_length(list) == 0) {
		json_object_put(list);
		hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, label);
		return;
	}
	o = json_object_new_object();
	if (label != NULL) {
		json_object_object_add(o, "project", json_object_get(json_object_array_get_idx(list,
		    0)));
		json_object_put(list);
	} else
		json_object_object_add(o, "projects", list);
	core_response_json(resp, 200, o);
}

const char *
hub_member(struct json_object *body, const char *name, int *present)
{
	struct json_object	*v;

	*present = json_object_object_get_ex(body, name, &v) && v != NULL;
	return *present && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
	    : NULL;
}

static void
hub_project_create(struct db *db, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*v, *out;
	const char		*label, *name, *author, *wiki_root;
	int64_t			 board = 0;
	struct err		 e;
	int			 rc, present;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	label = hub_member(body, "label", &present);
	if (!hub_label_ok(label)) {
		hub_refuse(resp, 422, HT_BAD_LABEL, label != NULL ? label : "");
		return;
	}
	name = hub_member(body, "name", &present);
	if (name == NULL || name[0] == '\0' || strlen(name) > 1000 ||
	    json_object_get_string_len(json_object_object_get(body, "name")) > 255 * 4) {
		hub_refuse(resp, 422, HT_BAD_NAME);
		return;
	}
	if (json_object_object_get_ex(body, "board_id", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_int) || (board = json_object_get_int64(v)) <= 0) {
			hub_refuse(resp, 422, HT_BAD_BOARD);
			return;
		}
	}
	wiki_root = hub_member(body, "wiki_root", &present);
	if (present && !hub_wiki_root_ok(db, who, wiki_root, resp))
		return;
	author = hub_member(body, "author", &present);
	if (author == NULL || author[0] == '\0' || strlen(author) > 64)
		author = "api";
	err_clear(&e);
	rc = tracker_project_create(db, &out, label, name, (uint64_t)board, wiki_root, author,
	    who->user_id, &e);
	if (rc == ERR_EXISTS) {
		hub_refuse(resp, 409, HT_PROJECT_EXISTS, label);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	log_info("hub: project %s created by %s (%s), refresh batch %s", label, who->login, author,
	    json_object_get_string(json_object_object_get(out, "batch")));
	core_response_json(resp, 201, out);
}

/* Whether the label is a project's: 1, 0, or -1 after answering a failure. */
static int
hub_project_known(struct db *db, const char *label, struct core_response *resp)
{
	struct err	 e;
	uint64_t	 id, board;
	int		 rc;

	err_clear(&e);
	if ((rc = tracker_project_get(db, label, &id, &board, &e)) == ERR_NOTFOUND)
		return 0;
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return -1;
	}
	return 1;
}

static void
hub_issues(struct db *db, const char *query, struct core_response *resp)
{
	char			 project[HUB_QUERY_MAX], status[HUB_QUERY_MAX], assignee[HUB_QUERY_MAX];
	char			 sprint[HUB_QUERY_MAX], type[HUB_QUERY_MAX], text[HUB_QUERY_MAX];
	char			 limit[32], *end;
	struct tracker_filter	 f = { 0 };
	struct json_object	*out;
	struct err		 e;
	long			 n;
	int			 rc, bad = 0;

	f.project = hub_query(query, "project", project, sizeof project, &bad);
	f.status = hub_query(query, "status", status, sizeof status, &bad);
	f.assignee = hub_query(query, "assignee", assignee, sizeof assignee, &bad);
	f.sprint = hub_query(query, "sprint", sprint, sizeof sprint, &bad);
	f.type = hub_query(query, "type", type, sizeof type, &bad);
	f.text = hub_query(query, "text", text, sizeof text, &bad);
	f.limit = HUB_LIMIT_DEFAULT;
	if (hub_query(query, "limit", limit, sizeof limit, &bad) != NULL) {
		n = strtol(limit, &end, 10);
		if (*end != '\0' || n < 1 || n > HUB_LIMIT_MAX) {
			hub_refuse(resp, 422, HT_HUB_BAD_LIMIT, limit);
			return;
		}
		f.limit = (int)n;
	}
	if (bad) {
		hub_refuse(resp, 400, HT_HUB_BAD_BODY, "query");
		return;
	}
	if (f.project == NULL) {
		hub_refuse(resp, 422, HT_HUB_NO_PROJECT_ARG);
		return;
	}
	if ((rc = hub_project_known(db, f.project, resp)) <= 0) {
		if (rc == 0)
			hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, f.project);
		return;
	}
	err_clear(&e);
	if ((rc = tracker_issues(db, &out, &f, &e)) != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	core_response_json(resp, 200, out);
}

static void
hub_issue(struct db *db, const char *key, struct core_response *resp)
{
	struct json_object	*issue, *o;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if (strlen(key) > 64 || strchr(key, '/') != NULL ||
	    (rc = tracker_issue(db, &issue, key, &e)) == ERR_NOTFOUND) {
		hub_refuse(resp, 404, HT_NO_ISSUE, key);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "issue", issue);
	core_response_json(resp, 200, o);
}

void
hub_handle(struct db *db, const struct config *cfg, const struct principal *who,
    const char *method, const char *path, const char *query, struct json_object *body,
    struct core_response *resp)
{
	int		 get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	const char	*slash;
	char		 key[100];

	if (!(who->scopes & AUTH_SCOPE_READ)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "read");
		return;
	}
	if (strcmp(path, "projects") == 0) {
		if (get)
			hub_projects(db, query, NULL, resp);
		else if (post && body != NULL)
			hub_project_create(db, who, body, resp);
		else if (post)
			hub_refuse(resp, 400, HT_HUB_BAD_BODY, "пусто");
		else {
			core_response_header(resp, "Allow", "GET, POST");
			hub_refuse(resp, 405, HT_HUB_METHOD, method, "/hub/projects");
		}
		return;
	}
	if (strncmp(path, "projects/", 9) == 0) {
		if (hub_segment(path + 9, strlen(path + 9), key, sizeof key) != 0 ||
		    !hub_label_ok(key))
			hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, "?");
		else if (get)
			hub_projects(db, query, key, resp);
		else if (strcmp(method, "PATCH") == 0)
			hub_wiki_root_set(db, who, key, body, resp);
		else {
			core_response_header(resp, "Allow", "GET, PATCH");
			hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		}
		return;
	}
	if (strncmp(path, "wiki/", 5) == 0) {
		hub_wiki_route(db, who, method, path, query, body, resp);
		return;
	}
	if (strncmp(path, "issues/", 7) == 0 && (slash = strchr(path + 7, '/')) != NULL &&
	    strcmp(slash, "/notes") == 0) {
		if (hub_segment(path + 7, (size_t)(slash - (path + 7)), key, sizeof key) != 0 ||
		    key[0] == '\0')
			hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
		else if (post && body != NULL)
			hub_notes(db, who, key, body, resp);
		else
			hub_refuse(resp, post ? 400 : 405, post ? HT_HUB_BAD_BODY : HT_HUB_METHOD,
			    post ? "пусто" : method, path);
		return;
	}
	if (strcmp(path, "settings") == 0 || strncmp(path, "settings/", 9) == 0) {
		hub_settings_route(db, who, method, path[8] == '/' ? path + 9 : NULL, body, resp);
		return;
	}
	if (strncmp(path, "attachments/", 12) == 0) {
		hub_attachments_route(db, who, method, path, path + 12, resp);
		return;
	}
	if (strcmp(path, "files") == 0 || strncmp(path, "files/", 6) == 0) {
		hub_files_route(db, who, method, path, body, resp);
		return;
	}
	if (strcmp(path, "agile") == 0 || strncmp(path, "agile/", 6) == 0) {
		hub_agile_route(db, method, path, query, resp);
		return;
	}
	if (strcmp(path, "changes") == 0) {
		if (get)
			hub_changes(db, query, resp);
		else {
			core_response_header(resp, "Allow", "GET");
			hub_refuse(resp, 405, HT_HUB_METHOD, method, "/hub/changes");
		}
		return;
	}
	if (strcmp(path, "sync_runs") == 0 && get) {
		hub_sync_runs(db, query, resp);
		return;
	}
	if (strcmp(path, "issues") == 0 || (strncmp(path, "issues/", 7) == 0 && path[7] != '\0')) {
		if (!get) {
			core_response_header(resp, "Allow", "GET");
			hub_refuse(resp, 405, HT_HUB_METHOD, method, "/hub/issues");
		} else if (path[6] == '\0')
			hub_issues(db, query, resp);
		else if (hub_segment(path + 7, strlen(path + 7), key, sizeof key) != 0)
			hub_refuse(resp, 404, HT_NO_ISSUE, path + 7);
		else
			hub_issue(db, key, resp);
		return;
	}
	if (strcmp(path, "commands") == 0 && get) {
		hub_commands(resp);
		return;
	}
	if (strncmp(path, "commands/", 9) == 0) {
		hub_commands_route(db, who, method, path, body, resp);
		return;
	}
	if (strncmp(path, "agent/", 6) == 0 || strcmp(path, "agent") == 0) {
		hub_agent_route(db, cfg, who, method, path, query, body, resp);
		return;
	}
	if (strcmp(path, "batches") == 0 || strncmp(path, "batches/", 8) == 0) {
		hub_batches_route(db, who, method, path, query, body, resp);
		return;
	}
	hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
}
