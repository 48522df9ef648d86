/*
 * jira_backend: the Jira backend (jira_backend.h): its requests to Jira
 * (429s waited out, redirects refused, Jira's own messages quoted), and a
 * claimed command run and reported to the hub once; the writes are in
 * jira_writes.c, refresh in jira_refresh.c, fetch_attachment in
 * jira_fetch.c.  A failure's reason names the Jira request and says what
 * Jira said, never a credential.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"
#include "sdlc/rest.h"
#include "store/curl_lib.h"

#define JIRA_RETRIES	5	/* answers of 429 in a row before a request fails */
#define JIRA_WAIT_MAX	60	/* seconds of Retry-After the agent waits out */
#define JIRA_WAIT	5	/* seconds it waits when Jira does not say */

int
jira_backend_init(struct jira_backend *jb, const char *url, const char *user,
    const char *token_file, long timeout)
{
	struct err	e;

	memset(jb, 0, sizeof *jb);
	if (rest_init(&jb->srv, "Jira", url, user, token_file, "jira_token_file", timeout) != 0)
		return -1;
	err_clear(&e);
	if ((jb->cl = curl_lib(&e)) == NULL || (jb->curl = jb->cl->easy_init()) == NULL) {
		fprintf(stderr, "forgemcp: agent: %s\n", jb->cl == NULL ? e.msg :
		    "cannot initialise libcurl");
		rest_release(&jb->srv);
		return -1;
	}
	return 0;
}

void
jira_backend_release(struct jira_backend *jb)
{
	if (jb->curl != NULL)
		jb->cl->easy_cleanup(jb->curl);
	jb->curl = NULL;
	rest_release(&jb->srv);
}

static void
jb_sleep(long seconds)
{
	struct timespec	ts = { seconds, 0 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Jira's errorMessages and errors of an answer, "; "-joined, into out. */
static void
jb_messages(const char *text, size_t n, char *out, size_t len)
{
	struct json_object	*o, *list;
	enum json_perr		 perr;
	size_t			 i, at = 0;

	out[0] = '\0';
	if (text == NULL || (o = json_parse_strict(text, n, &perr)) == NULL)
		return;
	list = json_get(o, "errorMessages");
	for (i = 0; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list) && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", at > 0 ? "; " : "",
		    json_object_get_string(json_object_array_get_idx(list, i)));
	if (json_object_is_type((list = json_get(o, "errors")), json_type_object)) {
		json_object_object_foreach(list, k, v) {
			if (at >= len)
				break;
			at += (size_t)snprintf(out + at, len - at, "%s%s: %s", at > 0 ? "; " : "", k,
			    json_object_get_string(v));
		}
	}
	json_object_put(o);
}

/* An answer of status to method path into *out (2xx), or -1 with why. */
static int
jb_answer(struct curl_body *a, long status, const char *method, const char *path,
    struct json_object **out, char *why, size_t len)
{
	enum json_perr	 perr;
	char		 said[400];
	int		 shown = (int)strcspn(path, "?");

	if (status >= 300 && status < 400)
		snprintf(why, len, "Jira: %s %.*s: перенаправление (HTTP %ld) — агент по нему не "
		    "идёт: jira_url должен вести прямо на Jira", method, shown, path, status);
	else if (status < 200 || status >= 300) {
		jb_messages(a->buf, a->len, said, sizeof said);
		snprintf(why, len, "Jira: %s %.*s: HTTP %ld%s%s", method, shown, path, status,
		    said[0] != '\0' ? ": " : "", said);
	} else if (a->len == 0)
		return 0;
	else if ((*out = json_parse_strict(a->buf, a->len, &perr)) == NULL ||
	    (!json_object_is_type(*out, json_type_object) &&
	    !json_object_is_type(*out, json_type_array))) {
		json_object_put(*out);
		*out = NULL;
		snprintf(why, len, "Jira: %s %.*s: ответ — не JSON", method, shown, path);
	} else
		return 0;
	return -1;
}

int
jb_send(struct jira_backend *jb, const char *method, const char *path,
    const struct rest_body *body, struct json_object **out, char *why, size_t len)
{
	struct curl_body	 a;
	long			 status, wait;
	int			 tries, rc;

	*out = NULL;
	for (tries = 1;; tries++) {
		if (rest_call(jb->cl, jb->curl, &jb->srv, method, path, body, JIRA_ANSWER_MAX, &a,
		    &status, &wait, why, len) != 0)
			return -1;
		if (status != 429)
			break;
		free(a.buf);
		jb->rate_limited++;
		if (wait < 0)
			wait = JIRA_WAIT;
		if (tries >= JIRA_RETRIES || wait > JIRA_WAIT_MAX) {
			snprintf(why, len, "Jira: %s %.*s: 429 — слишком много запросов (%d раз подряд, "
			    "Retry-After %ld с)", method, (int)strcspn(path, "?"), path, tries, wait);
			return -1;
		}
		log_info("agent: Jira answers 429 to %s %.*s: retrying in %ld s", method,
		    (int)strcspn(path, "?"), path, wait);
		jb_sleep(wait);
	}
	rc = jb_answer(&a, status, method, path, out, why, len);
	free(a.buf);
	return rc;
}

int
jb_call(struct jira_backend *jb, const char *method, const char *path,
    struct json_object *body, struct json_object **out, char *why, size_t len)
{
	struct rest_body	 b = { 0 };

	if (body == NULL)
		return jb_send(jb, method, path, NULL, out, why, len);
	b.ctype = "application/json";
	b.data = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	b.len = strlen(b.data);
	return jb_send(jb, method, path, &b, out, why, len);
}

int
jb_board(const struct hub_client *hub, const char *label, uint64_t *board, char *why,
    size_t len)
{
	struct json_object	*o = NULL, *v;
	char			*esc = hub_escape(label), path[300];
	long			 status = 0;
	int			 rc = -1;

	*board = 0;
	if (esc != NULL) {
		snprintf(path, sizeof path, "/projects/%s", esc);
		if (hub_request(hub, "GET", path, NULL, &status, &o) == HUB_ANSWERED &&
		    status == 200) {
			v = json_get(json_get(o, "project"), "board_id");
			if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
				*board = (uint64_t)json_object_get_int64(v);
			rc = 0;
		}
	}
	if (rc != 0)
		snprintf(why, len, "хаб не ответил о проекте %s (HTTP %ld)", label, status);
	free(esc);
	json_object_put(o);
	return rc;
}

int
jb_sprints(struct jira_backend *jb, uint64_t board, struct json_object **all, char *why,
    size_t len)
{
	struct json_object	*o = NULL, *list;
	char			 path[200];
	size_t			 start = 0, i, n;
	int			 last;

	*all = json_object_new_array();
	do {
		snprintf(path, sizeof path, "/rest/agile/1.0/board/%llu/sprint?startAt=%zu"
		    "&maxResults=50", (unsigned long long)board, start);
		if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0) {
			json_object_put(*all);
			*all = NULL;
			return -1;
		}
		list = json_get(o, "values");
		n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
		for (i = 0; i < n; i++)
			json_object_array_add(*all, json_object_get(json_object_array_get_idx(list,
			    i)));
		last = n == 0 || json_object_get_boolean(json_get(o, "isLast"));
		json_object_put(o);
		o = NULL;
		start += n;
	} while (!last);
	return 0;
}

