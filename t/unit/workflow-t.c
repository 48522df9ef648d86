/* workflow-t: unit tests for the workflow parser, its refusals, job selection and matrix expansion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/workflow.h"
#include "tap.h"

#define PATH	".forgemcp/workflows/ci.yml"

static const char good[] =
    "name: CI\n"
    "on:\n"
    "  pull_request: { branches: [main] }\n"
    "  manual: true\n"
    "inputs:\n"
    "  level:   { type: choice, choices: [fast, full], required: true }\n"
    "  verbose: { type: boolean, default: false }\n"
    "  count:   { type: number, default: 1 }\n"
    "  note:    { type: string }\n"
    "jobs:\n"
    "  build:   { steps: [ { run: make } ] }\n"
    "  test:\n"
    "    needs: [build]\n"
    "    matrix: { os: [debian, alpine], cc: [gcc, clang] }\n"
    "    timeout_minutes: 45\n"
    "    env: { MODE: \"${{ inputs.level }}\" }\n"
    "    steps: [ { name: check, run: make check } ]\n"
    "  deploy:  { needs: [test], steps: [ { run: ./deploy } ] }\n"
    "  docs:    { steps: [ { run: make doc } ] }\n";

/* Parses text; returns the error message ("" on success). */
static const char *
parse(struct workflow *w, const char *text)
{
	static struct err	 e;

	err_clear(&e);
	if (workflow_parse(w, PATH, "ci", text, strlen(text), &e) != 0)
		return e.msg;
	return "";
}

/* Whether text is refused with a message containing want. */
static void
refused(const char *text, const char *want, const char *name)
{
	struct workflow	 w;
	const char	*msg = parse(&w, text);

	ok(msg[0] != '\0' && strstr(msg, want) != NULL, "refused: %s", name);
	if (msg[0] == '\0' || strstr(msg, want) == NULL)
		diag("got '%s', wanted '%s'", msg, want);
	workflow_release(&w);
}

#define HEAD	"on: { manual: true }\n"
#define JOB	"jobs: { a: { steps: [ { run: x } ] } }\n"

