/*
 * jira_refresh: the Jira backend's refresh and fetch_attachment
 * (jira_backend-int.h).  A refresh reads the board (type, columns, sprints)
 * and the issues labelled with the project's label, in rank order, with
 * their comments, links, attachments and changelog, converts each to the
 * hub's fixture shape and sends them in pages that fit the hub's request
 * bodies (POST /hub/agent/jira_issues); an issue too large for one goes
 * alone, and its comments and journal after it.  fetch_attachment reads
 * the file at the address Jira gives, only on the configured server, never
 * more than 10 MB nor more than Jira said, and sends it in base64 parts
 * (POST /hub/agent/jira_fetch).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/jira_backend.h"
#include "sdlc/jira_backend-int.h"
#include "sdlc/rest.h"
#include "store/curl_lib.h"

#define JR_PAGE_BYTES	60000	/* bytes of issues a request to the hub carries (max_body 64 KiB) */
#define JR_SEARCH_PAGE	50	/* issues asked of Jira's search at once (its usual cap) */

struct jr_send {
	const struct hub_client	*hub;
	int64_t			 command, handout;
	struct json_object	*page;		/* issues waiting to be sent */
	size_t			 bytes;		/* their JSON's length */
	char			*why;
	size_t			 len;
};

/* POST /agent/jira_issues {command, handout, <name>: what} (what put): 0, or -1 with why. */
static int
jr_post(struct jr_send *s, const char *name, struct json_object *what)
{
	struct json_object	*body, *r = NULL;
	long			 status = 0;
	int			 rc;

	body = json_object_new_object();
	json_object_object_add(body, "command", json_object_new_int64(s->command));
	json_object_object_add(body, "handout", json_object_new_int64(s->handout));
	json_object_object_add(body, name, what);
	rc = hub_request(s->hub, "POST", "/agent/jira_issues", body, &status, &r) ==
	    HUB_ANSWERED && status == 200 ? 0 : -1;
	if (rc != 0)
		snprintf(s->why, s->len, "хаб не принял страницу обновления (HTTP %ld%s%s)", status,
		    json_get_str(r, "error") != NULL ? ": " : "", json_get_str(r, "error") != NULL ?
		    json_get_str(r, "error") : "");
	json_object_put(body);
	json_object_put(r);
	return rc;
}

static int
jr_flush(struct jr_send *s)
{
	struct json_object	*page = s->page;

	if (json_object_array_length(page) == 0)
		return 0;
	s->page = json_object_new_array();
	s->bytes = 0;
	return jr_post(s, "issues", page);
}

/* The list (comments or changes) of issue key sent after it, in pieces that fit. */
static int
jr_more(struct jr_send *s, const char *key, const char *name, struct json_object *list)
{
	struct json_object	*piece = NULL, *more, *it;
	size_t			 i, bytes = 0, n;

	for (i = 0; i <= json_object_array_length(list); i++) {
		it = i < json_object_array_length(list) ? json_object_array_get_idx(list, i) : NULL;
		n = it != NULL ? strlen(json_object_to_json_string(it)) + 1 : 0;
		if (n > JR_PAGE_BYTES) {
			snprintf(s->why, s->len, "%s: запись %zu в %s — %zu байт, больше, чем хаб "
			    "принимает за запрос (%d)", key, i, name, n, JR_PAGE_BYTES);
			json_object_put(piece);
			return -1;
		}
		if (piece != NULL && (it == NULL || bytes + n > JR_PAGE_BYTES)) {
			more = json_object_new_object();
			json_object_object_add(more, "key", json_object_new_string(key));
			json_object_object_add(more, name, piece);
			piece = NULL;
			bytes = 0;
			if (jr_post(s, "more", more) != 0)
				return -1;
		}
		if (it == NULL)
			break;
		if (piece == NULL)
			piece = json_object_new_array();
		json_object_array_add(piece, json_object_get(it));
		bytes += n;
	}
	return 0;
}

