/* get_pull_request: one pull request in full, with comments and its three-dot diff (spec: get_pull_request). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "json.h"
#include "err.h"
#include "log.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"
#include "tool.h"
#include "tools/forge_out.h"

#define DIFF_CAP	100000	/* bytes of diff text, as the spec says (100 kB) */

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"comments_offset\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,"
    "\"description\":\"Skip this many comments (next_comments_offset of "
    "the previous answer).\"},"
    "\"comments_limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":50,"
    "\"description\":\"Comments to return at most (default 50).\"}," FOUT_PAGE_ARG
    "}}";

/* Whether branch exists; a failed look-up counts as missing. */
static int
branch_there(struct tool_ctx *ctx, const struct db_repo *repo, const char *branch)
{
	struct err	 ignore;
	int		 exists = 0;

	err_clear(&ignore);
	if (repo_branch_exists(ctx->repos, &exists, repo->owner, repo->name, branch,
	    &ignore) != 0)
		return 0;
	return exists;
}

/* Adds diff, diff_truncated and diff_note (the latter null when there is nothing to say). */
static int
add_diff(struct tool_ctx *ctx, struct json_object *o, const struct db_repo *repo,
    const struct forge_item *it)
{
	struct repo_diff	 d;
	struct repo_diff_opts	 opts;
	struct err		 local;
	char			 note[1200];
	int			 head_ok, base_ok, rc;

	memset(&d, 0, sizeof d);
	memset(&opts, 0, sizeof opts);
	opts.three_dot = 1;
	opts.cap = DIFF_CAP;
	opts.budget = ctx->budget;
	note[0] = '\0';
	err_clear(&local);
	head_ok = branch_there(ctx, repo, it->head);
	base_ok = branch_there(ctx, repo, it->base);
	if (!head_ok || !base_ok) {
		if (!head_ok && !base_ok)
			snprintf(note, sizeof note, "no diff: the head branch '%s' and the base "
			    "branch '%s' no longer exist", it->head, it->base);
		else
			snprintf(note, sizeof note, "no diff: the %s branch '%s' no longer exists",
			    head_ok ? "base" : "head", head_ok ? it->base : it->head);
		rc = json_object_object_add(o, "diff", NULL) != 0 ? ERR_NOMEM : 0;
		if (rc == 0)
			rc = tk_add(o, "diff_truncated", json_object_new_boolean(0));
		goto note;
	}
	rc = repo_diff(ctx->repos, &d, repo->owner, repo->name, it->base, it->head, &opts,
	    &local);
	if (rc == ERR_NOMEM)
		goto done;
	if (rc != 0) {
		log_error("pull request %s/%s#%lld: diff failed: %s", repo->owner, repo->name,
		    (long long)it->number, local.msg);
		snprintf(note, sizeof note, "no diff: it could not be computed (%s)",
		    err_is_public(rc) ? local.msg : "internal error");
		rc = json_object_object_add(o, "diff", NULL) != 0 ? ERR_NOMEM : 0;
		if (rc == 0)
			rc = tk_add(o, "diff_truncated", json_object_new_boolean(0));
		goto note;
	}
	if ((rc = tk_add(o, "diff", json_new_string_repaired(d.patch != NULL ? d.patch : "", d.patch_len))) != 0 ||
	    (rc = tk_add(o, "diff_truncated", json_object_new_boolean(d.truncated))) != 0)
		goto done;
	if (d.truncated)
		snprintf(note, sizeof note, "the diff is cut at %zu of %zu bytes (%zu files "
		    "changed); read the rest with compare_refs {\"repo\": \"%s/%s\", \"base\": "
		    "\"%s\", \"head\": \"%s\", \"three_dot\": true, \"offset\": %zu}, or one file "
		    "at a time by adding its \"path\"", d.patch_len, d.patch_total, d.n_files,
		    repo->owner, repo->name, it->base, it->head, d.patch_len);
note:
	if (rc == 0)
		rc = fout_add_str_or_null(o, "diff_note", note);
done:
	repo_diff_release(&d);
	return rc == 0 ? 0 : err_set(ctx->err, ERR_NOMEM, "out of memory");
}

/*
 * Adds merge_error, why the latest merge failed (null unless merge_state
 * is failed), and merge_note, that a queued merge waits for a worker
 * (null unless merge_state is queued and no merge worker runs).
 */
