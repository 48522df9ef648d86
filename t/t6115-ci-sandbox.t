#!/bin/bash
# t6115: a CI step runs in the runner's bubblewrap sandbox.  Steps try what
# an attacker would: read the forge's configuration, write outside their
# workspace, reach the forge's port and MariaDB's socket, list the
# repositories, run as root, fork, eat memory, fill the disk, spin; each is
# refused, the rlimits stop the step and the runner goes on.  With
# runner_sandbox = none the same step reaches everything; an unusable
# sandbox fails the job with the reason and runs nothing.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"

ci_need_bwrap
ci_start
# steps run as a uid of this script's own: t6130's fork bomb runs at the same
# time, and a process limit or a pgrep by uid counts every process of the uid
config_set runner_uid 65533

# attack RUN: runs the attack workflow with this test's paths; RUN receives its number
attack () {
	run attack "$(jq -nc --arg conf "$CONFIG" --arg repos "$TRASH/repos" --arg sock "$DB_SOCK" \
		--arg port "$HTTP_PORT" --arg runner "$TRASH/runner" --arg preload "$TRASH/evil.so" \
		'{inputs: {conf: $conf, repos: $repos, sock: $sock, port: $port, runner: $runner,
		preload: $preload}}')"
}

cat >"$TRASH/attack.yml" <<'EOF'
on: { manual: true }
inputs:
  conf: { type: string, required: true }
  repos: { type: string, required: true }
  sock: { type: string, required: true }
  port: { type: string, required: true }
  runner: { type: string, required: true }
  preload: { type: string, required: true }
jobs:
  preload:
    env: { LD_PRELOAD: "${{ inputs.preload }}" }
    steps: [ { run: "echo preload-step" } ]
  attack:
    env:
      CONF: "${{ inputs.conf }}"
      REPOS: "${{ inputs.repos }}"
      SOCK: "${{ inputs.sock }}"
      PORT: "${{ inputs.port }}"
      RUNNER: "${{ inputs.runner }}"
    steps:
      - name: attack
        run: |
          cat "$CONF" 2>&1 && echo conf-READ || echo conf-unreadable
          grep -q db_password /etc/forgemcp.conf 2>/dev/null && echo etc-conf-READ || echo etc-conf-unreadable
          ls "$REPOS" 2>&1 && echo repos-LISTED || echo repos-absent
          ls "$RUNNER" 2>&1 && echo runner-LISTED || echo runner-absent
          test -e "$SOCK" && echo sock-PRESENT || echo sock-absent
          touch /usr/x-t6115 2>&1 && echo usr-WRITTEN || echo usr-refused
          touch /etc/x-t6115 2>&1 && echo etc-WRITTEN || echo etc-refused
          touch "$HOME/../x" 2>&1 && echo parent-WRITTEN || echo parent-refused
          touch "$REPOS/x" 2>&1 && echo repos-WRITTEN || echo repos-refused
          bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT' 2>&1 && echo tcp-CONNECTED || echo tcp-refused
          curl -sS -m 5 "http://127.0.0.1:$PORT/mcp" 2>&1 && echo curl-CONNECTED || echo curl-refused
          echo "uid:$(id -u) home:$HOME pwd:$(pwd)"
          echo mine >"$HOME/written" && echo tmp >/tmp/t && cat "$HOME/written" /tmp/t
          test -f README.md && echo checkout-there
EOF
cat >"$TRASH/limits.yml" <<'EOF'
on: { manual: true }
jobs:
  procs:
    steps:
      - run: |
          for i in $(seq 200); do sleep 29.6115 & done
          echo all-forked
  bomb:
    steps:
      - run: |
          bomb() { bomb | bomb & }
          bomb
          sleep 2.6115
          echo after-bomb
  memory: { steps: [ { run: "python3 -c 'x = bytearray(600 << 20); print(\"allocated\")'" } ] }
  disk: { steps: [ { run: "head -c 5000000 /dev/zero >big; echo filled" } ] }
  cpu: { steps: [ { run: "while :; do :; done" } ] }
  fine: { needs: [procs, bomb, memory, disk, cpu], steps: [ { run: echo still-fine } ] }
EOF
cat >"$TRASH/plain.yml" <<'EOF'
on: { manual: true }
jobs:
  plain: { steps: [ { run: "echo step-ran; touch ran.flag" } ] }
EOF

cat >"$TRASH/evil.c" <<'EOF'
#include <unistd.h>
__attribute__((constructor)) static void
loaded(void)
{
	write(2, "PRELOADED\n", 10);
}
EOF

test_expect_success 'workflows committed; a library that says when it is loaded' '
	cc -shared -fPIC -o "$TRASH/evil.so" "$TRASH/evil.c" &&
	LD_PRELOAD=$TRASH/evil.so /bin/true 2>err && grep -x PRELOADED err &&
	repo_put "$PROJECT_GIT" main "$W/attack.yml" "$(cat "$TRASH/attack.yml")" \
		"$W/limits.yml" "$(cat "$TRASH/limits.yml")" \
		"$W/plain.yml" "$(cat "$TRASH/plain.yml")"
'

