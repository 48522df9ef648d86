/*
 * jira_writes: the Jira backend's ensure_* commands (jira_backend-int.h):
 * ensure_issue, ensure_fields (a status through the issue's transitions),
 * ensure_link, ensure_attachment (the hub's file sent as Jira's multipart
 * upload), ensure_sprint, ensure_sprint_meta, ensure_sprint_state and
 * ensure_rank.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "json.h"
#include "sdlc/client.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"
#include "sdlc/rest.h"

/* {"name": s} */
static struct json_object *
jb_named(const char *s)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(s));
	return o;
}

/* params' member name copied into fields as to (a string, or wrapped: {"name": …}). */
static void
jb_copy(struct json_object *fields, struct json_object *p, const char *name, const char *to,
    int named)
{
	const char	*s = json_get_str(p, name);

	if (s != NULL)
		json_object_object_add(fields, to, named ? jb_named(s) : json_object_new_string(s));
}

/* ensure_issue: created in the Jira project of the project's board. */
static int
jb_issue(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
    struct json_object *p, struct json_object **result, char *why, size_t len)
{
	struct json_object	*o = NULL, *body, *fields, *proj;
	const char		*label = json_get_str(cmd, "project"), *pkey, *key;
	char			 path[100];
	uint64_t		 board;
	int			 rc = -1;

	if (label == NULL || jb_board(hub, label, &board, why, len) != 0)
		return -1;
	if (board == 0) {
		snprintf(why, len, "у проекта %s нет доски (board_id): агент не знает, в каком "
		    "проекте Jira создать задачу", label);
		return -1;
	}
	snprintf(path, sizeof path, "/rest/agile/1.0/board/%llu", (unsigned long long)board);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		return -1;
	if ((pkey = json_get_str(json_get(o, "location"), "projectKey")) == NULL) {
		snprintf(why, len, "у доски %llu в Jira нет проекта (location.projectKey)",
		    (unsigned long long)board);
		json_object_put(o);
		return -1;
	}
	fields = json_object_new_object();
	proj = json_object_new_object();
	json_object_object_add(proj, "key", json_object_new_string(pkey));
	json_object_object_add(fields, "project", proj);
	json_object_put(o);
	o = NULL;
	jb_copy(fields, p, "summary", "summary", 0);
	json_object_object_add(fields, "issuetype", jb_named(json_get_str(p, "issue_type") != NULL ?
	    json_get_str(p, "issue_type") : "Task"));
	jb_copy(fields, p, "description", "description", 0);
	if (json_get(p, "labels") != NULL)
		json_object_object_add(fields, "labels", json_object_get(json_get(p, "labels")));
	jb_copy(fields, p, "assignee", "assignee", 1);
	jb_copy(fields, p, "priority", "priority", 1);
	jb_copy(fields, p, "due", "duedate", 0);
	body = json_object_new_object();
	json_object_object_add(body, "fields", fields);
	if (jb_call(jb, "POST", "/rest/api/2/issue", body, &o, why, len) == 0) {
		if ((key = json_get_str(o, "key")) == NULL)
			snprintf(why, len, "Jira: POST /rest/api/2/issue: в ответе нет key");
		else {
			*result = json_object_new_object();
			json_object_object_add(*result, "temp_key",
			    json_object_get(json_get(p, "temp_key")));
			json_object_object_add(*result, "key", json_object_new_string(key));
			rc = 0;
		}
	}
	json_object_put(body);
	json_object_put(o);
	return rc;
}

/* The issue key's status moved to status through one of its transitions. */
static int
jb_status(struct jira_backend *jb, const char *key, const char *status, char *why, size_t len)
{
	struct json_object	*o = NULL, *list, *t, *body, *tr;
	const char		*to, *now;
	char			 path[200], offered[300] = "";
	size_t			 i, at = 0;
	int			 rc = -1;

	snprintf(path, sizeof path, "/rest/api/2/issue/%s?fields=status", key);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		return -1;
	now = json_get_str(json_get(json_get(o, "fields"), "status"), "name");
	rc = now != NULL && strcmp(now, status) == 0 ? 0 : -1;
	json_object_put(o);
	if (rc == 0)
		return 0;
	snprintf(path, sizeof path, "/rest/api/2/issue/%s/transitions", key);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		return -1;
	list = json_get(o, "transitions");
	for (i = 0, t = NULL; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++, t = NULL) {
		t = json_object_array_get_idx(list, i);
		if ((to = json_get_str(json_get(t, "to"), "name")) == NULL)
			continue;
		if (strcmp(to, status) == 0)
			break;
		if (at < sizeof offered)
			at += (size_t)snprintf(offered + at, sizeof offered - at, "%s«%s»",
			    at > 0 ? ", " : "", to);
	}
	if (t == NULL || json_get_str(t, "id") == NULL) {
		snprintf(why, len, "в Jira у %s нет перехода в статус «%s»%s%s", key, status,
		    offered[0] != '\0' ? "; есть: " : "", offered);
		json_object_put(o);
		return -1;
	}
	body = json_object_new_object();
	tr = json_object_new_object();
	json_object_object_add(tr, "id", json_object_get(json_get(t, "id")));
	json_object_object_add(body, "transition", tr);
	json_object_put(o);
	rc = jb_call(jb, "POST", path, body, &o, why, len);
	json_object_put(body);
	json_object_put(o);
	return rc;
}

