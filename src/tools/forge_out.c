/* forge_out: the shared half of the issue and pull request tools (arguments, urls, JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "json.h"
#include "service/closing.h"
#include "store/db.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

#define COMMENTS_DEFAULT	50

void
fout_url(char *buf, size_t len, const char *base_url, const char *owner, const char *name,
    const char *suffix)
{
	size_t	 blen;

	if (base_url == NULL)
		base_url = "";
	blen = strlen(base_url);
	while (blen > 0 && base_url[blen - 1] == '/')
		blen--;
	snprintf(buf, len, "%.*s/%s/%s%s", (int)blen, base_url, owner, name, suffix);
}

void
fout_item_url(char *buf, size_t len, const char *base_url, const char *owner,
    const char *name, enum forge_kind kind, int64_t number)
{
	char	 suffix[48];

	snprintf(suffix, sizeof suffix, "/%s/%lld", kind == FORGE_KIND_PULL ? "pulls" : "issues",
	    (long long)number);
	fout_url(buf, len, base_url, owner, name, suffix);
}


int
fout_add_str_or_null(struct json_object *o, const char *key, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return json_object_object_add(o, key, NULL) != 0 ? ERR_NOMEM : 0;
	return tk_add(o, key, json_new_string_repaired(s, strlen(s)));
}

static int
nomem(struct tool_ctx *ctx)
{
	return err_set(ctx->err, ERR_NOMEM, "out of memory");
}

/* A pull request's draft, issue (the linked one, or null) and closing_issue_numbers ([] for none). */
static int
pull_meta_json(struct json_object *o, const struct forge_item *it)
{
	struct closing_list	 decl;
	struct json_object	*arr, *v;
	size_t			 i;

	closing_read(&decl, it->closing);
	if (tk_add(o, "draft", json_object_new_boolean(it->draft)) != 0 ||
	    (it->linked_issue > 0 ?
	    tk_add(o, "issue", json_object_new_int64(it->linked_issue)) != 0 :
	    json_object_object_add(o, "issue", NULL) != 0))
		return ERR_NOMEM;
	if ((arr = json_object_new_array()) == NULL || tk_add(o, "closing_issue_numbers", arr) != 0)
		return ERR_NOMEM;
	for (i = 0; i < decl.n; i++)
		if ((v = json_object_new_int64(decl.numbers[i])) == NULL ||
		    json_object_array_add(arr, v) != 0) {
			json_object_put(v);
			return ERR_NOMEM;
		}
	return 0;
}

/*
 * {number, title, state, author, url} plus head, base, draft, issue and
 * closing_issue_numbers for pull requests.
 */
