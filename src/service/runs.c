/* runs: planning a CI run (the workflow read at a pinned commit, inputs, job selection) and starting one by hand (spec 1.5 create_run, 1.6.1-1.6.4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "service/runs.h"
#include "service/runs-int.h"
#include "service/service.h"
#include "service/workflow.h"
#include "store/db.h"
#include "store/db_runs.h"
#include "store/repo.h"

#define RUN_INPUT_TEXT_MAX	4096	/* bytes of a string input */

/*
 * The workflow id of repo at commit into *out (path and blob id too), or
 * ERR_NOTFOUND naming the workflows there.  ref is what the caller named.
 */
static int
run_read_workflow(struct repo_cache *repos, struct repo_blob *out, char *path, size_t pathlen,
    const struct db_repo *repo, const char *id, const char *ref, const char *commit,
    struct err *e)
{
	static const char *const ext[] = { "yml", "yaml" };
	struct repo_tree	 t;
	struct err		 local;
	char			 list[300];
	size_t			 i, at = 0, len;
	int			 rc;

	for (i = 0; i < 2; i++) {
		snprintf(path, pathlen, "%s/%s.%s", WF_DIR, id, ext[i]);
		err_clear(&local);
		rc = repo_blob_read(repos, out, repo->owner, repo->name, commit, path, WF_FILE_MAX,
		    &local);
		if (rc == ERR_TOOBIG)
			return err_set(e, ERR_INVALID, "%s line 1: the file has %zu bytes: at most %d",
			    path, out->size, WF_FILE_MAX);
		if (rc != ERR_NOTFOUND) {
			if (rc != 0)
				err_set(e, rc, "%s", local.msg);
			return rc;
		}
		repo_blob_release(out);
	}
	list[0] = '\0';
	err_clear(&local);
	memset(&t, 0, sizeof t);
	rc = repo_tree_list(repos, &t, repo->owner, repo->name, commit, WF_DIR, 0, 200, &local);
	if (rc != 0 && rc != ERR_NOTFOUND && rc != ERR_INVALID) {
		repo_tree_release(&t);
		return err_set(e, rc, "%s", local.msg);
	}
	for (i = 0; rc == 0 && i < t.n && at < sizeof list; i++) {
		len = strlen(t.entries[i].name);
		if (t.entries[i].type != REPO_ENTRY_BLOB)
			continue;
		if (len > 4 && strcmp(t.entries[i].name + len - 4, ".yml") == 0)
			len -= 4;
		else if (len > 5 && strcmp(t.entries[i].name + len - 5, ".yaml") == 0)
			len -= 5;
		else
			continue;
		at += (size_t)snprintf(list + at, sizeof list - at, "%s%.*s", at ? ", " : "",
		    (int)len, t.entries[i].name);
	}
	repo_tree_release(&t);
	if (list[0] == '\0')
		return err_set(e, ERR_NOTFOUND, "no workflow '%s' at %s (%.12s): there is no "
		    "workflow there; add %s/%s.yml", id, ref, commit, WF_DIR, id);
	return err_set(e, ERR_NOTFOUND, "no workflow '%s' at %s (%.12s): the workflows there "
	    "are %s", id, ref, commit, list);
}

static const char *
run_json_kind(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return "boolean";
	case json_type_int:
	case json_type_double:
		return "number";
	case json_type_string:
		return "string";
	default:
		return "other";
	}
}

/*
 * The effective inputs (spec 1.6.2): given (an object or NULL) checked
 * against w's definitions, defaults filled in, into *out (a new object).
 */
static int
run_inputs(struct json_object **out, const struct workflow *w, const char *id,
    struct json_object *given, struct err *e)
{
	struct json_object	*o = NULL, *v;
	const struct wf_input	*in;
	const char		*want, *s;
	char			 list[400];
	size_t			 i, at;
	int			 k, rc = 0;

