/* list_pull_request_discussions: a pull request's review discussions with previews, or one in full with paged replies (spec: list_pull_request_discussions). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "auth.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"discussion\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9007199254740991,"
    "\"description\":\"A discussion id: that discussion in full, with its "
    "replies, instead of the list.\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Page of 50, from 1: of discussions, or with "
    "discussion, of its replies.\"}"
    "}}";

/* One reply; preview: its body is a preview (key "preview", with preview_truncated). */
static struct json_object *
reply_json(const struct forge_reply *r, int preview)
{
	struct json_object	*o;
	const char		*body = r->body != NULL ? r->body : "";

	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)r->id)) != 0 ||
	    tk_add(o, "author", json_object_new_string(r->author)) != 0 ||
	    tk_add(o, preview ? "preview" : "body",
	    json_new_string_repaired(body, strlen(body))) != 0 ||
	    (preview && tk_add(o, "preview_truncated", json_object_new_boolean(r->cut)) != 0) ||
	    tk_add(o, "created_at", json_object_new_string(r->created_at)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Adds an array of replies under key; ERR_NOMEM. */
static int
add_replies(struct json_object *o, const char *key, const struct forge_reply *v, size_t n,
    int preview)
{
	struct json_object	*arr, *one;
	size_t			 i;

	if ((arr = json_object_new_array()) == NULL)
		return ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((one = reply_json(&v[i], preview)) == NULL ||
		    json_object_array_add(arr, one) != 0) {
			json_object_put(one);
			json_object_put(arr);
			return ERR_NOMEM;
		}
	}
	return tk_add(o, key, arr);
}

int
fout_discussion(struct tool_ctx *ctx, const struct db_repo *repo, int64_t number,
    const struct forge_discussion *d, int full, struct json_object **out)
{
	struct json_object	*o;
	const char		*body = d->body != NULL ? d->body : "";
	char			 base[2048], url[2200];

	*out = NULL;
	fout_item_url(base, sizeof base, ctx->cfg->base_url, repo->owner, repo->name,
	    FORGE_KIND_PULL, number);
	snprintf(url, sizeof url, "%s#discussion-%llu", base, (unsigned long long)d->id);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)d->id)) != 0 ||
	    tk_add(o, "author", json_object_new_string(d->author)) != 0 ||
	    tk_add(o, "state", json_object_new_string(d->state)) != 0 ||
	    tk_add(o, "state_version", json_object_new_int64(d->state_version)) != 0 ||
	    tk_add(o, "version", json_object_new_int64(d->version)) != 0 ||
	    (d->path != NULL ? tk_add(o, "path", json_new_string_repaired(d->path,
	    strlen(d->path))) : json_object_object_add(o, "path", NULL)) != 0 ||
	    (d->line > 0 ? tk_add(o, "line", json_object_new_int64(d->line)) :
	    json_object_object_add(o, "line", NULL)) != 0 ||
	    fout_add_str_or_null(o, "side", d->side) != 0)
		goto nomem;
	if (full) {
		if (tk_add(o, "body", json_new_string_repaired(body, strlen(body))) != 0 ||
		    fout_add_str_or_null(o, "anchor_context", d->anchor_context) != 0)
			goto nomem;
	} else if (tk_add(o, "preview", json_new_string_repaired(body, strlen(body))) != 0 ||
	    tk_add(o, "preview_truncated", json_object_new_boolean(d->cut)) != 0 ||
	    add_replies(o, "recent_replies", d->recent, d->n_recent, 1) != 0)
		goto nomem;
	if (tk_add(o, "replies_count", json_object_new_int64(d->replies_count)) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(d->created_at)) != 0 ||
	    tk_add(o, "updated_at", json_object_new_string(d->updated_at)) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(o);
	return err_set(ctx->err, ERR_NOMEM, "out of memory");
}

