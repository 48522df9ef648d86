#!/bin/bash
# t/perf/bench-cluster.sh: the cluster cases of `make bench` (BENCH_ONLY:
# "cluster"), run by t/perf/bench.sh as a process of its own, since it
# replaces bench.sh's single mariadbd with a three-node Galera cluster
# (t/lib/lib-galera.sh) and two forgemcp hosts on two of its nodes.
#
#   cluster-reads    get_issue (its token check, its repository and issue
#                    rows read on the host's node) through both hosts at once,
#                    16 connections each, against host 1 alone at 16: the
#                    ratio of the two throughputs, the median of BENCH_ROUNDS
#                    paired rounds of BENCH_PAIR_SECONDS each.  One machine
#                    runs the hosts, the nodes and the clients, so each
#                    host (BENCH_HOST_WORKERS workers, default 4, and nginx)
#                    gets BENCH_HOST_CPU per cent of one core (default 15; a
#                    cgroup's CPU quota): the hosts are then what limits the
#                    reads, as hosts of their own machines would, and what
#                    the ratio shows is whether anything they share (the
#                    cluster, a hot row) holds them back.  The share of the
#                    quota's periods the hosts used up, alone and together,
#                    is printed: under 80% together, the nodes and clients
#                    on the same cores were the limit, and a warning says
#                    so.  Target: at least 1.8.
#   cluster-create   create_issue at 32 connections for BENCH_SECONDS: one
#                    host on a single MariaDB, then the cluster through both
#                    hosts (16 connections each), no quota; each in 32
#                    repositories (each create in one of them at random, so
#                    the connections do not go through them in step) and in
#                    one (every create bumps one counter row); then that one
#                    repository again with both hosts on node 1 (a single
#                    writer node), and with host 1 and a host on node 2
#                    that writes through node 1 (db_write_socket: reads
#                    beside the host, writes on one node).  With the
#                    cluster's rates, the retry
#                    rate: transactions run again after a collision
#                    ("transaction conflict, retrying" in the hosts' logs)
#                    per issue created.  Target: under 5% at 32 connections.
#
# Environment: FORGEMCP_BENCH_BIN (the binary), BENCH_STATE (its state
# directory), BENCH_SECONDS, BENCH_ROUNDS, BENCH_PAIR_SECONDS (as bench.sh),
# BENCH_HOST_CPU, BENCH_HOST_WORKERS (each host's, also the single host's).
# Writes $BENCH_STATE/cluster.json and prints its figures
# on stderr.  Needs root, galera-4 and rsync (etc/check installs them), and
# a cgroup CPU controller (v1 "cpu" or v2 "cpu.max") for the reads.
set -u

perf_dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$perf_dir/../.." && pwd)
BIN=${FORGEMCP_BENCH_BIN:?FORGEMCP_BENCH_BIN names the forgemcp to measure}
STATE=${BENCH_STATE:?BENCH_STATE names the state directory}
SECS=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-5}
PAIR_SECS=${BENCH_PAIR_SECONDS:-3}
HOST_CPU=${BENCH_HOST_CPU:-15}
HOST_WORKERS=${BENCH_HOST_WORKERS:-4}
OUT_JSON=$STATE/cluster.json

die () { echo "bench: cluster: $*" >&2; exit 1; }
note () { echo "bench: cluster: $*" >&2; }

export FORGEMCP_BUILD=$(dirname "$BIN") FORGEMCP_TRASH=$STATE/run-cluster
BASH_ARGV0=$top/t/bench-cluster.t
# shellcheck source=../test-lib.sh
. "$top/t/test-lib.sh" >/dev/null
# shellcheck source=../lib/lib-galera.sh
. "$top/t/lib/lib-galera.sh"
FORGEMCP=$BIN
rm -f "$OUT_JSON"
CG_DIRS=
bench_cluster_exit () {
	local d
	stop_all >/dev/null 2>&1
	for d in $CG_DIRS; do rmdir "$d" 2>/dev/null; done
}
trap bench_cluster_exit EXIT
skip_all () { die "$*"; }
galera_check_