int
jb_fields(struct jira_backend *jb, char *why, size_t len)
{
	struct json_object	*o, *f;
	const char		*name, *id;
	size_t			 i;

	if (jb->fields_read)
		return 0;
	if (jb_call(jb, "GET", "/rest/api/2/field", NULL, &o, why, len) != 0)
		return -1;
	for (i = 0; json_object_is_type(o, json_type_array) && i < json_object_array_length(o);
	    i++) {
		f = json_object_array_get_idx(o, i);
		if ((name = json_get_str(f, "name")) == NULL || (id = json_get_str(f, "id")) == NULL)
			continue;
		if (strcmp(name, "Story Points") == 0 || (jb->sp_field[0] == '\0' &&
		    strcmp(name, "Story point estimate") == 0))
			snprintf(jb->sp_field, sizeof jb->sp_field, "%s", id);
		else if (strcmp(name, "Sprint") == 0)
			snprintf(jb->sprint_field, sizeof jb->sprint_field, "%s", id);
	}
	json_object_put(o);
	jb->fields_read = 1;
	return 0;
}

/* Reports command id of hand-out handout: done with result, or failed with why. */
static int
jb_report(const struct hub_client *hub, int64_t id, int64_t handout, int done,
    const char *why, struct json_object *result)
{
	struct json_object	*body, *r = NULL;
	long			 status = 0;
	int			 rc;

	body = json_object_new_object();
	json_object_object_add(body, "command", json_object_new_int64(id));
	json_object_object_add(body, "handout", json_object_new_int64(handout));
	json_object_object_add(body, "state", json_object_new_string(done ? "done" : "failed"));
	if (!done)
		json_object_object_add(body, "error", json_new_string_repaired(why, strlen(why)));
	if (result != NULL)
		json_object_object_add(body, "result", json_object_get(result));
	rc = hub_request(hub, "POST", "/agent/report", body, &status, &r) == HUB_ANSWERED &&
	    status == 200 ? 0 : -1;
	if (rc != 0)
		log_error("agent: command %lld: the hub did not take the report (HTTP %ld)",
		    (long long)id, status);
	json_object_put(body);
	json_object_put(r);
	return rc;
}

int
jira_backend_run(const struct hub_client *hub, struct jira_backend *jb,
    struct json_object *cmd)
{
	struct json_object	*result = NULL;
	const char		*type = json_get_str(cmd, "type");
	int64_t			 id = json_object_get_int64(json_get(cmd, "id"));
	char			 why[1000] = "";
	int			 rc;

	if (type == NULL)
		type = "";
	if (strncmp(type, "ensure_", 7) == 0)
		rc = jb_write(hub, jb, cmd, &result, why, sizeof why);
	else if (strcmp(type, "refresh") == 0)
		rc = jb_refresh(hub, jb, cmd, &result, why, sizeof why);
	else if (strcmp(type, "fetch_attachment") == 0)
		rc = jb_fetch(hub, jb, cmd, why, sizeof why);
	else {
		snprintf(why, sizeof why, "команду %s бэкенд jira не выполняет", type);
		rc = -1;
	}
	if (rc == 1)
		return 1;
	log_info("agent: command %lld (%s): %s%s%s", (long long)id, type,
	    rc == 0 ? "done" : "failed", rc == 0 ? "" : ": ", rc == 0 ? "" : why);
	rc = jb_report(hub, id, hub_handout(cmd), rc == 0, why, result);
	json_object_put(result);
	return rc == 0 ? 1 : -1;
}
