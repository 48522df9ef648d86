/* run_out: the JSON the CI tools show of runs and their jobs. */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db_runs.h"
#include "tool.h"
#include "tools/forge_out.h"
#include "tools/run_out.h"
#include "tools/toolkit.h"

/* A stored JSON text as a value (NULL text: null). */
static int
rout_json(struct json_object *o, const char *key, const char *text)
{
	struct json_object	*v;

	if (text == NULL)
		return json_object_object_add(o, key, NULL) != 0 ? -1 : 0;
	if ((v = json_tokener_parse(text)) == NULL)
		return -1;
	return tk_add(o, key, v) != 0 ? -1 : 0;
}

static struct json_object *
rout_int_or_null(int64_t v)
{
	return v != 0 ? json_object_new_int64(v) : NULL;
}

int
rout_run(struct json_object *o, const struct forge_run *r, int full)
{
	if (tk_add(o, "run", json_object_new_int64(r->number)) != 0 ||
	    tk_add(o, "workflow", json_object_new_string(r->workflow)) != 0 ||
	    tk_add(o, "event", json_object_new_string(r->event)) != 0 ||
	    tk_add(o, "ref", json_object_new_string(r->ref)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(r->commit)) != 0 ||
	    json_object_object_add(o, "pull_request", rout_int_or_null(r->pull_request)) != 0 ||
	    json_object_object_add(o, "version", rout_int_or_null(r->version)) != 0 ||
	    tk_add(o, "state", json_object_new_string(r->state)) != 0 ||
	    fout_add_str_or_null(o, "actor", r->actor) != 0 ||
	    tk_add(o, "created_at", json_object_new_string(r->created_at)) != 0 ||
	    fout_add_str_or_null(o, "started_at", r->started_at) != 0 ||
	    fout_add_str_or_null(o, "finished_at", r->finished_at) != 0 ||
	    json_object_object_add(o, "rerun_of", rout_int_or_null(r->rerun_of)) != 0 ||
	    tk_add(o, "jobs_total", json_object_new_int64(r->jobs_total)) != 0 ||
	    tk_add(o, "jobs_finished", json_object_new_int64(r->jobs_finished)) != 0)
		return -1;
	if (!full)
		return 0;
	if (tk_add(o, "workflow_name", json_object_new_string(r->workflow_name)) != 0 ||
	    rout_json(o, "inputs", r->inputs) != 0 ||
	    json_object_object_add(o, "selected_jobs", NULL) != 0 ||
	    (r->selected_jobs != NULL && rout_json(o, "selected_jobs", r->selected_jobs) != 0) ||
	    rout_json(o, "closure_added", r->closure_added) != 0 ||
	    json_object_object_add(o, "approval", NULL) != 0 ||
	    tk_add(o, "workflow_path", json_object_new_string(r->workflow_path)) != 0 ||
	    tk_add(o, "workflow_blob", json_object_new_string(r->workflow_blob)) != 0)
		return -1;
	return 0;
}

struct json_object *
rout_job(const struct forge_job *j)
{
	struct json_object	*o = json_object_new_object();

	if (o == NULL ||
	    tk_add(o, "job_id", json_object_new_string(j->job_id)) != 0 ||
	    tk_add(o, "job", json_object_new_string(j->job)) != 0 ||
	    tk_add(o, "name", json_object_new_string(j->name)) != 0 ||
	    rout_json(o, "matrix", j->matrix) != 0 ||
	    rout_json(o, "needs", j->needs) != 0 ||
	    tk_add(o, "state", json_object_new_string(j->state)) != 0 ||
	    json_object_object_add(o, "exit_code", j->exit_code[0] != '\0' ?
	    json_object_new_int(atoi(j->exit_code)) : NULL) != 0 ||
	    tk_add(o, "timeout_minutes", json_object_new_int64(j->timeout_minutes)) != 0 ||
	    fout_add_str_or_null(o, "started_at", j->started_at) != 0 ||
	    fout_add_str_or_null(o, "finished_at", j->finished_at) != 0 ||
	    tk_add(o, "timed_out", json_object_new_boolean(strcmp(j->state, "timed_out") == 0)) != 0 ||
	    tk_add(o, "log_bytes", json_object_new_int64(j->log_bytes)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* An array of the n strings v, a new object; NULL when out of memory. */
struct json_object *
rout_strings(char *const *v, size_t n)
{
	struct json_object	*a, *s;
	size_t			 i;

	if ((a = json_object_new_array()) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if ((s = json_object_new_string(v[i])) == NULL ||
		    json_object_array_add(a, s) != 0) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int
rout_started(struct tool_ctx *ctx, int64_t number, struct json_object **out)
{
	struct forge_run	 r;
	struct forge_job	*jobs = NULL;
	struct json_object	*o = NULL, *a;
	struct err		 local;
	char			**ids = NULL;
	size_t			 n = 0, i;
	int			 rc;

	*out = NULL;
	memset(&r, 0, sizeof r);
	err_clear(&local);
	if ((rc = forge_run_get(ctx->db, &r, ctx->repo->id, number, &local)) != 0 ||
	    (rc = forge_job_list(ctx->db, &jobs, &n, r.id, &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
	if (n > 0 && (ids = calloc(n, sizeof *ids)) == NULL)
		goto done;
	for (i = 0; i < n; i++)
		ids[i] = jobs[i].job_id;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "run", json_object_new_int64(r.number)) != 0 ||
	    (r.rerun_of != 0 && tk_add(o, "rerun_of", json_object_new_int64(r.rerun_of)) != 0) ||
	    tk_add(o, "state", json_object_new_string(r.state)) != 0 ||
	    tk_add(o, "commit", json_object_new_string(r.commit)) != 0 ||
	    tk_add(o, "workflow", json_object_new_string(r.workflow)) != 0 ||
	    (a = rout_strings(ids, n)) == NULL || tk_add(o, "jobs", a) != 0 ||
	    rout_json(o, "closure_added", r.closure_added) != 0)
		goto done;
	*out = o;
	o = NULL;
	rc = 0;
done:
	free(ids);
	json_object_put(o);
	forge_job_list_free(jobs, n);
	forge_run_release(&r);
	return rc;
}
