/* edit_issue: edits an issue's title and/or body through the lifecycle service (spec: edit_issue). */
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
    "\"description\":\"The issue number.\"},"
    "\"edit_version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The edit_version get_issue showed you.\"},"
    "\"title\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"The new title; must not be blank.\"},"
    "\"body\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"The new description, in Markdown, replacing the "
    "old one.\"}"
    "}}";

static int
edit_issue(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_issue	 is;
	struct json_object	*o = NULL;
	char			 url[2048];
	int			 rc;

	*out = NULL;
	rc = issue_edit(ctx->db, &is, ctx->who->user_id, ctx->repo,
	    tk_int(args, "number", 0), tk_int(args, "edit_version", 0),
	    json_get_str(args, "title"), json_get_str(args, "body"), ctx->err);
	if (rc != 0)
		goto done;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, is.owner, is.name,
	    FORGE_KIND_ISSUE, is.number);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "number", json_object_new_int64(is.number)) != 0 ||
	    tk_add(o, "title", json_new_string_repaired(is.title, strlen(is.title))) != 0 ||
	    tk_add(o, "state", json_object_new_string(is.state)) != 0 ||
	    tk_add(o, "edit_version", json_object_new_int64(is.edit_version)) != 0 ||
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

const struct tool tool_edit_issue = {
	.name = "edit_issue",
	.title = "Edit issue",
	.description =
	    "Change the title and/or the body of an issue (at least one; what you omit is "
	    "kept). Pass the edit_version from get_issue: if the issue was edited since, the "
	    "call is refused and changes nothing. Needs the writer role or more, or being the "
	    "issue's author. Returns {number, title, state, edit_version (the new one), "
	    "changed (false when nothing changed), url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = edit_issue,
};
