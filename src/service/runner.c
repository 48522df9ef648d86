/* runner: one claimed CI job: its pinned workflow, workspace and environment, then its end recorded. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "service/runner.h"
#include "service/workflow.h"
#include "store/db.h"
#include "store/db_runner.h"
#include "store/db_variables.h"
#include "store/repo.h"

#define RUNNER_VARS_MAX	1000	/* repository variables read into a job's environment */

/* A job's environment: "NAME=value" strings, a later NAME replacing an earlier one. */
struct env {
	char	**v;		/* NULL-terminated */
	size_t	  n, cap;
};

/* What a job's ${{ }} expressions and environment draw from. */
struct ctx {
	struct json_object		*inputs, *matrix;
	struct forge_variable		*vars;
	size_t				 n_vars;
};

void
runner_init(struct runner *r, const struct config *cfg, const char *dir, int grace,
    volatile sig_atomic_t *stopping)
{
	char	 host[256];

	memset(r, 0, sizeof *r);
	r->cfg = cfg;
	r->dir = dir;
	r->grace = grace;
	r->stopping = stopping;
	r->minute = 60;
#ifdef FM_DEBUG_HOOKS
	/* FORGEMCP_RUNNER_MINUTE=N: a timeout minute lasts N seconds (tests only). */
	if (getenv("FORGEMCP_RUNNER_MINUTE") != NULL && atoi(getenv("FORGEMCP_RUNNER_MINUTE")) > 0)
		r->minute = atoi(getenv("FORGEMCP_RUNNER_MINUTE"));
#endif
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	snprintf(r->claimed_by, sizeof r->claimed_by, "%s:%ld", host, (long)getpid());
}

/* Sets name (upper-cased, other than [A-Z0-9_] made '_' when prefix is set) to value. */
static int
env_put(struct env *env, const char *prefix, const char *name, const char *value)
{
	char	*s, **nv;
	size_t	 i, plen = strlen(prefix), nlen = strlen(name);

	if (asprintf(&s, "%s%s=%s", prefix, name, value != NULL ? value : "") < 0)
		return -1;
	for (i = plen; prefix[0] != '\0' && i < plen + nlen; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			s[i] = (char)(s[i] - 'a' + 'A');
		else if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			s[i] = '_';
	}
	for (i = 0; i < env->n; i++)
		if (strncmp(env->v[i], s, plen + nlen + 1) == 0) {
			free(env->v[i]);
			env->v[i] = s;
			return 0;
		}
	if (env->n + 2 > env->cap) {
		if ((nv = reallocarray(env->v, env->cap + 32, sizeof *nv)) == NULL) {
			free(s);
			return -1;
		}
		env->v = nv;
		env->cap += 32;
	}
	env->v[env->n++] = s;
	env->v[env->n] = NULL;
	return 0;
}

static void
env_free(struct env *env)
{
	size_t	 i;

	for (i = 0; i < env->n; i++)
		free(env->v[i]);
	free(env->v);
}

/* The text of a JSON value: strings as they are, booleans true/false, numbers as sent. */
static const char *
json_text(struct json_object *o, const char *key)
{
	struct json_object	*v;
	const char		*s;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) || v == NULL)
		return "";
	s = json_object_get_string(v);
	return s != NULL ? s : "";
}

/* The value of "inputs.X", "matrix.X" or "vars.X"; anything else is "". */
static const char *
ctx_lookup(const struct ctx *c, const char *expr)
{
	size_t	 i;

	if (strncmp(expr, "inputs.", 7) == 0)
		return json_text(c->inputs, expr + 7);
	if (strncmp(expr, "matrix.", 7) == 0)
		return json_text(c->matrix, expr + 7);
	if (strncmp(expr, "vars.", 5) == 0)
		for (i = 0; i < c->n_vars; i++)
			if (strcmp(c->vars[i].name, expr + 5) == 0)
				return c->vars[i].value;
	return "";
}

/*
 * s with each ${{ inputs.X }}, ${{ matrix.X }} and ${{ vars.X }} replaced
 * by its value (an unknown name by nothing); NULL when out of memory.
 */
