/* rerun_run: runs a finished CI run again at its pinned commit and workflow file (spec 1.5 rerun_run). */
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/runs.h"
#include "store/db.h"
#include "store/db_runs.h"
#include "tool.h"
#include "tools/run_out.h"
#include "tools/toolkit.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"run\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"run\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The finished run to run again (from list_runs or get_run).\"},"
    "\"jobs\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":64},"
    "\"description\":\"Logical job ids of that run to run again (1 to 16), with the jobs "
    "they need; default: the run's own selection.\"}"
    "}}";

static int
rerun_run(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	int64_t	 number;
	int	 rc;

	*out = NULL;
	if ((rc = run_rerun(ctx->db, ctx->repos, &number, ctx->who->user_id, ctx->repo,
	    tk_int(args, "run", 0), json_get(args, "jobs"), ctx->err)) != 0)
		return rc;
	return rout_started(ctx, number, out);
}

const struct tool tool_rerun_run = {
	.name = "rerun_run",
	.title = "Rerun run",
	.description =
	    "Run a finished CI run again as a new run: the same workflow file, commit (not the "
	    "branch's current head), inputs, pull request revision and job selection, or the "
	    "logical jobs you name with the jobs they need. A run still queued or running is "
	    "refused: cancel it or wait. Needs the execute scope and the writer role; a pull "
	    "request's run needs the manager role, and its rerun waits for approval "
	    "(awaiting_approval) unless that revision's checks are approved. Returns {run, "
	    "rerun_of, state, commit, workflow, jobs: [job_id], closure_added}. Poll it with get_run.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_EXECUTE,
	.hints = 0,
	.toolset = "ci",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_WRITER,
	.action = "start runs",
	.handler = rerun_run,
};
