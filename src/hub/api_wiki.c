/* api_wiki: the hub API's wiki routes (wiki.h): tree, pages, search, sync, status, root. */
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
#include "hub/texts.h"
#include "hub/wiki.h"
#include "store/db.h"
#include "store/db_wiki.h"

#define WIKI_DEPTH_DEFAULT	2
#define WIKI_PIECE		20000	/* characters of a page an answer carries at most */
#define WIKI_SEARCH_DEFAULT	10
#define WIKI_SEARCH_MAX		50
#define WIKI_ROOT_MAX		400

/* A number query value in [min, max], def when absent; -1 after refusing it. */
static int64_t
wiki_number(const char *query, const char *name, int64_t def, int64_t min, int64_t max,
    struct core_response *resp)
{
	char		 buf[32], *end, msg[200];
	const char	*s;
	long long	 v;
	int		 bad = 0;

	if ((s = hub_query(query, name, buf, sizeof buf, &bad)) == NULL && !bad)
		return def;
	v = s != NULL ? strtoll(s, &end, 10) : 0;
	if (bad || s == NULL || *end != '\0' || v < min || v > max) {
		snprintf(msg, sizeof msg, "%s — целое число от %lld до %lld", name, (long long)min,
		    (long long)max);
		hub_refuse_msg(resp, 422, msg);
		return -1;
	}
	return v;
}

/* The project query value into buf; NULL after refusing a request without one. */
static const char *
wiki_project(const char *query, char *buf, size_t len, struct core_response *resp)
{
	const char	*p;
	int		 bad = 0;

	if ((p = hub_query(query, "project", buf, len, &bad)) == NULL)
		hub_refuse(resp, bad ? 400 : 422, bad ? HT_HUB_BAD_BODY : HT_HUB_NO_PROJECT_ARG,
		    "query");
	return p;
}

/* A store failure: 404 for a project the hub lacks, else hub_failed. */
static void
wiki_failed(struct core_response *resp, int rc, const struct err *e, const char *label)
{
	if (rc == ERR_NOTFOUND)
		hub_refuse(resp, 404, HT_HUB_UNKNOWN_PROJECT, label);
	else
		hub_failed(resp, rc, e);
}

static void
wiki_tree_get(struct db *db, const char *query, struct core_response *resp)
{
	char		 project[HUB_QUERY_MAX], code[HUB_QUERY_MAX], msg[300];
	const char	*p, *c;
	struct json_object *out;
	int64_t		 depth;
	struct err	 e;
	int		 rc, bad = 0;

	if ((p = wiki_project(query, project, sizeof project, resp)) == NULL ||
	    (depth = wiki_number(query, "depth", WIKI_DEPTH_DEFAULT, 1,
	    WIKI_TREE_DEPTH_MAX, resp)) < 0)
		return;
	c = hub_query(query, "code", code, sizeof code, &bad);
	err_clear(&e);
	if ((rc = wiki_tree(db, &out, p, c, (int)depth, &e)) == ERR_NOTFOUND) {
		/* the project is there (wiki_tree checks it first): the page is not */
		if (c != NULL)
			snprintf(msg, sizeof msg, "страницы %.*s нет в копии вики проекта %.*s",
			    hub_utf8_prefix(c, 64), c, hub_utf8_prefix(p, 64), p);
		else
			snprintf(msg, sizeof msg, "вики проекта %.*s пуста: sync",
			    hub_utf8_prefix(p, 64), p);
		hub_refuse_msg(resp, 404, msg);
		return;
	}
	if (rc != 0) {
		wiki_failed(resp, rc, &e, p);
		return;
	}
	core_response_json(resp, 200, out);
}

