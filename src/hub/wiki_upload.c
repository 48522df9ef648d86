/*
 * wiki_upload: a wiki copy an agent read from a source the hub cannot
 * reach (a Confluence-style server), sent in parts (POST
 * /hub/agent/wiki_pages; doc/sdlc.md, "The Confluence backend").  The
 * copy is one JSON document {pages: [{code, title, parent, source, body}],
 * attachments: [{page, name, size, mime, source}]}; the agent cuts its
 * text into parts that each fit a request body (max_body), the hub keeps
 * them in order (each of the command's current hand-out), and the last
 * part has the whole document parsed and checked by the git backend's own
 * checks (wiki_copy.c) before the one transaction that loads it.  The
 * agent is trusted no more than a git repository: its copy passes every
 * check a git copy does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "err.h"
#include "json.h"
#include "log.h"
#include "core_io.h"
#include "hub/api-int.h"
#include "hub/wiki.h"
#include "hub/wiki-int.h"
#include "store/db.h"
#include "store/db_agent.h"
#include "store/db_batches.h"
#include "store/db_wiki.h"

/* bytes of the document an upload may hold: the pages' limit and room for the JSON around them */
#define WIKI_UPLOAD_MAX		((size_t)WIKI_TOTAL_BYTES_MAX + (32u << 20))
#define WIKI_ROOT_CHARS_MAX	400
#define WIKI_ERROR_MAX		600	/* characters of an agent's reason kept */
#define WIKI_PART_MAX		(4u << 20)	/* bytes of one part, whatever max_body allows */

/* The string member name of o (NULL when absent, not a string, or holding a NUL). */
static const char *
wiki_str(struct json_object *o, const char *name)
{
	struct json_object	*v = json_get(o, name);

	if (v == NULL || !json_object_is_type(v, json_type_string) || json_str_has_nul(v))
		return NULL;
	return json_object_get_string(v);
}

/* Whether o's member name is absent or null. */
static int
wiki_absent(struct json_object *o, const char *name)
{
	struct json_object	*v;

	return !json_object_object_get_ex(o, name, &v) || v == NULL;
}

/* The pages of the document into c (names in *names, freed by the caller); 0 or -1 with why. */
static int
wiki_upload_pages(struct wiki_copy *c, struct json_object *pages, char ***names, char *why,
    size_t len)
{
	struct json_object	*o;
	struct wiki_file	*f;
	const char		*code, *title, *parent, *source, *body;
	size_t			 i, n = json_object_array_length(pages);

	if (n > WIKI_FILES_MAX) {
		snprintf(why, len, "в копии %zu страниц, больше %d", n, WIKI_FILES_MAX);
		return -1;
	}
	if ((c->f = calloc(n + 1, sizeof *c->f)) == NULL ||
	    (*names = calloc(n + 1, sizeof **names)) == NULL) {
		snprintf(why, len, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(pages, i);
		code = wiki_str(o, "code");
		title = wiki_str(o, "title");
		parent = wiki_str(o, "parent");
		source = wiki_str(o, "source");
		body = wiki_str(o, "body");
		if (!json_object_is_type(o, json_type_object) || code == NULL || title == NULL ||
		    source == NULL || body == NULL || (parent == NULL && !wiki_absent(o, "parent"))) {
			snprintf(why, len, "копия от агента: pages[%zu] — не {code, title, parent, "
			    "source, body} строками", i);
			return -1;
		}
		f = &c->f[c->n++];
		if (asprintf(&(*names)[i], "страница %.*s", hub_utf8_prefix(code, 100), code) < 0) {
			(*names)[i] = NULL;
			snprintf(why, len, "нехватка памяти");
			return -1;
		}
		f->name = (*names)[i];
		f->code = strdup(code);
		f->title = strdup(title);
		f->parent_code = parent != NULL ? strdup(parent) : NULL;
		f->source = strdup(source);
		f->body = body;
		f->body_len = json_object_get_string_len(json_get(o, "body"));
		if (f->code == NULL || f->title == NULL || f->source == NULL ||
		    (parent != NULL && f->parent_code == NULL)) {
			snprintf(why, len, "нехватка памяти");
			return -1;
		}
		if (wiki_copy_page(c, i) != 0) {
			snprintf(why, len, "%s", c->why);
			return -1;
		}
	}
	return 0;
}

/* The attachments of the document into c, after wiki_copy_link; 0 or -1 with why. */
static int
wiki_upload_atts(struct wiki_copy *c, struct json_object *atts, char *why, size_t len)
{
	struct json_object	*o, *size;
	const char		*page, *name, *source;
	size_t			 i, n = json_object_array_length(atts), file;

	if (n > WIKI_FILES_MAX) {
		snprintf(why, len, "в копии %zu вложений, больше %d", n, WIKI_FILES_MAX);
		return -1;
	}
	if ((c->a = calloc(n + 1, sizeof *c->a)) == NULL) {
		snprintf(why, len, "нехватка памяти");
		return -1;
	}
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(atts, i);
		page = wiki_str(o, "page");
		name = wiki_str(o, "name");
		source = wiki_str(o, "source");
		size = json_get(o, "size");
		if (!json_object_is_type(o, json_type_object) || page == NULL || name == NULL ||
		    source == NULL || !json_object_is_type(size, json_type_int) ||
		    json_object_get_int64(size) < 0 ||
		    (wiki_str(o, "mime") == NULL && !wiki_absent(o, "mime"))) {
			snprintf(why, len, "копия от агента: attachments[%zu] — не {page, name, size, "
			    "mime, source}", i);
			return -1;
		}
		if ((file = wiki_copy_find(c, page)) == WIKI_NONE) {
			snprintf(why, len, "вложение %.*s: страницы %.*s нет в копии",
			    hub_utf8_prefix(name, 200), name, hub_utf8_prefix(page, 100), page);
			return -1;
		}
		c->a[c->n_a].file = file;
		c->a[c->n_a].name = name;
		c->a[c->n_a].size = (uint64_t)json_object_get_int64(size);
		c->a[c->n_a].mime = wiki_str(o, "mime");
		if ((c->a[c->n_a].source = strdup(source)) == NULL) {
			snprintf(why, len, "нехватка памяти");
			return -1;
		}
		c->n_a++;
	}
	return 0;
}