/* ensure_fields: the fields set with one edit, the status through a transition. */
static int
jb_fields_set(struct jira_backend *jb, struct json_object *p, char *why, size_t len)
{
	struct json_object	*fields, *body, *o = NULL, *sp;
	const char		*key = json_get_str(p, "key");
	char			 path[200];
	int			 rc = 0;

	fields = json_object_new_object();
	jb_copy(fields, p, "summary", "summary", 0);
	jb_copy(fields, p, "description", "description", 0);
	jb_copy(fields, p, "assignee", "assignee", 1);
	jb_copy(fields, p, "priority", "priority", 1);
	jb_copy(fields, p, "due", "duedate", 0);
	if ((sp = json_get(p, "story_points")) != NULL) {
		if ((rc = jb_fields(jb, why, len)) == 0 && jb->sp_field[0] == '\0') {
			snprintf(why, len, "в Jira нет поля Story Points");
			rc = -1;
		}
		if (rc == 0)
			json_object_object_add(fields, jb->sp_field, json_object_get(sp));
	}
	if (rc == 0 && json_object_object_length(fields) > 0) {
		body = json_object_new_object();
		json_object_object_add(body, "fields", json_object_get(fields));
		snprintf(path, sizeof path, "/rest/api/2/issue/%s", key);
		rc = jb_call(jb, "PUT", path, body, &o, why, len);
		json_object_put(body);
		json_object_put(o);
	}
	json_object_put(fields);
	if (rc == 0 && json_get_str(p, "status") != NULL)
		rc = jb_status(jb, key, json_get_str(p, "status"), why, len);
	return rc;
}

/* {"key": s} */
static struct json_object *
jb_keyed(const char *s)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "key", json_object_new_string(s));
	return o;
}

/* ensure_link: key <link_type> to, or to <link_type> key with direction inward. */
static int
jb_link(struct jira_backend *jb, struct json_object *p, char *why, size_t len)
{
	struct json_object	*body, *o = NULL;
	const char		*key = json_get_str(p, "key"), *to = json_get_str(p, "to");
	const char		*dir = json_get_str(p, "direction");
	int			 in = dir != NULL && strcmp(dir, "inward") == 0, rc;

	body = json_object_new_object();
	json_object_object_add(body, "type", jb_named(json_get_str(p, "link_type")));
	json_object_object_add(body, "outwardIssue", jb_keyed(in ? to : key));
	json_object_object_add(body, "inwardIssue", jb_keyed(in ? key : to));
	rc = jb_call(jb, "POST", "/rest/api/2/issueLink", body, &o, why, len);
	json_object_put(body);
	json_object_put(o);
	return rc;
}

/*
 * The board's sprint called name: 0 with its id and state, 1 when the
 * board has none of that name, -1 with why.
 */
static int
jb_sprint_find(struct jira_backend *jb, uint64_t board, const char *name, int64_t *id,
    char *state, size_t state_len, char *why, size_t len)
{
	struct json_object	*all, *s;
	size_t			 i;
	int			 rc = 1;

	if (jb_sprints(jb, board, &all, why, len) != 0)
		return -1;
	for (i = 0; rc == 1 && i < json_object_array_length(all); i++) {
		s = json_object_array_get_idx(all, i);
		if (json_get_str(s, "name") != NULL && strcmp(json_get_str(s, "name"), name) == 0) {
			*id = json_object_get_int64(json_get(s, "id"));
			snprintf(state, state_len, "%s", json_get_str(s, "state") != NULL ?
			    json_get_str(s, "state") : "");
			rc = 0;
		}
	}
	json_object_put(all);
	return rc;
}