	*out = NULL;
	if (given != NULL && json_object_object_length(given) > WF_INPUTS_MAX)
		return err_set(e, ERR_INVALID, "inputs has %d entries: at most %d",
		    json_object_object_length(given), WF_INPUTS_MAX);
	if ((o = json_object_new_object()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (given != NULL) {
		json_object_object_foreach(given, key, val) {
			if (!json_object_is_type(val, json_type_string) &&
			    !json_object_is_type(val, json_type_boolean) &&
			    !json_object_is_type(val, json_type_int) &&
			    !json_object_is_type(val, json_type_double)) {
				rc = err_set(e, ERR_INVALID, "input '%.64s' must be a string, boolean "
				    "or number", key);
				goto done;
			}
			if ((k = workflow_input_find(w, key)) < 0) {
				list[0] = '\0';
				for (i = 0, at = 0; i < w->n_inputs && at < sizeof list; i++)
					at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
					    i ? ", " : "", w->inputs[i].name);
				rc = w->n_inputs == 0 ?
				    err_set(e, ERR_INVALID, "workflow '%s' has no input '%.64s': it "
				    "takes no inputs", id, key) :
				    err_set(e, ERR_INVALID, "workflow '%s' has no input '%.64s': its "
				    "inputs are %s", id, key, list);
				goto done;
			}
			in = &w->inputs[k];
			want = in->type == WF_INPUT_CHOICE ? "string" :
			    workflow_input_type_name(in->type);
			if (strcmp(run_json_kind(val), want) != 0) {
				rc = err_set(e, ERR_INVALID, "input '%s' must be a %s, not a %s",
				    in->name, want, run_json_kind(val));
				goto done;
			}
			if (json_object_is_type(val, json_type_string)) {
				s = json_object_get_string(val);
				if (strlen(s) != (size_t)json_object_get_string_len(val) ||
				    strlen(s) > RUN_INPUT_TEXT_MAX) {
					rc = err_set(e, ERR_INVALID, "input '%s' must be text of at most "
					    "%d bytes without NUL characters", in->name,
					    RUN_INPUT_TEXT_MAX);
					goto done;
				}
			}
			if (in->type == WF_INPUT_CHOICE) {
				s = json_object_get_string(val);
				for (i = 0; i < in->choices.n && strcmp(in->choices.v[i], s) != 0; i++)
					;
				if (i == in->choices.n) {
					list[0] = '\0';
					for (i = 0, at = 0; i < in->choices.n && at < sizeof list; i++)
						at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
						    i ? ", " : "", in->choices.v[i]);
					rc = err_set(e, ERR_INVALID, "input '%s' must be one of %s; got "
					    "'%.64s'", in->name, list, s);
					goto done;
				}
			}
			if (json_object_object_add(o, in->name, json_object_get(val)) != 0)
				goto nomem;
		}
	}
	for (i = 0; i < w->n_inputs; i++) {
		in = &w->inputs[i];
		if (json_object_object_get_ex(o, in->name, NULL))
			continue;
		if (in->required) {
			rc = err_set(e, ERR_INVALID, "input '%s' is required by workflow '%s'",
			    in->name, id);
			goto done;
		}
		if (in->def == NULL)
			continue;
		if (in->type == WF_INPUT_BOOLEAN)
			v = json_object_new_boolean(strcmp(in->def, "true") == 0);
		else if (in->type == WF_INPUT_NUMBER)
			v = json_object_new_double_s(strtod(in->def, NULL), in->def);
		else
			v = json_object_new_string(in->def);
		if (v == NULL || json_object_object_add(o, in->name, v) != 0) {
			json_object_put(v);
			goto nomem;
		}
	}
	*out = o;
	return 0;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	json_object_put(o);
	return rc;
}

void
run_plan_init(struct run_plan *p)
{
	memset(p, 0, sizeof *p);
}

void
run_plan_release(struct run_plan *p)
{
	size_t	 i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++) {
		if (p->matrix != NULL)
			free(p->matrix[i]);
		if (p->needs != NULL)
			free(p->needs[i]);
	}
	free(p->matrix);
	free(p->needs);
	json_object_put(p->inputs);
	json_object_put(p->selected);
	json_object_put(p->closure);
	workflow_instances_free(p->v, p->n);
	workflow_release(&p->w);
	repo_blob_release(&p->blob);
	run_plan_init(p);
}