# --- a CPU quota per host ----------------------------------------------------
# cg_make NAME: a cgroup of NAME with HOST_CPU per cent of one core (cgroup
# v1's cpu controller, or v2's cpu.max); prints its directory
cg_make () {
	local d v2
	if test -w /sys/fs/cgroup/cpu/cpu.cfs_quota_us || test -w /sys/fs/cgroup/cpu; then
		d=/sys/fs/cgroup/cpu/fm-bench-$1-$$
		mkdir -p "$d" && echo 100000 >"$d/cpu.cfs_period_us" &&
		echo $((HOST_CPU * 1000)) >"$d/cpu.cfs_quota_us" || return 1
	else
		v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
		test -n "$v2" && grep -qw cpu "$v2/cgroup.controllers" || return 1
		echo +cpu >"$v2/cgroup.subtree_control" 2>/dev/null
		d=$v2/fm-bench-$1-$$
		mkdir -p "$d" && echo "$((HOST_CPU * 1000)) 100000" >"$d/cpu.max" || return 1
	fi
	CG_DIRS="$CG_DIRS $d"
	echo "$d"
}
# cg_periods DIR: "periods throttled" of the cgroup so far (cpu.stat): the
# quota's periods in which it ran, and those in which it used all its quota
cg_periods () {
	awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } END { print p + 0, t + 0 }' \
		"$1/cpu.stat"
}
# cg_put DIR PID...: the processes and their children into the cgroup
cg_put () {
	local d=$1 p c
	shift
	for p in "$@"; do
		echo "$p" >"$d/cgroup.procs" || return 1
		for c in $(pgrep -P "$p"); do echo "$c" >"$d/cgroup.procs" || return 1; done
	done
}

# --- requests --------------------------------------------------------------------
BODIES=$TRASH/bodies
mkdir -p "$BODIES"
NREPOS=32
# bodies: get_issue of c1 #1; create_issue in each of c1..c32 (spread) and in c1 (hot)
write_bodies () {
	local i all=
	modern_body tools/call '{"name":"get_issue","arguments":{"repo":"alice/c1","number":1}}' \
		>"$BODIES/read.json"
	for i in $(seq $NREPOS); do
		modern_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"alice/c$i\",\"title\":\"bench\"}}" \
			>"$BODIES/create-$i.json"
		all=$all${all:+:}$BODIES/create-$i.json
	done
	SPREAD=$all
}
HDRS_READ="Mcp-Method: tools/call|Mcp-Name: get_issue"
HDRS_CREATE="Mcp-Method: tools/call|Mcp-Name: create_issue"

# wrk_run URL BODIES HEADERS CONNS SECONDS OUT: wrk with t/perf/post.lua, one
# JSON line of figures in OUT
wrk_run () {
	BENCH_PICK=random BENCH_BODIES=$2 \
	BENCH_HEADERS="Authorization: Bearer $TOKEN|MCP-Protocol-Version: $MODERN_VERSION|$3" \
	BENCH_OUT=$6 wrk -t2 -c"$4" -d"$5s" --timeout 30s -s "$perf_dir/post.lua" "$1/mcp" \
		>>"$TRASH/wrk.log" 2>&1 || die "wrk failed: $(tail -n 3 "$TRASH/wrk.log")"
	test "$6" = /dev/null ||
	jq -e '.non2xx == 0 and .errors == 0' "$6" >/dev/null ||
		die "wrk: $(jq -r '"\(.non2xx) non-2xx answers, \(.errors) socket errors"' "$6") at $1"
}
rps () { jq .rps "$1"; }

# fixtures URL: alice, her token (TOKEN), repositories c1..c32, an issue in c1
fixtures () {
	local i
	make_user alice || die "cannot make alice"
	for i in $(seq $NREPOS); do
		fm repo create "alice/c$i" >/dev/null || die "cannot create alice/c$i"
	done
	TOKEN=$(make_token alice read,write) || die "cannot make a token"
	BASE_URL=$1 tool_call create_issue '{"repo":"alice/c1","title":"read me"}' >/dev/null &&
	test "$(cat "$RESP.status")" = 200 || die "cannot create the issue to read"
}

# retries LOG...: the transactions run again after a collision, in the logs
retries () { cat "$@" 2>/dev/null | grep -c 'transaction conflict, retrying'; }

# bench_config: what both phases serve with (start_db writes a new configuration)
bench_config () {
	config_set log_level warn
	config_set rate_limit 1000000
	config_unset token_cache_seconds
}

