/* runs-int: the plan of one run, shared by the ways runs start (runs.c, run_pr.c, run_rerun.c). */
#ifndef FM_RUNS_INT_H
#define FM_RUNS_INT_H
#include <stddef.h>
#include <stdint.h>

#include "service/workflow.h"
#include "store/db_runs.h"
#include "store/repo.h"

struct db;
struct db_repo;
struct err;
struct json_object;

/*
 * A run before it is written: the workflow file it is pinned to, parsed,
 * its job instances with their JSON texts, its effective inputs and its
 * selection.  run holds the row's fields; the caller sets the event, ref,
 * state, actor and pull request before run_plan_insert.
 */
struct run_plan {
	struct repo_blob	 blob;
	struct workflow		 w;
	char			 id[WF_ID_MAX + 1];
	char			 path[128];
	char			 commit[41];
	struct wf_instance	*v;
	size_t			 n;
	char			**matrix, **needs;	/* per instance, JSON text */
	struct json_object	*inputs, *selected, *closure;
	struct forge_run_new	 run;
};

void	run_plan_init(struct run_plan *p);
void	run_plan_release(struct run_plan *p);
/*
 * Reads workflow id of repo at commit (full id) into p and parses it;
 * ref is what the caller named, for messages.  ERR_NOTFOUND names the
 * workflows there; ERR_INVALID for a file that does not parse.
 */
int	run_plan_load(struct repo_cache *repos, struct run_plan *p, const struct db_repo *repo,
	    const char *id, const char *ref, const char *commit, struct err *e);
/* Parses p->blob, read from path, as workflow id. */
int	run_plan_parse(struct run_plan *p, const char *id, const char *path, struct err *e);
/*
 * Plans the jobs of p: inputs (an object or NULL) checked and completed
 * with defaults, names[0..n_names) (names NULL: every job) with their
 * needs closure, expanded into instances.  ERR_INVALID with the spec's
 * messages, ERR_TOOBIG, ERR_NOMEM.
 */
int	run_plan_jobs(struct run_plan *p, struct json_object *inputs, const char *const *names,
	    size_t n_names, struct err *e);
/*
 * Runs a repository may have queued or awaiting approval at once
 * (ci_waiting_runs, run_set_waiting_max): past it create_run and rerun_run
 * are refused and a pull request's revision gets no runs, so a writer
 * cannot fill the queue (and the database) faster than runners empty it.
 */
extern unsigned run_waiting_max;

/*
 * Writes the run p plans and its job instances (call inside a
 * transaction): in a run awaiting approval every instance is blocked;
 * otherwise those without needs are queued.  ERR_TOOBIG, writing
 * nothing, when the repository already has run_waiting_max runs waiting.
 */
int	run_plan_insert(struct db *db, struct run_plan *p, uint64_t *id, int64_t *number,
	    struct err *e);

#endif
