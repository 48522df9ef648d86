/* merge_pull_request: queues the merge of a pull request's observed revision (spec: merge_merge_request). */
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/closing.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"repo\",\"number\",\"version\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The revision (version) get_pull_request showed "
    "you; refused if the head or the target moved since.\"},"
    "\"edit_version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The edit_version get_pull_request showed you; "
    "required when closing_issue_numbers is not empty, to confirm the issues the "
    "merge will close.\"},"
    "\"strategy\":{\"type\":\"string\",\"enum\":[\"merge\",\"squash\",\"fast_forward\"],"
    "\"description\":\"merge (default): a merge commit of target and "
    "head; squash: one commit on the target with the head's changes; fast_forward: "
    "the target moves to the head, only when it is an ancestor of the head.\"}"
    "}}";

static int
merge_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_merge_queued	 q;
	struct closing_list		 l;
	struct json_object		*o = NULL, *nums = NULL;
	size_t				 i;
	int				 rc;

	*out = NULL;
	rc = merge_queue(ctx->db, ctx->repos, &q, ctx->who->user_id, ctx->repo,
	    tk_int(args, "number", 0), tk_int(args, "version", 0),
	    tk_int(args, "edit_version", 0), json_get_str(args, "strategy"), ctx->err);
	if (rc != 0)
		return rc;
	closing_read(&l, q.closing);
	if ((nums = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < l.n; i++)
		if (json_object_array_add(nums, json_object_new_int64(l.numbers[i])) != 0)
			goto nomem;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "queued", json_object_new_boolean(1)) != 0 ||
	    tk_add(o, "merge_id", json_object_new_int64((int64_t)q.merge_id)) != 0 ||
	    tk_add(o, "number", json_object_new_int64(q.number)) != 0 ||
	    tk_add(o, "version", json_object_new_int64(q.version)) != 0 ||
	    tk_add(o, "strategy", json_object_new_string(q.strategy)) != 0)
		goto nomem;
	rc = tk_add(o, "closing_issue_numbers", nums);
	nums = NULL;
	if (rc != 0 || tk_add(o, "note", json_object_new_string("the merge is queued; read "
	    "get_pull_request for merge_state")) != 0)
		goto nomem;
	*out = o;
	return 0;
nomem:
	json_object_put(nums);
	json_object_put(o);
	return err_set(ctx->err, ERR_NOMEM, "out of memory");
}

const struct tool tool_merge_pull_request = {
	.name = "merge_pull_request",
	.title = "Merge pull request",
	.description =
	    "Queue the merge of a pull request into its target branch; the merge worker does "
	    "it shortly after, so this call merges and closes nothing itself. Pass the "
	    "version you reviewed and, when the description declares closures, the "
	    "edit_version you read: stale ones are refused. Refused for a pull request that "
	    "is not open, a draft, one with a merge queued or running, and when the target's "
	    "required checks have not passed on that revision. Needs the merge scope and the "
	    "manager role or more. Returns {queued, merge_id, number, version, strategy, "
	    "closing_issue_numbers, note}; get_pull_request shows merge_state, merge_commit "
	    "and merge_error. A successful merge marks it merged, closes the open issues it "
	    "declares and notifies its author; a failed one (a conflict, the head moved) "
	    "leaves it open.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_MERGE,
	.hints = 0,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_MANAGER,
	.action = "merge pull request",
	.handler = merge_pull_request,
};
