/*
 * api_attachments: the tracker's attachments in the hub API (doc/sdlc.md):
 * GET /hub/attachments/{id}, POST .../{id}/fetch (a fetch_attachment
 * command for the jira agent, unless the copy is ready or on its way) and
 * GET .../{id}/content (the hub's copy); and the files uploaded for
 * ensure_attachment: POST /hub/files, POST /hub/files/{id}/parts,
 * GET /hub/files/{id}.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "core_io.h"
#include "err.h"
#include "http.h"
#include "hub/api-int.h"
#include "store/db.h"
#include "store/db_tracker.h"

/* The base64 characters of one part: 22,500 bytes, well within the hub's 64 KiB body. */
#define FILE_PART_B64	30000
#define FILE_NAME_MAX	255

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
	struct json_object	*out = NULL;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	rc = tracker_attachment_queue(db, &out, id, who->login[0] != '\0' ? who->login : "api",
	    &e);
	if (hub_fetch_answer(resp, rc, &e, out, id, TRACKER_FETCH_MAX >> 20, "Jira") != 0)
		att_not_found(resp, id);
}

static void
att_content(struct db *db, uint64_t id, struct core_response *resp)
{
	struct err	 e;
	char		*bytes, state[32];
	size_t		 len;
	int		 rc;

	err_clear(&e);
	rc = tracker_attachment_content(db, id, &bytes, &len, state, sizeof state, &e);
	if (rc == ERR_NOTFOUND)
		att_not_found(resp, id);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else
		hub_copy_answer(resp, bytes, len, id, state, "/hub/attachments");
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

static void
file_answer(struct db *db, struct core_response *resp, int status, int rc,
    struct json_object *out, const struct err *e, uint64_t id)
{
	char	msg[320];

	if (rc == 0) {
		core_response_json(resp, status, out);
		return;
	}
	/* collisions db_tx could not get past: 503, try again, not a part out of place */
	if (rc == ERR_CONFLICT && db_tx_gave_up(db)) {
		hub_failed(resp, rc, e);
		return;
	}
	if (rc == ERR_NOTFOUND)
		snprintf(msg, sizeof msg, "файла %llu нет среди загруженных этим аккаунтом",
		    (unsigned long long)id);
	else if (rc == ERR_CONFLICT)
		snprintf(msg, sizeof msg, "часть не с того места: получено %.40s байт, at должен "
		    "быть им", e->msg);
	else if (rc == ERR_TOOBIG && strcmp(e->msg, "file") == 0)
		snprintf(msg, sizeof msg, "файл больше %u МБ: такие вложения — только в Jira",
		    TRACKER_FETCH_MAX >> 20);
	else if (rc == ERR_TOOBIG && strcmp(e->msg, "account") == 0)
		snprintf(msg, sizeof msg, "файлов аккаунта, ещё не взятых пакетами, стало бы "
		    "больше 1000 или больше 256 МБ: поставьте пакеты с ними или подождите сутки");
	else if (rc == ERR_TOOBIG)
		snprintf(msg, sizeof msg, "часть пуста или длиннее остатка файла (%.40s байт)", e->msg);
	else {
		hub_failed(resp, rc, e);
		return;
	}
	hub_refuse_msg(resp, rc == ERR_NOTFOUND ? 404 : rc == ERR_CONFLICT ? 409 :
	    rc == ERR_TOOBIG && e->msg[0] >= '0' && e->msg[0] <= '9' ? 422 : 413, msg);
}

/* POST /hub/files {name, size} */
static void
file_create(struct db *db, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*out = NULL, *v;
	const char		*name;
	struct err		 e;
	int64_t			 size = -1;
	int			 present, rc;

	name = body != NULL ? hub_member(body, "name", &present) : NULL;
	if (body != NULL && json_object_object_get_ex(body, "size", &v) &&
	    json_object_is_type(v, json_type_int))
		size = json_object_get_int64(v);
	if (name == NULL || name[0] == '\0' || strlen(name) > FILE_NAME_MAX || size < 0) {
		hub_refuse_msg(resp, 422, "нужны name (имя файла, до 255 байт) и size (его "
		    "размер в байтах)");
		return;
	}
	err_clear(&e);
	rc = tracker_file_create(db, &out, who->user_id, name, (uint64_t)size, &e);
	file_answer(db, resp, 201, rc, out, &e, 0);
}

/* POST /hub/files/{id}/parts {at, data} */
static void
file_part(struct db *db, const struct principal *who, uint64_t id, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*out = NULL, *v;
	const char		*data;
	unsigned char		 bytes[FILE_PART_B64 / 4 * 3];
	size_t			 len = sizeof bytes;
	struct err		 e;
	int64_t			 at = -1;
	int			 present, rc;

	data = body != NULL ? hub_member(body, "data", &present) : NULL;
	if (body != NULL && json_object_object_get_ex(body, "at", &v) &&
	    json_object_is_type(v, json_type_int))
		at = json_object_get_int64(v);
	if (data == NULL || at < 0 || strlen(data) > FILE_PART_B64 ||
	    http_b64_decode(bytes, &len, data, strlen(data)) != 0) {
		hub_refuse_msg(resp, 422, "нужны at (с какого байта) и data (base64 с "
		    "выравниванием, до 30000 символов)");
		return;
	}
	err_clear(&e);
	rc = tracker_file_part(db, &out, who->user_id, id, (uint64_t)at, (const char *)bytes, len,
	    &e);
	file_answer(db, resp, 200, rc, out, &e, id);
}

void
hub_files_route(struct db *db, const struct principal *who, const char *method,
    const char *path, struct json_object *body, struct core_response *resp)
{
	struct json_object	*out = NULL;
	const char		*what = "";
	uint64_t		 id = 0;
	struct err		 e;
	int			 rc, post = strcmp(method, "POST") == 0;

	if (strcmp(path, "files") != 0 && ((id = hub_path_id(path + 6, &what)) == 0 ||
	    (what[0] != '\0' && strcmp(what, "parts") != 0))) {
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
		return;
	}
	if ((id == 0 || what[0] != '\0') != post) {
		core_response_header(resp, "Allow", post ? "GET" : "POST");
		hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		return;
	}
	if (post && !(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	err_clear(&e);
	if (id == 0)
		file_create(db, who, body, resp);
	else if (post)
		file_part(db, who, id, body, resp);
	else {
		rc = tracker_file(db, &out, who->user_id, id, &e);
		file_answer(db, resp, 200, rc, out, &e, id);
	}
}
