/* run_out: the JSON the CI tools show of runs and their jobs. */
#ifndef FM_RUN_OUT_H
#define FM_RUN_OUT_H

struct json_object;
struct forge_run;
struct forge_job;

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

#endif