/* The SHA-1 of text in hex: the revision of an uploaded copy. */
static void
wiki_upload_digest(const char *text, size_t len, char out[41])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned	n = 0, i;

	out[0] = '\0';
	if (EVP_Digest(text, len, md, &n, EVP_sha1(), NULL) != 1)
		return;
	for (i = 0; i < n && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/*
 * The whole uploaded copy of command, read back, parsed and checked into
 * c, ordered from the root code; *docp the parsed document the pages'
 * texts point into (the caller puts it after the load).  0, or -1 with
 * why; revision its digest.
 */
static int
wiki_upload_check(struct db *db, uint64_t command, const char *root, struct wiki_copy *c,
    char ***names, struct json_object **docp, char *revision, char *why, size_t len)
{
	struct json_object	*doc = NULL, *pages, *atts;
	const char		*owner, *name, *branch, *code;
	char			*text = NULL, copy[WIKI_ROOT_CHARS_MAX * 4 + 1];
	size_t			 n, r;
	enum json_perr		 perr;
	struct err		 e;
	int			 rc = -1;

	err_clear(&e);
	snprintf(copy, sizeof copy, "%s", root);
	if (hub_wiki_root_parse(copy, &owner, &name, &branch, &code) != 0 || owner == NULL ||
	    strcmp(owner, HUB_WIKI_CONFLUENCE) != 0) {
		snprintf(why, len, "корень вики %s не называет страницу Confluence: нужен корень "
		    "confluence:<код>, например confluence:DOC-98310", root);
		goto done;
	}
	if (wiki_upload_read(db, command, &text, &n, &e) != 0) {
		log_error("hub: wiki upload of command %llu: %s", (unsigned long long)command, e.msg);
		snprintf(why, len, "копию от агента не прочитать из базы");
		goto done;
	}
	wiki_upload_digest(text, n, revision);
	*docp = doc = json_parse_strict(text, n, &perr);
	pages = json_get(doc, "pages");
	atts = json_get(doc, "attachments");
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_is_type(pages, json_type_array) ||
	    (atts != NULL && !json_object_is_type(atts, json_type_array))) {
		snprintf(why, len, "копия от агента — не JSON {pages: [...], attachments: [...]}");
		goto done;
	}
	if (wiki_upload_pages(c, pages, names, why, len) != 0)
		goto done;
	if (wiki_copy_link(c, NULL, NULL) != 0) {
		snprintf(why, len, "%s", c->why);
		goto done;
	}
	if ((r = wiki_copy_find(c, code)) == WIKI_NONE) {
		snprintf(why, len, "страницы %s (корень вики) нет в копии от агента", code);
		goto done;
	}
	if (atts != NULL && wiki_upload_atts(c, atts, why, len) != 0)
		goto done;
	if (wiki_copy_order(c, r) != 0) {
		snprintf(why, len, "%s", c->why);
		goto done;
	}
	rc = 0;
done:
	free(text);
	return rc;
}

