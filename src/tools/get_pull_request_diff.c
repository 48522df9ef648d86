/* get_pull_request_diff: the three-dot diff of one revision of a pull request, paged like compare_refs (spec: get_merge_request_diff). */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "log.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/forge_out.h"

#define PATCH_CAP	100000	/* bytes of patch per answer, as compare_refs */

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The revision to show (get_pull_request gives the "
    "current one); default the latest.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Only this changed file's patch (its new or old path).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000000000000,\"default\":0,"
    "\"description\":\"Byte offset into the patch: pass next_offset from a truncated "
    "answer to get the next part.\"}"
    "}}";

static int
get_pull_request_diff(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	const struct db_repo	*repo = ctx->repo;
	struct forge_item	 it;
	struct pull_revision	 rev;
	struct repo_diff	 diff;
	struct repo_diff_opts	 opts;
	struct json_object	*o = NULL, *target = NULL;
	struct err		 local;
	int64_t			 version = tk_int(args, "version", 0);
	char			 full[170];
	int			 rc;

	*out = NULL;
	memset(&it, 0, sizeof it);
	memset(&diff, 0, sizeof diff);
	memset(&opts, 0, sizeof opts);
	if ((rc = fout_find(ctx, &it, repo, FORGE_KIND_PULL, tk_int(args, "number", 0))) != 0)
		goto done;
	/* The latest is the current one: a push not seen yet is recorded first. */
	err_clear(&local);
	if (version == 0 && (rc = pull_revision_current(ctx->db, ctx->repos, repo,
	    &it, &rev, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	err_clear(&local);
	if ((rc = pull_revision_get(ctx->db, it.id, version, &rev, &local)) != 0) {
		if (rc == ERR_NOTFOUND)
			rc = err_set(ctx->err, rc, "pull request #%lld of %s/%s: %s",
			    (long long)it.number, repo->owner, repo->name, local.msg);
		else
			rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	opts.three_dot = 1;
	opts.cap = PATCH_CAP;
	opts.offset = (size_t)tk_int(args, "offset", 0);
	opts.path = json_get_str(args, "path");
	opts.budget = ctx->budget;
	err_clear(&local);
	rc = repo_diff(ctx->repos, &diff, repo->owner, repo->name, rev.base_commit,
	    rev.head_commit, &opts, &local);
	if (rc == ERR_NOTFOUND) {
		log_error("pull request %s/%s#%lld version %lld: %s", repo->owner, repo->name,
		    (long long)it.number, (long long)rev.version, local.msg);
		rc = err_set(ctx->err, rc, "the commits of version %lld of pull request #%lld are "
		    "no longer in %s/%s: its diff cannot be shown", (long long)rev.version,
		    (long long)it.number, repo->owner, repo->name);
		goto done;
	}
	if (rc != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((o = json_object_new_object()) == NULL || (target = json_object_new_object()) == NULL ||
	    tk_add(target, "ref", json_new_string_repaired(rev.base_ref,
	    strlen(rev.base_ref))) != 0 ||
	    tk_add(target, "commit", json_object_new_string(rev.base_commit)) != 0)
		goto nomem;
	if (tk_add(o, "repo", json_object_new_string(tk_full(repo, full, sizeof full))) != 0 ||
	    tk_add(o, "number", json_object_new_int64(it.number)) != 0 ||
	    tk_add(o, "version", json_object_new_int64(rev.version)) != 0 ||
	    tk_add(o, "reason", json_object_new_string(rev.reason)) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(rev.created_at)) != 0)
		goto nomem;
	rc = tk_add(o, "target", target);
	target = NULL;	/* o holds it, or tk_add dropped it */
	if (rc != 0 ||
	    tk_add(o, "head_commit", json_object_new_string(rev.head_commit)) != 0 ||
	    tk_diff_json(o, &diff, 1, opts.path, opts.offset) != 0)
		goto nomem;
	*out = o;
	o = NULL;
	goto done;
nomem:
	json_object_put(target);
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(o);
	repo_diff_release(&diff);
	forge_item_release(&it);
	return rc;
}

const struct tool tool_get_pull_request_diff = {
	.name = "get_pull_request_diff",
	.title = "Get pull request diff",
	.description =
	    "The three-dot diff of one revision of a pull request (a push to head is recorded "
	    "as a new revision first): what that revision's head commit changed since its "
	    "merge base with the target saved for it, even if target or head moved since. "
	    "Returns {repo, number, version, reason (opened, push, target), created_at, "
	    "target: {ref, commit}, head_commit, merge_base, files_changed, additions, "
	    "deletions, files: [{path, old_path, status, additions, deletions, binary, "
	    "patch_bytes}], patch, offset, patch_total, truncated}, at most 100 kB of patch "
	    "per answer.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = get_pull_request_diff,
};