static void
test_refusals(void)
{
	char	*big;
	size_t	 i, at;

	refused(HEAD "jobs: { a: { steps: [ { run: x } ], nedds: [b] } }\n",
	    PATH " line 2: unknown key 'nedds' in jobs.a", "unknown job key, with file and line");
	refused("name: x\n" HEAD "colour: red\n" JOB, "line 3: unknown key 'colour'",
	    "unknown top-level key");
	refused(HEAD "jobs:\n  a: { steps: [ { run: x } ] }\n  b: { needs: [biuld], steps: [ { run: y } ] }\n",
	    "line 4: jobs.b.needs names 'biuld', which is not a job", "needs names no job");
	refused(HEAD "jobs:\n  a: { needs: [c], steps: [ { run: x } ] }\n"
	    "  b: { needs: [a], steps: [ { run: y } ] }\n  c: { needs: [b], steps: [ { run: z } ] }\n",
	    "needs make a cycle: a -> c -> b -> a", "a cycle, named");
	refused(HEAD "jobs:\n  a: { needs: [a], steps: [ { run: x } ] }\n",
	    "needs make a cycle: a -> a", "a job that needs itself");
	refused(HEAD "jobs:\n  a: { matrix: { os: [] }, steps: [ { run: x } ] }\n",
	    "matrix.os has no values", "an axis with zero values");
	refused(HEAD "jobs:\n  a: { matrix: { os: [[x]] }, steps: [ { run: x } ] }\n",
	    "must hold single values", "a matrix value that is a list");
	refused(HEAD "jobs:\n  a: { matrix: { os: [{k: v}] }, steps: [ { run: x } ] }\n",
	    "must hold single values", "a matrix value that is a mapping");
	refused("x: &a [1]\n", "line 1: anchors (&name) are not allowed", "an anchor");
	refused("on: { manual: true }\njobs: { a: { steps: [ { run: x } ] } }\ny: *a\n",
	    "aliases (*name) are not allowed", "an alias");
	refused(HEAD "inputs: { Level: { type: string } }\n" JOB,
	    "input name 'Level' must match", "a bad input name");
	refused(HEAD "inputs: { l: { type: string, choices: [a] } }\n" JOB,
	    "choices go only with type: choice", "choices without type choice");
	refused(HEAD "inputs: { l: { type: choice, choices: [a, b], default: c } }\n" JOB,
	    "inputs.l.default 'c' is not one of its choices", "a default outside the choices");
	refused(HEAD "inputs: { l: { type: boolean, default: yes } }\n" JOB,
	    "inputs.l.default must be true or false", "a boolean default that is not");
	refused(HEAD "inputs: { l: { type: number, default: 1x } }\n" JOB,
	    "inputs.l.default must be a number", "a number default that is not");
	refused(HEAD "inputs: { l: { type: string, required: true, default: a } }\n" JOB,
	    "inputs.l is required and has a default", "required with a default");
	refused(HEAD "inputs: { l: { type: text } }\n" JOB,
	    "inputs.l.type must be string, boolean, number or choice", "an unknown input type");
	refused(HEAD "jobs: { a: { timeout_minutes: 361, steps: [ { run: x } ] } }\n",
	    "timeout_minutes must be a whole number from 1 to 360", "timeout over 360");
	refused(HEAD "jobs: { a: { steps: [ ] } }\n", "a job needs at least one step",
	    "no steps");
	refused(HEAD "jobs: { a: { steps: [ { name: x } ] } }\n", "has no run", "a step without run");
	refused("on: { manual: true, manual: false }\n" JOB, "has the key 'manual' twice",
	    "a repeated key");
	refused(JOB, "the workflow has no on", "no on");
	refused(HEAD, "the workflow has no jobs", "no jobs");
	refused("on: {}\n" JOB, "on names no event", "on with no event");
	refused(HEAD "jobs: [a]\n", "jobs must be a mapping", "jobs as a list");
	refused(HEAD "jobs: { a: { steps: [ { run: x } ] } }\n---\nx: 1\n", "a second document",
	    "two documents");
	refused("a: [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]\n", "nested more than 16 deep",
	    "nesting over 16");
	refused("a: [1\n", "not valid YAML", "broken YAML");
	refused(HEAD "jobs: { a: { matrix: { a: [1], b: [1], c: [1], d: [1], e: [1], f: [1], g: [1], "
	    "h: [1], i: [1] }, steps: [ { run: x } ] } }\n", "matrix has 9 axes: at most 8",
	    "nine matrix axes");
	refused(HEAD "jobs: { a: { matrix: { os: [\"a, b\"] }, steps: [ { run: x } ] } }\n",
	    "must be 1 to 100 characters without , = ( )", "a matrix value with a comma");
	refused(HEAD "inputs: { l: { type: choice } }\n" JOB, "type choice needs a non-empty choices",
	    "a choice without choices");

	/* 51 steps */
	big = malloc(8192);
	at = (size_t)snprintf(big, 8192, HEAD "jobs:\n  a:\n    steps:\n");
	for (i = 0; i < 51; i++)
		at += (size_t)snprintf(big + at, 8192 - at, "      - run: x\n");
	refused(big, "has 51 steps: at most 50", "51 steps");
	/* 65 jobs */
	at = (size_t)snprintf(big, 8192, HEAD "jobs:\n");
	for (i = 0; i < 65; i++)
		at += (size_t)snprintf(big + at, 8192 - at, "  j%zu: { steps: [ { run: x } ] }\n",
		    i);
	refused(big, "jobs has 65 jobs: 1 to 64", "65 jobs");
	/* 65 matrix children */
	snprintf(big, 8192, HEAD "jobs: { a: { matrix: { x: [1,2,3,4,5], y: [1,2,3,4,5,6,7,8,9,10,"
	    "11,12,13] }, steps: [ { run: x } ] } }\n");
	refused(big, "matrix makes more than 64 children", "65 matrix children");
	/* 257 instances: 5 jobs of 64 children */
	at = (size_t)snprintf(big, 8192, HEAD "jobs:\n");
	for (i = 0; i < 5; i++)
		at += (size_t)snprintf(big + at, 8192 - at, "  j%zu: { matrix: { x: [1,2,3,4,5,6,7,8], "
		    "y: [1,2,3,4,5,6,7,8] }, steps: [ { run: x } ] }\n", i);
	refused(big, "more than 256 job instances", "over 256 instances");
	free(big);
	big = malloc(WF_FILE_MAX + 2);
	memset(big, '#', WF_FILE_MAX + 1);
	big[WF_FILE_MAX + 1] = '\0';
	refused(big, "the file has 65537 bytes: at most 65536", "a file over 64 KiB");
	free(big);
}