/* A hub date, YYYY-MM-DD, as Jira's time of that day's start. */
static struct json_object *
jb_day(const char *date)
{
	char	buf[40];

	snprintf(buf, sizeof buf, "%.10sT00:00:00.000+0000", date);
	return json_object_new_string(buf);
}

/* ensure_sprint, ensure_sprint_meta, ensure_sprint_state (params with the hub's board_id). */
static int
jb_sprint(struct jira_backend *jb, const char *type, struct json_object *p, char *why,
    size_t len)
{
	struct json_object	*body = NULL, *o = NULL, *list;
	uint64_t		 board = (uint64_t)json_object_get_int64(json_get(p, "board_id"));
	const char		*name = json_get_str(p, "sprint"), *state = json_get_str(p, "state");
	char			 path[200], now[32];
	int64_t			 id = 0;
	int			 found, rc = -1;

	if ((found = jb_sprint_find(jb, board, name, &id, now, sizeof now, why, len)) < 0)
		return -1;
	if (found == 1 && strcmp(type, "ensure_sprint_meta") != 0) {
		snprintf(why, len, "спринта «%s» нет на доске %llu", name,
		    (unsigned long long)board);
		return -1;
	}
	body = json_object_new_object();
	if (strcmp(type, "ensure_sprint") == 0) {
		list = json_object_new_array();
		json_object_array_add(list, json_object_new_string(json_get_str(p, "key")));
		json_object_object_add(body, "issues", list);
		snprintf(path, sizeof path, "/rest/agile/1.0/sprint/%lld/issue", (long long)id);
	} else if (strcmp(type, "ensure_sprint_state") == 0) {
		if (strcmp(now, state) == 0) {
			rc = 0;
			goto done;
		}
		json_object_object_add(body, "state", json_object_new_string(state));
		snprintf(path, sizeof path, "/rest/agile/1.0/sprint/%lld", (long long)id);
	} else {
		jb_copy(body, p, "goal", "goal", 0);
		if (json_get_str(p, "start") != NULL)
			json_object_object_add(body, "startDate", jb_day(json_get_str(p, "start")));
		if (json_get_str(p, "end") != NULL)
			json_object_object_add(body, "endDate", jb_day(json_get_str(p, "end")));
		if (found == 1) {
			json_object_object_add(body, "name", json_object_new_string(name));
			json_object_object_add(body, "originBoardId", json_object_new_int64(
			    (int64_t)board));
			snprintf(path, sizeof path, "/rest/agile/1.0/sprint");
		} else if (json_object_object_length(body) == 0) {
			rc = 0;
			goto done;
		} else
			snprintf(path, sizeof path, "/rest/agile/1.0/sprint/%lld", (long long)id);
	}
	rc = jb_call(jb, "POST", path, body, &o, why, len);
done:
	json_object_put(body);
	json_object_put(o);
	return rc;
}

/* ensure_rank: before or after another issue. */
static int
jb_rank(struct jira_backend *jb, struct json_object *p, char *why, size_t len)
{
	struct json_object	*body, *o = NULL, *list;
	const char		*before = json_get_str(p, "before"), *after = json_get_str(p, "after");
	int			 rc;

	if ((before == NULL) == (after == NULL)) {
		snprintf(why, len, "ensure_rank: нужен before или after — одно из двух");
		return -1;
	}
	body = json_object_new_object();
	list = json_object_new_array();
	json_object_array_add(list, json_object_new_string(json_get_str(p, "key")));
	json_object_object_add(body, "issues", list);
	json_object_object_add(body, before != NULL ? "rankBeforeIssue" : "rankAfterIssue",
	    json_object_new_string(before != NULL ? before : after));
	rc = jb_call(jb, "PUT", "/rest/agile/1.0/issue/rank", body, &o, why, len);
	json_object_put(body);
	json_object_put(o);
	return rc;
}

/* The multipart/form-data body of one file part "file" called name; NULL when out of memory. */
static char *
jb_multipart(const char *name, const char *data, size_t n, char *boundary, size_t blen,
    size_t *len)
{
	char	*out, *p, safe[1024];
	size_t	 i, k = 0;

	/* quotes and line ends would end the header: percent-encoded, as browsers send them */
	for (i = 0; name[i] != '\0' && k + 4 < sizeof safe; i++)
		if (name[i] == '"' || name[i] == '\r' || name[i] == '\n' || name[i] == '%')
			k += (size_t)snprintf(safe + k, sizeof safe - k, "%%%02X",
			    (unsigned char)name[i]);
		else
			safe[k++] = name[i];
	safe[k] = '\0';
	do
		snprintf(boundary, blen, "forgemcp-%08lx%08lx", (unsigned long)random(),
		    (unsigned long)random());
	while (memmem(data, n, boundary, strlen(boundary)) != NULL);
	if ((out = malloc(n + strlen(safe) + 3 * strlen(boundary) + 200)) == NULL)
		return NULL;
	p = out + sprintf(out, "--%s\r\nContent-Disposition: form-data; name=\"file\"; "
	    "filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n", boundary, safe);
	memcpy(p, data, n);
	p += n;
	p += sprintf(p, "\r\n--%s--\r\n", boundary);
	*len = (size_t)(p - out);
	return out;
}