test_expect_success 'inside the sandbox: no configuration, repositories, socket or network; nothing written outside; bwrap without the job env' '
	attack && R1=$RUN &&
	runner --once &&
	get $R1 && jq -e ".state == \"success\" and .jobs[0].exit_code == 0" out.json &&
	job_log $R1 attack >log &&
	grep -x conf-unreadable log && grep -x etc-conf-unreadable log &&
	! grep -F "$DB_PASSWORD" log && ! grep db_password log &&
	grep -x repos-absent log && grep -x runner-absent log && grep -x sock-absent log &&
	grep -x usr-refused log && grep -x etc-refused log && grep -x parent-refused log &&
	grep -x repos-refused log && grep -x tcp-refused log && grep -x curl-refused log &&
	grep -x "uid:65534 home:/workspace pwd:/workspace" log &&
	grep -x mine log && grep -x tmp log && grep -x checkout-there log &&
	! grep -e READ -e LISTED -e PRESENT -e WRITTEN -e CONNECTED log &&
	test ! -e /usr/x-t6115 && test ! -e /etc/x-t6115 && test ! -e "$TRASH/repos/x" &&
	test ! -e "$TRASH/runner/x" && test -z "$(ls -A "$TRASH/runner")" &&
	job_log $R1 preload >log && grep -x preload-step log && ! grep PRELOADED log
'

test_expect_success 'runner_sandbox = none: the same step reads and writes as the runner' '
	attack && R2=$RUN &&
	test_when_finished "rm -f \"$TRASH/repos/x\" /usr/x-t6115 /etc/x-t6115 \"$TRASH/runner/x\"" &&
	FORGEMCP_RUNNER_SANDBOX=none runner --once &&
	get $R2 && jq -e ".state == \"success\"" out.json &&
	job_log $R2 attack >log &&
	grep -x conf-READ log && grep -x repos-LISTED log && grep -x sock-PRESENT log &&
	grep -x repos-WRITTEN log && grep -x curl-CONNECTED log && grep -x "uid:0 home:.* pwd:.*" log &&
	job_log $R2 preload >log && grep -x preload-step log && grep -x PRELOADED log
'

test_expect_success 'rlimits stop processes, a fork bomb, memory, a big file and CPU; the runner goes on' '
	run limits && R3=$RUN &&
	FORGEMCP_RUNNER_LIMIT_PROCESSES=40 FORGEMCP_RUNNER_LIMIT_MEMORY=256M \
	FORGEMCP_RUNNER_LIMIT_FILE_SIZE=1M FORGEMCP_RUNNER_LIMIT_CPU=1 runner --once &&
	get $R3 &&
	jq -e "[.jobs[0,2,3,4] | .state] == [\"failure\", \"failure\", \"failure\", \"failure\"] and .jobs[5].state == \"skipped\"" out.json &&
	job_log $R3 procs >log && grep -e "fork" -e "Resource temporarily unavailable" log &&
	! grep -x all-forked log &&
	job_log $R3 memory >log && grep MemoryError log && ! grep -x allocated log &&
	job_log $R3 disk >log && ! grep -x filled log &&
	jq -e ".jobs[3].exit_code == 153 and (.jobs[4].exit_code == 152 or .jobs[4].exit_code == 137)" out.json &&
	! pgrep -u 65533 -f "^sleep (29|2)\.6115" && ! pgrep -u 65533 -f "bomb\(\) \{" &&
	! pgrep -u 65533 -f "while :; do :; done" &&
	run plain && R4=$RUN &&
	runner --once &&
	get $R4 && jq -e ".state == \"success\"" out.json &&
	job_log $R4 plain >log && grep -x step-ran log
'

test_expect_success 'an unusable sandbox: the job fails with the reason, nothing ran' '
	run plain && R5=$RUN &&
	FORGEMCP_RUNNER_BWRAP=$TRASH/no-bwrap runner --once &&
	get $R5 && jq -e ".state == \"failure\" and .jobs[0].state == \"failure\"" out.json &&
	job_log $R5 plain >log &&
	grep -x "sandbox: bwrap cannot run: cannot execute $TRASH/no-bwrap: No such file or directory; install bubblewrap or set runner_sandbox = none" log &&
	! grep -e "==> step" -e step-ran log &&
	grep "warn: runner: job [0-9]*: sandbox: bwrap cannot run: cannot execute $TRASH/no-bwrap" "$TRASH/runner.log" &&
	run plain && R6=$RUN &&
	FORGEMCP_RUNNER_BWRAP=/bin/false runner --once &&
	get $R6 && jq -e ".jobs[0].state == \"failure\"" out.json &&
	job_log $R6 plain >log &&
	grep -x "sandbox: bwrap cannot run: it failed without a message; install bubblewrap or set runner_sandbox = none" log
'

test_expect_success 'runner_sandbox takes bwrap or none' '
	{ FORGEMCP_RUNNER_SANDBOX=maybe "$FORGEMCP" runner --once 2>err; test $? != 0; } &&
	grep "runner_sandbox must be bwrap or none" err &&
	{ FORGEMCP_RUNNER_LIMIT_MEMORY=lots "$FORGEMCP" runner --once 2>err; test $? != 0; } &&
	grep "runner_limit_memory must be a whole number" err
'

test_done
