/* workflow: reads a workflow file's YAML into struct workflow, refusing what spec 1.6.1 refuses. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"
#include "service/workflow.h"
#include "service/workflow-int.h"

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

/*
 * The first pass, over events: refuses anchors, aliases, a second
 * document and nesting deeper than WF_DEPTH_MAX, before a document is
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