void
hub_wiki_pages(struct db *db, struct json_object *body, struct core_response *resp)
{
	struct json_object	*cmd = NULL, *v, *doc = NULL;
	struct wiki_copy	 c;
	char			**names = NULL, why[800] = "", revision[41] = "";
	char			 msg[200];
	const char		*label, *type, *root, *error, *text;
	struct tracker_handout	 h = { hub_agent_id(body, "handout"), 0, "" };
	uint64_t		 id = hub_agent_id(body, "command");
	int64_t			 part = -1;
	size_t			 total = 0, i;
	struct err		 e;
	int			 rc, last;

	memset(&c, 0, sizeof c);
	err_clear(&e);
	root = wiki_str(body, "root");
	error = wiki_str(body, "error");
	text = wiki_str(body, "text");
	if ((v = json_get(body, "part")) != NULL && json_object_is_type(v, json_type_int))
		part = json_object_get_int64(v);
	last = json_object_is_type(json_get(body, "last"), json_type_boolean) &&
	    json_object_get_boolean(json_get(body, "last"));
	if (id == 0 || h.handout == 0 || root == NULL || (root[0] == '\0' && error == NULL) ||
	    hub_wiki_chars(root) > WIKI_ROOT_CHARS_MAX ||
	    (error == NULL && (text == NULL || part < 0 || part > 1000000))) {
		hub_refuse_msg(resp, 422, "нужны command, root, " HUB_HANDOUT_NEEDED " и либо "
		    "error, либо part (0, 1, …), text и last");
		goto done;
	}
	if (hub_wiki_command(db, id, &cmd, &label, &type, resp) != 0)
		goto done;
	if (label == NULL || type == NULL || strcmp(type, "wiki_sync") != 0) {
		hub_refuse_msg(resp, 422, "копию вики принимает только команда wiki_sync");
		goto done;
	}
	if (error != NULL) {
		snprintf(why, sizeof why, "%.*s", hub_utf8_prefix(error, WIKI_ERROR_MAX), error);
		wiki_copy_finish(db, resp, id, h.handout, HUB_ASK_REPORT, label, root, NULL, &c,
		    why[0] != '\0' ? why : "агент не сказал причины");
		goto done;
	}
	if (strlen(text) > WIKI_PART_MAX) {
		hub_say(msg, sizeof msg, "часть больше %u байт: режьте копию мельче", WIKI_PART_MAX);
		hub_refuse_msg(resp, 413, msg);
		goto done;
	}
	rc = wiki_upload_part(db, id, &h, (unsigned)part, text, strlen(text), WIKI_UPLOAD_MAX,
	    &total, &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, HUB_ASK_PART, id, &h))
		goto done;
	if (rc == ERR_CONFLICT && !db_tx_gave_up(db)) {
		hub_say(msg, sizeof msg, "часть %lld не по порядку: начните с части 0",
		    (long long)part);
		hub_refuse_msg(resp, 409, msg);
		goto done;
	}
	if (rc == ERR_TOOBIG) {
		snprintf(why, sizeof why, "копия вики больше %zu байт: столько хаб не принимает",
		    WIKI_UPLOAD_MAX);
		wiki_copy_finish(db, resp, id, h.handout, HUB_ASK_PART, label, root, NULL, &c, why);
		goto done;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		goto done;
	}
	if (!last) {
		v = json_object_new_object();
		json_object_object_add(v, "command", json_object_new_uint64(id));
		json_object_object_add(v, "part", json_object_new_int64(part));
		json_object_object_add(v, "bytes", json_object_new_uint64(total));
		core_response_json(resp, 200, v);
		goto done;
	}
	(void)wiki_upload_check(db, id, root, &c, &names, &doc, revision, why, sizeof why);
	wiki_copy_finish(db, resp, id, h.handout, HUB_ASK_PART, label, root, revision, &c,
	    why[0] != '\0' ? why : NULL);
done:
	for (i = 0; names != NULL && i < c.n + 1; i++)
		free(names[i]);
	free(names);
	wiki_copy_free(&c);
	json_object_put(doc);
	json_object_put(cmd);
}
