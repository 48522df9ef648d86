/* add_issue_comment: comments on an issue or a pull request by number (spec: add_issue_comment). */
#include <stdio.h>
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
    "\"required\":[\"repo\",\"number\",\"body\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The number of the issue or pull request (they share one "
    "sequence).\"},"
    "\"body\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"The comment, in Markdown; must not be blank.\"}"
    "}}";

static int
add_issue_comment(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_created	 made;
	struct json_object	*o = NULL;
	char			 url[2048], link[2200];
	int			 rc;

	*out = NULL;
	if ((rc = comment_add(ctx->db, &made, ctx->who->user_id, ctx->repo, tk_int(args, "number",
	    0), json_get_str(args, "body"),
	    ctx->err)) != 0)
		return rc;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, made.owner, made.name,
	    made.kind, made.number);
	snprintf(link, sizeof link, "%s#issuecomment-%llu", url, (unsigned long long)made.id);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)made.id)) != 0 ||
	    tk_add(o, "url", json_object_new_string(link)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_add_issue_comment = {
	.name = "add_issue_comment",
	.title = "Add issue or pull request comment",
	.description =
	    "Post a comment on an issue or a pull request of a repository you can read, by "
	    "its number (issues and pull requests share one number sequence, so a number "
	    "names exactly one of them). The body is Markdown and must not be blank. Returns "
	    "{id, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = add_issue_comment,
};
