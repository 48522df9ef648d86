/* close_issue: closes an issue; fout_issue_state serves reopen_issue too (spec: close_issue). */
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
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The issue number.\"}"
    "}}";

int
fout_issue_state(struct tool_ctx *ctx, struct json_object *args, int close,
    struct json_object **out)
{
	struct service_issue	 is;
	struct json_object	*o = NULL;
	char			 url[2048];
	int			 rc;

	*out = NULL;
	rc = (close ? issue_close : issue_reopen)(ctx->db, &is, ctx->who->user_id,
	    ctx->repo, tk_int(args, "number", 0), ctx->err);
	if (rc != 0)
		goto done;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, is.owner, is.name,
	    FORGE_KIND_ISSUE, is.number);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "number", json_object_new_int64(is.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(is.state)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(is.changed)) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = o;
done:
	service_issue_release(&is);
	return rc;
}

static int
close_issue(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return fout_issue_state(ctx, args, 1, out);
}

const struct tool tool_close_issue = {
	.name = "close_issue",
	.title = "Close issue",
	.description =
	    "Close an issue. Needs the writer role or more on the repository, or being the "
	    "issue's author. Closing a closed issue succeeds and changes nothing (changed "
	    "false: it was already closed); a real change is recorded in the issue's "
	    "activity (get_issue) with who did it. Returns {number, state, changed, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = close_issue,
};
