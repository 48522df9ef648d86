/* run_out: the JSON the CI tools show of runs and their jobs. */
#ifndef FM_RUN_OUT_H
#define FM_RUN_OUT_H

#include <stddef.h>
#include <stdint.h>

struct json_object;
struct forge_run;
struct forge_job;
struct tool_ctx;

/*
 * Adds the fields list_runs shows of r to o (spec 1.5): run, workflow,
 * event, ref, commit, pull_request, version, state, actor, created_at,
 * started_at, finished_at, rerun_of, jobs_total, jobs_finished.  With
 * full, also get_run's: workflow_name, inputs, selected_jobs,
 * closure_added, approval, workflow_path, workflow_blob.  Returns 0 or -1
 * (out of memory).
 */
int	rout_run(struct json_object *o, const struct forge_run *r, int full);
/* A job instance as get_run shows it, a new object; NULL when out of memory. */
struct json_object *rout_job(const struct forge_job *j);
/* An array of the n strings v, a new object; NULL when out of memory. */
struct json_object *rout_strings(char *const *v, size_t n);
/*
 * The answer of a tool that started run number of ctx->repo (create_run,
 * rerun_run): {run, rerun_of (a rerun only), state, commit, workflow,
 * jobs: [job_id], closure_added}.  Returns 0 or an error set in ctx->err.
 */
int	rout_started(struct tool_ctx *ctx, int64_t number, struct json_object **out);

#endif