static struct json_object *
summary_json(const struct forge_item *it, enum forge_kind kind, const char *url)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (tk_add(o, "number", json_object_new_int64(it->number)) != 0 ||
	    tk_add(o, "title", json_new_string_repaired(it->title, strlen(it->title))) != 0 ||
	    tk_add(o, "state", json_object_new_string(it->state)) != 0 ||
	    tk_add(o, "author", json_object_new_string(it->author)) != 0 ||
	    (kind == FORGE_KIND_PULL &&
	    (tk_add(o, "head", json_new_string_repaired(it->head, strlen(it->head))) != 0 ||
	    tk_add(o, "base", json_new_string_repaired(it->base, strlen(it->base))) != 0 ||
	    pull_meta_json(o, it) != 0)) ||
	    tk_add(o, "url", json_object_new_string(url)) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(it->created_at)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int
fout_list(struct tool_ctx *ctx, struct json_object *args, enum forge_kind kind,
    struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct forge_item	*v = NULL;
	struct json_object	*res = NULL, *arr = NULL, *item;
	const char		*state = json_get_str(args, "state");
	const char		*query = json_get_str(args, "query");
	const char		*base = ctx->cfg->base_url;
	int64_t			 page = tk_int(args, "page", 1);
	size_t			 n = 0, i, shown;
	char			 url[2048];
	int			 rc;

	*out = NULL;
	if (state == NULL)
		state = "open";
	if ((rc = forge_item_list(ctx->db, &v, &n, kind, repo->id,
	    strcmp(state, "all") == 0 ? NULL : state, query, (page - 1) * FOUT_PAGE,
	    FOUT_PAGE + 1, ctx->err)) != 0)
		goto done;
	shown = n > FOUT_PAGE ? FOUT_PAGE : n;
	if ((res = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL) {
		rc = nomem(ctx);
		goto done;
	}
	for (i = 0; i < shown; i++) {
		fout_item_url(url, sizeof url, base, repo->owner, repo->name, kind, v[i].number);
		if ((item = summary_json(&v[i], kind, url)) == NULL ||
		    json_object_array_add(arr, item) != 0) {
			json_object_put(item);
			rc = nomem(ctx);
			goto done;
		}
	}
	rc = tk_add(res, kind == FORGE_KIND_PULL ? "pull_requests" : "issues", arr);
	arr = NULL;
	if (rc != 0 || tk_add(res, "page", json_object_new_int64(page)) != 0 ||
	    tk_add(res, "has_more", json_object_new_boolean(n > shown)) != 0) {
		rc = nomem(ctx);
		goto done;
	}
	*out = res;
	res = NULL;
done:
	json_object_put(arr);
	json_object_put(res);
	forge_item_list_free(v, n);
	return rc;
}

/* Adds comments, comments_total, comments_truncated, next_comments_offset to o. */
static int
add_comments(struct tool_ctx *ctx, struct json_object *o, struct json_object *args,
    enum forge_kind kind, uint64_t parent_id, const char *parent_url)
{
	struct forge_comment	*v = NULL;
	struct json_object	*arr = NULL, *c;
	int64_t			 offset = tk_int(args, "comments_offset", 0);
	int64_t			 limit = tk_int(args, "comments_limit", COMMENTS_DEFAULT);
	size_t			 n = 0, total = 0, i;
	char			 url[2200];
	int			 rc;

	if ((rc = forge_comment_list(ctx->db, &v, &n, &total, kind, parent_id, offset,
	    (int)limit, ctx->err)) != 0)
		goto done;
	if ((arr = json_object_new_array()) == NULL) {
		rc = nomem(ctx);
		goto done;
	}
	for (i = 0; i < n; i++) {
		snprintf(url, sizeof url, "%s#issuecomment-%llu", parent_url,
		    (unsigned long long)v[i].id);
		if ((c = json_object_new_object()) == NULL ||
		    json_object_array_add(arr, c) != 0) {
			json_object_put(c);
			rc = nomem(ctx);
			goto done;
		}
		if (tk_add(c, "id", json_object_new_int64((int64_t)v[i].id)) != 0 ||
		    tk_add(c, "author", json_object_new_string(v[i].author)) != 0 ||
		    tk_add(c, "body", json_new_string_repaired(v[i].body, strlen(v[i].body))) != 0 ||
		    tk_add(c, "created_at", json_object_new_string(v[i].created_at)) != 0 ||
		    tk_add(c, "url", json_object_new_string(url)) != 0) {
			rc = nomem(ctx);
			goto done;
		}
	}
	rc = tk_add(o, "comments", arr);
	arr = NULL;
	if (rc != 0 ||
	    tk_add(o, "comments_total", json_object_new_int64((int64_t)total)) != 0 ||
	    tk_add(o, "comments_truncated",
	    json_object_new_boolean((size_t)offset + n < total)) != 0 ||
	    ((size_t)offset + n < total && tk_add(o, "next_comments_offset",
	    json_object_new_int64(offset + (int64_t)n)) != 0))
		rc = nomem(ctx);
done:
	json_object_put(arr);
	forge_comment_list_free(v, n);
	return rc;
}

/* One activity entry: cause on state changes, the comment and its body on comments. */
static struct json_object *
event_json(const struct forge_event *ev)
{
	struct json_object	*o;
	int			 state = strcmp(ev->kind, "closed") == 0 ||
				    strcmp(ev->kind, "reopened") == 0 ||
				    strcmp(ev->kind, "merged") == 0;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (tk_add(o, "id", json_object_new_int64((int64_t)ev->id)) != 0 ||
	    tk_add(o, "type", json_object_new_string(ev->kind)) != 0 ||
	    tk_add(o, "actor", json_object_new_string(ev->actor)) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(ev->created_at)) != 0 ||
	    (state && tk_add(o, "cause", json_object_new_string(ev->cause)) != 0) ||
	    (ev->source_number > 0 &&
	    tk_add(o, "source_number", json_object_new_int64(ev->source_number)) != 0) ||
	    (ev->comment_id != 0 &&
	    tk_add(o, "comment_id", json_object_new_int64((int64_t)ev->comment_id)) != 0) ||
	    (ev->body != NULL &&
	    tk_add(o, "body", json_new_string_repaired(ev->body, strlen(ev->body))) != 0) ||
	    (ev->detail != NULL &&
	    tk_add(o, "reason", json_new_string_repaired(ev->detail, strlen(ev->detail))) != 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Adds activity {entries, page, has_more}: the page "page" of parent_id's events. */
static int
add_activity(struct tool_ctx *ctx, struct json_object *o, struct json_object *args,
    enum forge_kind kind, uint64_t parent_id)
{
	struct forge_event	*v = NULL;
	struct json_object	*act = NULL, *arr = NULL, *en;
	int64_t			 page = tk_int(args, "page", 1);
	size_t			 n = 0, i;
	int			 more = 0, rc;

	if ((rc = forge_event_list(ctx->db, &v, &n, &more, kind, parent_id, page,
	    ctx->err)) != 0)
		goto done;
	if ((act = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL) {
		rc = nomem(ctx);
		goto done;
	}
	for (i = 0; i < n; i++)
		if ((en = event_json(&v[i])) == NULL || json_object_array_add(arr, en) != 0) {
			json_object_put(en);
			rc = nomem(ctx);
			goto done;
		}
	rc = tk_add(act, "entries", arr);
	arr = NULL;
	if (rc != 0 || tk_add(act, "page", json_object_new_int64(page)) != 0 ||
	    tk_add(act, "has_more", json_object_new_boolean(more)) != 0) {
		rc = nomem(ctx);
		goto done;
	}
	rc = tk_add(o, "activity", act);
	act = NULL;
	if (rc != 0)
		rc = nomem(ctx);
done:
	json_object_put(arr);
	json_object_put(act);
	forge_event_list_free(v, n);
	return rc;
}

int
fout_item(struct tool_ctx *ctx, struct json_object *args, const struct db_repo *repo,
    const struct forge_item *it, enum forge_kind kind, struct json_object **out)
{
	struct json_object	*o = NULL;
	char			 url[2048];
	int			 rc = 0;

	*out = NULL;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, repo->owner, repo->name, kind,
	    it->number);
	if ((o = summary_json(it, kind, url)) == NULL ||
	    fout_add_str_or_null(o, "body", it->body) != 0 ||
	    tk_add(o, "updated_at", json_object_new_string(it->updated_at)) != 0 ||
	    fout_add_str_or_null(o, "closed_at", it->closed_at) != 0 ||
	    tk_add(o, "edit_version", json_object_new_int64(it->edit_version)) != 0 ||
	    (kind == FORGE_KIND_PULL && fout_add_str_or_null(o, "merged_at", it->merged_at) != 0)) {
		rc = nomem(ctx);
		goto done;
	}
	if ((rc = add_comments(ctx, o, args, kind, it->id, url)) != 0)
		goto done;
	if ((rc = add_activity(ctx, o, args, kind, it->id)) != 0)
		goto done;
	*out = o;
	o = NULL;
done:
	json_object_put(o);
	return rc;
}

int
fout_find(struct tool_ctx *ctx, struct forge_item *out, const struct db_repo *repo,
    enum forge_kind kind, int64_t number)
{
	enum forge_kind	 other;
	uint64_t	 id;
	int		 rc;

	rc = forge_item_get(ctx->db, out, kind, repo->id, number, ctx->err);
	if (rc != ERR_NOTFOUND)
		return rc;
	if ((rc = forge_number_kind(ctx->db, &other, &id, repo->id, number, ctx->err)) != 0)
		return rc;
	if (kind == FORGE_KIND_ISSUE && other == FORGE_KIND_PULL)
		return err_set(ctx->err, ERR_NOTFOUND, "#%lld in %s/%s is a pull request, not an "
		    "issue: read it with get_pull_request", (long long)number, repo->owner,
		    repo->name);
	if (kind == FORGE_KIND_PULL && other == FORGE_KIND_ISSUE)
		return err_set(ctx->err, ERR_NOTFOUND, "#%lld in %s/%s is an issue, not a pull "
		    "request: read it with get_issue", (long long)number, repo->owner,
		    repo->name);
	return err_set(ctx->err, ERR_NOTFOUND, "%s #%lld not found in %s/%s",
	    kind == FORGE_KIND_PULL ? "pull request" : "issue", (long long)number, repo->owner,
	    repo->name);
}