int
run_plan_parse(struct run_plan *p, const char *id, const char *path, struct err *e)
{
	snprintf(p->id, sizeof p->id, "%s", id);
	snprintf(p->path, sizeof p->path, "%s", path);
	return workflow_parse(&p->w, p->path, p->id, p->blob.data, p->blob.len, e);
}

int
run_plan_load(struct repo_cache *repos, struct run_plan *p, const struct db_repo *repo,
    const char *id, const char *ref, const char *commit, struct err *e)
{
	char	 path[128];
	int	 rc;

	snprintf(p->commit, sizeof p->commit, "%s", commit);
	if ((rc = run_read_workflow(repos, &p->blob, path, sizeof path, repo, id, ref, commit,
	    e)) != 0)
		return rc;
	return run_plan_parse(p, id, path, e);
}

/* The JSON texts of instance i: its matrix values and its needs. */
static int
run_instance_json(const struct workflow *w, const struct wf_instance *in, char **matrix,
    char **needs)
{
	const struct wf_job	*j = &w->jobs[in->job];
	struct json_object	*m = json_object_new_object(), *a = json_object_new_array();
	size_t			 k;
	int			 rc = -1;

	if (m == NULL || a == NULL)
		goto done;
	for (k = 0; k < j->n_axes; k++)
		if (json_object_object_add(m, j->axes[k].key,
		    json_object_new_string(workflow_matrix_value(w, in, k))) != 0)
			goto done;
	for (k = 0; k < j->needs.n; k++)
		if (json_object_array_add(a, json_object_new_string(j->needs.v[k])) != 0)
			goto done;
	*matrix = strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
	*needs = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	rc = *matrix != NULL && *needs != NULL ? 0 : -1;
done:
	json_object_put(m);
	json_object_put(a);
	return rc;
}

int
run_plan_jobs(struct run_plan *p, struct json_object *inputs, const char *const *names,
    size_t n_names, struct err *e)
{
	unsigned char	 in[WF_JOBS_MAX];
	size_t		 i;
	int		 rc;

	if ((rc = run_inputs(&p->inputs, &p->w, p->id, inputs, e)) != 0)
		return rc;
	if ((rc = workflow_select(&p->w, p->id, names, n_names, in, e)) != 0)
		return rc;
	if ((rc = workflow_expand(&p->w, in, &p->v, &p->n, e)) != 0)
		return rc;
	if ((p->closure = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < p->w.n_jobs; i++)
		if (in[i] == 2 && json_object_array_add(p->closure, json_object_new_string(
		    p->w.jobs[i].id)) != 0)
			goto nomem;
	if (names != NULL) {
		if ((p->selected = json_object_new_array()) == NULL)
			goto nomem;
		for (i = 0; i < n_names; i++)
			if (json_object_array_add(p->selected, json_object_new_string(
			    names[i])) != 0)
				goto nomem;
	}
	if ((p->matrix = calloc(p->n + 1, sizeof *p->matrix)) == NULL ||
	    (p->needs = calloc(p->n + 1, sizeof *p->needs)) == NULL)
		goto nomem;
	for (i = 0; i < p->n; i++)
		if (run_instance_json(&p->w, &p->v[i], &p->matrix[i], &p->needs[i]) != 0)
			goto nomem;
	p->run.workflow = p->id;
	p->run.workflow_name = p->w.name;
	p->run.workflow_path = p->path;
	p->run.workflow_blob = p->blob.id;
	p->run.commit = p->commit;
	p->run.inputs = json_object_to_json_string_ext(p->inputs, JSON_C_TO_STRING_PLAIN);
	p->run.selected_jobs = p->selected != NULL ?
	    json_object_to_json_string_ext(p->selected, JSON_C_TO_STRING_PLAIN) : NULL;
	p->run.closure_added = json_object_to_json_string_ext(p->closure,
	    JSON_C_TO_STRING_PLAIN);
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "out of memory");
}

