/* list_repositories: the repositories the caller can see, newest first (spec: list_repositories). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "tool.h"
#include "tools/toolkit.h"

#define LIST_DEFAULT	30
#define LIST_MAX	100	/* limit is clamped to 1..LIST_MAX (spec) */

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"query\":{\"type\":\"string\",\"maxLength\":100,"
    "\"description\":\"Only repositories whose owner or name contains this text "
    "(case-insensitive).\"},"
    "\"limit\":{\"type\":\"integer\",\"default\":30,"
    "\"description\":\"Repositories to return at most: 1 to 100 (default "
    "30); other integers are clamped.\"}"
    "}}";

/* One repository as the spec shows it: full_name, description, default_branch, private, url. */
static struct json_object *
repo_json(const struct db_repo *r, const char *base_url)
{
	struct json_object	*o = NULL, *v;
	char			 full[170];
	size_t			 blen = strlen(base_url);

	while (blen > 0 && base_url[blen - 1] == '/')
		blen--;
	snprintf(full, sizeof full, "%s/%s", r->owner, r->name);
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if ((v = json_object_new_string(full)) == NULL ||
	    json_object_object_add(o, "full_name", v) != 0)
		goto fail;
	v = r->description != NULL ? json_object_new_string(r->description) : NULL;
	if ((r->description != NULL && v == NULL) ||
	    json_object_object_add(o, "description", v) != 0)
		goto fail;
	if ((v = json_object_new_string(r->default_branch)) == NULL ||
	    json_object_object_add(o, "default_branch", v) != 0)
		goto fail;
	if ((v = json_object_new_boolean(r->private)) == NULL ||
	    json_object_object_add(o, "private", v) != 0)
		goto fail;
	{
		char	 url[2048];

		snprintf(url, sizeof url, "%.*s/%s", (int)blen, base_url, full);
		if ((v = json_object_new_string(url)) == NULL ||
		    json_object_object_add(o, "url", v) != 0)
			goto fail;
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static int
list_repositories(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct json_object	*arr = NULL, *item;
	struct db_repo		*v = NULL;
	const char		*query = json_get_str(args, "query");
	const char		*base = ctx->cfg->base_url;
	size_t			 n = 0, i;
	int			 limit = (int)tk_clamp(args, "limit", LIST_DEFAULT, 1, LIST_MAX), rc;

	*out = NULL;
	if (query != NULL && query[0] == '\0')
		query = NULL;
	if ((rc = db_repo_list_visible(ctx->db, &v, &n, ctx->who->user_id, query, limit,
	    ctx->err)) != 0)
		goto done;
	if ((arr = json_object_new_array()) == NULL) {
		rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		if ((item = repo_json(&v[i], base != NULL ? base : "")) == NULL ||
		    json_object_array_add(arr, item) != 0) {
			json_object_put(item);
			rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
			goto done;
		}
	}
	*out = arr;
	arr = NULL;
done:
	json_object_put(arr);
	db_repo_list_free(v, n);
	return rc;
}

const struct tool tool_list_repositories = {
	.name = "list_repositories",
	.title = "List repositories",
	.description =
	    "List the repositories you can access (public ones, your own, and those you "
	    "collaborate on), most recently updated first. Use this first to find the "
	    "\"owner/name\" the other tools take. Returns an array of {full_name, "
	    "description, default_branch, private, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.handler = list_repositories,
};
