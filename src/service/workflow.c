/* workflow: reads a workflow file's YAML into struct workflow, refusing what spec 1.6.1 refuses. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"
#include "service/workflow.h"

struct wf_parse {
	yaml_document_t	 doc;
	const char	*path;
	struct err	*e;
};

static int
wf_fail(struct wf_parse *p, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
wf_fail(struct wf_parse *p, const yaml_node_t *at, const char *fmt, ...)
{
	char	 msg[400];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(p->e, ERR_INVALID, "%s line %zu: %s", p->path,
	    at != NULL ? (size_t)at->start_mark.line + 1 : (size_t)1, msg);
}

static yaml_node_t *
wf_node(struct wf_parse *p, int idx)
{
	return yaml_document_get_node(&p->doc, idx);
}

/* The text of a scalar node (no embedded NUL), else NULL. */
static const char *
wf_text(const yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* Whether n is an empty plain scalar (the YAML null). */
static int
wf_null(const yaml_node_t *n)
{
	const char	*s = wf_text(n);

	return s != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

static int
wf_scalar(struct wf_parse *p, const yaml_node_t *n, const char *what, char **out)
{
	const char	*s = wf_text(n);

	if (s == NULL)
		return wf_fail(p, n, "%s must be a single value (text, number or boolean)", what);
	if ((*out = strdup(s)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
wf_bool(struct wf_parse *p, const yaml_node_t *n, const char *what, int *out)
{
	const char	*s = wf_text(n);

	if (s != NULL && strcmp(s, "true") == 0)
		*out = 1;
	else if (s != NULL && strcmp(s, "false") == 0)
		*out = 0;
	else
		return wf_fail(p, n, "%s must be true or false", what);
	return 0;
}

static int
wf_list_add(struct wf_parse *p, struct wf_list *l, const char *s)
{
	char	**v;

	if ((v = realloc(l->v, (l->n + 1) * sizeof *v)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	l->v = v;
	if ((l->v[l->n] = strdup(s)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	l->n++;
	return 0;
}

static void
wf_list_free(struct wf_list *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* A sequence of scalars (or one scalar) into l; max entries at most. */
static int
wf_strings(struct wf_parse *p, const yaml_node_t *n, const char *what, size_t max,
    struct wf_list *l)
{
	yaml_node_item_t	*it;
	const yaml_node_t	*v;
	const char		*s;
	int			 rc;

	if (n->type == YAML_SCALAR_NODE && !wf_null(n))
		return (s = wf_text(n)) == NULL ? wf_fail(p, n, "%s holds a NUL byte", what) :
		    wf_list_add(p, l, s);
	if (n->type != YAML_SEQUENCE_NODE)
		return wf_fail(p, n, "%s must be a list of values", what);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		v = wf_node(p, *it);
		if ((s = wf_text(v)) == NULL)
			return wf_fail(p, v, "%s must hold single values, not lists or mappings",
			    what);
		if (l->n >= max)
			return wf_fail(p, v, "%s has more than %zu entries", what, max);
		if ((rc = wf_list_add(p, l, s)) != 0)
			return rc;
	}
	return 0;
}

/*
 * Checks that mapping n has only the keys of allowed (NULL-terminated),
 * none twice; what names it in messages.
 */
static int
wf_keys(struct wf_parse *p, const yaml_node_t *n, const char *what, const char *const *allowed)
{
	yaml_node_pair_t	*a, *b;
	const yaml_node_t	*k;
	const char		*s;
	char			 list[200];
	size_t			 i, at = 0;

	if (n->type != YAML_MAPPING_NODE)
		return wf_fail(p, n, "%s must be a mapping", what);
	for (a = n->data.mapping.pairs.start; a < n->data.mapping.pairs.top; a++) {
		k = wf_node(p, a->key);
		if ((s = wf_text(k)) == NULL)
			return wf_fail(p, k, "a key of %s is not a plain value", what);
		for (b = n->data.mapping.pairs.start; b < a; b++)
			if (strcmp(wf_text(wf_node(p, b->key)), s) == 0)
				return wf_fail(p, k, "%s has the key '%.64s' twice", what, s);
		if (allowed == NULL)
			continue;
		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(allowed[i], s) == 0)
				break;
		if (allowed[i] != NULL)
			continue;
		list[0] = '\0';
		for (i = 0; allowed[i] != NULL && at < sizeof list; i++)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "",
			    allowed[i]);
		return wf_fail(p, k, "unknown key '%.64s' in %s (the keys are %s)", s, what, list);
	}
	return 0;
}

/* Whether s is [first][rest]{0,max-1}, with the character classes given as strings. */
static int
wf_word(const char *s, const char *first, const char *rest, size_t max)
{
	size_t	 n = strlen(s);

	return n > 0 && n <= max && strchr(first, s[0]) != NULL && s[0] != '\0' &&
	    strspn(s + 1, rest) == n - 1;
}

#define WF_LOWER	"abcdefghijklmnopqrstuvwxyz"
#define WF_UPPER	"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define WF_DIGIT	"0123456789"

int
workflow_id_ok(const char *id)
{
	return id != NULL && wf_word(id, WF_LOWER WF_DIGIT, WF_LOWER WF_DIGIT "_-", WF_ID_MAX);
}

/* on.pull_request / on.push: empty, or { branches: [...] }. */
static int
wf_event(struct wf_parse *p, const yaml_node_t *n, const char *what, struct wf_list *branches)
{
	static const char *const keys[] = { "branches", NULL };
	yaml_node_pair_t	*pr;
	int			 rc;

	if (wf_null(n))
		return 0;
	if ((rc = wf_keys(p, n, what, keys)) != 0)
		return rc;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++)
		if ((rc = wf_strings(p, wf_node(p, pr->value), "branches", 64, branches)) != 0)
			return rc;
	return 0;
}

static int
wf_on(struct wf_parse *p, struct workflow *w, const yaml_node_t *n)
{
	static const char *const keys[] = { "pull_request", "manual", "push", NULL };
	yaml_node_pair_t	*pr;
	const yaml_node_t	*v;
	const char		*k;
	int			 rc;

	if ((rc = wf_keys(p, n, "on", keys)) != 0)
		return rc;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		k = wf_text(wf_node(p, pr->key));
		v = wf_node(p, pr->value);
		if (strcmp(k, "manual") == 0)
			rc = wf_bool(p, v, "on.manual", &w->on_manual);
		else if (strcmp(k, "pull_request") == 0) {
			w->on_pull_request = 1;
			rc = wf_event(p, v, "on.pull_request", &w->pr_branches);
		} else {
			w->on_push = 1;
			rc = wf_event(p, v, "on.push", &w->push_branches);
		}
		if (rc != 0)
			return rc;
	}
	if (!w->on_manual && !w->on_pull_request && !w->on_push)
		return wf_fail(p, n, "on names no event: give pull_request, manual: true or push");
	return 0;
}

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

static int
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

static int
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

/*
 * The first pass, over events: refuses anchors, aliases, tags beyond the
 * plain ones, and nesting deeper than WF_DEPTH_MAX, before a document is
 * built.
 */
static int
wf_scan(struct wf_parse *p, const char *text, size_t len)
{
	yaml_parser_t	 parser;
	yaml_event_t	 ev;
	yaml_char_t	*anchor;
	int		 depth = 0, rc = 0, done = 0, docs = 0;
	size_t		 line;

	if (!yaml_parser_initialize(&parser))
		return err_set(p->e, ERR_NOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = err_set(p->e, ERR_INVALID, "%s line %zu: not valid YAML: %.200s",
			    p->path, parser.problem_mark.line + 1,
			    parser.problem != NULL ? parser.problem : "parse error");
			break;
		}
		line = ev.start_mark.line + 1;
		anchor = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				rc = err_set(p->e, ERR_INVALID, "%s line %zu: a second document: a "
				    "workflow file holds one", p->path, line);
			break;
		case YAML_ALIAS_EVENT:
			rc = err_set(p->e, ERR_INVALID, "%s line %zu: aliases (*name) are not "
			    "allowed", p->path, line);
			break;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			break;
		case YAML_SEQUENCE_START_EVENT:
			anchor = ev.data.sequence_start.anchor;
			depth++;
			break;
		case YAML_MAPPING_START_EVENT:
			anchor = ev.data.mapping_start.anchor;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (rc == 0 && anchor != NULL)
			rc = err_set(p->e, ERR_INVALID, "%s line %zu: anchors (&name) are not "
			    "allowed", p->path, line);
		if (rc == 0 && depth > WF_DEPTH_MAX)
			rc = err_set(p->e, ERR_INVALID, "%s line %zu: nested more than %d deep",
			    p->path, line, WF_DEPTH_MAX);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int
workflow_parse(struct workflow *out, const char *path, const char *id, const char *text,
    size_t len, struct err *e)
{
	static const char *const keys[] = { "name", "on", "inputs", "jobs", NULL };
	struct wf_parse		 p;
	yaml_parser_t		 parser;
	yaml_node_t		*root, *v, *k;
	yaml_node_pair_t	*pr;
	const yaml_node_t	*jobs = NULL, *on = NULL;
	const char		*key;
	size_t			 count, total = 0;
	int			 rc, loaded = 0;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	p.path = path;
	p.e = e;
	if (len > WF_FILE_MAX)
		return err_set(e, ERR_INVALID, "%s line 1: the file has %zu bytes: at most %d", path,
		    len, WF_FILE_MAX);
	if (memchr(text, '\0', len) != NULL)
		return err_set(e, ERR_INVALID, "%s line 1: the file holds a NUL byte", path);
	if ((rc = wf_scan(&p, text, len)) != 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return err_set(e, ERR_NOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &p.doc)) {
		rc = err_set(e, ERR_INVALID, "%s line %zu: not valid YAML: %.200s", path,
		    parser.problem_mark.line + 1, parser.problem != NULL ? parser.problem : "error");
		goto done;
	}
	loaded = 1;
	if ((root = yaml_document_get_root_node(&p.doc)) == NULL) {
		rc = err_set(e, ERR_INVALID, "%s line 1: the file is empty", path);
		goto done;
	}
	if ((rc = wf_keys(&p, root, "the workflow", keys)) != 0)
		goto done;
	for (pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		key = wf_text(wf_node(&p, pr->key));
		v = wf_node(&p, pr->value);
		if (strcmp(key, "name") == 0)
			rc = wf_scalar(&p, v, "name", &out->name);
		else if (strcmp(key, "on") == 0) {
			on = v;
			rc = wf_on(&p, out, v);
		} else if (strcmp(key, "inputs") == 0)
			rc = wf_inputs(&p, out, v);
		else
			jobs = v;
		if (rc != 0)
			goto done;
	}
	if (on == NULL) {
		rc = wf_fail(&p, root, "the workflow has no on: say when it runs");
		goto done;
	}
	if (jobs == NULL || (rc = wf_keys(&p, jobs, "jobs", NULL)) != 0) {
		if (jobs == NULL)
			rc = wf_fail(&p, root, "the workflow has no jobs");
		goto done;
	}
	count = (size_t)(jobs->data.mapping.pairs.top - jobs->data.mapping.pairs.start);
	if (count == 0 || count > WF_JOBS_MAX) {
		rc = wf_fail(&p, jobs, "jobs has %zu jobs: 1 to %d", count, WF_JOBS_MAX);
		goto done;
	}
	if ((out->jobs = calloc(count, sizeof *out->jobs)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (pr = jobs->data.mapping.pairs.start; pr < jobs->data.mapping.pairs.top; pr++) {
		k = wf_node(&p, pr->key);
		if (!wf_word(wf_text(k), WF_LOWER WF_UPPER WF_DIGIT "_",
		    WF_LOWER WF_UPPER WF_DIGIT "_-", 64)) {
			rc = wf_fail(&p, k, "job id '%.64s' must match [A-Za-z0-9_][A-Za-z0-9_-]{0,63}",
			    wf_text(k));
			goto done;
		}
		if ((out->jobs[out->n_jobs].id = strdup(wf_text(k))) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		out->jobs[out->n_jobs].line = (size_t)k->start_mark.line + 1;
		out->n_jobs++;
		if ((rc = wf_job(&p, &out->jobs[out->n_jobs - 1], wf_node(&p, pr->value))) != 0)
			goto done;
		total += out->jobs[out->n_jobs - 1].children;
		if (total > WF_INSTANCES_MAX) {
			rc = wf_fail(&p, k, "the jobs make more than %d job instances",
			    WF_INSTANCES_MAX);
			goto done;
		}
	}
	if (out->name != NULL && strlen(out->name) > 255) {
		rc = wf_fail(&p, root, "name is over 255 bytes");
		goto done;
	}
	if (out->name == NULL && (out->name = strdup(id)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = workflow_check_needs(out, path, e);
done:
	if (loaded)
		yaml_document_delete(&p.doc);
	yaml_parser_delete(&parser);
	return rc;
}

void
workflow_release(struct workflow *w)
{
	size_t	 i, k;

	if (w == NULL)
		return;
	for (i = 0; i < w->n_inputs; i++) {
		free(w->inputs[i].name);
		free(w->inputs[i].def);
		wf_list_free(&w->inputs[i].choices);
	}
	free(w->inputs);
	for (i = 0; i < w->n_jobs; i++) {
		struct wf_job	*j = &w->jobs[i];

		free(j->id);
		free(j->name);
		wf_list_free(&j->needs);
		wf_list_free(&j->env);
		for (k = 0; k < j->n_axes; k++) {
			free(j->axes[k].key);
			wf_list_free(&j->axes[k].values);
		}
		free(j->axes);
		for (k = 0; k < j->n_steps; k++) {
			free(j->steps[k].name);
			free(j->steps[k].run);
		}
		free(j->steps);
	}
	free(w->jobs);
	free(w->name);
	wf_list_free(&w->pr_branches);
	wf_list_free(&w->push_branches);
	memset(w, 0, sizeof *w);
}