int
run_plan_insert(struct db *db, struct run_plan *p, uint64_t *id, int64_t *number,
    struct err *e)
{
	const struct wf_job	*j;
	const char		*state;
	int			 waiting = strcmp(p->run.state, "awaiting_approval") == 0;
	size_t			 i;
	int			 rc;

	p->run.waiting_max = run_waiting_max;
	if ((rc = forge_run_insert(db, id, number, &p->run, e)) == ERR_TOOBIG)
		return err_set(e, rc, "this repository has %u runs waiting (queued or awaiting "
		    "approval), the most it may have: cancel some with cancel_run, or wait for the "
		    "runners to take them", run_waiting_max);
	if (rc != 0)
		return rc;
	for (i = 0; i < p->n; i++) {
		j = &p->w.jobs[p->v[i].job];
		/* Nothing of a run awaiting approval may be claimed by a runner. */
		state = waiting || j->needs.n > 0 ? "blocked" : "queued";
		if ((rc = forge_job_insert(db, *id, (int64_t)i, p->v[i].job_id, j->id, j->name,
		    p->matrix[i], p->needs[i], state, j->timeout_minutes, e)) != 0)
			return rc;
	}
	return 0;
}

unsigned run_waiting_max = 100;

void
run_set_waiting_max(unsigned n)
{
	run_waiting_max = n;
}

/* A run insert kept for a retried transaction. */
struct run_tx {
	struct run_plan	*p;
	uint64_t	 id;
	int64_t		 number;
};

static int
run_tx(struct db *db, void *arg, struct err *e)
{
	struct run_tx	*t = arg;

	return run_plan_insert(db, t->p, &t->id, &t->number, e);
}

int
run_create(struct db *db, struct repo_cache *repos, int64_t *number, uint64_t user_id,
    const struct db_repo *repo, const char *id, const char *ref, struct json_object *inputs,
    struct json_object *jobs, struct err *e)
{
	struct run_plan	 p;
	struct run_tx	 t;
	const char	**names = NULL;
	char		 commit[41];
	size_t		 i, n_names = 0;
	int		 rc;

	*number = 0;
	run_plan_init(&p);
	memset(&t, 0, sizeof t);
	if (!workflow_id_ok(id))
		return err_set(e, ERR_INVALID, "workflow '%.64s' is not a workflow id: ids match "
		    "[a-z0-9][a-z0-9_-]{0,63}, the name of %s/<id>.yml", id, WF_DIR);
	if (ref == NULL || ref[0] == '\0')
		ref = repo->default_branch;
	if ((rc = repo_resolve(repos, commit, repo->owner, repo->name, ref, e)) != 0)
		goto done;
	if ((rc = run_plan_load(repos, &p, repo, id, ref, commit, e)) != 0)
		goto done;
	if (workflow_pr_only(&p.w)) {
		if (jobs == NULL) {
			rc = err_set(e, ERR_INVALID, "workflow '%s' runs only for pull requests: a "
			    "manager may start it by naming jobs", id);
			goto done;
		}
		if ((rc = service_need_role(db, repo, user_id, FORGE_ROLE_MANAGER, "start runs",
		    NULL, e)) != 0)
			goto done;
	} else if (!p.w.on_manual) {
		rc = err_set(e, ERR_INVALID, "workflow '%s' cannot be started by hand: its on has "
		    "no manual: true", id);
		goto done;
	}
	if (jobs != NULL) {
		n_names = json_object_array_length(jobs);
		if ((names = calloc(n_names + 1, sizeof *names)) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		for (i = 0; i < n_names; i++)
			names[i] = json_object_get_string(json_object_array_get_idx(jobs, i));
	}
	if ((rc = run_plan_jobs(&p, inputs, names, n_names, e)) != 0)
		goto done;
	p.run.repo_id = repo->id;
	p.run.actor_id = user_id;
	p.run.event = "manual";
	p.run.ref = ref;
	p.run.state = "queued";
	t.p = &p;
	if ((rc = service_transaction(db, run_tx, &t, e)) != 0)
		goto done;
	*number = t.number;
done:
	free(names);
	run_plan_release(&p);
	return rc;
}