/* Queues issue o (put) for the hub; one too large for a page goes alone, its lists after it. */
static int
jr_queue(struct jr_send *s, struct json_object *o)
{
	struct json_object	*comments, *changes, *one;
	char			 key[200];
	size_t			 n = strlen(json_object_to_json_string(o)) + 1;
	int			 rc;

	if (n <= JR_PAGE_BYTES) {
		if (s->bytes + n > JR_PAGE_BYTES && jr_flush(s) != 0) {
			json_object_put(o);
			return -1;
		}
		json_object_array_add(s->page, o);
		s->bytes += n;
		return 0;
	}
	snprintf(key, sizeof key, "%s", json_get_str(o, "key"));
	comments = json_object_get(json_get(o, "comments"));
	changes = json_object_get(json_get(o, "changes"));
	json_object_object_add(o, "comments", json_object_new_array());
	json_object_object_add(o, "changes", json_object_new_array());
	if ((n = strlen(json_object_to_json_string(o))) > JR_PAGE_BYTES) {
		snprintf(s->why, s->len, "%s без комментариев и журнала — %zu байт, больше, чем "
		    "хаб принимает за запрос (%d)", key, n, JR_PAGE_BYTES);
		rc = -1;
	} else {
		one = json_object_new_array();
		json_object_array_add(one, json_object_get(o));
		rc = jr_flush(s) != 0 || jr_post(s, "issues", one) != 0 ||
		    jr_more(s, key, "comments", comments) != 0 ||
		    jr_more(s, key, "changes", changes) != 0 ? -1 : 0;
	}
	json_object_put(comments);
	json_object_put(changes);
	json_object_put(o);
	return rc;
}

/* Appends the name of status st (an object of /rest/api/2/status) to names. */
static void
jr_add_name(struct json_object *names, struct json_object *st)
{
	if (json_get_str(st, "name") != NULL)
		json_object_array_add(names, json_object_new_string(json_get_str(st, "name")));
}

/* The board's type, columns and sprints, as the hub's project part; NULL with why. */
static struct json_object *
jr_board(struct jira_backend *jb, uint64_t board, char *why, size_t len)
{
	struct json_object	*p, *o = NULL, *st = NULL, *cols, *list, *c, *sts, *names, *s;
	char			 path[200];
	size_t			 i, j, n;

	snprintf(path, sizeof path, "/rest/agile/1.0/board/%llu", (unsigned long long)board);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		return NULL;
	p = json_object_new_object();
	jb_add(p, "board_type", json_get_str(o, "type"));
	json_object_put(o);
	snprintf(path, sizeof path, "/rest/agile/1.0/board/%llu/configuration",
	    (unsigned long long)board);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0 ||
	    jb_call(jb, "GET", "/rest/api/2/status", NULL, &st, why, len) != 0)
		goto fail;
	/* a column's statuses come as ids: their names from /status */
	cols = json_object_new_array();
	list = json_get(json_get(o, "columnConfig"), "columns");
	for (i = 0; json_object_is_type(list, json_type_array) &&
	    i < json_object_array_length(list); i++) {
		c = json_object_new_object();
		jb_add(c, "name", json_get_str(json_object_array_get_idx(list, i), "name"));
		sts = json_get(json_object_array_get_idx(list, i), "statuses");
		names = json_object_new_array();
		for (j = 0; json_object_is_type(sts, json_type_array) &&
		    j < json_object_array_length(sts); j++) {
			for (n = 0; json_object_is_type(st, json_type_array) &&
			    n < json_object_array_length(st); n++)
				if (json_get_str(json_object_array_get_idx(st, n), "id") != NULL &&
				    json_get_str(json_object_array_get_idx(sts, j), "id") != NULL &&
				    strcmp(json_get_str(json_object_array_get_idx(st, n), "id"),
				    json_get_str(json_object_array_get_idx(sts, j), "id")) == 0)
					jr_add_name(names, json_object_array_get_idx(st, n));
		}
		json_object_object_add(c, "statuses", names);
		json_object_array_add(cols, c);
	}
	json_object_object_add(p, "columns", cols);
	json_object_put(o);
	json_object_put(st);
	o = st = NULL;
	list = json_object_new_array();
	json_object_object_add(p, "sprints", list);
	if (jb_sprints(jb, board, &o, why, len) != 0)
		goto fail;
	for (i = 0; i < json_object_array_length(o); i++) {
		s = json_object_array_get_idx(o, i);
		if (json_get_str(s, "name") == NULL)
			continue;
		c = json_object_new_object();
		jb_add(c, "name", json_get_str(s, "name"));
		jb_add(c, "state", json_get_str(s, "state"));
		jb_add(c, "goal", json_get_str(s, "goal"));
		jb_add_day(c, "start", json_get_str(s, "startDate"));
		jb_add_day(c, "end", json_get_str(s, "endDate"));
		json_object_array_add(list, c);
	}
	json_object_put(o);
	return p;
