/*
 * api_jira: the hub's side of the Jira backend of `forgemcp agent`
 * (api-int.h), which runs the commands in Jira and tells the hub what it
 * needs: the file of an ensure_attachment to send, the issues a refresh
 * read (a page at a time, each page one transaction), and the file of a
 * fetch_attachment (in base64 parts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "store/db_agent.h"
#include "store/db_tracker.h"

/* The attachments' limit (§2.7): the hub never holds a larger tracker file. */
#define JIRA_FILE_MAX	(10L * 1024 * 1024)

/* The command's id from ?command=N; 0 when absent or not a positive number. */
static uint64_t
agent_query_command(const char *query)
{
	char		 buf[32], *end;
	unsigned long long v;
	int		 bad = 0;

	if (hub_query(query, "command", buf, sizeof buf, &bad) == NULL || bad || buf[0] < '1' ||
	    buf[0] > '9')
		return 0;
	v = strtoull(buf, &end, 10);
	return *end == '\0' ? (uint64_t)v : 0;
}

/* GET /hub/agent/file?command=N: {command, name, size}; .../file/content: its bytes. */
void
hub_agent_file(struct db *db, const char *path, const char *query, struct core_response *resp)
{
	struct json_object	*o;
	uint64_t		 id = agent_query_command(query);
	char			 name[256], *data = NULL;
	size_t			 len = 0;
	struct err		 e;
	int			 rc;

	if (id == 0) {
		hub_refuse_msg(resp, 422, "нужен command: id команды ensure_attachment");
		return;
	}
	err_clear(&e);
	rc = tracker_command_file(db, id, name, sizeof name, &data, &len, &e);
	if (rc == ERR_NOTFOUND) {
		hub_refuse_msg(resp, 404, "файл есть только у выданной агенту команды "
		    "ensure_attachment, загруженный до конца");
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if (strcmp(path, "agent/file/content") == 0) {
		resp->status = 200;
		resp->body = data;
		resp->body_len = len;
		resp->content_type = "application/octet-stream";
		return;
	}
	free(data);
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "size", json_object_new_uint64(len));
	core_response_json(resp, 200, o);
}

/* POST /hub/agent/jira_issues {command, handout, project?, issues} */
void
hub_jira_issues(struct db *db, struct json_object *body, struct core_response *resp)
{
	struct json_object	*o;
	struct tracker_handout	 h = { hub_agent_id(body, "handout"), 0, "" };
	char			 msg[600];
	uint64_t		 id = hub_agent_id(body, "command");
	struct err		 e;
	int			 rc, n;

	if (id == 0 || h.handout == 0) {
		hub_refuse_msg(resp, 422, "нужны command (id команды refresh) и " HUB_HANDOUT_NEEDED);
		return;
	}
	err_clear(&e);
	rc = tracker_refresh_page(db, id, &h, body, &n, &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, HUB_ASK_PAGE, id, &h))
		return;
	if (rc == ERR_INVALID) {
		snprintf(msg, sizeof msg, "страница обновления не принята: %s", e.msg);
		hub_refuse_msg(resp, 422, msg);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(id));
	json_object_object_add(o, "issues", json_object_new_int(n));
	core_response_json(resp, 200, o);
}

/* POST /hub/agent/jira_fetch {command, handout, part, data, last} | {command, handout, error} */
void
hub_jira_fetch(struct db *db, const struct config *cfg, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*o;
	struct hub_part		 in;
	struct tracker_handout	 h = { 0, 0, "" };
	char			 why[700] = "", *bytes = NULL, *end = NULL;
	size_t			 n = 0;
	struct err		 e;
	int			 rc;

	if (hub_part_parse(body, &in, resp) != 0)
		return;
	switch (hub_part_take(db, &in, JIRA_FILE_MAX, &bytes, &n, why, sizeof why, resp)) {
	case HUB_PART_ANSWERED:
		return;
	case HUB_PART_FILE:
	case HUB_PART_FAILED:
		break;
	}
	err_clear(&e);
	h.handout = in.handout;
	rc = tracker_fetch_end(db, in.command, &h, bytes, n, bytes == NULL ? why : NULL,
	    (uint64_t)cfg->tracker_copies_mb << 20, &end, &e);
	free(bytes);
	/* end is NULL unless the command ended */
	if (rc == ERR_INVALID && hub_agent_refused(resp, in.error != NULL ? HUB_ASK_REPORT :
	    HUB_ASK_PART, in.command, &h))
		return;
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	log_info("hub: tracker attachment of command %llu: %s", (unsigned long long)in.command,
	    end != NULL ? end : "stored");
	o = json_object_new_object();
	json_object_object_add(o, "command", json_object_new_uint64(in.command));
	json_object_object_add(o, "state", json_object_new_string(end != NULL ? "failed" : "done"));
	json_object_object_add(o, "error", end != NULL ? json_object_new_string(end) : NULL);
	json_object_object_add(o, "bytes", json_object_new_uint64(n));
	core_response_json(resp, 200, o);
	free(end);
}
