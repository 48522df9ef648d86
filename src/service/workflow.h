/* workflow: CI workflow files: parsing, validation, job selection and matrix expansion. */
#ifndef FM_WORKFLOW_H
#define FM_WORKFLOW_H
#include <stddef.h>

struct err;

#define WF_DIR			".forgemcp/workflows"
#define WF_ID_MAX		64		/* bytes of [a-z0-9][a-z0-9_-]* */
#define WF_FILE_MAX		(64 * 1024)	/* bytes of YAML */
#define WF_DEPTH_MAX		16		/* nested mappings and sequences */
#define WF_JOBS_MAX		64		/* logical jobs */
#define WF_CHILDREN_MAX		64		/* matrix children of one job */
#define WF_INSTANCES_MAX	256		/* job instances of a run */
#define WF_STEPS_MAX		50		/* steps of one job */
#define WF_AXES_MAX		8		/* axes of one matrix */
#define WF_INPUTS_MAX		25		/* input definitions */
#define WF_SELECT_MAX		16		/* logical jobs a run may name */
#define WF_TIMEOUT_DEFAULT	30		/* minutes */
#define WF_TIMEOUT_MAX		360

enum wf_input_type {
	WF_INPUT_STRING,	/* WF_INPUT_STRING */
	WF_INPUT_BOOLEAN,	/* WF_INPUT_BOOLEAN */
	WF_INPUT_NUMBER,	/* WF_INPUT_NUMBER */
	WF_INPUT_CHOICE,	/* WF_INPUT_CHOICE: a string among choices */
	WF_INPUT__MAX
};

struct wf_list {
	char	**v;		/* owned strings */
	size_t	  n;
};

struct wf_input {
	char			*name;
	enum wf_input_type	 type;
	struct wf_list		 choices;
	int			 required;
	char			*def;		/* the default's text, or NULL */
};

struct wf_axis {
	char		*key;
	struct wf_list	 values;
};

struct wf_step {
	char	*name;		/* may be NULL */
	char	*run;
};

struct wf_job {
	char		*id;		/* the logical id: the key under jobs */
	char		*name;		/* shown; the id when not given */
	struct wf_list	 needs;
	struct wf_axis	*axes;		/* the matrix, in written order */
	size_t		 n_axes;
	size_t		 children;	/* product of the axes' sizes; 1 without a matrix */
	int		 timeout_minutes;
	struct wf_list	 env;		/* pairs: name, value, name, value, ... */
	struct wf_step	*steps;
	size_t		 n_steps;
	size_t		 line, needs_line;	/* of the job's key and of its needs */
};

struct workflow {
	char		*name;		/* the id when not given */
	int		 on_pull_request, on_manual, on_push;
	struct wf_list	 pr_branches, push_branches;
	struct wf_input	*inputs;
	size_t		 n_inputs;
	struct wf_job	*jobs;		/* in written order */
	size_t		 n_jobs;
};

/* Whether id is a workflow id: [a-z0-9][a-z0-9_-]{0,63}. */
int	workflow_id_ok(const char *id);

/*
 * Parses and validates the workflow text (len bytes) of file path (named
 * in messages) into *out (released by the caller with workflow_release,
 * also on error), spec 1.6.1: the limits above, no anchors or aliases,
 * no unknown or repeated keys, needs naming jobs without a cycle, typed
 * inputs.  Returns 0, or ERR_INVALID with "<path> line N: ..." in e;
 * ERR_NOMEM.
 */
int	workflow_parse(struct workflow *out, const char *path, const char *id, const char *text,
	    size_t len, struct err *e);
void	workflow_release(struct workflow *w);
/*
 * The second half of workflow_parse's checks: every needs names a job of
 * w, and needs make no cycle (the message names it: "a -> b -> a").
 */
int	workflow_check_needs(const struct workflow *w, const char *path, struct err *e);

/* Whether w's "on" has pull_request and nothing else. */
int	workflow_pr_only(const struct workflow *w);
/* The index of logical job id in w, or -1. */
int	workflow_job_find(const struct workflow *w, const char *id);
/* The index of input name in w, or -1. */
int	workflow_input_find(const struct workflow *w, const char *name);
/* "string", "boolean", "number", "choice". */
const char *workflow_input_type_name(enum wf_input_type t);
/* Whether text is a number as a JSON number token writes it. */
int	workflow_number_ok(const char *text);

/*
 * The jobs of a run of workflow id (spec 1.6.3): names (n of them;
 * names NULL: every job) are logical job ids, 1 to 16, none twice.  in
 * (w->n_jobs entries) receives 1 for a named job, 2 for one the upstream
 * closure of needs added, 0 for the others.  ERR_INVALID with the
 * message of the spec's error table.
 */
int	workflow_select(const struct workflow *w, const char *id, const char *const *names,
	    size_t n, unsigned char *in, struct err *e);

/* One job instance of a run: a logical job, or one child of its matrix. */
struct wf_instance {
	char	*job_id;	/* owned: "test (os=debian, cc=gcc)", or the logical id */
	size_t	 job;		/* index into w->jobs */
	size_t	 combo;		/* the child's index in the cartesian product */
};

/*
 * The instances of the jobs marked in in (workflow_select), in written
 * order, matrix children as the cartesian product of the axes in written
 * order (the last axis varies fastest).  *out is freed with
 * workflow_instances_free.  ERR_TOOBIG over WF_INSTANCES_MAX; ERR_NOMEM.
 */
int	workflow_expand(const struct workflow *w, const unsigned char *in,
	    struct wf_instance **out, size_t *n, struct err *e);
void	workflow_instances_free(struct wf_instance *v, size_t n);
/* The value of axis a for instance i. */
const char *workflow_matrix_value(const struct workflow *w, const struct wf_instance *i,
	    size_t a);

#endif