static int
add_merge_notes(struct tool_ctx *ctx, struct json_object *o, const struct forge_item *it,
    const char *merge_state)
{
	char	*error = NULL;
	char	 note[300];
	int	 rc;

	note[0] = '\0';
	if ((rc = forge_merge_last_error(ctx->db, &error, it->id, ctx->err)) != 0)
		return rc;
	if (strcmp(merge_state, "queued") == 0 &&
	    (rc = merge_wait_note(ctx->db, note, sizeof note, ctx->err)) != 0)
		goto done;
	if (fout_add_str_or_null(o, "merge_error", error) != 0 ||
	    fout_add_str_or_null(o, "merge_note", note) != 0)
		rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	free(error);
	return rc;
}

/*
 * Adds version (the current revision, a push noticed now), version_note,
 * merge_state and merge_commit.
 */
static int
add_revision(struct tool_ctx *ctx, struct json_object *o, const struct db_repo *repo,
    const struct forge_item *it)
{
	struct pull_revision	 rev;
	struct forge_pull_status st;
	struct err		 local;
	char			 note[700];
	int			 rc;

	note[0] = '\0';
	err_clear(&local);
	rc = pull_revision_current(ctx->db, ctx->repos, repo, it, &rev, &local);
	if (rc == ERR_GIT || rc == ERR_NOTFOUND || rc == ERR_INVALID) {
		log_error("pull request %s/%s#%lld: revision not read: %s", repo->owner,
		    repo->name, (long long)it->number, local.msg);
		memset(&rev, 0, sizeof rev);
		snprintf(note, sizeof note, "the branches could not be read: a push may not be "
		    "counted yet");
	} else if (rc != 0)
		return tk_fail(ctx, rc, &local);
	if ((rc = forge_pull_status_get(ctx->db, &st, it->id, ctx->err)) != 0)
		return rc;
	if (rev.version == 0)
		rev.version = st.version;
	if (rev.head_gone || rev.base_gone)
		snprintf(note, sizeof note, "the %s branch '%s' no longer exists: version %lld is "
		    "the last revision recorded", rev.head_gone ? "head" : "base",
		    rev.head_gone ? it->head : it->base, (long long)rev.version);
	if ((rev.version > 0 ? tk_add(o, "version", json_object_new_int64(rev.version)) :
	    json_object_object_add(o, "version", NULL)) != 0 ||
	    fout_add_str_or_null(o, "version_note", note) != 0 ||
	    tk_add(o, "merge_state", json_object_new_string(st.merge_state)) != 0 ||
	    fout_add_str_or_null(o, "merge_commit", st.merge_commit) != 0)
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	return add_merge_notes(ctx, o, it, st.merge_state);
}

static int
get_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct forge_item	 it;
	struct json_object	*o = NULL;
	int			 rc;

	*out = NULL;
	memset(&it, 0, sizeof it);
	if ((rc = fout_find(ctx, &it, ctx->repo, FORGE_KIND_PULL,
	    tk_int(args, "number", 0))) != 0)
		goto done;
	if ((rc = fout_item(ctx, args, ctx->repo, &it, FORGE_KIND_PULL, &o)) != 0)
		goto done;
	if ((rc = add_revision(ctx, o, ctx->repo, &it)) != 0)
		goto done;
	if ((rc = add_diff(ctx, o, ctx->repo, &it)) != 0)
		goto done;
	*out = o;
	o = NULL;
done:
	json_object_put(o);
	forge_item_release(&it);
	return rc;
}

const struct tool tool_get_pull_request = {
	.name = "get_pull_request",
	.title = "Get pull request",
	.description =
	    "Read one pull request: {number, title, state, author, head, base, draft, issue, "
	    "closing_issue_numbers, body, url, created_at, updated_at, closed_at, "
	    "edit_version, merged_at, version, version_note, merge_state, merge_commit, "
	    "merge_error, merge_note, comments and activity (paged like get_issue), diff, "
	    "diff_truncated, diff_note}. version is the current revision (a push to head makes "
	    "a new one; get_pull_request_diff shows any); version_note says when a branch is "
	    "gone. merge_state is none, queued, running, merged or failed; merge_error says why "
	    "the latest merge failed; merge_note says when no merge worker runs to do a queued "
	    "merge. Activity type is opened, edited, commented, closed, reopened, merged or "
	    "merge_failed (its reason says why). edit_version is for edit_pull_request. diff is "
	    "git diff base...head, null when a branch is gone, capped at 100 kB: past it "
	    "diff_truncated is true and diff_note says how to read the rest with compare_refs. "
	    "closing_issue_numbers are the issues the description declares (Closes #N): the "
	    "merge closes them; issue is only linked, never closed by the merge.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = get_pull_request,
};