# --- one host on a single MariaDB ----------------------------------------------
note "a single MariaDB and one host ($HOST_WORKERS workers): create_issue at 32 connections"
start_db --migrated
bench_config
write_bodies
start_fcgi_only "$HOST_WORKERS"
start_nginx
fixtures "$BASE_URL"
wrk_run "$BASE_URL" "$SPREAD" "$HDRS_CREATE" 32 1 /dev/null
wrk_run "$BASE_URL" "$SPREAD" "$HDRS_CREATE" 32 "$SECS" "$TRASH/single-spread.json"
wrk_run "$BASE_URL" "$BODIES/create-1.json" "$HDRS_CREATE" 32 "$SECS" "$TRASH/single-hot.json"
note "single: $(rps "$TRASH/single-spread.json") creates/s spread, $(rps "$TRASH/single-hot.json") in one repository"
stop_all >/dev/null 2>&1
rm -rf "$TRASH/repos"

# --- the cluster -----------------------------------------------------------------
note "three Galera nodes, two hosts"
galera_start
bench_config
fm migrate >"$TRASH/migrate-cluster.out" || die "forgemcp migrate on the cluster"
galera_host_start 1 1 "$HOST_WORKERS"
galera_host_start 2 2 "$HOST_WORKERS"
fixtures "${HOST_URL[1]}"
H1=${HOST_URL[1]} H2=${HOST_URL[2]}
LOGS="$TRASH/host1/server.log $TRASH/host2/server.log"

