/* fuzz-workflow: the workflow file parser, its job selection and matrix expansion. */
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "fuzz.h"
#include "service/workflow.h"

#define PATH	".forgemcp/workflows/fuzz.yml"

/*
 * The input is a workflow file.  Whatever it holds, the parser either
 * refuses it with ERR_INVALID and a message that starts with the file's
 * path, or returns a workflow within the limits whose needs name its jobs;
 * selecting every job, and each job alone, expands to at most
 * WF_INSTANCES_MAX instances with ids that start with their job's id.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workflow		 w;
	struct wf_instance	*v = NULL;
	struct err		 e;
	unsigned char		 in[WF_JOBS_MAX];
	const char		*one[1];
	size_t			 i, k, n;
	int			 rc;

	err_clear(&e);
	rc = workflow_parse(&w, PATH, "fuzz", (const char *)data, size, &e);
	if (rc != 0) {
		FUZZ_ASSERT(rc == ERR_INVALID || rc == ERR_NOMEM);
		FUZZ_ASSERT(rc == ERR_NOMEM || strncmp(e.msg, PATH " line ", strlen(PATH) + 6) == 0);
		workflow_release(&w);
		return 0;
	}
	FUZZ_ASSERT(w.n_jobs >= 1 && w.n_jobs <= WF_JOBS_MAX);
	FUZZ_ASSERT(w.n_inputs <= WF_INPUTS_MAX);
	FUZZ_ASSERT(w.on_manual || w.on_pull_request || w.on_push);
	for (i = 0; i < w.n_jobs; i++) {
		FUZZ_ASSERT(w.jobs[i].n_steps >= 1 && w.jobs[i].n_steps <= WF_STEPS_MAX);
		FUZZ_ASSERT(w.jobs[i].children >= 1 && w.jobs[i].children <= WF_CHILDREN_MAX);
		FUZZ_ASSERT(w.jobs[i].timeout_minutes >= 1 &&
		    w.jobs[i].timeout_minutes <= WF_TIMEOUT_MAX);
		for (k = 0; k < w.jobs[i].needs.n; k++)
			FUZZ_ASSERT(workflow_job_find(&w, w.jobs[i].needs.v[k]) >= 0);
	}
	FUZZ_ASSERT(workflow_select(&w, "fuzz", NULL, 0, in, &e) == 0);
	FUZZ_ASSERT(workflow_expand(&w, in, &v, &n, &e) == 0);
	FUZZ_ASSERT(n >= w.n_jobs && n <= WF_INSTANCES_MAX);
	workflow_instances_free(v, n);
	for (i = 0; i < w.n_jobs; i++) {
		one[0] = w.jobs[i].id;
		FUZZ_ASSERT(workflow_select(&w, "fuzz", one, 1, in, &e) == 0);
		FUZZ_ASSERT(in[i] == 1);
		FUZZ_ASSERT(workflow_expand(&w, in, &v, &n, &e) == 0);
		for (k = 0; k < n; k++)
			FUZZ_ASSERT(strncmp(v[k].job_id, w.jobs[v[k].job].id,
			    strlen(w.jobs[v[k].job].id)) == 0);
		workflow_instances_free(v, n);
	}
	workflow_release(&w);
	return 0;
}
