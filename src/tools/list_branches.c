/* list_branches: a repository's branches with the commit each points at, by name, paged. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define BRANCHES_DEFAULT	100

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":100,"
    "\"description\":\"Branches to return at most (default 100).\"},"
    "\"after\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Only branches whose name sorts after this one: pass next_after "
    "from a truncated answer to get the next page.\"}"
    "}}";

static int
build(struct json_object **out, const char *full, const char *def,
    const struct repo_branch *v, size_t n, int truncated)
{
	struct json_object	*o = NULL, *arr = NULL, *b;
	size_t			 i;

	if ((o = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		if ((b = json_object_new_object()) == NULL)
			goto nomem;
		if (json_object_array_add(arr, b) != 0) {
			json_object_put(b);
			goto nomem;
		}
		if (tk_add(b, "name", json_new_string_repaired(v[i].name, strlen(v[i].name))) != 0 ||
		    tk_add(b, "commit", json_object_new_string(v[i].target)) != 0 ||
		    tk_add(b, "default", json_object_new_boolean(v[i].is_default)) != 0)
			goto nomem;
	}
	if (tk_add(o, "repo", json_object_new_string(full)) != 0 ||
	    tk_add(o, "default_branch", json_object_new_string(def)) != 0 ||
	    tk_add(o, "branches", arr) != 0)
		goto nomem;
	arr = NULL;
	if (tk_add(o, "truncated", json_object_new_boolean(truncated)) != 0)
		goto nomem;
	if (truncated && n > 0 &&
	    tk_add(o, "next_after", json_new_string_repaired(v[n - 1].name, strlen(v[n - 1].name))) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(arr);
	json_object_put(o);
	return ERR_NOMEM;
}

static int
list_branches(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_branch	*v = NULL;
	struct err		 local;
	char			 full[170];
	size_t			 n = 0;
	int			 rc, truncated = 0;

	*out = NULL;
	err_clear(&local);
	if ((rc = repo_branches(ctx->repos, &v, &n, &truncated, repo->owner, repo->name,
	    repo->default_branch, json_get_str(args, "after"),
	    (size_t)tk_int(args, "limit", BRANCHES_DEFAULT), &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = build(out, tk_full(repo, full, sizeof full), repo->default_branch, v, n,
	    truncated)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_branches_free(v, n);
	return rc;
}

const struct tool tool_list_branches = {
	.name = "list_branches",
	.title = "List branches",
	.description =
	    "List a repository's branches in name order. Returns {repo, default_branch, "
	    "branches: [{name, commit (full id), default}], truncated}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = list_branches,
};
