/* list_runs: a repository's CI runs, newest first, 50 a page (spec 1.5 list_runs). */
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/db_runs.h"
#include "tool.h"
#include "tools/run_out.h"
#include "tools/toolkit.h"

#define PAGE_SIZE	50

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"workflow\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"description\":\"Only runs of this workflow id.\"},"
    "\"ref\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
    "\"description\":\"Only runs started for this ref, as it was given (a branch name).\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"awaiting_approval\",\"queued\",\"running\","
    "\"success\",\"failure\",\"cancelled\",\"all\"],\"default\":\"all\","
    "\"description\":\"Only runs in this state (default all).\"},"
    "\"pull_request\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"Only runs of this pull request number.\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Page of 50 runs, from 1; ask for the next while has_more is "
    "true.\"}"
    "}}";

static int
list_runs(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct forge_run	*v = NULL;
	struct json_object	*o = NULL, *a = NULL, *r;
	struct err		 local;
	const char		*state = json_get_str(args, "state");
	int64_t			 page = tk_int(args, "page", 1), offset;
	size_t			 n = 0, i, shown;
	int			 rc;

	*out = NULL;
	err_clear(&local);
	if (state != NULL && strcmp(state, "all") == 0)
		state = NULL;
	offset = page - 1 > INT32_MAX ? (int64_t)INT32_MAX * PAGE_SIZE : (page - 1) * PAGE_SIZE;
	if ((rc = forge_run_list(ctx->db, &v, &n, ctx->repo->id, json_get_str(args, "workflow"),
	    json_get_str(args, "ref"), state, tk_int(args, "pull_request", 0), offset,
	    PAGE_SIZE + 1, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	shown = n > PAGE_SIZE ? PAGE_SIZE : n;
	if ((o = json_object_new_object()) == NULL || (a = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < shown; i++) {
		if ((r = json_object_new_object()) == NULL)
			goto nomem;
		if (json_object_array_add(a, r) != 0) {
			json_object_put(r);
			goto nomem;
		}
		if (rout_run(r, &v[i], 0) != 0)
			goto nomem;
	}
	rc = tk_page(o, "runs", a, page, n > PAGE_SIZE);
	a = NULL;
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
	json_object_put(o);
	forge_run_list_free(v, n);
	return rc;
}

const struct tool tool_list_runs = {
	.name = "list_runs",
	.title = "List runs",
	.description =
	    "List the CI runs of a repository, newest first, 50 a page, optionally of one "
	    "workflow, ref, state or pull request. Returns {runs: [{run, workflow, event, ref, "
	    "commit, "
	    "pull_request, version, state, actor, created_at, started_at, finished_at, "
	    "rerun_of, jobs_total, jobs_finished}], page, has_more}. Read one with get_run.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "ci",
	.target = TOOL_TARGET_REPO,
	.handler = list_runs,
};
