/* workflow_jobs: the inputs and jobs sections of a workflow file (spec 1.6.1). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"
#include "service/workflow.h"
#include "service/workflow-int.h"

static int
wf_input(struct wf_parse *p, struct wf_input *in, const yaml_node_t *n)
{
	static const char *const keys[] = { "type", "choices", "required", "default",
	    "description", NULL };
	static const char *const types[] = { "string", "boolean", "number", "choice" };
	yaml_node_pair_t	*pr;
	const yaml_node_t	*v, *at_def = NULL, *at_choices = NULL;
	const char		*k, *s;
	char			 what[100];
	size_t			 i;
	int			 rc;

	snprintf(what, sizeof what, "inputs.%s", in->name);
	if ((rc = wf_keys(p, n, what, keys)) != 0)
		return rc;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		k = wf_text(wf_node(p, pr->key));
		v = wf_node(p, pr->value);
		rc = 0;
		if (strcmp(k, "type") == 0) {
			s = wf_text(v);
			for (i = 0; i < WF_INPUT__MAX && (s == NULL || strcmp(s, types[i]) != 0); i++)
				;
			if (i == WF_INPUT__MAX)
				return wf_fail(p, v, "%s.type must be string, boolean, number or "
				    "choice", what);
			in->type = (enum wf_input_type)i;
		} else if (strcmp(k, "choices") == 0) {
			at_choices = v;
			rc = wf_strings(p, v, "choices", 64, &in->choices);
		} else if (strcmp(k, "required") == 0)
			rc = wf_bool(p, v, "required", &in->required);
		else if (strcmp(k, "default") == 0) {
			at_def = v;
			rc = wf_scalar(p, v, "default", &in->def);
		} else if (wf_text(v) == NULL)
			rc = wf_fail(p, v, "%s.description must be text", what);
		if (rc != 0)
			return rc;
	}
	if (at_choices != NULL && in->type != WF_INPUT_CHOICE)
		return wf_fail(p, at_choices, "%s: choices go only with type: choice", what);
	if (in->type == WF_INPUT_CHOICE && in->choices.n == 0)
		return wf_fail(p, n, "%s: type choice needs a non-empty choices list", what);
	if (in->def == NULL)
		return 0;
	if (in->required)
		return wf_fail(p, at_def, "%s is required and has a default: drop one of them",
		    what);
	if (in->type == WF_INPUT_BOOLEAN && strcmp(in->def, "true") != 0 &&
	    strcmp(in->def, "false") != 0)
		return wf_fail(p, at_def, "%s.default must be true or false", what);
	if (in->type == WF_INPUT_NUMBER && !workflow_number_ok(in->def))
		return wf_fail(p, at_def, "%s.default must be a number", what);
	if (in->type == WF_INPUT_CHOICE) {
		for (i = 0; i < in->choices.n && strcmp(in->choices.v[i], in->def) != 0; i++)
			;
		if (i == in->choices.n)
			return wf_fail(p, at_def, "%s.default '%.64s' is not one of its choices",
			    what, in->def);
	}
	return 0;
}

int
wf_inputs(struct wf_parse *p, struct workflow *w, const yaml_node_t *n)
{
	yaml_node_pair_t	*pr;
	const yaml_node_t	*k;
	size_t			 count;
	int			 rc;

	if (wf_null(n))
		return 0;
	if ((rc = wf_keys(p, n, "inputs", NULL)) != 0)
		return rc;
	count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (count > WF_INPUTS_MAX)
		return wf_fail(p, n, "inputs defines %zu inputs: at most %d", count, WF_INPUTS_MAX);
	if ((w->inputs = calloc(count + 1, sizeof *w->inputs)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		k = wf_node(p, pr->key);
		if (!wf_word(wf_text(k), WF_LOWER "_", WF_LOWER WF_DIGIT "_", 64))
			return wf_fail(p, k, "input name '%.64s' must match [a-z_][a-z0-9_]{0,63}",
			    wf_text(k));
		if ((w->inputs[w->n_inputs].name = strdup(wf_text(k))) == NULL)
			return err_set(p->e, ERR_NOMEM, "out of memory");
		w->n_inputs++;
		if ((rc = wf_input(p, &w->inputs[w->n_inputs - 1], wf_node(p, pr->value))) != 0)
			return rc;
	}
	return 0;
}

/* A matrix value may not hold what a job id uses to separate values. */
static int
wf_matrix(struct wf_parse *p, struct wf_job *j, const yaml_node_t *n, const char *what)
{
	yaml_node_pair_t	*pr;
	const yaml_node_t	*k, *v;
	struct wf_axis		*a;
	size_t			 i, count;
	int			 rc;

	if ((rc = wf_keys(p, n, what, NULL)) != 0)
		return rc;
	count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (count > WF_AXES_MAX)
		return wf_fail(p, n, "%s has %zu axes: at most %d", what, count, WF_AXES_MAX);
	if ((j->axes = calloc(count + 1, sizeof *j->axes)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		k = wf_node(p, pr->key);
		v = wf_node(p, pr->value);
		if (!wf_word(wf_text(k), WF_LOWER "_", WF_LOWER WF_DIGIT "_", 64))
			return wf_fail(p, k, "%s: axis name '%.64s' must match [a-z_][a-z0-9_]{0,63}",
			    what, wf_text(k));
		a = &j->axes[j->n_axes++];
		if ((a->key = strdup(wf_text(k))) == NULL)
			return err_set(p->e, ERR_NOMEM, "out of memory");
		if (v->type != YAML_SEQUENCE_NODE)
			return wf_fail(p, v, "%s.%s must be a list of values", what, a->key);
		if ((rc = wf_strings(p, v, "a matrix axis", WF_CHILDREN_MAX, &a->values)) != 0)
			return rc;
		if (a->values.n == 0)
			return wf_fail(p, v, "%s.%s has no values: an axis needs at least one", what,
			    a->key);
		for (i = 0; i < a->values.n; i++)
			if (a->values.v[i][0] == '\0' || strlen(a->values.v[i]) > 100 ||
			    strpbrk(a->values.v[i], ",=()\n\r\t") != NULL)
				return wf_fail(p, v, "%s.%s: value '%.64s' must be 1 to 100 "
				    "characters without , = ( ) or control characters", what, a->key,
				    a->values.v[i]);
		if (j->children * a->values.n > WF_CHILDREN_MAX)
			return wf_fail(p, v, "%s makes more than %d children", what,
			    WF_CHILDREN_MAX);
		j->children *= a->values.n;
	}
	return 0;
}

static int
wf_steps(struct wf_parse *p, struct wf_job *j, const yaml_node_t *n, const char *what)
{
	static const char *const keys[] = { "name", "run", NULL };
	yaml_node_item_t	*it;
	yaml_node_pair_t	*pr;
	const yaml_node_t	*s;
	struct wf_step		*st;
	size_t			 count;
	int			 rc;

	if (n->type != YAML_SEQUENCE_NODE)
		return wf_fail(p, n, "%s must be a list of steps", what);
	count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count == 0)
		return wf_fail(p, n, "%s is empty: a job needs at least one step", what);
	if (count > WF_STEPS_MAX)
		return wf_fail(p, n, "%s has %zu steps: at most %d", what, count, WF_STEPS_MAX);
	if ((j->steps = calloc(count, sizeof *j->steps)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		s = wf_node(p, *it);
		if ((rc = wf_keys(p, s, "a step", keys)) != 0)
			return rc;
		st = &j->steps[j->n_steps++];
		for (pr = s->data.mapping.pairs.start; pr < s->data.mapping.pairs.top; pr++) {
			if (strcmp(wf_text(wf_node(p, pr->key)), "name") == 0)
				rc = wf_scalar(p, wf_node(p, pr->value), "a step's name", &st->name);
			else
				rc = wf_scalar(p, wf_node(p, pr->value), "a step's run", &st->run);
			if (rc != 0)
				return rc;
		}
		if (st->run == NULL)
			return wf_fail(p, s, "a step of %s has no run", what);
	}
	return 0;
}

int
wf_job(struct wf_parse *p, struct wf_job *j, const yaml_node_t *n)
{
	static const char *const keys[] = { "name", "needs", "matrix", "timeout_minutes", "env",
	    "steps", NULL };
	yaml_node_pair_t	*pr, *ev;
	const yaml_node_t	*v, *steps = NULL;
	const char		*k, *s;
	char			 what[100], *end;
	long			 t;
	int			 rc;

	snprintf(what, sizeof what, "jobs.%s", j->id);
	j->children = 1;
	j->timeout_minutes = WF_TIMEOUT_DEFAULT;
	if ((rc = wf_keys(p, n, what, keys)) != 0)
		return rc;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		k = wf_text(wf_node(p, pr->key));
		v = wf_node(p, pr->value);
		if (strcmp(k, "name") == 0)
			rc = wf_scalar(p, v, "a job's name", &j->name);
		else if (strcmp(k, "needs") == 0) {
			j->needs_line = (size_t)v->start_mark.line + 1;
			rc = wf_strings(p, v, "needs", WF_JOBS_MAX, &j->needs);
		} else if (strcmp(k, "matrix") == 0)
			rc = wf_matrix(p, j, v, "matrix");
		else if (strcmp(k, "timeout_minutes") == 0) {
			s = wf_text(v);
			t = s != NULL && s[0] >= '0' && s[0] <= '9' ? strtol(s, &end, 10) : 0;
			if (s == NULL || s[0] < '0' || s[0] > '9' || *end != '\0' || t < 1 ||
			    t > WF_TIMEOUT_MAX)
				return wf_fail(p, v, "%s.timeout_minutes must be a whole number from "
				    "1 to %d", what, WF_TIMEOUT_MAX);
			j->timeout_minutes = (int)t;
		} else if (strcmp(k, "env") == 0) {
			if ((rc = wf_keys(p, v, "env", NULL)) != 0)
				return rc;
			for (ev = v->data.mapping.pairs.start; ev < v->data.mapping.pairs.top; ev++) {
				s = wf_text(wf_node(p, ev->key));
				if (!wf_word(s, WF_UPPER WF_LOWER "_", WF_UPPER WF_LOWER WF_DIGIT "_",
				    128))
					return wf_fail(p, wf_node(p, ev->key), "env name '%.64s' must "
					    "match [A-Za-z_][A-Za-z0-9_]*", s);
				if (wf_text(wf_node(p, ev->value)) == NULL)
					return wf_fail(p, wf_node(p, ev->value), "env %s must be a "
					    "single value", s);
				if ((rc = wf_list_add(p, &j->env, s)) != 0 ||
				    (rc = wf_list_add(p, &j->env, wf_text(wf_node(p, ev->value)))) != 0)
					return rc;
			}
		} else {
			steps = v;
			rc = wf_steps(p, j, v, what);
		}
		if (rc != 0)
			return rc;
	}
	if (steps == NULL)
		return wf_fail(p, n, "%s has no steps", what);
	if (j->name != NULL && strlen(j->name) > 255)
		return wf_fail(p, n, "%s.name is over 255 bytes", what);
	if (j->name == NULL && (j->name = strdup(j->id)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	return 0;
}
