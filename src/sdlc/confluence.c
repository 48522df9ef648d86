/*
 * confluence: the wiki agent's Confluence backend (confluence.h).  The
 * tree is read breadth first from the root page: each page with
 * GET /rest/api/content/{id}?expand=body.storage,version,ancestors, its
 * children and attachments with .../child/page and .../child/attachment,
 * paged.  A page seen twice (a cycle, or one page under two parents),
 * a page deeper than the hub accepts, more pages than it accepts, and
 * any answer that is not the expected JSON end the sync failed with a
 * reason that names the page or the request; the hub keeps the old copy.
 * A page's code is the root's prefix and the page's id (DOC-98310): ids
 * never change when a page is renamed or moved, and never repeat.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "log.h"
#include "sdlc/client.h"
#include "sdlc/confluence.h"
#include "sdlc/confluence-int.h"
#include "sdlc/rest.h"
#include "sdlc/storage_md.h"
#include "store/curl_lib.h"

#define CF_ANSWER_MAX		(16L << 20)	/* bytes of one answer */
#define CF_PAGE_LIMIT		100		/* children or attachments asked for at once */
#define CF_PAGES_MAX		20000		/* pages of a copy (the hub's limit) */
#define CF_DEPTH_MAX		64		/* levels below the root (the hub's limit) */
#define CF_ID_MAX		18		/* digits of a page id */

struct cf_page {
	char	id[CF_ID_MAX + 1];
	size_t	parent;		/* index; the root: itself */
	int	depth;
};

struct cf_walk {
	const struct rest_server	*cf;
	const struct curl_lib	*cl;
	CURL			*curl;
	char			 prefix[64];	/* of the codes: DOC in confluence:DOC-98310 */
	struct cf_page		*v;
	size_t			 n, cap;
	struct json_object	*seen;		/* ids as keys */
	struct json_object	*pages, *atts;
	char			 why[700];
};

/*
 * GET path of the server: the answer's JSON object into *out, or -1 with
 * the reason (naming the request) in w->why.
 */
static int
cf_get(struct cf_walk *w, const char *path, struct json_object **out)
{
	struct curl_body	 a;
	enum json_perr		 perr;
	int			 rc = -1;

	*out = NULL;
	if (rest_get_raw(w->cl, w->curl, w->cf, path, CF_ANSWER_MAX, &a, w->why,
	    sizeof w->why) != 0)
		return -1;
	if (a.buf == NULL || (*out = json_parse_strict(a.buf, a.len, &perr)) == NULL ||
	    !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		snprintf(w->why, sizeof w->why, "Confluence: GET %.*s: ответ — не объект JSON",
		    (int)strcspn(path, "?"), path);
	} else
		rc = 0;
	free(a.buf);
	return rc;
}

/* Whether s is a page id: 1 to CF_ID_MAX digits. */
static int
cf_id_ok(const char *s)
{
	size_t	n = s != NULL ? strlen(s) : 0;

	return n > 0 && n <= CF_ID_MAX && strspn(s, "0123456789") == n;
}

/* The id member of o as a string (Confluence sends a string; a number is taken too). */
static const char *
cf_id_of(struct json_object *o, char *buf, size_t len)
{
	struct json_object	*v = json_get(o, "id");

	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0) {
		snprintf(buf, len, "%lld", (long long)json_object_get_int64(v));
		return buf;
	}
	return NULL;
}

static void
cf_code(const struct cf_walk *w, const char *id, char *out, size_t len)
{
	snprintf(out, len, "%s-%s", w->prefix, id);
}

