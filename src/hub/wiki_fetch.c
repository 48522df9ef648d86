/*
 * wiki_fetch: the wiki's attachments in the hub API (doc/sdlc.md, "The
 * wiki"): GET /hub/wiki/attachments/{id}, POST .../{id}/fetch (a wiki_fetch
 * command for the wiki agent, unless the copy is ready or on its way),
 * GET .../{id}/content (the copy's bytes), and the git backend's end of a
 * wiki_fetch: the file at the revision of the project's last good sync.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "conf.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "hub/texts.h"
#include "hub/wiki.h"
#include "store/db_wiki.h"
#include "store/repo.h"

/* The id in "<id>" or "<id>/<what>": 0 when it is not one; *what after it ("" for none). */
static uint64_t
fetch_id(const char *rest, const char **what)
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

static void
fetch_not_found(struct core_response *resp, uint64_t id, const char *label)
{
	char	msg[200];

	snprintf(msg, sizeof msg, "вложения %llu нет в копии вики проекта %.*s — id вложений "
	    "показывает page", (unsigned long long)id, hub_utf8_prefix(label, 64), label);
	hub_refuse_msg(resp, 404, msg);
}

static void
fetch_answer(struct db *db, const char *label, uint64_t id, struct core_response *resp)
{
	struct json_object	*out, *o;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if ((rc = wiki_attachment(db, &out, label, id, &e)) == ERR_NOTFOUND)
		fetch_not_found(resp, id, label);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		o = json_object_new_object();
		json_object_object_add(o, "attachment", out);
		core_response_json(resp, 200, o);
	}
}

static void
fetch_post(struct db *db, const struct principal *who, const char *label, uint64_t id,
    struct core_response *resp)
{
	struct json_object	*out;
	struct err		 e;
	char			 msg[160];
	int			 rc;

	err_clear(&e);
	rc = wiki_fetch_queue(db, &out, label, id, who->login[0] != '\0' ? who->login : "api", &e);
	if (rc == ERR_NOTFOUND)
		fetch_not_found(resp, id, label);
	else if (rc == ERR_TOOBIG) {
		snprintf(msg, sizeof msg, "вложение %llu больше %u МБ — только в источнике вики",
		    (unsigned long long)id, WIKI_FETCH_MAX >> 20);
		hub_refuse_msg(resp, 413, msg);
	} else if (rc != 0)
		hub_failed(resp, rc, &e);
	else
		core_response_json(resp, json_object_get_boolean(json_object_object_get(out,
		    "queued")) ? 202 : 200, out);
}

