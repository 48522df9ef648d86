# ci.sh: helpers of the CI scripts (t61xx) that drive runs through the tools
# and `forgemcp runner`.  Sourced after test-lib.sh and fixtures-forge.sh;
# they act on $P (owner/name) with $DAVE_X (an execute token) and read with
# $ERIN_TOKEN, which the script sets.
#
# Licensed under the ISC license, see LICENSE.

# ci_need_bwrap: a script that tests the sandbox stops, saying why, without
# bubblewrap; it never skips silently.
ci_need_bwrap () {
	if ! command -v bwrap >/dev/null; then
		echo "Bail out! bwrap (Debian bubblewrap) is not installed: the CI runner's sandbox cannot be tested"
		exit 1
	fi
}

# ci_start [WORKERS]: the stack (start_all WORKERS), the forge fixtures,
# DAVE_X (an execute token of dave, a writer of alice/project), the
# runner's directory in the configuration, P and W.
ci_start () {
	start_all "$@"
	mcp_client_start
	setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
	DAVE_X=$(make_token dave read,execute) || { echo "Bail out! fixtures"; exit 1; }
	config_set runner_dir "$TRASH/runner"
	P=alice/project
	W=.forgemcp/workflows
}

# run WORKFLOW [EXTRA_JSON]: create_run; RUN receives its number
run () {
	tool_call create_run "$(jq -nc --arg r "$P" --arg w "$1" --argjson a "${2:-{\}}" \
		'{repo: $r, workflow: $w} + $a')" --token "$DAVE_X" && forge_ok &&
	RUN=$(jq -r .run out.json)
}
# get N: get_run N into out.json
get () {
	tool_call get_run "{\"repo\":\"$P\",\"run\":$1}" --token "$ERIN_TOKEN" && forge_ok
}
# runner ARGS...: the runner in the foreground, its messages in runner.log
runner () {
	"$FORGEMCP" runner --interval 0.1 "$@" >>"$TRASH/runner.log" 2>&1
}
# runner_bg ARGS...: the runner in the background, its process id in PID
runner_bg () {
	"$FORGEMCP" runner --interval 0.1 "$@" >>"$TRASH/runner.log" 2>&1 &
	PID=$!
}
# job_log RUN JOB_ID: the log of a job, its chunks in order, as stored
job_log () {
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B -r "$DB_NAME" -e "
		SET SESSION group_concat_max_len = 16777216;
		SELECT GROUP_CONCAT(c.bytes ORDER BY c.seq SEPARATOR '') FROM ci_log_chunks c
		JOIN ci_jobs j ON j.id = c.job_id JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number = $1 AND j.job_id = '$2'"
}