# the reads, with the hosts' CPU capped
cg1=$(cg_make host1) && cg2=$(cg_make host2) || die "no cgroup CPU controller to cap the hosts with"
cg_put "$cg1" "${HOST_FCGI_PID[1]}" "${HOST_NGINX_PID[1]}" &&
cg_put "$cg2" "${HOST_FCGI_PID[2]}" "${HOST_NGINX_PID[2]}" || die "cannot move the hosts into their cgroups"
note "reads: each host ${HOST_CPU}% of a core; $ROUNDS rounds of ${PAIR_SECS}s, host 1 alone then both"
# warm-up, both at once: each worker's first requests reserve the account's
# blocks of requests (writes every node applies), later ones seldom
wrk_run "$H1" "$BODIES/read.json" "$HDRS_READ" 16 "$PAIR_SECS" /dev/null &
p=$!
wrk_run "$H2" "$BODIES/read.json" "$HDRS_READ" 16 "$PAIR_SECS" /dev/null
wait "$p" || exit 1
# each line: the rates of host 1 alone and of both, then the periods and
# throttled periods of host 1 alone, and of hosts 1 and 2 together
for i in $(seq "$ROUNDS"); do
	a=$(cg_periods "$cg1")
	wrk_run "$H1" "$BODIES/read.json" "$HDRS_READ" 16 "$PAIR_SECS" "$TRASH/one.json"
	b=$(cg_periods "$cg1") b2=$(cg_periods "$cg2")
	wrk_run "$H1" "$BODIES/read.json" "$HDRS_READ" 16 "$PAIR_SECS" "$TRASH/both1.json" &
	p=$!
	wrk_run "$H2" "$BODIES/read.json" "$HDRS_READ" 16 "$PAIR_SECS" "$TRASH/both2.json"
	wait "$p" || exit 1
	c=$(cg_periods "$cg1") c2=$(cg_periods "$cg2")
	echo "$(rps "$TRASH/one.json") $(rps "$TRASH/both1.json") $(rps "$TRASH/both2.json")" \
		$(( ${b% *} - ${a% *} )) $(( ${b#* } - ${a#* } )) \
		$(( ${c% *} - ${b% *} + ${c2% *} - ${b2% *} )) $(( ${c#* } - ${b#* } + ${c2#* } - ${b2#* } ))
done >"$TRASH/reads.txt"
# The ratio says what the hosts' sharing costs only while the hosts are
# what limits the reads: their quota spent in (nearly) every period, alone
# and together.  Otherwise the nodes and the clients, on the same cores,
# were the limit, and the ratio measures this machine: it is printed with
# that warning.
READS=$(jq -R -s -c '[split("\n")[] | select(length > 0) | split(" ") | map(tonumber)] |
	{one_p: (map(.[3]) | add), one_t: (map(.[4]) | add), both_p: (map(.[5]) | add),
	 both_t: (map(.[6]) | add)} as $q |
	[.[] | {one: .[0], both: (.[1] + .[2]), ratio: ((.[1] + .[2]) / .[0])}] | sort_by(.ratio) |
	{rounds: map(.ratio * 100 | round / 100), ratio: (.[length / 2 | floor].ratio * 100 | round / 100),
	 one_rps: (.[length / 2 | floor].one | round), both_rps: (.[length / 2 | floor].both | round),
	 throttled_one_pct: (if $q.one_p > 0 then ($q.one_t * 100 / $q.one_p | round) else null end),
	 throttled_both_pct: (if $q.both_p > 0 then ($q.both_t * 100 / $q.both_p | round) else null end)}' \
	"$TRASH/reads.txt") || die "cannot read the rounds"
note "reads: $(jq -r '"one host \(.one_rps)/s, both \(.both_rps)/s; ratios \(.rounds | map(tostring) | join(" ")), median \(.ratio); the hosts used their whole quota in \(.throttled_one_pct)% of their periods alone, \(.throttled_both_pct)% together"' <<<"$READS")"
if test "$(jq '.throttled_both_pct != null and .throttled_both_pct < 80' <<<"$READS")" = true; then
	note "reads: the hosts were not the limit together (quota used up in under 80% of their periods): the ratio measures this machine's shared cores; try a lower BENCH_HOST_CPU"
fi

# the creates, without a quota
for d in $CG_DIRS; do
	if test -f "$d/cpu.cfs_quota_us"; then echo -1 >"$d/cpu.cfs_quota_us"; else echo max >"$d/cpu.max"; fi
done
# create_both NAME BODIES URL URL: 16 connections through each of two hosts;
# issues made and retries counted
create_both () {
	local before made r0 p
	before=$(galera_sql 1 "SELECT COUNT(*) FROM issues") r0=$(retries $LOGS)
	wrk_run "$3" "$2" "$HDRS_CREATE" 16 "$SECS" "$TRASH/$1-1.json" &
	p=$!
	wrk_run "$4" "$2" "$HDRS_CREATE" 16 "$SECS" "$TRASH/$1-2.json"
	wait "$p" || exit 1
	made=$(( $(galera_sql 1 "SELECT COUNT(*) FROM issues") - before ))
	jq -n -c --argjson a "$(rps "$TRASH/$1-1.json")" --argjson b "$(rps "$TRASH/$1-2.json")" \
		--argjson made "$made" --argjson retries "$(( $(retries $LOGS) - r0 ))" \
		'{rps: ((($a + $b) * 10 | round) / 10), issues: $made, retries: $retries,
		  retry_pct: (if $made > 0 then ($retries * 1000 / $made | round) / 10 else null end)}'
}
note "create_issue at 32 connections through both hosts"
wrk_run "$H1" "$SPREAD" "$HDRS_CREATE" 16 1 /dev/null
SPREAD_C=$(create_both spread "$SPREAD" "$H1" "$H2")
HOT_C=$(create_both hot "$BODIES/create-1.json" "$H1" "$H2")
note "cluster: spread $(jq -c . <<<"$SPREAD_C"); one repository $(jq -c . <<<"$HOT_C")"
# the same hot repository with both hosts' writes on one node (host 3 is host
# 2 moved to node 1): no two nodes write the counter, so nothing collides
galera_host_start 3 1 "$HOST_WORKERS"
LOGS="$LOGS $TRASH/host3/server.log"
ONE_C=$(create_both one-node "$BODIES/create-1.json" "$H1" "${HOST_URL[3]}")
note "cluster, both hosts on node 1: one repository $(jq -c . <<<"$ONE_C")"
# and with host 4 on node 2 writing through node 1 (db_write_socket)
galera_host_start 4 2 "$HOST_WORKERS" 1
LOGS="$LOGS $TRASH/host4/server.log"
WRITE_C=$(create_both write-node "$BODIES/create-1.json" "$H1" "${HOST_URL[4]}")
note "cluster, host 2 writing through node 1: one repository $(jq -c . <<<"$WRITE_C")"

jq -n --argjson reads "$READS" --argjson spread "$SPREAD_C" --argjson hot "$HOT_C" --argjson one "$ONE_C" \
	--argjson write "$WRITE_C" \
	--argjson s1 "$(rps "$TRASH/single-spread.json")" --argjson s2 "$(rps "$TRASH/single-hot.json")" \
	--argjson cpu "$HOST_CPU" --argjson secs "$SECS" \
	'{host_cpu_pct: $cpu, seconds: $secs, reads: $reads,
	  create: {single_spread_rps: $s1, single_hot_rps: $s2, cluster_spread: $spread, cluster_hot: $hot, one_node_hot: $one,
	  write_node_hot: $write}}' \
	>"$OUT_JSON" || die "cannot write $OUT_JSON"
