/* get_tree: the entries of one directory at a ref (names, types, sizes, modes), paged. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define TREE_DEFAULT	500

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"path\":{\"type\":\"string\",\"maxLength\":4096,"
    "\"description\":\"Directory from the repository root, e.g. src/lib; empty or "
    "absent for the root.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id; default: the default "
    "branch.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":500,"
    "\"description\":\"Entries to return at most (default 500).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000000,\"default\":0,"
    "\"description\":\"Skip this many entries: pass next_offset from a "
    "truncated answer.\"}"
    "}}";

static const char *const type_name[REPO_ENTRY__MAX] = {
	"blob",		/* REPO_ENTRY_BLOB */
	"tree",		/* REPO_ENTRY_TREE */
	"commit",	/* REPO_ENTRY_COMMIT */
	"symlink",	/* REPO_ENTRY_SYMLINK */
};

static int
entry_json(struct json_object *arr, const struct repo_entry *x)
{
	struct json_object	*o;
	char			 mode[16];

	if ((o = json_object_new_object()) == NULL)
		return ERR_NOMEM;
	if (json_object_array_add(arr, o) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	snprintf(mode, sizeof mode, "%06o", x->mode);
	if (tk_add(o, "name", json_new_string_repaired(x->name, strlen(x->name))) != 0 ||
	    tk_add(o, "path", json_new_string_repaired(x->path, strlen(x->path))) != 0 ||
	    tk_add(o, "type", json_object_new_string(type_name[x->type])) != 0 ||
	    tk_add(o, "mode", json_object_new_string(mode)) != 0 ||
	    tk_add(o, "id", json_object_new_string(x->id)) != 0)
		return ERR_NOMEM;
	if ((x->type == REPO_ENTRY_BLOB || x->type == REPO_ENTRY_SYMLINK) &&
	    tk_add(o, "size", json_object_new_int64((int64_t)x->size)) != 0)
		return ERR_NOMEM;
	return 0;
}

static int
build(struct json_object **out, const char *full, const char *ref, const char *path,
    const struct repo_tree *t, size_t offset)
{
	struct json_object	*o = NULL, *arr = NULL;
	size_t			 i;

	if ((o = json_object_new_object()) == NULL || (arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < t->n; i++)
		if (entry_json(arr, &t->entries[i]) != 0)
			goto nomem;
	if (tk_add(o, "repo", json_object_new_string(full)) != 0 ||
	    tk_add(o, "ref", json_object_new_string(ref)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(t->commit)) != 0 ||
	    tk_add(o, "path", json_object_new_string(path != NULL ? path : "")) != 0 ||
	    tk_add(o, "entries", arr) != 0)
		goto nomem;
	arr = NULL;
	if (tk_add(o, "total", json_object_new_int64((int64_t)t->total)) != 0 ||
	    tk_add(o, "truncated", json_object_new_boolean(t->truncated)) != 0)
		goto nomem;
	if (t->truncated && tk_add(o, "next_offset",
	    json_object_new_int64((int64_t)(offset + t->n))) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(arr);
	json_object_put(o);
	return ERR_NOMEM;
}

static int
get_tree(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_tree	 tree;
	struct err		 local;
	const char		*ref = json_get_str(args, "ref");
	const char		*path = json_get_str(args, "path");
	char			 full[170], clean[4097];
	size_t			 offset = (size_t)tk_int(args, "offset", 0), n;
	int			 rc;

	*out = NULL;
	memset(&tree, 0, sizeof tree);
	if (ref == NULL)
		ref = repo->default_branch;
	if (path != NULL) {	/* "src/" names the directory src, "" the root */
		snprintf(clean, sizeof clean, "%s", path);
		n = strlen(clean);
		while (n > 0 && clean[n - 1] == '/')
			clean[--n] = '\0';
		path = n > 0 ? clean : NULL;
	}
	err_clear(&local);
	if ((rc = repo_tree_list(ctx->repos, &tree, repo->owner, repo->name, ref, path, offset,
	    (size_t)tk_int(args, "limit", TREE_DEFAULT), &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = build(out, tk_full(repo, full, sizeof full), ref, path, &tree, offset)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_tree_release(&tree);
	return rc;
}

const struct tool tool_get_tree = {
	.name = "get_tree",
	.title = "Get directory tree",
	.description =
	    "List one directory of a repository at a ref (default: the default branch). "
	    "Returns {repo, ref, commit, path, entries: [{name, path, type, mode, id, size}], "
	    "total, truncated}: type is blob (file), tree (directory), symlink or commit "
	    "(submodule); size (bytes) only for files and symlinks.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = get_tree,
};