/* Adds the page id under parent at depth to the walk; -1 with why for one seen or too deep. */
static int
cf_add(struct cf_walk *w, const char *id, size_t parent, int depth)
{
	struct cf_page	*v;

	if (!cf_id_ok(id)) {
		snprintf(w->why, sizeof w->why, "Confluence: у дочерней страницы %s id — не число",
		    w->v[parent].id);
		return -1;
	}
	if (json_object_object_get_ex(w->seen, id, NULL)) {
		snprintf(w->why, sizeof w->why, "страница %s-%s встречается в дереве дважды (под "
		    "страницей %s-%s): цикл предков или страница под двумя родителями", w->prefix, id,
		    w->prefix, w->v[parent].id);
		return -1;
	}
	if (depth > CF_DEPTH_MAX) {
		snprintf(w->why, sizeof w->why, "страница %s-%s: глубже %d уровней от корня",
		    w->prefix, id, CF_DEPTH_MAX);
		return -1;
	}
	if (w->n >= CF_PAGES_MAX) {
		snprintf(w->why, sizeof w->why, "в дереве больше %d страниц (страница %s-%s и "
		    "дальше)", CF_PAGES_MAX, w->prefix, id);
		return -1;
	}
	if (w->n == w->cap) {
		if ((v = realloc(w->v, (w->cap * 2 + 16) * sizeof *v)) == NULL) {
			snprintf(w->why, sizeof w->why, "нехватка памяти");
			return -1;
		}
		w->v = v;
		w->cap = w->cap * 2 + 16;
	}
	snprintf(w->v[w->n].id, sizeof w->v[w->n].id, "%s", id);
	w->v[w->n].parent = w->n == 0 ? 0 : parent;
	w->v[w->n].depth = depth;
	w->n++;
	json_object_object_add(w->seen, id, NULL);
	return 0;
}

/*
 * The results of a paged listing what (child/page or child/attachment) of
 * page i, each handed to fn.  0, or -1 with why.
 */
static int
cf_list(struct cf_walk *w, size_t i, const char *what,
    int (*fn)(struct cf_walk *w, size_t i, struct json_object *item))
{
	struct json_object	*o = NULL, *results;
	char			 path[200];
	size_t			 start = 0, k, n;
	int			 rc = -1;

	for (;;) {
		snprintf(path, sizeof path, "/rest/api/content/%s/%s?limit=%d&start=%zu",
		    w->v[i].id, what, CF_PAGE_LIMIT, start);
		if (cf_get(w, path, &o) != 0)
			goto done;
		results = json_get(o, "results");
		if (!json_object_is_type(results, json_type_array)) {
			snprintf(w->why, sizeof w->why, "Confluence: GET /rest/api/content/%s/%s: "
			    "в ответе нет results", w->v[i].id, what);
			goto done;
		}
		n = json_object_array_length(results);
		for (k = 0; k < n; k++)
			if (fn(w, i, json_object_array_get_idx(results, k)) != 0)
				goto done;
		/* a server caps limit as it likes: _links.next says more are left */
		if (n == 0 || json_get(json_get(o, "_links"), "next") == NULL)
			break;
		start += n;
		json_object_put(o);
		o = NULL;
	}
	rc = 0;
done:
	json_object_put(o);
	return rc;
}

static int
cf_child(struct cf_walk *w, size_t i, struct json_object *item)
{
	char		 buf[32];
	const char	*id = cf_id_of(item, buf, sizeof buf);

	return cf_add(w, id != NULL ? id : "", i, w->v[i].depth + 1);
}

