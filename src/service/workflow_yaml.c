/* workflow_yaml: reading libyaml document nodes for the workflow parser: scalars, lists, keys, refusals. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"
#include "service/workflow.h"
#include "service/workflow-int.h"

int
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

yaml_node_t *
wf_node(struct wf_parse *p, int idx)
{
	return yaml_document_get_node(&p->doc, idx);
}

/* The text of a scalar node (no embedded NUL), else NULL. */
const char *
wf_text(const yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* Whether n is an empty plain scalar (the YAML null). */
int
wf_null(const yaml_node_t *n)
{
	const char	*s = wf_text(n);

	return s != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

int
wf_scalar(struct wf_parse *p, const yaml_node_t *n, const char *what, char **out)
{
	const char	*s = wf_text(n);

	if (s == NULL)
		return wf_fail(p, n, "%s must be a single value (text, number or boolean)", what);
	if ((*out = strdup(s)) == NULL)
		return err_set(p->e, ERR_NOMEM, "out of memory");
	return 0;
}

int
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

int
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

void
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
int
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
int
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
int
wf_word(const char *s, const char *first, const char *rest, size_t max)
{
	size_t	 n = strlen(s);

	return n > 0 && n <= max && strchr(first, s[0]) != NULL && s[0] != '\0' &&
	    strspn(s + 1, rest) == n - 1;
}
