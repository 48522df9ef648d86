/* reply_pull_request_discussion: adds a reply to a review discussion of a pull request (spec: reply_pull_request_discussion). */
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
    "\"required\":[\"repo\",\"number\",\"discussion\",\"body\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"discussion\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9007199254740991,"
    "\"description\":\"The discussion id (see list_pull_request_discussions).\"},"
    "\"body\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":65536,"
    "\"description\":\"The reply, in Markdown; must not be blank. @login mentions notify "
    "those users.\"}"
    "}}";

static int
reply_pull_request_discussion(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct service_discussion	 made;
	struct json_object		*o = NULL;
	char				 base[2048], url[2200];
	int				 rc;

	*out = NULL;
	if ((rc = discussion_reply(ctx->db, &made, ctx->who->user_id, ctx->repo,
	    tk_int(args, "number", 0), (uint64_t)tk_int(args, "discussion", 0),
	    json_get_str(args, "body"), ctx->err)) != 0)
		return rc;
	fout_item_url(base, sizeof base, ctx->cfg->base_url, made.owner, made.name,
	    FORGE_KIND_PULL, made.number);
	snprintf(url, sizeof url, "%s#discussion-%llu", base, (unsigned long long)made.id);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)made.reply_id)) != 0 ||
	    tk_add(o, "discussion", json_object_new_int64((int64_t)made.id)) != 0 ||
	    tk_add(o, "number", json_object_new_int64(made.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(made.state)) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_reply_pull_request_discussion = {
	.name = "reply_pull_request_discussion",
	.title = "Reply to pull request discussion",
	.description =
	    "Reply to a review discussion of a pull request (a resolved one too; replying "
	    "does not reopen it). Anyone who can read the repository may. Notifies the "
	    "discussion's author (reason reply) and the users the body @mentions. Returns {id "
	    "(the reply), discussion, number, state, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = reply_pull_request_discussion,
};
