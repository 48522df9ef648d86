/* get_pull_request_checks: the checks of a pull request's current revision and their approval (spec: get_merge_request_checks). */
#include <json-c/json.h>

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
    "\"description\":\"The pull request number.\"}"
    "}}";

/* One check as {name, status, required, details, updated_at}. */
static struct json_object *
check_json(const struct service_check *c)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (tk_add(o, "name", json_object_new_string(c->name)) != 0 ||
	    tk_add(o, "status", json_object_new_string(c->status)) != 0 ||
	    tk_add(o, "required", json_object_new_boolean(c->required)) != 0 ||
	    fout_add_str_or_null(o, "details", c->details) != 0 ||
	    fout_add_str_or_null(o, "updated_at", c->updated_at) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int
get_pull_request_checks(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct service_checks	 c = { 0 };
	struct json_object	*o = NULL, *list = NULL, *ap = NULL, *item;
	size_t			 i;
	int			 rc;

	*out = NULL;
	if ((rc = checks_get(ctx->db, ctx->repos, &c, ctx->who->user_id, ctx->repo, tk_int(args,
	    "number", 0), ctx->err)) != 0)
		goto done;
	rc = ERR_NOMEM;
	if ((o = json_object_new_object()) == NULL || (list = json_object_new_array()) == NULL ||
	    (ap = json_object_new_object()) == NULL)
		goto nomem;
	for (i = 0; i < c.n; i++) {
		if ((item = check_json(&c.v[i])) == NULL)
			goto nomem;
		if (json_object_array_add(list, item) != 0) {
			json_object_put(item);
			goto nomem;
		}
	}
	if (tk_add(ap, "approved", json_object_new_boolean(c.approval.approved)) != 0 ||
	    fout_add_str_or_null(ap, "by", c.approval.by) != 0 ||
	    fout_add_str_or_null(ap, "at", c.approval.at) != 0)
		goto nomem;
	if (tk_add(o, "version", json_object_new_int64(c.rev.version)) != 0 ||
	    tk_add(o, "target", json_object_new_string(c.rev.base_ref)) != 0 ||
	    tk_add(o, "head_commit", json_object_new_string(c.rev.head_commit)) != 0)
		goto nomem;
	rc = tk_add(o, "checks", list);
	list = NULL;
	if (rc != 0 || tk_add(o, "required_passing", json_object_new_boolean(c.passing)) != 0)
		goto nomem;
	rc = tk_add(o, "approval", ap);
	ap = NULL;
	if (rc != 0)
		goto nomem;
	*out = o;
	o = NULL;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(ap);
	json_object_put(list);
	json_object_put(o);
	service_checks_release(&c);
	return rc;
}

const struct tool tool_get_pull_request_checks = {
	.name = "get_pull_request_checks",
	.title = "Get pull request checks",
	.description =
	    "Read the checks of a pull request's current revision. Returns {version, target, "
	    "head_commit, checks: [{name, status, required, details, updated_at}], "
	    "required_passing, approval: {approved, by, at}}. checks lists each check the "
	    "target branch requires (required true), then the revision's CI checks, then others "
	    "reported on head_commit. A CI check is named <workflow>/<job>, one for each job of "
	    "the revision's runs, and follows the job's state (pending until the checks are "
	    "approved and a runner takes it). "
	    "status is pending, running, success, failure or cancelled as reported, or "
	    "expected for a required check not reported on this commit yet. required_passing: "
	    "every required check is success (or none is required); merge_pull_request needs "
	    "it. approval: whether a manager approved this revision's checks; creating a pull "
	    "request never approves its checks, and a new revision starts unapproved.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = get_pull_request_checks,
};
