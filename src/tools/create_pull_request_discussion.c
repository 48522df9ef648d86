/* create_pull_request_discussion: opens a review discussion on a pull request, general or anchored to a diff line (spec: create_pull_request_discussion). */
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"repo\",\"number\",\"body\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"body\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":65536,"
    "\"description\":\"In Markdown; must not be blank. @login mentions "
    "notify those users.\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Anchor to this file of the diff (its head path; "
    "the old path of a deleted file). Omit path, line and side for a general "
    "discussion.\"},"
    "\"line\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"With path: a line number of the chosen side that "
    "the diff shows (in a hunk).\"},"
    "\"side\":{\"type\":\"string\",\"enum\":[\"new\",\"old\"],\"default\":\"new\","
    "\"description\":\"With path: new (default; the head: added and "
    "unchanged lines) or old (before the change: removed and unchanged lines).\"},"
    "\"version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The revision the anchor refers to; default the "
    "current one (see get_pull_request).\"}"
    "}}";

static int
create_pull_request_discussion(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct service_discussion	 made;
	struct forge_discussion		 d;
	struct err			 local;
	int				 rc;

	*out = NULL;
	memset(&d, 0, sizeof d);
	if ((rc = discussion_create(ctx->db, ctx->repos, &made, ctx->who->user_id,
	    ctx->repo, tk_int(args, "number", 0),
	    json_get_str(args, "body"), json_get_str(args, "path"), tk_int(args, "line", 0),
	    json_get_str(args, "side"), tk_int(args, "version", 0), ctx->err)) != 0)
		return rc;
	/* the stored discussion, as list_pull_request_discussions shows it */
	err_clear(&local);
	if ((rc = forge_discussion_get(ctx->db, &d, made.pull_request_id, made.id,
	    &local)) != 0) {
		rc = tk_fail(ctx, rc == ERR_NOTFOUND ? ERR_INTERNAL : rc, &local);
		goto done;
	}
	rc = fout_discussion(ctx, ctx->repo, made.number, &d, 1, out);
done:
	forge_discussion_release(&d);
	return rc;
}

const struct tool tool_create_pull_request_discussion = {
	.name = "create_pull_request_discussion",
	.title = "Create pull request discussion",
	.description =
	    "Open a review discussion on a pull request: a general thread (no path), or one "
	    "anchored to a diff line with path, line and side. The anchor must be a file of "
	    "that revision's diff (merge base to head) and a line of that side shown in one "
	    "of its hunks; otherwise the call is refused, naming the valid lines. The diff "
	    "lines around the anchor are saved, so it reads the same after later pushes. "
	    "Anyone who can read the repository may. Notifies the pull request's author and "
	    "the users body @mentions. Returns the discussion {id, author, state, "
	    "state_version, version, path, line, side, body, anchor_context, replies_count, "
	    "url, created_at, updated_at}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = 0,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = create_pull_request_discussion,
};