/* GET /hub/wiki/pages/{code} and GET /hub/wiki/pages?title= */
static void
wiki_page_route(struct db *db, const char *code, const char *query, struct core_response *resp)
{
	char			 project[HUB_QUERY_MAX], title[HUB_QUERY_MAX], msg[300];
	const char		*p, *t;
	struct json_object	*out = NULL, *c;
	int64_t			 offset, limit;
	struct err		 e;
	int			 rc, bad = 0;

	if ((p = wiki_project(query, project, sizeof project, resp)) == NULL ||
	    (offset = wiki_number(query, "offset", 0, 0, INT32_MAX, resp)) < 0 ||
	    (limit = wiki_number(query, "limit", WIKI_PIECE, 1, WIKI_PIECE, resp)) < 0)
		return;
	err_clear(&e);
	if (code == NULL) {
		if ((t = hub_query(query, "title", title, sizeof title, &bad)) == NULL) {
			hub_refuse_msg(resp, 422, "нужен code страницы или её title");
			return;
		}
		if ((rc = wiki_title_find(db, &out, p, t, &e)) != 0) {
			wiki_failed(resp, rc, &e, p);
			return;
		}
		if ((c = json_object_object_get(out, "code")) == NULL) {
			core_response_json(resp, 200, out);
			return;
		}
		snprintf(title, sizeof title, "%s", json_object_get_string(c));
		json_object_put(out);
		code = title;
	}
	rc = wiki_page_get(db, &out, p, code, (uint64_t)offset, (uint64_t)limit, &e);
	if (rc == ERR_TOOBIG) {
		snprintf(msg, sizeof msg, "offset %lld за концом страницы %.*s: в ней %s символов",
		    (long long)offset, hub_utf8_prefix(code, 64), code,
		    json_object_get_string(json_object_object_get(out,
		    "chars")));
		json_object_put(out);
		hub_refuse_msg(resp, 422, msg);
		return;
	}
	if (rc == ERR_NOTFOUND) {
		snprintf(msg, sizeof msg, "страницы %.*s нет в копии вики проекта %.*s",
		    hub_utf8_prefix(code, 64), code, hub_utf8_prefix(p, 64), p);
		hub_refuse_msg(resp, 404, msg);
		return;
	}
	if (rc != 0) {
		wiki_failed(resp, rc, &e, p);
		return;
	}
	core_response_json(resp, 200, out);
}

/*
 * The words of a search (up to 3, without boolean operators) into words,
 * their text in buf; returns whether q uses boolean mode (a word starting
 * with + - " ( ) < > ~, or ending with *).
 */
static int
wiki_words(const char *q, char *buf, size_t len, const char *words[3])
{
	size_t		 o = 0, n = 0;
	int		 boolean = 0;
	const char	*p = q, *s;

	words[0] = words[1] = words[2] = NULL;
	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (strchr("+-\"()<>~", *p) != NULL)
			boolean = 1;
		while (*p != '\0' && strchr("+-\"()<>~", *p) != NULL)
			p++;
		s = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '"' && *p != ')')
			p++;
		if (p > s && p[-1] == '*')
			boolean = 1;
		if (n < 3 && p > s && o + (size_t)(p - s) + 1 < len) {
			memcpy(buf + o, s, (size_t)(p - s));
			buf[o + (size_t)(p - s) - (p[-1] == '*')] = '\0';
			if (buf[o] != '\0')
				words[n++] = buf + o;
			o += (size_t)(p - s) + 1;
		}
		while (*p == '"' || *p == ')')
			p++;
	}
	return boolean;
}

static void
wiki_search_get(struct db *db, const char *query, struct core_response *resp)
{
	char			 project[HUB_QUERY_MAX], q[HUB_QUERY_MAX], words_buf[HUB_QUERY_MAX];
	const char		*p, *text, *words[3];
	struct json_object	*out;
	int64_t			 limit;
	struct err		 e;
	int			 rc, bad = 0, boolean;

	if ((p = wiki_project(query, project, sizeof project, resp)) == NULL ||
	    (limit = wiki_number(query, "limit", WIKI_SEARCH_DEFAULT, 1, WIKI_SEARCH_MAX,
	    resp)) < 0)
		return;
	if ((text = hub_query(query, "q", q, sizeof q, &bad)) == NULL) {
		hub_refuse_msg(resp, bad ? 400 : 422, bad ? "q длиннее 1024 байт" :
		    "нужен q: что искать");
		return;
	}
	boolean = wiki_words(text, words_buf, sizeof words_buf, words);
	err_clear(&e);
	if ((rc = wiki_search(db, &out, p, text, boolean, words, (int)limit, &e)) != 0) {
		if (rc == ERR_DB)
			hub_refuse_msg(resp, 422, "запрос поиска не разобран: проверьте кавычки и "
			    "операторы");
		else
			wiki_failed(resp, rc, &e, p);
		return;
	}
	core_response_json(resp, 200, out);
}

static void
wiki_sync_post(struct db *db, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct json_object	*out;
	const char		*p, *author;
	struct err		 e;
	int			 rc, present;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	if (body == NULL || (p = hub_member(body, "project", &present)) == NULL) {
		hub_refuse(resp, 422, HT_HUB_NO_PROJECT_ARG);
		return;
	}
	author = hub_member(body, "author", &present);
	if (author == NULL || author[0] == '\0' || strlen(author) > 64)
		author = "api";
	err_clear(&e);
	if ((rc = wiki_sync_queue(db, &out, p, author, &e)) == ERR_INVALID) {
		hub_refuse(resp, 409, HT_WIKI_NO_ROOT, p);
		return;
	}
	if (rc != 0) {
		wiki_failed(resp, rc, &e, p);
		return;
	}
	core_response_json(resp, json_object_get_boolean(json_object_object_get(out, "queued")) ?
	    201 : 200, out);
}

