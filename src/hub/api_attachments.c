/*
 * api_attachments: the tracker's attachments in the hub API (doc/sdlc.md):
 * GET /hub/attachments/{id}, POST .../{id}/fetch (a fetch_attachment
 * command for the jira agent, unless the copy is ready or on its way) and
 * GET .../{id}/content (the hub's copy).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "core_io.h"
#include "err.h"
#include "hub/api-int.h"
#include "store/db_tracker.h"

static void
att_not_found(struct core_response *resp, uint64_t id)
{
	char	msg[160];

	snprintf(msg, sizeof msg, "вложения %llu нет в зеркале: id вложений показывает "
	    "карточка задачи (issue)", (unsigned long long)id);
	hub_refuse_msg(resp, 404, msg);
}

static void
att_get(struct db *db, uint64_t id, struct core_response *resp)
{
	struct json_object	*a, *o;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if ((rc = tracker_attachment(db, &a, id, &e)) == ERR_NOTFOUND)
		att_not_found(resp, id);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		o = json_object_new_object();
		json_object_object_add(o, "attachment", a);
		core_response_json(resp, 200, o);
	}
}

static void
att_fetch(struct db *db, const struct principal *who, uint64_t id, struct core_response *resp)
{
	struct json_object	*out;
	struct err		 e;
	char			 msg[160];
	int			 rc;

	err_clear(&e);
	rc = tracker_attachment_queue(db, &out, id, who->login[0] != '\0' ? who->login : "api",
	    &e);
	if (rc == ERR_NOTFOUND)
		att_not_found(resp, id);
	else if (rc == ERR_TOOBIG) {
		snprintf(msg, sizeof msg, "вложение %llu больше %u МБ — только в Jira",
		    (unsigned long long)id, TRACKER_FETCH_MAX >> 20);
		hub_refuse_msg(resp, 413, msg);
	} else if (rc != 0)
		hub_failed(resp, rc, &e);
	else
		core_response_json(resp, json_object_get_boolean(json_object_object_get(out,
		    "queued")) ? 202 : 200, out);
}

static void
att_content(struct db *db, uint64_t id, struct core_response *resp)
{
	struct err	 e;
	char		*bytes, state[32], msg[200];
	size_t		 len;
	int		 rc;

	err_clear(&e);
	rc = tracker_attachment_content(db, id, &bytes, &len, state, sizeof state, &e);
	if (rc == ERR_NOTFOUND)
		att_not_found(resp, id);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else if (bytes == NULL) {
		snprintf(msg, sizeof msg, "копии вложения %llu в хабе нет (состояние %s): сначала "
		    "POST /hub/attachments/%llu/fetch", (unsigned long long)id, state,
		    (unsigned long long)id);
		hub_refuse_msg(resp, 409, msg);
	} else {
		resp->status = 200;
		resp->body = bytes;
		resp->body_len = len;
		resp->content_type = "application/octet-stream";
	}
}

void
hub_attachments_route(struct db *db, const struct principal *who, const char *method,
    const char *path, const char *rest, struct core_response *resp)
{
	const char	*what = "", *allow;
	uint64_t	 id = hub_path_id(rest, &what);

	if (id == 0 || (what[0] != '\0' && strcmp(what, "fetch") != 0 &&
	    strcmp(what, "content") != 0)) {
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
		return;
	}
	allow = strcmp(what, "fetch") == 0 ? "POST" : "GET";
	if (strcmp(method, allow) != 0) {
		core_response_header(resp, "Allow", allow);
		hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		return;
	}
	if (what[0] == '\0')
		att_get(db, id, resp);
	else if (strcmp(what, "fetch") == 0)
		att_fetch(db, who, id, resp);
	else
		att_content(db, id, resp);
}
