/* create_run: starts a CI run of a repository's workflow by hand (spec 1.5 create_run). */
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
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"workflow\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"workflow\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"description\":\"The workflow id: the file .forgemcp/workflows/<id>.yml.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"A branch, tag or commit id to run (default: the default branch); "
    "the run keeps the commit it names now.\"},"
    "\"inputs\":{\"type\":\"object\","
    "\"description\":\"The workflow's inputs: up to 25 string, boolean or number values; "
    "defaults fill the others.\"},"
    "\"jobs\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":64},"
    "\"description\":\"Logical job ids to run (1 to 16), with the jobs they need; "
    "default: every job. Matrix children come with their job.\"}"
    "}}";

static int
create_run(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	int64_t	 number;
	int	 rc;

	*out = NULL;
	if ((rc = run_create(ctx->db, ctx->repos, &number, ctx->who->user_id, ctx->repo,
	    json_get_str(args, "workflow"), json_get_str(args, "ref"), json_get(args, "inputs"),
	    json_get(args, "jobs"), ctx->err)) != 0)
		return rc;
	return rout_started(ctx, number, out);
}

const struct tool tool_create_run = {
	.name = "create_run",
	.title = "Create run",
	.description =
	    "Start a CI run of a workflow (.forgemcp/workflows/<workflow>.yml) at a branch, tag "
	    "or commit; the run keeps that commit and that workflow file even if they change "
	    "later. Needs the execute scope and the writer role for a workflow whose on has "
	    "manual: true; a workflow that runs only for pull requests may be started by a "
	    "manager naming jobs. inputs are checked against the workflow's (types, choices, "
	    "required ones) and defaults fill the rest. jobs picks logical jobs; the jobs they "
	    "need come too (closure_added), and matrix children come with their job. The run "
	    "is queued; jobs with needs are blocked until those finish. Returns {run, state, "
	    "commit, workflow, jobs: [job_id], closure_added}. Poll it with get_run.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_EXECUTE,
	.hints = 0,
	.toolset = "ci",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_WRITER,
	.action = "start runs",
	.handler = create_run,
};
