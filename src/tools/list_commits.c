/* list_commits: the history from a ref, newest first, optionally only commits touching a path. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define COMMITS_DEFAULT	30

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id; default: the default "
    "branch.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Only commits that change this file or directory (like git log -- "
    "path).\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":30,"
    "\"description\":\"Commits to return at most (default 30).\"},"
    "\"cursor\":{\"type\":\"string\",\"minLength\":40,\"maxLength\":40,"
    "\"description\":\"Continue after this commit: pass next_cursor from a truncated "
    "answer (with the same ref and path).\"}"
    "}}";

static int
commit_json(struct json_object *arr, const struct repo_commit *c)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return ERR_NOMEM;
	if (json_object_array_add(arr, o) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	if (tk_add(o, "id", json_object_new_string(c->id)) != 0 ||
	    tk_add(o, "author", json_new_string_repaired(c->author_name, strlen(c->author_name))) != 0 ||
	    tk_add(o, "author_email", json_new_string_repaired(c->author_email,
	    strlen(c->author_email))) != 0 ||
	    tk_add(o, "date", json_object_new_string(c->date)) != 0 ||
	    tk_add(o, "subject", json_new_string_repaired(c->subject, strlen(c->subject))) != 0)
		return ERR_NOMEM;
	return 0;
}

static int
build(struct json_object **out, const char *full, const char *ref, const char *path,
    const struct repo_log *l)
{
	struct json_object	*o = NULL, *arr = NULL;
	size_t			 i;

	if ((o = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < l->n; i++)
		if (commit_json(arr, &l->commits[i]) != 0)
			goto nomem;
	if (tk_add(o, "repo", json_object_new_string(full)) != 0 ||
	    tk_add(o, "ref", json_object_new_string(ref)) != 0 ||
	    tk_add(o, "head", json_object_new_string(l->head)) != 0 ||
	    (path != NULL && tk_add(o, "path", json_object_new_string(path)) != 0) ||
	    tk_add(o, "commits", arr) != 0)
		goto nomem;
	arr = NULL;
	if (tk_add(o, "truncated", json_object_new_boolean(l->truncated)) != 0)
		goto nomem;
	if (l->truncated && l->n > 0 && tk_add(o, "next_cursor",
	    json_object_new_string(l->commits[l->n - 1].id)) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(arr);
	json_object_put(o);
	return ERR_NOMEM;
}

static int
list_commits(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_log		 log;
	struct err		 local;
	const char		*ref = json_get_str(args, "ref");
	const char		*path = json_get_str(args, "path");
	char			 full[170];
	int			 rc;

	*out = NULL;
	memset(&log, 0, sizeof log);
	if (ref == NULL)
		ref = repo->default_branch;
	err_clear(&local);
	if ((rc = repo_log(ctx->repos, &log, repo->owner, repo->name, ref, path,
	    json_get_str(args, "cursor"), (size_t)tk_int(args, "limit", COMMITS_DEFAULT),
	    ctx->budget, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = build(out, tk_full(repo, full, sizeof full), ref, path, &log)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_log_release(&log);
	return rc;
}

const struct tool tool_list_commits = {
	.name = "list_commits",
	.title = "List commits",
	.description =
	    "List the commits reachable from a ref (default: the default branch), newest "
	    "first as git log; with path, only those that change that file or directory. "
	    "Returns {repo, ref, head, commits: [{id, author, author_email, date (author "
	    "date, UTC, ISO 8601), subject}], truncated, next_cursor}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = list_commits,
};
