/* create_issue: opens an issue through the issue service (spec: create_issue). */
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
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"title\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"title\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"A short summary of the issue; must not be blank.\"},"
    "\"body\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"The description, in Markdown.\"}"
    "}}";

static int
create_issue(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_created	 made;
	struct json_object	*o = NULL;
	char			 url[2048];
	int			 rc;

	*out = NULL;
	if ((rc = issue_create(ctx->db, &made, ctx->who->user_id, ctx->repo, json_get_str(args,
	    "title"), json_get_str(args, "body"),
	    ctx->err)) != 0)
		return rc;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, made.owner, made.name,
	    FORGE_KIND_ISSUE, made.number);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "number", json_object_new_int64(made.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string("open")) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_create_issue = {
	.name = "create_issue",
	.title = "Create issue",
	.description =
	    "Open a new issue on a repository you can read. The title must not be blank; the "
	    "body is Markdown. Issues and pull requests share one number sequence per "
	    "repository. Returns {number, state, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = create_issue,
};
