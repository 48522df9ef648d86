/* workflow_plan: a workflow's needs graph, the jobs of a run (selection, closure) and their matrix children. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/workflow.h"

int
workflow_job_find(const struct workflow *w, const char *id)
{
	size_t	 i;

	for (i = 0; i < w->n_jobs; i++)
		if (strcmp(w->jobs[i].id, id) == 0)
			return (int)i;
	return -1;
}

int
workflow_input_find(const struct workflow *w, const char *name)
{
	size_t	 i;

	for (i = 0; i < w->n_inputs; i++)
		if (strcmp(w->inputs[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
workflow_input_type_name(enum wf_input_type t)
{
	static const char *const names[WF_INPUT__MAX] = {
		"string",	/* WF_INPUT_STRING */
		"boolean",	/* WF_INPUT_BOOLEAN */
		"number",	/* WF_INPUT_NUMBER */
		"choice",	/* WF_INPUT_CHOICE */
	};

	return t < WF_INPUT__MAX ? names[t] : "?";
}

int
workflow_pr_only(const struct workflow *w)
{
	return w->on_pull_request && !w->on_manual && !w->on_push;
}

int
workflow_number_ok(const char *s)
{
	const char	*p = s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return 0;
	if (*p == '.') {
		p++;
		if (strspn(p, "0123456789") == 0)
			return 0;
		p += strspn(p, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (strspn(p, "0123456789") == 0)
			return 0;
		p += strspn(p, "0123456789");
	}
	return *p == '\0' && isfinite(strtod(s, NULL));
}

/* Depth-first search for a cycle from job i; state 1: on the path, 2: done. */
static int
wf_cycle(const struct workflow *w, size_t i, unsigned char *state, size_t *path, size_t depth,
    const char *file, struct err *e)
{
	char	 msg[400];
	size_t	 k, at = 0, from;
	int	 j, rc;

	state[i] = 1;
	path[depth] = i;
	for (k = 0; k < w->jobs[i].needs.n; k++) {
		j = workflow_job_find(w, w->jobs[i].needs.v[k]);
		if (state[j] == 2)
			continue;
		if (state[j] == 1) {
			for (from = 0; path[from] != (size_t)j; from++)
				;
			msg[0] = '\0';
			for (; from <= depth && at < sizeof msg; from++)
				at += (size_t)snprintf(msg + at, sizeof msg - at, "%s -> ",
				    w->jobs[path[from]].id);
			return err_set(e, ERR_INVALID, "%s line %zu: needs make a cycle: %s%s", file,
			    w->jobs[j].needs_line != 0 ? w->jobs[j].needs_line : w->jobs[j].line, msg,
			    w->jobs[j].id);
		}
		if ((rc = wf_cycle(w, (size_t)j, state, path, depth + 1, file, e)) != 0)
			return rc;
	}
	state[i] = 2;
	return 0;
}

int
workflow_check_needs(const struct workflow *w, const char *path, struct err *e)
{
	unsigned char	 state[WF_JOBS_MAX] = { 0 };
	size_t		 stack[WF_JOBS_MAX];
	size_t		 i, k;
	int		 rc;

	for (i = 0; i < w->n_jobs; i++)
		for (k = 0; k < w->jobs[i].needs.n; k++)
			if (workflow_job_find(w, w->jobs[i].needs.v[k]) < 0)
				return err_set(e, ERR_INVALID, "%s line %zu: jobs.%s.needs names "
				    "'%.64s', which is not a job", path, w->jobs[i].needs_line,
				    w->jobs[i].id, w->jobs[i].needs.v[k]);
	for (i = 0; i < w->n_jobs; i++)
		if (state[i] == 0 && (rc = wf_cycle(w, i, state, stack, 0, path, e)) != 0)
			return rc;
	return 0;
}

/* "build, test, deploy" into buf. */
static void
wf_job_names(char *buf, size_t len, const struct workflow *w)
{
	size_t	 i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < w->n_jobs && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", w->jobs[i].id);
}

/* Marks job i's needs, transitively, as brought in by the closure. */
static void
wf_close(const struct workflow *w, size_t i, unsigned char *in)
{
	size_t	 k;
	int	 j;

	for (k = 0; k < w->jobs[i].needs.n; k++) {
		j = workflow_job_find(w, w->jobs[i].needs.v[k]);
		if (j < 0 || in[j] != 0)
			continue;
		in[j] = 2;
		wf_close(w, (size_t)j, in);
	}
}

int
workflow_select(const struct workflow *w, const char *id, const char *const *names, size_t n,
    unsigned char *in, struct err *e)
{
	char	 list[300];
	size_t	 i, k;
	int	 j;

	memset(in, 0, w->n_jobs);
	if (names == NULL) {
		memset(in, 1, w->n_jobs);
		return 0;
	}
	if (n == 0)
		return err_set(e, ERR_INVALID, "jobs is empty: name 1 to %d logical jobs, or omit "
		    "jobs to run them all", WF_SELECT_MAX);
	if (n > WF_SELECT_MAX)
		return err_set(e, ERR_INVALID, "jobs names %zu jobs: at most %d", n,
		    WF_SELECT_MAX);
	for (i = 0; i < n; i++) {
		for (k = 0; k < i; k++)
			if (strcmp(names[k], names[i]) == 0)
				return err_set(e, ERR_INVALID, "jobs names '%.64s' twice", names[i]);
		if ((j = workflow_job_find(w, names[i])) < 0) {
			wf_job_names(list, sizeof list, w);
			return err_set(e, ERR_INVALID, "workflow '%s' has no job '%.100s': name "
			    "logical jobs (%s); their matrix children are included", id, names[i],
			    list);
		}
		in[j] = 1;
	}
	for (i = 0; i < w->n_jobs; i++)
		if (in[i] == 1)
			wf_close(w, i, in);
	return 0;
}

const char *
workflow_matrix_value(const struct workflow *w, const struct wf_instance *i, size_t a)
{
	const struct wf_job	*j = &w->jobs[i->job];
	size_t			 k, c = i->combo;

	for (k = j->n_axes; k-- > a + 1;)
		c /= j->axes[k].values.n;
	return j->axes[a].values.v[c % j->axes[a].values.n];
}

void
workflow_instances_free(struct wf_instance *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(v[i].job_id);
	free(v);
}

/* The job id of instance in: "test (os=debian, cc=gcc)". */
static char *
wf_instance_id(const struct workflow *w, const struct wf_instance *in)
{
	const struct wf_job	*j = &w->jobs[in->job];
	size_t			 a, len = strlen(j->id) + 4, at;
	char			*s;

	if (j->n_axes == 0)
		return strdup(j->id);
	for (a = 0; a < j->n_axes; a++)
		len += strlen(j->axes[a].key) + strlen(workflow_matrix_value(w, in, a)) + 3;
	if ((s = malloc(len)) == NULL)
		return NULL;
	at = (size_t)snprintf(s, len, "%s (", j->id);
	for (a = 0; a < j->n_axes; a++)
		at += (size_t)snprintf(s + at, len - at, "%s%s=%s", a ? ", " : "", j->axes[a].key,
		    workflow_matrix_value(w, in, a));
	snprintf(s + at, len - at, ")");
	return s;
}

int
workflow_expand(const struct workflow *w, const unsigned char *in, struct wf_instance **out,
    size_t *n, struct err *e)
{
	struct wf_instance	*v = NULL;
	size_t			 i, c, total = 0, at = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < w->n_jobs; i++)
		if (in[i])
			total += w->jobs[i].children;
	if (total > WF_INSTANCES_MAX)
		return err_set(e, ERR_TOOBIG, "the run would have %zu job instances: at most %d",
		    total, WF_INSTANCES_MAX);
	if ((v = calloc(total + 1, sizeof *v)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (i = 0; i < w->n_jobs; i++) {
		if (!in[i])
			continue;
		for (c = 0; c < w->jobs[i].children; c++) {
			v[at].job = i;
			v[at].combo = c;
			if ((v[at].job_id = wf_instance_id(w, &v[at])) == NULL) {
				workflow_instances_free(v, at);
				return err_set(e, ERR_NOMEM, "out of memory");
			}
			at++;
		}
	}
	*out = v;
	*n = at;
	return 0;
}
