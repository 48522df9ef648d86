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
    "\"description\":\"The repository as owner/name (see list_repositories).\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The issue number.\"},"
    "\"comments_offset\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,"
    "\"description\":\"Skip this many comments (the next_comments_offset of the previous "
    "answer).\"},"
    "\"comments_limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":50,"
    "\"description\":\"How many comments to return at most (1 to 100, default 50).\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Which page of the activity (50 entries a page, oldest first, from 1); "
    "when activity.has_more is true, ask for the next page.\"}"
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
	    "Read one issue of a repository by number, with its comments and its activity, "
	    "oldest first. Returns {number, title, state, author, body, url, created_at, "
	    "updated_at, closed_at, edit_version, comments: [{id, author, body, created_at, "
	    "url}], comments_total, comments_truncated, activity: {entries: [{id, type, actor, "
	    "created_at, cause, source_number, comment_id, body}], page, has_more}}. "
	    "edit_version is what edit_issue needs. comments: at most comments_limit (default "
	    "50); when comments_truncated is true, pass next_comments_offset as "
	    "comments_offset to read the next ones. activity: what happened, 50 entries a "
	    "page (argument page); type is opened, edited, closed, reopened or commented (with "
	    "comment_id and the comment's body); closed and reopened entries carry cause: "
	    "\"user\" when someone called close_issue or reopen_issue, \"merge\" when the "
	    "merge of pull request #source_number closed the issue.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = get_issue,
};
