/* approve_pull_request_checks: a manager approves the checks of a pull request's current revision (spec: approve_merge_checks). */
#include <stdlib.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The revision you reviewed (version from "
    "get_pull_request_checks); refused, approving nothing, when the pull request has "
    "a newer one.\"}"
    "}}";

static int
approve_pull_request_checks(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct service_approval	 a = { 0 };
	struct json_object	*o = NULL, *runs = NULL;
	size_t			 i;
	int			 rc;

	*out = NULL;
	if ((rc = checks_approve(ctx->db, ctx->repos, &a, ctx->who->user_id, ctx->repo,
	    tk_int(args, "number", 0), tk_int(args, "version", 0),
	    ctx->err)) != 0) {
		free(a.runs_started);
		return rc;
	}
	if ((runs = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < a.n_started; i++)
		if (json_object_array_add(runs, json_object_new_int64(a.runs_started[i])) != 0)
			goto nomem;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "version", json_object_new_int64(a.version)) != 0 ||
	    tk_add(o, "approved", json_object_new_boolean(1)) != 0 ||
	    tk_add(o, "by", json_object_new_string(a.approval.by)) != 0 ||
	    tk_add(o, "at", json_object_new_string(a.approval.at)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(a.changed)) != 0)
		goto nomem;
	rc = tk_add(o, "runs_started", runs);
	runs = NULL;
	if (rc != 0)
		goto nomem;
	free(a.runs_started);
	*out = o;
	return 0;
nomem:
	free(a.runs_started);
	json_object_put(runs);
	json_object_put(o);
	return err_set(ctx->err, ERR_NOMEM, "out of memory");
}

const struct tool tool_approve_pull_request_checks = {
	.name = "approve_pull_request_checks",
	.title = "Approve pull request checks",
	.description =
	    "Approve the checks of a pull request's current revision, so they may run on its "
	    "code. Needs the execute scope and the manager role or more. Creating a pull "
	    "request never approves its checks, and an approval belongs to one revision: "
	    "after a push or a target change the new revision needs its own. Only an open "
	    "pull request's checks can be approved; approving again changes nothing. The "
	    "revision's CI runs awaiting approval start (queued) with the approval. Returns "
	    "{version, approved, by, at (of the first approval), changed, runs_started: [run "
	    "numbers]}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_EXECUTE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_MANAGER,
	.action = "approve the checks of pull request",
	.handler = approve_pull_request_checks,
};
