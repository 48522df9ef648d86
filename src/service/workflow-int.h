/* workflow-int: what the workflow parser's files share; only src/service/workflow*.c include it. */
#ifndef FM_WORKFLOW_INT_H
#define FM_WORKFLOW_INT_H
#include <stddef.h>
#include <yaml.h>

#include "service/workflow.h"

struct err;

/* One file being parsed: its document, its path for messages, the error slot. */
struct wf_parse {
	yaml_document_t	 doc;
	const char	*path;
	struct err	*e;
};

#define WF_LOWER	"abcdefghijklmnopqrstuvwxyz"
#define WF_UPPER	"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define WF_DIGIT	"0123456789"

/* ERR_INVALID "<path> line N: <message>", N the line of at (1 when NULL). */
int	wf_fail(struct wf_parse *p, const yaml_node_t *at, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* The node idx of the document. */
yaml_node_t *wf_node(struct wf_parse *p, int idx);
/* The text of a scalar node without an embedded NUL, else NULL. */
const char *wf_text(const yaml_node_t *n);
/* Whether n is an empty plain scalar (the YAML null). */
int	wf_null(const yaml_node_t *n);
/* A copy of scalar n into *out (caller frees); what names it in the refusal. */
int	wf_scalar(struct wf_parse *p, const yaml_node_t *n, const char *what, char **out);
/* true or false into *out; anything else is refused. */
int	wf_bool(struct wf_parse *p, const yaml_node_t *n, const char *what, int *out);
/* Appends a copy of s to l. */
int	wf_list_add(struct wf_parse *p, struct wf_list *l, const char *s);
void	wf_list_free(struct wf_list *l);
/* A sequence of scalars (or one scalar) into l; at most max entries. */
int	wf_strings(struct wf_parse *p, const yaml_node_t *n, const char *what, size_t max,
	    struct wf_list *l);
/*
 * Checks that n is a mapping with only the keys of allowed (NULL-terminated;
 * NULL: any), none twice; what names it in messages.
 */
int	wf_keys(struct wf_parse *p, const yaml_node_t *n, const char *what,
	    const char *const *allowed);
/* Whether s is one of first, then rest, at most max bytes in all. */
int	wf_word(const char *s, const char *first, const char *rest, size_t max);
/* The inputs mapping into w->inputs (workflow_jobs.c). */
int	wf_inputs(struct wf_parse *p, struct workflow *w, const yaml_node_t *n);
/* The job mapping n into j, whose id is set (workflow_jobs.c). */
int	wf_job(struct wf_parse *p, struct wf_job *j, const yaml_node_t *n);

#endif
