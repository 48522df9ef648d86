/* get_issue: one issue in full with its comments, oldest first (spec: get_issue). */
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "store/db.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The issue number.\"},"
    "\"comments_offset\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,"
    "\"description\":\"Skip this many comments (next_comments_offset of "
    "the previous answer).\"},"
    "\"comments_limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":50,"
    "\"description\":\"Comments to return at most (default 50).\"}," FOUT_PAGE_ARG
    "}}";

static int
get_issue(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct forge_item	 it;
	int			 rc;

	*out = NULL;
	memset(&it, 0, sizeof it);
	if ((rc = fout_find(ctx, &it, ctx->repo, FORGE_KIND_ISSUE,
	    tk_int(args, "number", 0))) != 0)
		goto done;
	rc = fout_item(ctx, args, ctx->repo, &it, FORGE_KIND_ISSUE, out);
done:
	forge_item_release(&it);
	return rc;
}

const struct tool tool_get_issue = {
	.name = "get_issue",
	.title = "Get issue",
	.description =
	    "Read one issue with its comments and activity, oldest first. Returns {number, "
	    "title, state, author, body, url, created_at, updated_at, closed_at, edit_version "
	    "(for edit_issue), comments: [{id, author, body, created_at, url}], "
	    "comments_total, comments_truncated, activity: {entries: [{id, type, actor, "
	    "created_at, cause, source_number, comment_id, body}], page, has_more}}. When "
	    "comments_truncated, pass next_comments_offset as comments_offset. Activity type "
	    "is opened, edited, closed, reopened or commented; the cause of a close or reopen "
	    "is user (close_issue, reopen_issue) or merge (of pull request #source_number).",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = get_issue,
};
