/* edit_pull_request: edits a pull request's title, description and/or target (spec: edit_merge_request). */
#include <string.h>
#include <json-c/json.h>

#include "conf.h"
#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"repo\",\"number\",\"edit_version\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"edit_version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The edit_version get_pull_request showed you.\"},"
    "\"title\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"The new title; must not be blank.\"},"
    "\"description\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"The new description, in Markdown; its closing "
    "keywords (Closes #3) replace the declared closures (closing_issue_numbers).\"},"
    "\"target\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"The branch to merge into instead of the current "
    "base.\"}"
    "}}";

static int
edit_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_pull	 pr;
	struct json_object	*o = NULL;
	char			 url[2048];
	int			 rc;

	*out = NULL;
	rc = pull_edit(ctx->db, ctx->repos, &pr, ctx->who->user_id, ctx->repo,
	    tk_int(args, "number", 0), tk_int(args, "edit_version", 0),
	    json_get_str(args, "title"), json_get_str(args, "description"),
	    json_get_str(args, "target"), ctx->err);
	if (rc != 0)
		return rc;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, pr.owner, pr.name,
	    FORGE_KIND_PULL, pr.number);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "number", json_object_new_int64(pr.number)) != 0 ||
	    tk_add(o, "edit_version", json_object_new_int64(pr.edit_version)) != 0 ||
	    tk_add(o, "version", json_object_new_int64(pr.version)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(pr.changed)) != 0 ||
	    tk_add(o, "target_changed", json_object_new_boolean(pr.target_changed)) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_edit_pull_request = {
	.name = "edit_pull_request",
	.title = "Edit pull request",
	.description =
	    "Change the title, the description and/or the target branch of a pull request (at "
	    "least one; what you omit is kept). Pass the edit_version from get_pull_request: "
	    "if it was edited since, the call is refused and changes nothing. Needs the "
	    "writer role or more, or being its author. A new target must be an existing "
	    "branch other than the head, on an open pull request with no merge queued or "
	    "running; it records a new revision (even at the same commit), so check results "
	    "and approvals of older revisions no longer apply. Values equal to the current "
	    "ones change nothing (changed false). Returns {number, edit_version, version, "
	    "changed, target_changed, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = edit_pull_request,
};