static int
cf_attachment(struct cf_walk *w, size_t i, struct json_object *item)
{
	struct json_object	*a, *ext = json_get(item, "extensions"), *size, *mime;
	const char		*name = json_get_str(item, "title");
	char			 code[100], *esc = NULL, *src = NULL;

	size = json_get(ext, "fileSize");
	mime = json_get(ext, "mediaType");
	if (name == NULL) {
		snprintf(w->why, sizeof w->why, "Confluence: у вложения страницы %s-%s нет title",
		    w->prefix, w->v[i].id);
		return -1;
	}
	if (json_object_array_length(w->atts) >= CF_PAGES_MAX) {
		snprintf(w->why, sizeof w->why, "в дереве больше %d вложений (страница %s-%s)",
		    CF_PAGES_MAX, w->prefix, w->v[i].id);
		return -1;
	}
	cf_code(w, w->v[i].id, code, sizeof code);
	if ((esc = w->cl->easy_escape(w->curl, name, (int)strlen(name))) == NULL ||
	    asprintf(&src, "%s/download/attachments/%s/%s", w->cf->url, w->v[i].id, esc) < 0) {
		src = NULL;
		if (esc != NULL)
			w->cl->free(esc);
		snprintf(w->why, sizeof w->why, "нехватка памяти");
		return -1;
	}
	w->cl->free(esc);
	a = json_object_new_object();
	json_object_object_add(a, "page", json_object_new_string(code));
	json_object_object_add(a, "name", json_object_new_string(name));
	json_object_object_add(a, "size", json_object_new_int64(
	    json_object_is_type(size, json_type_int) && json_object_get_int64(size) > 0 ?
	    json_object_get_int64(size) : 0));
	if (json_object_is_type(mime, json_type_string))
		json_object_object_add(a, "mime", json_object_get(mime));
	json_object_object_add(a, "source", json_object_new_string(src));
	json_object_array_add(w->atts, a);
	free(src);
	return 0;
}

/* Page i: its text as Markdown, into w->pages; its attachments and children listed. */
static int
cf_page(struct cf_walk *w, size_t i)
{
	struct json_object	*o = NULL, *p, *anc, *v;
	const char		*title, *storage, *id;
	char			 path[200], code[100], buf[32], *md = NULL, *src = NULL;
	size_t			 k, md_len;
	struct err		 e;
	int			 rc = -1;

	snprintf(path, sizeof path, "/rest/api/content/%s?expand=body.storage,version,ancestors",
	    w->v[i].id);
	if (cf_get(w, path, &o) != 0)
		goto done;
	title = json_get_str(o, "title");
	storage = json_get_str(json_get(json_get(o, "body"), "storage"), "value");
	id = cf_id_of(o, buf, sizeof buf);
	if (title == NULL || storage == NULL || id == NULL || strcmp(id, w->v[i].id) != 0) {
		snprintf(w->why, sizeof w->why, "Confluence: GET /rest/api/content/%s: нет id, title "
		    "или body.storage.value, или id не тот", w->v[i].id);
		goto done;
	}
	anc = json_get(o, "ancestors");
	for (k = 0; json_object_is_type(anc, json_type_array) &&
	    k < json_object_array_length(anc); k++) {
		v = json_object_array_get_idx(anc, k);
		if ((id = cf_id_of(v, buf, sizeof buf)) != NULL && strcmp(id, w->v[i].id) == 0) {
			snprintf(w->why, sizeof w->why, "страница %s-%s — среди своих предков "
			    "(ancestors): цикл предков", w->prefix, w->v[i].id);
			goto done;
		}
	}
	err_clear(&e);
	if (storage_markdown(&md, &md_len, storage,
	    json_object_get_string_len(json_get(json_get(json_get(o, "body"), "storage"), "value")),
	    &e) != 0) {
		snprintf(w->why, sizeof w->why, "страница %s-%s: текст не преобразовать в Markdown "
		    "(%s)", w->prefix, w->v[i].id, e.msg);
		goto done;
	}
	if (asprintf(&src, "%s/pages/viewpage.action?pageId=%s", w->cf->url, w->v[i].id) < 0) {
		src = NULL;
		snprintf(w->why, sizeof w->why, "нехватка памяти");
		goto done;
	}
	p = json_object_new_object();
	cf_code(w, w->v[i].id, code, sizeof code);
	json_object_object_add(p, "code", json_object_new_string(code));
	json_object_object_add(p, "title", json_object_new_string(title));
	if (i != 0) {
		cf_code(w, w->v[w->v[i].parent].id, code, sizeof code);
		json_object_object_add(p, "parent", json_object_new_string(code));
	} else
		json_object_object_add(p, "parent", NULL);
	json_object_object_add(p, "source", json_object_new_string(src));
	json_object_object_add(p, "body", json_object_new_string_len(md, (int)md_len));
	json_object_array_add(w->pages, p);
	if (cf_list(w, i, "child/attachment", cf_attachment) != 0 ||
	    cf_list(w, i, "child/page", cf_child) != 0)
		goto done;
	rc = 0;
done:
	free(md);
	free(src);
	json_object_put(o);
	return rc;
}

