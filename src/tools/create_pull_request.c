/* create_pull_request: opens a pull request through the pull request service (spec: create_pull_request). */
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
    "\"required\":[\"repo\",\"title\",\"head\",\"base\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"title\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"A short summary; must not be blank.\"},"
    "\"head\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"The branch with the changes, e.g. feature/login.\"},"
    "\"base\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"The branch to merge into, e.g. main.\"},"
    "\"body\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"The description, in Markdown. Closes #N, Fixes #N "
    "or Resolves #N (or a list: Closes #1, #2 and #3) declares issues the merge "
    "closes; titles, comments, code and references to other repositories declare "
    "nothing.\"},"
    "\"description\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"Another name for body; give one of the two, not "
    "both.\"},"
    "\"draft\":{\"type\":\"boolean\",\"default\":false,"
    "\"description\":\"Open it as a draft.\"},"
    "\"issue\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"An existing issue of this repository to link; it "
    "only links the issue and never closes it.\"}"
    "}}";

static int
create_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct service_created	 made;
	struct json_object	*o = NULL;
	const char		*body = json_get_str(args, "body");
	char			 url[2048];
	int			 rc;

	*out = NULL;
	if (body != NULL && json_get(args, "description") != NULL)
		return err_set(ctx->err, ERR_INVALID, "give body or description, not both: they are "
		    "the same text under two names");
	if (body == NULL)
		body = json_get_str(args, "description");
	if ((rc = pull_create(ctx->db, ctx->repos, &made, ctx->who->user_id, ctx->repo,
	    json_get_str(args, "title"), body,
	    json_get_str(args, "head"), json_get_str(args, "base"), tk_bool(args, "draft", 0),
	    tk_int(args, "issue", 0), ctx->err)) != 0)
		return rc;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, made.owner, made.name,
	    FORGE_KIND_PULL, made.number);
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

const struct tool tool_create_pull_request = {
	.name = "create_pull_request",
	.title = "Create pull request",
	.description =
	    "Open a pull request from a head branch into a base branch of the same "
	    "repository. Needs the writer role or more. Both branches must exist and differ; "
	    "only one pull request per head and base may be open. Issues and pull requests "
	    "share one number sequence. Closes #N in the body declares issues to close when "
	    "the pull request is merged (get_pull_request shows them as "
	    "closing_issue_numbers); `description` is another name for `body`; `issue` only "
	    "links an issue and never closes it. Returns {number, state, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_WRITER,
	.action = "open a pull request",
	.handler = create_pull_request,
};
