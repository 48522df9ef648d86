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
	struct forge_run	 r;
	struct forge_job	*jobs = NULL;
	struct json_object	*o = NULL, *a = NULL;
	struct err		 local;
	int64_t			 number;
	size_t			 n = 0, i;
	int			 rc;

	*out = NULL;
	memset(&r, 0, sizeof r);
	if ((rc = run_rerun(ctx->db, ctx->repos, &number, ctx->who->user_id, ctx->repo,
	    tk_int(args, "run", 0), json_get(args, "jobs"), ctx->err)) != 0)
		return rc;
	err_clear(&local);
	if ((rc = forge_run_get(ctx->db, &r, ctx->repo->id, number, &local)) != 0 ||
	    (rc = forge_job_list(ctx->db, &jobs, &n, r.id, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((o = json_object_new_object()) == NULL || (a = json_object_new_array()) == NULL ||
	    tk_add(o, "run", json_object_new_int64(r.number)) != 0 ||
	    tk_add(o, "rerun_of", json_object_new_int64(r.rerun_of)) != 0 ||
	    tk_add(o, "state", json_object_new_string(r.state)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(r.commit)) != 0)
		goto nomem;
	for (i = 0; i < n; i++)
		if (json_object_array_add(a, json_object_new_string(jobs[i].job_id)) != 0)
			goto nomem;
	rc = tk_add(o, "jobs", a);
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
	forge_job_list_free(jobs, n);
	forge_run_release(&r);
	return rc;
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
	    "rerun_of, state, commit, jobs: [job_id]}. Poll it with get_run.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_EXECUTE,
	.hints = 0,
	.toolset = "ci",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_WRITER,
	.action = "start runs",
	.handler = rerun_run,
};