static void
fetch_content(struct db *db, const char *label, uint64_t id, struct core_response *resp)
{
	struct wiki_content	 c;
	struct err		 e;
	char			 msg[200];
	int			 rc;

	err_clear(&e);
	if ((rc = wiki_attachment_content(db, &c, label, id, &e)) == ERR_NOTFOUND) {
		fetch_not_found(resp, id, label);
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if (c.bytes == NULL) {
		snprintf(msg, sizeof msg, "копии вложения %llu в хабе нет (состояние %s): сначала "
		    "POST /hub/wiki/attachments/%llu/fetch", (unsigned long long)id, c.state,
		    (unsigned long long)id);
		hub_refuse_msg(resp, 409, msg);
	} else {
		resp->status = 200;
		resp->body = c.bytes;
		resp->body_len = c.len;
		resp->content_type = "application/octet-stream";
		c.bytes = NULL;
	}
	wiki_content_release(&c);
}

void
hub_wiki_attachments(struct db *db, const struct principal *who, const char *method,
    const char *path, const char *rest, const char *query, struct core_response *resp)
{
	char		 project[HUB_QUERY_MAX];
	const char	*what = "", *p, *allow;
	uint64_t	 id = fetch_id(rest, &what);
	int		 bad = 0;

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
	if ((p = hub_query(query, "project", project, sizeof project, &bad)) == NULL) {
		hub_refuse(resp, bad ? 400 : 422, bad ? HT_HUB_BAD_BODY : HT_HUB_NO_PROJECT_ARG,
		    "query");
		return;
	}
	if (what[0] == '\0')
		fetch_answer(db, p, id, resp);
	else if (strcmp(what, "fetch") == 0)
		fetch_post(db, who, p, id, resp);
	else
		fetch_content(db, p, id, resp);
}

/* The file source names ("owner/name@branch:path") at revision: its bytes, or why not. */
static char *
fetch_git_read(const struct config *cfg, const struct wiki_fetch *f, size_t *len, char *why,
    size_t why_len)
{
	struct repo_cache	*cache = NULL;
	struct repo_blob	 b = { 0 };
	char			*src = strdup(f->source), *slash, *at, *colon, *data = NULL;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if (src == NULL) {
		snprintf(why, why_len, "нехватка памяти");
		return NULL;
	}
	if ((slash = strchr(src, '/')) == NULL || (at = strchr(slash, '@')) == NULL ||
	    (colon = strchr(at, ':')) == NULL || f->revision == NULL) {
		snprintf(why, why_len, "вложение %s не из git-вики, или вики ещё не "
		    "синхронизирована: sync", f->name);
		goto done;
	}
	*slash = *at = *colon = '\0';
	if (repo_cache_new(&cache, cfg->repo_root != NULL ? cfg->repo_root : "", &e) != 0 ||
	    (rc = repo_blob_read(cache, &b, src, slash + 1, f->revision, colon + 1,
	    WIKI_FETCH_MAX, &e)) != 0) {
		snprintf(why, why_len, "%s/%s@%.12s:%s: %s", src, slash + 1, f->revision,
		    colon + 1, b.size > WIKI_FETCH_MAX ? "больше 10 МБ" :
		    "файла нет (репозиторий изменился после синхронизации: sync)");
		goto done;
	}
	data = b.data;
	*len = b.len;
	b.data = NULL;
done:
	repo_blob_release(&b);
	repo_cache_free(cache);
	free(src);
	return data;
}

void
hub_wiki_git_fetch(struct db *db, const struct config *cfg, uint64_t id,
    struct core_response *resp)
{
	struct wiki_fetch	 f;
	struct json_object	*o;
	char			 why[700] = "", state[16] = "", *data = NULL;
	size_t			 len = 0;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	if ((rc = wiki_fetch_command(db, id, &f, &e)) == ERR_NOTFOUND) {
		hub_agent_not_claimed(resp, id, "");
		return;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return;
	}
	if (strcmp(f.state, "claimed") != 0) {
		hub_agent_not_claimed(resp, id, f.state);
		goto done;
	}
	if (f.source == NULL)
		snprintf(why, sizeof why, "вложения %llu больше нет в копии вики (она "
		    "пересинхронизирована): возьмите id из page", (unsigned long long)f.attachment);
	else
		data = fetch_git_read(cfg, &f, &len, why, sizeof why);
	rc = wiki_fetch_end(db, id, f.attachment, data, len, why[0] != '\0' ? why : NULL, state,
	    sizeof state, &e);
	if (rc == ERR_INVALID)
		hub_agent_not_claimed(resp, id, state);
	else if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		log_info("hub: wiki attachment %llu of %s (command %llu): %s",
		    (unsigned long long)f.attachment, f.label, (unsigned long long)id,
		    why[0] != '\0' ? why : "stored");
		o = json_object_new_object();
		json_object_object_add(o, "command", json_object_new_uint64(id));
		json_object_object_add(o, "state", json_object_new_string(why[0] != '\0' ?
		    "failed" : "done"));
		json_object_object_add(o, "error", why[0] != '\0' ? json_object_new_string(why) :
		    NULL);
		json_object_object_add(o, "bytes", json_object_new_uint64(len));
		core_response_json(resp, 200, o);
	}
done:
	free(data);
	wiki_fetch_release(&f);
}