/* ensure_attachment: the hub's file sent to the issue. */
static int
jb_attach(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
    struct json_object *p, struct json_object **result, char *why, size_t len)
{
	struct json_object	*o = NULL, *a;
	struct rest_body	 b = { 0 };
	const char		*given = json_get_str(p, "filename");
	char			 path[200], boundary[64], ctype[120], name[1024], *data = NULL;
	char			*body = NULL;
	size_t			 n = 0;
	long			 status = 0;
	int			 rc = -1;

	snprintf(path, sizeof path, "/agent/file?command=%lld",
	    (long long)json_object_get_int64(json_get(cmd, "id")));
	if (given == NULL && (hub_request(hub, "GET", path, NULL, &status, &o) != HUB_ANSWERED ||
	    status != 200 || (given = json_get_str(o, "name")) == NULL)) {
		snprintf(why, len, "хаб не отдал файл %lld (HTTP %ld)",
		    (long long)json_object_get_int64(json_get(p, "file")), status);
		goto done;
	}
	/* the hub's answer that may hold it goes before the name is used */
	snprintf(name, sizeof name, "%s", given);
	snprintf(path, sizeof path, "/agent/file/content?command=%lld",
	    (long long)json_object_get_int64(json_get(cmd, "id")));
	json_object_put(o);
	o = NULL;
	if (hub_download(hub, path, JIRA_FILE_MAX, &status, &data, &n, &o) != HUB_ANSWERED ||
	    status != 200) {
		snprintf(why, len, "хаб не отдал файл %lld (HTTP %ld)",
		    (long long)json_object_get_int64(json_get(p, "file")), status);
		goto done;
	}
	if ((body = jb_multipart(name, data, n, boundary, sizeof boundary, &b.len)) == NULL) {
		snprintf(why, len, "нехватка памяти");
		goto done;
	}
	snprintf(ctype, sizeof ctype, "multipart/form-data; boundary=%s", boundary);
	b.ctype = ctype;
	b.data = body;
	b.extra = "X-Atlassian-Token: no-check";
	snprintf(path, sizeof path, "/rest/api/2/issue/%s/attachments", json_get_str(p, "key"));
	json_object_put(o);
	o = NULL;
	if (jb_send(jb, "POST", path, &b, &o, why, len) != 0)
		goto done;
	a = json_object_is_type(o, json_type_array) ? json_object_array_get_idx(o, 0) : NULL;
	*result = json_object_new_object();
	if (json_get_str(a, "id") != NULL)
		json_object_object_add(*result, "attachment", json_object_new_int64(
		    strtoll(json_get_str(a, "id"), NULL, 10)));
	json_object_object_add(*result, "key", json_object_new_string(json_get_str(p, "key")));
	rc = 0;
done:
	free(data);
	free(body);
	json_object_put(o);
	return rc;
}

int
jb_write(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
    struct json_object **result, char *why, size_t len)
{
	struct json_object	*p = json_get(cmd, "params");
	const char		*type = json_get_str(cmd, "type");

	if (strcmp(type, "ensure_issue") == 0)
		return jb_issue(hub, jb, cmd, p, result, why, len);
	if (strcmp(type, "ensure_fields") == 0)
		return jb_fields_set(jb, p, why, len);
	if (strcmp(type, "ensure_link") == 0)
		return jb_link(jb, p, why, len);
	if (strcmp(type, "ensure_sprint") == 0 || strcmp(type, "ensure_sprint_meta") == 0 ||
	    strcmp(type, "ensure_sprint_state") == 0)
		return jb_sprint(jb, type, p, why, len);
	if (strcmp(type, "ensure_rank") == 0)
		return jb_rank(jb, p, why, len);
	if (strcmp(type, "ensure_attachment") == 0)
		return jb_attach(hub, jb, cmd, p, result, why, len);
	snprintf(why, len, "команду %s бэкенд jira не выполняет", type);
	return -1;
}
