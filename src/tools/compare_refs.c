/* compare_refs: changed files, stats and the patch between two refs (two- or three-dot), paged. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/toolkit.h"

#define PATCH_CAP	100000	/* bytes of patch per answer (100 kB, as get_pull_request) */
#define FILES_SHOWN	1000	/* file rows per answer */

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"base\","
    "\"head\"],\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"base\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id to compare from.\"},"
    "\"head\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Branch, tag or commit id to compare to.\"},"
    "\"three_dot\":{\"type\":\"boolean\",\"default\":true,"
    "\"description\":\"true (default): git diff base...head, what a pull "
    "request shows; false: git diff base head.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Only this changed file's patch (its new or old path).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000000000000,\"default\":0,"
    "\"description\":\"Byte offset into the patch: pass next_offset from a truncated "
    "answer to get the next part.\"}"
    "}}";

static const char *
status_word(char s)
{
	switch (s) {
	case 'A':
		return "added";
	case 'D':
		return "deleted";
	case 'R':
		return "renamed";
	case 'T':
		return "type_changed";
	default:
		return "modified";
	}
}

static int
file_json(struct json_object *arr, const struct repo_diff_file *f)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return ERR_NOMEM;
	if (json_object_array_add(arr, o) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	if (tk_add(o, "path", json_new_string_repaired(f->path, strlen(f->path))) != 0 ||
	    (f->old_path != NULL && tk_add(o, "old_path", json_new_string_repaired(f->old_path,
	    strlen(f->old_path))) != 0) ||
	    tk_add(o, "status", json_object_new_string(status_word(f->status))) != 0 ||
	    tk_add(o, "additions", json_object_new_int64((int64_t)f->additions)) != 0 ||
	    tk_add(o, "deletions", json_object_new_int64((int64_t)f->deletions)) != 0 ||
	    tk_add(o, "binary", json_object_new_boolean(f->binary)) != 0 ||
	    tk_add(o, "patch_bytes", json_object_new_int64((int64_t)f->patch_bytes)) != 0)
		return ERR_NOMEM;
	return 0;
}

int
tk_diff_json(struct json_object *o, const struct repo_diff *d, int three_dot, const char *path,
    size_t offset)
{
	struct json_object	*arr = NULL;
	size_t			 i, shown = d->n_files > FILES_SHOWN ? FILES_SHOWN : d->n_files;
	char			 note[400];

	if ((arr = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < shown; i++)
		if (file_json(arr, &d->files[i]) != 0)
			goto nomem;
	if (three_dot && (d->merge_base[0] != '\0' ? tk_add(o, "merge_base",
	    json_object_new_string(d->merge_base)) : json_object_object_add(o, "merge_base",
	    NULL)) != 0)
		goto nomem;
	if (tk_add(o, "files_changed", json_object_new_int64((int64_t)d->n_files)) != 0 ||
	    tk_add(o, "additions", json_object_new_int64((int64_t)d->additions)) != 0 ||
	    tk_add(o, "deletions", json_object_new_int64((int64_t)d->deletions)) != 0)
		goto nomem;
	if (tk_add(o, "files", arr) != 0)
		return ERR_NOMEM;	/* tk_add dropped arr */
	arr = NULL;
	if (shown < d->n_files && tk_add(o, "files_truncated",
	    json_object_new_boolean(1)) != 0)
		goto nomem;
	if ((path != NULL && tk_add(o, "path", json_object_new_string(path)) != 0) ||
	    tk_add(o, "patch", json_new_string_repaired(d->patch, d->patch_len)) != 0 ||
	    tk_add(o, "offset", json_object_new_int64((int64_t)offset)) != 0 ||
	    tk_add(o, "patch_total", json_object_new_int64((int64_t)d->patch_total)) != 0 ||
	    tk_add(o, "truncated", json_object_new_boolean(d->truncated)) != 0)
		goto nomem;
	if (d->truncated) {
		snprintf(note, sizeof note, "the patch is %zu bytes; this part is bytes %zu to %zu, "
		    "cut at a line end. Call again with offset %zu for the next part, or with path "
		    "for one file's patch", d->patch_total, offset, offset + d->patch_len,
		    offset + d->patch_len);
		if (tk_add(o, "next_offset", json_object_new_int64((int64_t)(offset +
		    d->patch_len))) != 0 || tk_add(o, "note", json_object_new_string(note)) != 0)
			goto nomem;
	} else if (three_dot && d->merge_base[0] == '\0') {
		if (tk_add(o, "note", json_object_new_string("base and head have no common "
		    "history: every file of head is shown as added")) != 0)
			goto nomem;
	}
	return 0;
nomem:
	json_object_put(arr);
	return ERR_NOMEM;
}

static int
build(struct json_object **out, const char *full, const char *base, const char *head,
    int three_dot, const char *path, size_t offset, const struct repo_diff *d)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "repo", json_object_new_string(full)) != 0 ||
	    tk_add(o, "base", json_object_new_string(base)) != 0 ||
	    tk_add(o, "head", json_object_new_string(head)) != 0 ||
	    tk_add(o, "three_dot", json_object_new_boolean(three_dot)) != 0 ||
	    tk_add(o, "base_commit", json_object_new_string(d->base)) != 0 ||
	    tk_add(o, "head_commit", json_object_new_string(d->head)) != 0 ||
	    tk_diff_json(o, d, three_dot, path, offset) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	*out = o;
	return 0;
}

static int
compare_refs(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct repo_diff	 diff;
	struct repo_diff_opts	 opts;
	struct err		 local;
	const char		*base = json_get_str(args, "base");
	const char		*head = json_get_str(args, "head");
	const char		*path = json_get_str(args, "path");
	char			 full[170];
	int			 rc;

	*out = NULL;
	memset(&diff, 0, sizeof diff);
	memset(&opts, 0, sizeof opts);
	opts.three_dot = tk_bool(args, "three_dot", 1);
	opts.cap = PATCH_CAP;
	opts.path = path;
	opts.offset = (size_t)tk_int(args, "offset", 0);
	opts.budget = ctx->budget;
	err_clear(&local);
	if ((rc = repo_diff(ctx->repos, &diff, repo->owner, repo->name, base, head, &opts,
	    &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((rc = build(out, tk_full(repo, full, sizeof full), base, head, opts.three_dot,
	    path, opts.offset, &diff)) != 0)
		rc = err_set(ctx->err, rc, "out of memory");
done:
	repo_diff_release(&diff);
	return rc;
}

const struct tool tool_compare_refs = {
	.name = "compare_refs",
	.title = "Compare two refs",
	.description =
	    "Compare two refs of a repository: by default three-dot (what head changed since "
	    "it forked from base, like a pull request). Returns {repo, base, head, "
	    "base_commit, head_commit, merge_base, files_changed, additions, deletions, "
	    "files: [{path, old_path, status, additions, deletions, binary, patch_bytes}], "
	    "patch, patch_total, truncated}: patch is git's unified diff, at most 100 kB per "
	    "answer, cut at a line end.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = compare_refs,
};
