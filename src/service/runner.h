/*
 * runner: what `forgemcp runner` does with one claimed CI job: its
 * workspace, environment and steps, its log, timeout and cancel (spec
 * 1.6.8).  runner.c prepares and finishes a job, runner_exec.c runs its
 * steps, runner_sandbox.c puts the job in bubblewrap under rlimits, and
 * runner_executor.c runs the steps inside it.
 */
#ifndef FM_RUNNER_H
#define FM_RUNNER_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct config;
struct db;
struct runner_job;
struct wf_job;

#define RUNNER_LOG_MAX		(16 * 1024 * 1024)	/* bytes of a job's log */
#define RUNNER_KILL_AFTER	10	/* seconds from SIGTERM to SIGKILL */
#define RUNNER_BEAT_EVERY	5	/* seconds between heartbeats */
#define RUNNER_WORKSPACE	"/workspace"	/* the workspace inside the sandbox */
#define RUNNER_EXECUTOR		"/.forgemcp-runner-exec"	/* the executor inside it */

struct runner {
	const struct config		*cfg;
	const char			*dir;		/* workspaces: <dir>/<job row id> */
	char				 claimed_by[300];	/* "host:pid" */
	int				 grace;		/* seconds a stopping runner's jobs have */
	int				 minute;	/* seconds of a timeout minute: 60 */
	volatile sig_atomic_t		*stopping;	/* set by SIGTERM/SIGINT */
};

/* Sets r up; claimed_by is this host and process. */
void	runner_init(struct runner *r, const struct config *cfg, const char *dir, int grace,
	    volatile sig_atomic_t *stopping);
/*
 * Runs claimed job j to its end and records it (in a process of its own:
 * it opens its own database connection and repositories).  Returns 0, or
 * -1 when not even the end could be recorded (the job is then left to the
 * lost-runner recovery).
 */
int	runner_job(const struct runner *r, const struct runner_job *j);

/* ---- runner_exec.c: steps, logs, timeout, cancel ---- */

enum runner_end {
	RUNNER_END_DONE,	/* the steps ran: success or failure */
	RUNNER_END_TIMEOUT,	/* timeout_minutes passed */
	RUNNER_END_CANCEL,	/* cancel_run asked */
	RUNNER_END_STOP,	/* the runner stopped and the grace passed */
	RUNNER_END_ORPHANED,	/* the runner died: the end is left to the lost-runner recovery */
};

struct runner_exec {
	const struct runner	*r;
	struct db		*db;
	uint64_t		 id;		/* ci_jobs.id */
	char			 buf[16384];	/* log bytes not yet written */
	size_t			 len;
	int64_t			 logged;	/* bytes of the log so far */
	int			 truncated;
	double			 flushed, beat, polled;	/* monotonic times */
	double			 deadline;	/* the job's timeout */
	double			 stop_at;	/* the grace's end once stopping; 0 */
	enum runner_end		 end;
	char			 cancel_by[65];
	int			 exit_code;	/* the last step's status */
};

/* Appends n bytes to the log (buffered; stops at RUNNER_LOG_MAX). */
void	runner_log(struct runner_exec *x, const char *p, size_t n);
/* Writes what is buffered. */
void	runner_log_flush(struct runner_exec *x);
/*
 * Runs the steps of job in order in cwd with envp, each `/bin/sh -e -c`;
 * returns 0 when all succeeded, 1 when one failed or the job ended early
 * (x->end says why).
 */
int	runner_steps(struct runner_exec *x, const struct wf_job *job, char *const *envp,
	    const char *cwd);
/*
 * What runner_box.c shares with runner_exec.c: the periodic work while a
 * step runs (flush, heartbeat, cancel, timeout, stop); a read of what a
 * pipe holds now, at most 1 MiB (0 at end of file, 2 when it stopped at
 * that bound, 1 when the pipe is empty); the log line a step starts with;
 * the process group the runner's death kills (0: none).
 */
void	runner_step_tick(struct runner_exec *x, double now);
int	runner_read_some(struct runner_exec *x, int fd);
void	runner_step_head(struct runner_exec *x, const struct wf_job *job, size_t i);
void	runner_step_group(pid_t pg);
/* runner_box.c: the steps of job in one sandbox; as runner_steps. */
int	runner_box_steps(struct runner_exec *x, const struct wf_job *job, char *const *envp,
	    const char *cwd);
/* Seconds on the monotonic clock. */
double	runner_now(void);
/*
 * In a job's process, parent the runner's pid: when the runner dies (even
 * by SIGKILL) the running step's process group is killed at once and
 * runner_orphaned() becomes true, so no process of the job outlives the
 * runner and the job's end is left to the lost-runner recovery.
 */
void	runner_orphan_guard(pid_t parent);
/* Whether the runner that started this job's process is gone. */
int	runner_orphaned(void);

/* ---- runner_sandbox.c: bubblewrap and rlimits ---- */

/*
 * Makes workspace ws ready for the sandbox (runner_sandbox = bwrap) and
 * checks that the sandbox can be set up on this host.  Returns 0, or -1
 * with why saying what stops it.
 */
int	runner_sandbox_prepare(const struct config *cfg, const char *ws, char *why,
	    size_t whysize);
/*
 * In a step's child process: the rlimits, then `sh -e -c run` with envp,
 * inside bwrap with ws at RUNNER_WORKSPACE unless runner_sandbox = none.
 * Returns only when it could not exec.
 */
void	runner_sandbox_exec(const struct config *cfg, const char *ws, const char *run,
	    char *const *envp);
/*
 * In a job's child process (descriptors: 0 the runner's messages, 1 and 2
 * the log, 3 the steps' ends): the rlimits, then the job's sandbox with
 * exe, the forgemcp binary, as its executor.  Returns only when it could
 * not exec.
 */
void	runner_sandbox_executor(const struct config *cfg, const char *ws, const char *exe);

/* ---- runner_executor.c: `forgemcp runner-exec`, inside a job's sandbox ---- */

/*
 * Runs the steps the runner sends on stdin until it ends, each under the
 * rlimits limits names (CPU seconds, address space, processes, file
 * size; "0": none); never returns.
 */
int	runner_executor_main(char **limits);

#endif
