/*
 * wiki_fetch: the wiki's attachments in the hub API (doc/sdlc.md, "The
 * wiki"): GET /hub/wiki/attachments/{id}, POST .../{id}/fetch (a wiki_fetch
 * command for the wiki agent, unless the copy is ready or on its way),
 * GET .../{id}/content (the copy's bytes); the git backend's end of a
 * wiki_fetch (the file at the revision of the project's last good sync),
 * and the file an agent read elsewhere, sent in base64 parts (POST
 * /hub/agent/wiki_fetch), stored when its size is the one the sync saw.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "auth.h"
#include "conf.h"
#include "core_io.h"
#include "err.h"
#include "log.h"
#include "hub/api-int.h"
#include "hub/texts.h"
#include "hub/wiki.h"
#include "hub/wiki-int.h"
#include "store/db_agent.h"
#include "store/db_wiki.h"
#include "store/repo.h"

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
	struct json_object	*out = NULL;
	struct err		 e;
	int			 rc;

	err_clear(&e);
	rc = wiki_fetch_queue(db, &out, label, id, who->login[0] != '\0' ? who->login : "api", &e);
	if (hub_fetch_answer(resp, rc, &e, out, id, WIKI_FETCH_MAX >> 20, "источнике вики") != 0)
		fetch_not_found(resp, id, label);
}

static void
fetch_content(struct db *db, const char *label, uint64_t id, struct core_response *resp)
{
	struct wiki_content	 c;
	struct err		 e;
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
	hub_copy_answer(resp, c.bytes, c.len, id, c.state, "/hub/wiki/attachments");
	c.bytes = NULL;
	wiki_content_release(&c);
}

void
hub_wiki_attachments(struct db *db, const struct principal *who, const char *method,
    const char *path, const char *rest, const char *query, struct core_response *resp)
{
	char		 project[HUB_QUERY_MAX];
	const char	*what = "", *p, *allow;
	uint64_t	 id = hub_path_id(rest, &what);
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
fetch_git_read(struct db *db, const struct config *cfg, const struct wiki_fetch *f, size_t *len,
    char *why, size_t why_len)
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
	if (hub_wiki_repo_visible(db, f->root_by, src, slash + 1, why, why_len) != 0)
		goto done;
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

/*
 * The end of the wiki_fetch command id, claimed in hand-out handout (ask:
 * what the refusal of another names): stored (data, n) or failed with why.
 */
static void
fetch_finish(struct db *db, const struct config *cfg, struct core_response *resp, uint64_t id,
    uint64_t handout, enum hub_ask ask, uint64_t attachment, const char *data, size_t n,
    const char *why)
{
	struct json_object	*o;
	struct tracker_handout	 h = { handout, 0, "" };
	struct err		 e;
	int			 rc;

	err_clear(&e);
	rc = wiki_fetch_end(db, id, &h, attachment, data, n, why,
	    (uint64_t)cfg->wiki_copies_mb << 20, &e);
	if (rc == ERR_INVALID && hub_agent_refused(resp, ask, id, &h))
		return;
	if (rc != 0)
		hub_failed(resp, rc, &e);
	else {
		log_info("hub: wiki attachment %llu (command %llu): %s",
		    (unsigned long long)attachment, (unsigned long long)id, why != NULL ? why : "stored");
		o = json_object_new_object();
		json_object_object_add(o, "command", json_object_new_uint64(id));
		json_object_object_add(o, "state", json_object_new_string(why != NULL ? "failed" :
		    "done"));
		json_object_object_add(o, "error", why != NULL ? json_object_new_string(why) : NULL);
		json_object_object_add(o, "bytes", json_object_new_uint64(n));
		core_response_json(resp, 200, o);
	}
}

/*
 * Loads the wiki_fetch command id into *f: 1 when it is claimed (why set
 * when its attachment has gone with a sync), else 0 after answering.
 */
static int
fetch_claimed(struct db *db, uint64_t id, struct wiki_fetch *f, char *why, size_t len,
    struct core_response *resp)
{
	struct err	 e;
	int		 rc;

	err_clear(&e);
	if ((rc = wiki_fetch_command(db, id, f, &e)) == ERR_NOTFOUND ||
	    (rc == 0 && strcmp(f->type, "wiki_fetch") != 0)) {
		hub_refuse_msg(resp, 422, "файл вложения принимает только команда wiki_fetch");
		return 0;
	}
	if (rc != 0) {
		hub_failed(resp, rc, &e);
		return 0;
	}
	if (strcmp(f->state, "claimed") != 0) {
		hub_agent_not_claimed(resp, id, f->state);
		return 0;
	}
	if (f->source == NULL)
		snprintf(why, len, "вложения %llu больше нет в копии вики (она "
		    "пересинхронизирована): возьмите id из page", (unsigned long long)f->attachment);
	return 1;
}

void
hub_wiki_git_fetch(struct db *db, const struct config *cfg, uint64_t id, uint64_t handout,
    struct core_response *resp)
{
	struct wiki_fetch	 f;
	char			 why[700] = "", *data = NULL;
	size_t			 len = 0;

	memset(&f, 0, sizeof f);
	if (fetch_claimed(db, id, &f, why, sizeof why, resp)) {
		if (why[0] == '\0')
			data = fetch_git_read(db, cfg, &f, &len, why, sizeof why);
		fetch_finish(db, cfg, resp, id, handout, HUB_ASK_RUN, f.attachment, data, len,
		    why[0] != '\0' ? why : NULL);
	}
	free(data);
	wiki_fetch_release(&f);
}

void
hub_wiki_fetch_part(struct db *db, const struct config *cfg, struct json_object *body,
    struct core_response *resp)
{
	struct wiki_fetch	 f;
	struct hub_part		 in;
	enum hub_ask		 ask;
	char			 why[700] = "", *bytes = NULL;
	size_t			 n = 0;

	memset(&f, 0, sizeof f);
	if (hub_part_parse(body, &in, resp) != 0 || !fetch_claimed(db, in.command, &f, why,
	    sizeof why, resp))
		goto done;
	ask = in.error != NULL ? HUB_ASK_REPORT : HUB_ASK_PART;
	if (why[0] != '\0') {
		fetch_finish(db, cfg, resp, in.command, in.handout, ask, f.attachment, NULL, 0, why);
		goto done;
	}
	switch (hub_part_take(db, &in, WIKI_FETCH_MAX, &bytes, &n, why, sizeof why, resp)) {
	case HUB_PART_FILE:
		if (n != f.size) {
			snprintf(why, sizeof why, "файл в источнике — %zu байт, а при синхронизации "
			    "был %llu: копия устарела, сначала sync", n, (unsigned long long)f.size);
			fetch_finish(db, cfg, resp, in.command, in.handout, ask, f.attachment, NULL,
			    0, why);
		} else
			fetch_finish(db, cfg, resp, in.command, in.handout, ask, f.attachment, bytes,
			    n, NULL);
		break;
	case HUB_PART_FAILED:
		fetch_finish(db, cfg, resp, in.command, in.handout, ask, f.attachment, NULL, 0, why);
		break;
	case HUB_PART_ANSWERED:
		break;
	}
done:
	free(bytes);
	wiki_fetch_release(&f);
}