/* The list of discussions, page page. */
static int
list_page(struct tool_ctx *ctx, const struct db_repo *repo, const struct forge_item *pr,
    int64_t page, struct json_object *o)
{
	struct forge_discussion	*v = NULL;
	struct json_object	*arr = NULL, *one;
	struct err		 local;
	size_t			 n = 0, i;
	int			 rc;

	err_clear(&local);
	if ((rc = forge_discussion_list(ctx->db, &v, &n, pr->id,
	    (page - 1) * FORGE_DISCUSSIONS_PAGE, FORGE_DISCUSSIONS_PAGE + 1, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < n && i < FORGE_DISCUSSIONS_PAGE; i++) {
		if ((rc = fout_discussion(ctx, repo, pr->number, &v[i], 0, &one)) != 0)
			goto done;
		if (json_object_array_add(arr, one) != 0) {
			json_object_put(one);
			goto nomem;
		}
	}
	rc = tk_page(o, "discussions", arr, page, n > FORGE_DISCUSSIONS_PAGE);
	arr = NULL;
	if (rc != 0)
		goto nomem;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(arr);
	forge_discussion_list_free(v, n);
	return rc;
}

/* Discussion id in full with page page of its replies. */
static int
one_page(struct tool_ctx *ctx, const struct db_repo *repo, const struct forge_item *pr,
    uint64_t id, int64_t page, struct json_object *o)
{
	struct forge_discussion	 d;
	struct forge_reply	*v = NULL;
	struct json_object	*dj = NULL;
	struct err		 local;
	size_t			 n = 0;
	int			 rc;

	err_clear(&local);
	rc = forge_discussion_get(ctx->db, &d, pr->id, id, &local);
	if (rc == ERR_NOTFOUND)
		return err_set(ctx->err, ERR_NOTFOUND, "discussion %llu not found in pull request "
		    "#%lld of %s/%s: list_pull_request_discussions without discussion gives the "
		    "ids", (unsigned long long)id, (long long)pr->number, repo->owner, repo->name);
	if (rc != 0)
		return tk_fail(ctx, rc, &local);
	if ((rc = forge_reply_list(ctx->db, &v, &n, id, (page - 1) * FORGE_DISCUSSIONS_PAGE,
	    FORGE_DISCUSSIONS_PAGE + 1, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = fout_discussion(ctx, repo, pr->number, &d, 1, &dj)) != 0)
		goto done;
	if (add_replies(dj, "replies", v, n < FORGE_DISCUSSIONS_PAGE ? n :
	    FORGE_DISCUSSIONS_PAGE, 0) != 0)
		goto nomem;
	rc = tk_page(o, "discussion", dj, page, n > FORGE_DISCUSSIONS_PAGE);
	dj = NULL;
	if (rc != 0)
		goto nomem;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(dj);
	forge_reply_list_free(v, n);
	forge_discussion_release(&d);
	return rc;
}

static int
list_pull_request_discussions(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct forge_item	 pr;
	struct json_object	*o = NULL;
	int64_t			 page = tk_int(args, "page", 1), id = tk_int(args, "discussion", 0);
	int			 rc;

	*out = NULL;
	memset(&pr, 0, sizeof pr);
	if ((rc = fout_find(ctx, &pr, ctx->repo, FORGE_KIND_PULL,
	    tk_int(args, "number", 0))) != 0)
		goto done;
	if ((o = json_object_new_object()) == NULL) {
		rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (id > 0)
		rc = one_page(ctx, ctx->repo, &pr, (uint64_t)id, page, o);
	else
		rc = list_page(ctx, ctx->repo, &pr, page, o);
	if (rc != 0)
		goto done;
	*out = o;
	o = NULL;
done:
	json_object_put(o);
	forge_item_release(&pr);
	return rc;
}

const struct tool tool_list_pull_request_discussions = {
	.name = "list_pull_request_discussions",
	.title = "List pull request discussions",
	.description =
	    "List the review discussions of a pull request, oldest first, 50 a page: "
	    "{discussions: [{id, author, state (open|resolved), state_version, version (the "
	    "revision it was made on), path, line, side (old|new; all three null for a "
	    "general thread), preview (the first 200 characters of the body), "
	    "preview_truncated, recent_replies (the 3 newest, oldest first: {id, author, "
	    "preview, preview_truncated, created_at}), replies_count, url, created_at, "
	    "updated_at}], page, has_more}. With discussion, that discussion in full: "
	    "{discussion: {id, ..., body, anchor_context (the diff lines around the anchor on "
	    "its revision), replies: [{id, author, body, created_at}] (oldest first, 50 a "
	    "page)}, page, has_more}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = list_pull_request_discussions,
};
