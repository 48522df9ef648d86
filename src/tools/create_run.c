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

/* Appends v to array a, or frees it: ERR_NOMEM. */
static int
add_item(struct json_object *a, struct json_object *v)
{
	if (v == NULL)
		return ERR_NOMEM;
	if (json_object_array_add(a, v) != 0) {
		json_object_put(v);
		return ERR_NOMEM;
	}
	return 0;
}

static int
create_run(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct forge_run	 r;
	struct forge_job	*jobs = NULL;
	struct json_object	*o = NULL, *a = NULL, *closure = NULL;
	struct err		 local;
	int64_t			 number;
	size_t			 n = 0, i;
	int			 rc;

	*out = NULL;
	memset(&r, 0, sizeof r);
	if ((rc = run_create(ctx->db, ctx->repos, &number, ctx->who->user_id, ctx->repo,
	    json_get_str(args, "workflow"), json_get_str(args, "ref"), json_get(args, "inputs"),
	    json_get(args, "jobs"), ctx->err)) != 0)
		return rc;
	err_clear(&local);
	if ((rc = forge_run_get(ctx->db, &r, ctx->repo->id, number, &local)) != 0 ||
	    (rc = forge_job_list(ctx->db, &jobs, &n, r.id, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	if ((o = json_object_new_object()) == NULL || (a = json_object_new_array()) == NULL ||
	    tk_add(o, "run", json_object_new_int64(r.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(r.state)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(r.commit)) != 0 ||
	    tk_add(o, "workflow", json_object_new_string(r.workflow)) != 0)
		goto nomem;
	for (i = 0; i < n; i++)
		if (add_item(a, json_object_new_string(jobs[i].job_id)) != 0)
			goto nomem;
	rc = tk_add(o, "jobs", a);
	a = NULL;
	if (rc != 0 || (closure = json_tokener_parse(r.closure_added)) == NULL)
		goto nomem;
	rc = tk_add(o, "closure_added", closure);
	closure = NULL;
	if (rc != 0)
		goto nomem;
	*out = o;
	o = NULL;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(a);
	json_object_put(closure);
	json_object_put(o);
	forge_job_list_free(jobs, n);
	forge_run_release(&r);
	return rc;
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