static void
test_good(void)
{
	struct workflow		 w;
	struct wf_instance	*v = NULL;
	struct err		 e;
	unsigned char		 in[WF_JOBS_MAX];
	const char		*one[] = { "deploy" };
	const char		*dup[] = { "build", "build" };
	const char		*child[] = { "test (os=debian, cc=gcc)" };
	const char		*many[17];
	size_t			 n = 0, i;

	is_str(parse(&w, good), "", "the spec's example parses");
	is_str(w.name, "CI", "name");
	ok(w.on_pull_request && w.on_manual && !w.on_push, "on");
	ok(!workflow_pr_only(&w), "manual and pull_request: not PR-only");
	is_int((long long)w.n_inputs, 4, "four inputs");
	is_int(w.inputs[0].type, WF_INPUT_CHOICE, "level is a choice");
	ok(w.inputs[0].required, "level is required");
	is_str(w.inputs[1].def, "false", "verbose's default");
	is_int((long long)w.n_jobs, 4, "four jobs");
	is_int(w.jobs[1].timeout_minutes, 45, "timeout_minutes");
	is_int(w.jobs[0].timeout_minutes, 30, "timeout_minutes defaults to 30");
	is_int((long long)w.jobs[1].children, 4, "test has 4 children");
	is_str(w.jobs[1].env.v[1], "${{ inputs.level }}", "env kept as written");

	err_clear(&e);
	is_int(workflow_select(&w, "ci", one, 1, in, &e), 0, "select deploy");
	ok(in[0] == 2 && in[1] == 2 && in[2] == 1 && in[3] == 0,
	    "deploy brings build and test by closure, not docs");
	is_int(workflow_expand(&w, in, &v, &n, &e), 0, "expand");
	is_int((long long)n, 6, "build, 4 test children, deploy");
	if (n == 6) {
		is_str(v[0].job_id, "build", "first build");
		is_str(v[1].job_id, "test (os=debian, cc=gcc)", "children in written order 1");
		is_str(v[2].job_id, "test (os=debian, cc=clang)", "children in written order 2");
		is_str(v[3].job_id, "test (os=alpine, cc=gcc)", "children in written order 3");
		is_str(v[4].job_id, "test (os=alpine, cc=clang)", "children in written order 4");
		is_str(v[5].job_id, "deploy", "deploy last");
		is_str(workflow_matrix_value(&w, &v[3], 0), "alpine", "matrix value of a child");
	}
	workflow_instances_free(v, n);

	is_int(workflow_select(&w, "ci", NULL, 0, in, &e), 0, "no selection");
	ok(in[0] == 1 && in[1] == 1 && in[2] == 1 && in[3] == 1, "every job");

	err_clear(&e);
	workflow_select(&w, "ci", dup, 2, in, &e);
	is_str(e.msg, "jobs names 'build' twice", "a job named twice");
	err_clear(&e);
	workflow_select(&w, "ci", one, 0, in, &e);
	ok(strstr(e.msg, "jobs is empty") != NULL, "no job named");
	for (i = 0; i < 17; i++)
		many[i] = "build";
	err_clear(&e);
	workflow_select(&w, "ci", many, 17, in, &e);
	is_str(e.msg, "jobs names 17 jobs: at most 16", "17 jobs");
	err_clear(&e);
	workflow_select(&w, "ci", child, 1, in, &e);
	is_str(e.msg, "workflow 'ci' has no job 'test (os=debian, cc=gcc)': name logical jobs "
	    "(build, test, deploy, docs); their matrix children are included",
	    "a matrix child's id, with the hint");
	workflow_release(&w);

	is_str(parse(&w, "on: { pull_request: }\n" JOB), "", "pull_request alone");
	ok(workflow_pr_only(&w), "PR-only");
	workflow_release(&w);
	ok(workflow_id_ok("ci") && workflow_id_ok("0-a_b") && !workflow_id_ok("Ci") &&
	    !workflow_id_ok("-a") && !workflow_id_ok(""), "workflow ids");
	ok(workflow_number_ok("1.5") && workflow_number_ok("-2e3") && !workflow_number_ok("01") &&
	    !workflow_number_ok("1.") && !workflow_number_ok("nan"), "number texts");
}

int
main(void)
{
	test_refusals();
	test_good();
	return done_testing();
}
