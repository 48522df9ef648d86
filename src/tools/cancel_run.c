/* cancel_run: cancels a CI run; the runner stops its running jobs (spec 1.5 cancel_run). */
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/runs.h"
#include "tool.h"
#include "tools/run_out.h"
#include "tools/toolkit.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"run\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"run\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The run number (from create_run or list_runs).\"}"
    "}}";

static int
cancel_run(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct run_cancel	 c;
	struct json_object	*o = NULL, *a = NULL;
	int64_t			 number = tk_int(args, "run", 0);
	int			 rc;

	*out = NULL;
	if ((rc = run_cancel(ctx->db, &c, ctx->who->user_id, ctx->repo, number, ctx->err)) != 0)
		return rc;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "run", json_object_new_int64(number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(c.state)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(c.changed)) != 0 ||
	    (a = rout_strings(c.jobs, c.n_jobs)) == NULL)
		goto nomem;
	rc = tk_add(o, "cancelled_jobs", a);
	a = NULL;
	if (rc != 0)
		goto nomem;
	*out = o;
	o = NULL;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(a);
	json_object_put(o);
	run_cancel_release(&c);
	return rc;
}

const struct tool tool_cancel_run = {
	.name = "cancel_run",
	.title = "Cancel run",
	.description =
	    "Cancel a CI run. Needs the execute scope and the writer role; a run another user "
	    "started needs the manager role. Jobs waiting (blocked, queued, or in a run "
	    "awaiting approval) become cancelled at once; running jobs are asked to stop, and "
	    "the runner ends them cancelled shortly after. The run becomes cancelled now; the "
	    "call does not wait. Returns {run, state, changed, cancelled_jobs: [job_id]}. A "
	    "run already finished (success, failure, cancelled) is left as it is: changed is "
	    "false. Follow the jobs with get_run.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_EXECUTE,
	.hints = TOOL_DESTRUCTIVE | TOOL_IDEMPOTENT,
	.toolset = "ci",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_WRITER,
	.action = "cancel runs",
	.handler = cancel_run,
};