int
hub_wiki_root_ok(struct db *db, const struct principal *who, const char *root,
    struct core_response *resp)
{
	const char	*owner, *name, *branch, *code;
	char		 copy[WIKI_ROOT_MAX + 1], msg[600];
	struct db_repo	 repo;
	struct err	 e;
	int		 rc;

	if (root == NULL || strlen(root) > WIKI_ROOT_MAX ||
	    snprintf(copy, sizeof copy, "%s", root) < 0 ||
	    hub_wiki_root_parse(copy, &owner, &name, &branch, &code) != 0) {
		snprintf(msg, sizeof msg, "wiki_root — код страницы (DOC-1), "
		    "<владелец>/<репозиторий>[@<ветка>]:<код> или confluence:<код>, а не «%.*s»",
		    root != NULL ? hub_utf8_prefix(root, 300) : 0, root != NULL ? root : "");
		hub_refuse_msg(resp, 422, msg);
		return 0;
	}
	if (owner == NULL || strcmp(owner, HUB_WIKI_CONFLUENCE) == 0)
		return 1;
	err_clear(&e);
	memset(&repo, 0, sizeof repo);
	rc = db_repo_find_visible(db, &repo, who->user_id, owner, name, &e);
	db_repo_release(&repo);
	if (rc == ERR_NOTFOUND || rc == ERR_INVALID) {
		snprintf(msg, sizeof msg, "репозитория %.*s/%.*s нет или он недоступен токену",
		    hub_utf8_prefix(owner, 64), owner, hub_utf8_prefix(name, 100), name);
		hub_refuse_msg(resp, 422, msg);
		return 0;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return 0;
	}
	return 1;
}

void
hub_wiki_root_set(struct db *db, const struct principal *who, const char *label,
    struct json_object *body, struct core_response *resp)
{
	struct json_object	*out;
	const char		*root, *author;
	struct err		 e;
	int			 rc, present;

	if (!(who->scopes & AUTH_SCOPE_WRITE)) {
		hub_refuse(resp, 403, HT_HUB_SCOPE, "write");
		return;
	}
	root = body != NULL ? hub_member(body, "wiki_root", &present) : NULL;
	if (!hub_wiki_root_ok(db, who, root, resp))
		return;
	author = hub_member(body, "author", &present);
	if (author == NULL || author[0] == '\0' || strlen(author) > 64)
		author = "api";
	err_clear(&e);
	if ((rc = wiki_root_set(db, &out, label, root, author, who->user_id, &e)) != 0) {
		wiki_failed(resp, rc, &e, label);
		return;
	}
	log_info("hub: wiki root of %s set to %s by %s (%s)", label, root, who->login, author);
	core_response_json(resp, 200, out);
}

static void
wiki_status_get(struct db *db, const char *query, struct core_response *resp)
{
	char			 project[HUB_QUERY_MAX];
	const char		*p;
	struct json_object	*out;
	struct err		 e;
	int			 rc;

	if ((p = wiki_project(query, project, sizeof project, resp)) == NULL)
		return;
	err_clear(&e);
	if ((rc = wiki_status(db, &out, p, &e)) != 0) {
		wiki_failed(resp, rc, &e, p);
		return;
	}
	core_response_json(resp, 200, out);
}

void
hub_wiki_route(struct db *db, const struct principal *who, const char *method,
    const char *path, const char *query, struct json_object *body, struct core_response *resp)
{
	const char	*rest = path + 5;
	int		 get = strcmp(method, "GET") == 0;

	if (strcmp(rest, "sync") == 0) {
		if (strcmp(method, "POST") == 0)
			wiki_sync_post(db, who, body, resp);
		else {
			core_response_header(resp, "Allow", "POST");
			hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		}
		return;
	}
	if (strncmp(rest, "attachments/", 12) == 0) {
		hub_wiki_attachments(db, who, method, path, rest + 12, query, resp);
		return;
	}
	if (!get) {
		core_response_header(resp, "Allow", "GET");
		hub_refuse(resp, 405, HT_HUB_METHOD, method, path);
		return;
	}
	if (strcmp(rest, "tree") == 0)
		wiki_tree_get(db, query, resp);
	else if (strcmp(rest, "pages") == 0)
		wiki_page_route(db, NULL, query, resp);
	else if (strncmp(rest, "pages/", 6) == 0 && hub_wiki_code_ok(rest + 6))
		wiki_page_route(db, rest + 6, query, resp);
	else if (strcmp(rest, "search") == 0)
		wiki_search_get(db, query, resp);
	else if (strcmp(rest, "status") == 0)
		wiki_status_get(db, query, resp);
	else
		hub_refuse(resp, 404, HT_HUB_NO_PATH, method, path);
}