/* Splits "confluence:DOC-98310" into prefix and id; -1 when root is not one. */
static int
cf_root_parse(struct cf_walk *w, const char *root, char *id, size_t len)
{
	const char	*code, *dash;

	if (strncmp(root, "confluence:", 11) != 0)
		return -1;
	code = root + 11;
	if ((dash = strrchr(code, '-')) == NULL || dash == code ||
	    (size_t)(dash - code) >= sizeof w->prefix || !cf_id_ok(dash + 1) ||
	    strspn(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
	    (size_t)(dash - code) || !((*code >= 'A' && *code <= 'Z') ||
	    (*code >= 'a' && *code <= 'z')))
		return -1;
	snprintf(w->prefix, sizeof w->prefix, "%.*s", (int)(dash - code), code);
	snprintf(id, len, "%s", dash + 1);
	return 0;
}

int
confluence_run(const struct hub_client *hub, const struct rest_server *cf,
    struct json_object *cmd)
{
	struct cf_walk		 w;
	struct json_object	*doc = NULL;
	struct err		 e;
	int64_t		 id = json_object_get_int64(json_get(cmd, "id"));
	const char		*label = json_get_str(cmd, "project"), *text;
	char			*root = NULL, first[CF_ID_MAX + 1], said[800];
	size_t			 i;
	int			 rc = -1;

	memset(&w, 0, sizeof w);
	w.cf = cf;
	err_clear(&e);
	if ((w.cl = curl_lib(&e)) == NULL || (w.curl = w.cl->easy_init()) == NULL) {
		log_error("agent: %s", w.cl == NULL ? e.msg : "cannot initialise libcurl");
		return -1;
	}
	w.seen = json_object_new_object();
	w.pages = json_object_new_array();
	w.atts = json_object_new_array();
	if (label == NULL) {
		log_error("agent: command %lld has no project", (long long)id);
		goto done;
	}
	if ((rc = confluence_hub_root(hub, label, &root, w.why, sizeof w.why)) == -2) {
		log_error("agent: command %lld: %s", (long long)id, w.why);
		rc = -1;
		goto done;
	}
	if (rc != 0)
		goto failed;
	if (cf_root_parse(&w, root, first, sizeof first) != 0) {
		snprintf(w.why, sizeof w.why, "корень вики %s не называет страницу Confluence: нужен "
		    "корень confluence:<код>, например confluence:DOC-98310", root);
		goto failed;
	}
	if (cf_add(&w, first, 0, 0) != 0)
		goto failed;
	for (i = 0; i < w.n; i++)
		if (cf_page(&w, i) != 0)
			goto failed;
	doc = json_object_new_object();
	json_object_object_add(doc, "pages", json_object_get(w.pages));
	json_object_object_add(doc, "attachments", json_object_get(w.atts));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	rc = confluence_hub_upload(hub, id, hub_handout(cmd), root, text != NULL ? text : "", said,
	    sizeof said);
	if (rc == 0) {
		log_info("agent: command %lld (wiki_sync, %zu pages from %s): %s", (long long)id,
		    w.n, cf->url, said);
		rc = 1;
	} else
		log_error("agent: command %lld: %s", (long long)id, said);
	goto done;
failed:
	log_info("agent: command %lld (wiki_sync): failed: %s", (long long)id, w.why);
	rc = confluence_hub_fail(hub, id, hub_handout(cmd), root != NULL ? root : "", w.why) == 0 ?
	    1 : -1;
done:
	json_object_put(doc);
	free(root);
	free(w.v);
	json_object_put(w.seen);
	json_object_put(w.pages);
	json_object_put(w.atts);
	w.cl->easy_cleanup(w.curl);
	return rc;
}