fail:
	json_object_put(o);
	json_object_put(st);
	json_object_put(p);
	return NULL;
}

/* The number member name of o, -1 when it is not one. */
static int64_t
jr_count(struct json_object *o, const char *name)
{
	struct json_object	*v = json_get(o, name);

	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

/*
 * Issue ji of a search, whose comments and changelog Jira's search caps
 * (50 and 100 with their totals): the rest read, the comments a page at a
 * time, the changelog with the issue alone.  0, or -1 with why.
 */
static int
jr_complete(struct jira_backend *jb, struct json_object *ji, char *why, size_t len)
{
	struct json_object	*f = json_get(ji, "fields"), *c = json_get(f, "comment");
	struct json_object	*list = json_get(c, "comments"), *o = NULL, *more;
	const char		*key = json_get_str(ji, "key");
	char			 path[300];
	size_t			 i, n;

	if (key == NULL || strlen(key) > 100 || strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(key))
		return 0;
	while (json_object_is_type(list, json_type_array) &&
	    (int64_t)json_object_array_length(list) < jr_count(c, "total")) {
		snprintf(path, sizeof path, "/rest/api/2/issue/%s/comment?startAt=%zu&maxResults=100",
		    key, json_object_array_length(list));
		if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
			return -1;
		more = json_get(o, "comments");
		n = json_object_is_type(more, json_type_array) ? json_object_array_length(more) : 0;
		for (i = 0; i < n; i++)
			json_object_array_add(list, json_object_get(json_object_array_get_idx(more, i)));
		json_object_put(o);
		o = NULL;
		if (n == 0)
			break;
	}
	c = json_get(ji, "changelog");
	if (!json_object_is_type(json_get(c, "histories"), json_type_array) ||
	    (int64_t)json_object_array_length(json_get(c, "histories")) >= jr_count(c, "total"))
		return 0;
	snprintf(path, sizeof path, "/rest/api/2/issue/%s?expand=changelog&fields=none", key);
	if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
		return -1;
	if (json_object_is_type(json_get(json_get(o, "changelog"), "histories"), json_type_array))
		json_object_object_add(ji, "changelog", json_object_get(json_get(o, "changelog")));
	json_object_put(o);
	return 0;
}

/* The search's JQL for the project's issues (keys: only those), escaped for a query. */
static char *
jr_jql(struct jira_backend *jb, const char *label, struct json_object *keys)
{
	char	*jql = NULL, *esc, *q;
	size_t	 i, at, cap = 200;

	if (json_object_is_type(keys, json_type_array))
		cap += json_object_array_length(keys) * 40;
	if ((jql = malloc(cap)) == NULL)
		return NULL;
	/* labels and keys are checked by the hub: [A-Z][A-Z0-9_]*, KEY-123 */
	at = (size_t)snprintf(jql, cap, "labels = \"%s\"", label);
	for (i = 0; json_object_is_type(keys, json_type_array) &&
	    i < json_object_array_length(keys) && at < cap; i++)
		at += (size_t)snprintf(jql + at, cap - at, "%s%s", i == 0 ? " AND key in (" : ", ",
		    json_object_get_string(json_object_array_get_idx(keys, i)));
	if (json_object_is_type(keys, json_type_array) && json_object_array_length(keys) > 0 &&
	    at < cap)
		at += (size_t)snprintf(jql + at, cap - at, ")");
	if (at < cap)
		snprintf(jql + at, cap - at, " ORDER BY Rank ASC");
	esc = jb->cl->easy_escape(jb->curl, jql, (int)strlen(jql));
	free(jql);
	q = esc != NULL ? strdup(esc) : NULL;
	if (esc != NULL)
		jb->cl->free(esc);
	return q;
}

int
jb_refresh(const struct hub_client *hub, struct jira_backend *jb, struct json_object *cmd,
    struct json_object **result, char *why, size_t len)
{
	struct json_object	*p = json_get(cmd, "params"), *keys = json_get(p, "keys"), *o = NULL;
	struct json_object	*list, *board_part, *is, *one;
	struct jr_send		 s = { 0 };
	const char		*label = json_get_str(cmd, "project");
	char			*jql = NULL, *path = NULL;
	uint64_t		 board;
	size_t			 start = 0, i, n, total = 0;
	int			 rc = -1, ranked;

	s.hub = hub;
	s.command = json_object_get_int64(json_get(cmd, "id"));
	s.handout = hub_handout(cmd);
	s.why = why;
	s.len = len;
	s.page = json_object_new_array();
	/* a refresh of some keys leaves the others' order as it was */
	ranked = !json_object_is_type(keys, json_type_array) ||
	    json_object_get_boolean(json_get(p, "full"));
	if (label == NULL) {
		snprintf(why, len, "у команды нет проекта");
		goto done;
	}
	if (jb_board(hub, label, &board, why, len) != 0 || jb_fields(jb, why, len) != 0)
		goto done;
	if (board != 0 && ((board_part = jr_board(jb, board, why, len)) == NULL ||
	    jr_post(&s, "project", board_part) != 0))
		goto done;
	if ((jql = jr_jql(jb, label, json_get(p, "full") != NULL ? NULL : keys)) == NULL)
		goto nomem;
	for (;;) {
		free(path);
		if (asprintf(&path, "/rest/api/2/search?jql=%s&startAt=%zu&maxResults=%d"
		    "&fields=*all&expand=changelog", jql, start, JR_SEARCH_PAGE) < 0) {
			path = NULL;
			goto nomem;
		}
		if (jb_call(jb, "GET", path, NULL, &o, why, len) != 0)
			goto done;
		if (!json_object_is_type((list = json_get(o, "issues")), json_type_array)) {
			snprintf(why, len, "Jira: GET /rest/api/2/search: в ответе нет issues");
			goto done;
		}
		n = json_object_array_length(list);
		for (i = 0; i < n; i++) {
			is = json_object_array_get_idx(list, i);
			if (jr_complete(jb, is, why, len) != 0)
				goto done;
			if ((one = jb_issue_json(jb, is, ranked ? (int64_t)(start + i + 1) : 0)) == NULL) {
				snprintf(why, len, "Jira: задача %s: нет id, key, summary, status или "
				    "created", json_get_str(is, "key") != NULL ?
				    json_get_str(is, "key") : "без ключа");
				goto done;
			}
			if (jr_queue(&s, one) != 0)
				goto done;
		}
		total += n;
		start += n;
		if (n == 0 || start >= (size_t)json_object_get_int64(json_get(o, "total")))
			break;
		json_object_put(o);
		o = NULL;
	}
	if (jr_flush(&s) != 0)
		goto done;
	*result = json_object_new_object();
	json_object_object_add(*result, "issues", json_object_new_int64((int64_t)total));
	rc = 0;
	goto done;
nomem:
	snprintf(why, len, "нехватка памяти");
done:
	json_object_put(s.page);
	json_object_put(o);
	free(jql);
	free(path);
	return rc;
}