static char *
expand(const struct ctx *c, const char *s)
{
	char		*out = NULL, expr[200];
	const char	*open_, *close_, *a, *b;
	size_t		 size = 0;
	FILE		*f;

	if ((f = open_memstream(&out, &size)) == NULL)
		return NULL;
	while ((open_ = strstr(s, "${{")) != NULL && (close_ = strstr(open_, "}}")) != NULL) {
		fwrite(s, 1, (size_t)(open_ - s), f);
		for (a = open_ + 3; *a == ' ' || *a == '\t'; a++)
			;
		for (b = close_; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		snprintf(expr, sizeof expr, "%.*s", (int)(b - a), a);
		fputs(ctx_lookup(c, expr), f);
		s = close_ + 2;
	}
	fputs(s, f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Adds every name of object o as prefix + NAME. */
static int
env_object(struct env *env, const char *prefix, struct json_object *o)
{
	if (o == NULL || !json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, k, v) {
		if (env_put(env, prefix, k, v != NULL ? json_object_get_string(v) : "") != 0)
			return -1;
	}
	return 0;
}

/* The job's environment, spec 1.6.8: nothing of the runner's own. */
static int
env_build(struct env *env, const struct runner_job *j, const struct wf_job *wj,
    const struct ctx *c, const char *home)
{
	char	 num[32], *v;
	size_t	 i;
	int	 rc = 0;

	snprintf(num, sizeof num, "%lld", (long long)j->run_number);
	if (env_put(env, "", "PATH", "/usr/local/bin:/usr/bin:/bin") != 0 ||
	    env_put(env, "", "HOME", home) != 0 || env_put(env, "", "CI", "true") != 0 ||
	    env_put(env, "", "FORGEMCP_RUN", num) != 0 ||
	    env_put(env, "", "FORGEMCP_JOB", j->job_id) != 0 ||
	    env_put(env, "", "FORGEMCP_COMMIT", j->commit) != 0 ||
	    env_put(env, "", "FORGEMCP_REF", j->ref) != 0 ||
	    env_object(env, "MATRIX_", c->matrix) != 0 ||
	    env_object(env, "INPUT_", c->inputs) != 0)
		return -1;
	for (i = 0; i < c->n_vars; i++)
		if (env_put(env, "VARS_", c->vars[i].name, c->vars[i].value) != 0)
			return -1;
	for (i = 0; rc == 0 && i + 1 < wj->env.n; i += 2) {
		if ((v = expand(c, wj->env.v[i + 1])) == NULL)
			return -1;
		rc = env_put(env, "", wj->env.v[i], v);
		free(v);
	}
	return rc;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Removes dir and everything in it; a missing dir is nothing to do. */
static void
rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Reads the job's definition from the run's pinned workflow blob (never
 * from the branch) and fills the context and a fresh workspace.
 */
static int
job_prepare(struct db *db, struct repo_cache *repos, const struct runner_job *j,
    struct workflow *w, struct ctx *c, const char *ws, struct err *e)
{
	struct repo_blob	 blob;
	int			 rc;

	memset(&blob, 0, sizeof blob);
	if ((rc = repo_blob_by_id(repos, &blob, j->owner, j->name, j->workflow_blob,
	    WF_FILE_MAX, e)) != 0)
		goto done;
	if ((rc = workflow_parse(w, j->workflow_path, j->workflow, blob.data, blob.len, e)) != 0)
		goto done;
	if (workflow_job_find(w, j->job) < 0) {
		rc = err_set(e, ERR_NOTFOUND, "job '%s' is not in %s", j->job, j->workflow_path);
		goto done;
	}
	c->inputs = json_tokener_parse(j->inputs);
	c->matrix = json_tokener_parse(j->matrix);
	if ((rc = forge_variable_list(db, &c->vars, &c->n_vars, j->repo_id, 0, RUNNER_VARS_MAX,
	    e)) != 0)
		goto done;
	rm_tree(ws);
	if (mkdir(ws, 0700) != 0) {
		rc = err_set(e, ERR_INTERNAL, "cannot create the workspace %s: %s", ws,
		    strerror(errno));
		goto done;
	}
	rc = repo_checkout(repos, j->owner, j->name, j->commit, ws, e);
done:
	repo_blob_release(&blob);
	return rc;
}

/* Runs the prepared job; *state and *tail (static text or NULL) say how it ended. */
static void
job_exec(const struct runner *r, struct db *db, const struct runner_job *j,
    const struct wf_job *wj, char *const *envp, const char *ws, const char **state,
    int *exit_code, char *tail, size_t tailsize)
{
	struct runner_exec	*x;
	double			 now = runner_now();
	int			 failed;

	if ((x = calloc(1, sizeof *x)) == NULL) {
		*state = "failure";
		snprintf(tail, tailsize, "runner: out of memory\n");
		return;
	}
	x->r = r;
	x->db = db;
	x->id = j->id;
	x->flushed = x->beat = x->polled = now;
	x->deadline = now + (double)j->timeout_minutes * r->minute;
	failed = runner_steps(x, wj, envp, ws);
	runner_log_flush(x);
	*exit_code = x->exit_code;
	*state = failed ? "failure" : "success";
	tail[0] = '\0';
	switch (x->end) {
	case RUNNER_END_TIMEOUT:
		*state = "timed_out";
		snprintf(tail, tailsize, "job exceeded timeout_minutes=%lld\n",
		    (long long)j->timeout_minutes);
		break;
	case RUNNER_END_CANCEL:
		*state = "cancelled";
		snprintf(tail, tailsize, "job cancelled by %s\n", x->cancel_by[0] != '\0' ?
		    x->cancel_by : "a user no longer there");
		break;
	case RUNNER_END_STOP:
		*state = "cancelled";
		snprintf(tail, tailsize, "job cancelled: the runner stopped\n");
		break;
	case RUNNER_END_ORPHANED:
	case RUNNER_END_DONE:
		break;
	}
	free(x);
}

int
runner_job(const struct runner *r, const struct runner_job *j)
{
	struct repo_cache	*repos = NULL;
	struct workflow		 w;
	struct ctx		 c;
	struct env		 env;
	struct db		*db = NULL;
	struct err		 e;
	const char		*state = "failure";
	char			 ws[4096], tail[400], why[300];
	int			 exit_code = -1, rc;

	memset(&w, 0, sizeof w);
	memset(&c, 0, sizeof c);
	memset(&env, 0, sizeof env);
	err_clear(&e);
	tail[0] = '\0';
	snprintf(ws, sizeof ws, "%s/%llu", r->dir, (unsigned long long)j->id);
	if ((rc = db_new_writer(&db, r->cfg, &e)) != 0) {
		log_error("runner: job %llu: %s", (unsigned long long)j->id, e.msg);
		return -1;
	}
	if ((rc = repo_cache_new(&repos, r->cfg->repo_root, &e)) != 0 ||
	    (rc = job_prepare(db, repos, j, &w, &c, ws, &e)) != 0)
		snprintf(tail, sizeof tail, "runner: %.380s\n", e.msg);
	else if (runner_sandbox_prepare(r->cfg, ws, why, sizeof why) != 0) {
		snprintf(tail, sizeof tail, "sandbox: bwrap cannot run: %.250s; install "
		    "bubblewrap or set runner_sandbox = none\n", why);
		/* The operator, not only the job's readers, must learn why nothing runs. */
		log_warn("runner: job %llu: %.*s", (unsigned long long)j->id,
		    (int)strcspn(tail, "\n"), tail);
	}
	else if (env_build(&env, j, &w.jobs[workflow_job_find(&w, j->job)], &c,
	    r->cfg->runner_sandbox_none ? ws : RUNNER_WORKSPACE) != 0)
		snprintf(tail, sizeof tail, "runner: out of memory\n");
	else
		job_exec(r, db, j, &w.jobs[workflow_job_find(&w, j->job)], env.v, ws, &state,
		    &exit_code, tail, sizeof tail);
	repo_cache_free(repos);
	rm_tree(ws);
	err_clear(&e);
	if (runner_orphaned()) {
		/* Its runner is gone: recorded as lost, by the recovery, like any lost runner's. */
		rc = -1;
		log_warn("runner: job %llu (%s): the runner is gone; its step was killed and "
		    "the job is left to the lost-runner recovery", (unsigned long long)j->id,
		    j->job_id);
	} else if ((rc = runner_finish(db, j->id, r->claimed_by, state, exit_code,
	    tail[0] != '\0' ? tail : NULL, &e)) != 0)
		log_error("runner: job %llu: recording its end: %s", (unsigned long long)j->id,
		    e.msg);
	else
		log_info("runner: job %llu (%s) ended %s", (unsigned long long)j->id, j->job_id,
		    state);
	env_free(&env);
	forge_variable_list_free(c.vars, c.n_vars);
	json_object_put(c.inputs);
	json_object_put(c.matrix);
	workflow_release(&w);
	db_free(db);
	return rc == 0 ? 0 : -1;
}
