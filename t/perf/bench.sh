#!/bin/bash
# t/perf/bench.sh: `make bench`, forgemcp measured against the transport's
# own ceiling and against git itself, side by side in one run (issue 5).
#
#   t/perf/bench.sh [BUILD_DIR]
#
# Builds an optimized forgemcp (-O2, no sanitizers) in STATE/build unless
# FORGEMCP_BENCH_BIN names a binary; starts its own mariadbd, 2 FastCGI
# workers, a trivial FastCGI responder (t/perf/trivial.c) and nginx, all on
# 127.0.0.1 and unix sockets; generates deterministic fixtures; runs wrk and
# hyperfine; prints one table and writes STATE/bench.json.
#
# Environment:
#   BENCH_STATE     state directory (default BUILD_DIR/t/perf-state, or
#                   t/perf/state in the source tree without a BUILD_DIR)
#   BENCH_SECONDS   seconds per wrk case (default 10), after a 1 s warm-up
#   BENCH_FILES     files of the large repository (default 5000)
#   BENCH_COMMITS   commits of the large repository (default 2000); both
#                   scale the fixture down when generation is too slow
#   BENCH_SOAK=1    also RSS after 10,000 and 100,000 mixed requests (long)
#   BENCH_ROUNDS    rounds of the paired runs (default 5): the cases compared
#                   with the trivial responder at 16 connections alternate
#                   with it, BENCH_PAIR_SECONDS (default 3) each, and their
#                   ratio is the median of the rounds' ratios
#   BENCH_ONLY      space-separated case names (e.g. "tools/list-legacy
#                   get_file_contents"): measure only those, with their
#                   ceilings; the words "limit" and "start-up" ask for
#                   the limiter pair and the start-up time, "catalogue" the
#                   size of the tools/list catalogue in bytes, "ci" the CI
#                   cases of t/perf/bench-ci.sh (create_run,
#                   get_run_logs-16MiB, ci-start, ci-sandbox, ci-throughput),
#                   "sdlc" the sdlc hub's of t/perf/bench-sdlc.sh
#                   (sdlc-issues, sdlc-issue, hub-issues), "wiki" the wiki
#                   module's of t/perf/bench-wiki.sh (wiki-search, wiki-page),
#                   "search" search_code against git grep on two repository
#                   sizes, t/perf/bench-search.sh ("search-5k", "search-50k":
#                   one size)
#                   "cluster" the cases of t/perf/bench-cluster.sh on a
#                   three-node Galera cluster and two hosts (cluster-reads,
#                   cluster-create; needs root and galera-4)
#   BENCH_HOST_CPU  per cent of a core each host gets in cluster-reads (15)
#   BENCH_HUGE_FILES  files of the second repository of the search cases
#                   (default 50000; 0: only the large one)
#   BENCH_SEARCH_ROUNDS  rounds of each search case (default 5)
#   BENCH_WIKI_PAGES  pages of the wiki of the wiki cases (default 2128)
#   FORGEMCP_BENCH_BIN  an already built forgemcp to measure
#
# Needs (Debian): wrk hyperfine libfcgi-dev libfcgi-bin nginx-light
# mariadb-server mariadb-client git jq curl perl, and the build dependencies
# of forgemcp (see etc/check).
set -u

BENCH_PACKAGES="wrk hyperfine libfcgi-dev libfcgi-bin nginx-light mariadb-server mariadb-client git jq curl perl"
perf_dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$perf_dir/../.." && pwd)
build_arg=${1:-}
if test -n "$build_arg"; then build_arg=$(cd "$build_arg" && pwd); fi
STATE=${BENCH_STATE:-${build_arg:+$build_arg/t/perf-state}}
STATE=${STATE:-$perf_dir/state}
mkdir -p "$STATE" && STATE=$(cd "$STATE" && pwd)
SECS=${BENCH_SECONDS:-10}
NFILES=${BENCH_FILES:-5000}
NCOMMITS=${BENCH_COMMITS:-2000}
SOAK=${BENCH_SOAK:-0}
ONLY=${BENCH_ONLY:-}
ROUNDS=${BENCH_ROUNDS:-5}
PAIR_SECS=${BENCH_PAIR_SECONDS:-3}
BIN=${FORGEMCP_BENCH_BIN:-}

die () { echo "bench: $*" >&2; exit 1; }
note () { echo "bench: $*" >&2; }

missing=
for c in wrk hyperfine cgi-fcgi nginx mariadbd git jq curl perl cc; do
	command -v "$c" >/dev/null 2>&1 || test -x "/usr/sbin/$c" || missing="$missing $c"
done
test -f /usr/include/fcgiapp.h || missing="$missing fcgiapp.h"
test -z "$missing" || die "missing:$missing (apt-get install $BENCH_PACKAGES)"

# --- an optimized binary ---------------------------------------------------
if test -z "$BIN"; then
	b=$STATE/build
	mkdir -p "$b"
	if ! test -f "$b/Makefile"; then
		note "configuring an -O2 build in $b"
		(cd "$b" && "$top/configure" CFLAGS=-O2 >configure.log 2>&1) ||
			die "configure failed, see $b/configure.log"
	fi
	note "building forgemcp in $b"
	make -C "$b" -j"$(nproc)" forgemcp >"$b/make.log" 2>&1 || die "build failed, see $b/make.log"
	BIN=$b/forgemcp
fi
test -x "$BIN" || die "no forgemcp binary at $BIN"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
cc -O2 -o "$STATE/trivial" "$perf_dir/trivial.c" -lfcgi || die "cannot build trivial.c"

# --- the stack, from t/test-lib.sh ------------------------------------------
# test-lib.sh derives its paths from $0: pretend to be a script in t/.
export FORGEMCP_BUILD=$(dirname "$BIN") FORGEMCP_TRASH=$STATE/run
BASH_ARGV0=$top/t/bench.t
# shellcheck source=../test-lib.sh
. "$top/t/test-lib.sh" >/dev/null
FORGEMCP=$BIN
TRIVIAL_SOCK=$TRASH/trivial.sock
TRIVIAL_PID=
STATIC_DIR=$TRASH/static
bench_exit () {
	test -n "$TRIVIAL_PID" && stop_pid "$TRIVIAL_PID" 5
	stop_all >/dev/null 2>&1
}
trap bench_exit EXIT

# nginx: the project's sample plus two locations for the ceilings.
eval "sample_nginx_conf_ () $(declare -f write_nginx_conf | tail -n +2)"
write_nginx_conf () {
	sample_nginx_conf_ "$@" || return 1
	perl -0pi -e 's|(\n    location / \{)|
    # t/perf/bench.sh: the ceilings
    location = /trivial {
        client_max_body_size 64k;
        client_body_buffer_size 64k;
        include fastcgi_params;
        fastcgi_pass unix:'"$TRIVIAL_SOCK"';
    }
    location /static/ {
        alias '"$STATIC_DIR"'/;
        default_type application/octet-stream;
    }
$1|' "$NGINX_DIR/forgemcp-site.conf"
}

note "starting mariadbd, forgemcp (2 workers), the trivial responder, nginx"
start_db
config_set log_level warn
# the shipped defaults for the token cache; an account limit no run reaches
config_unset token_cache_seconds
config_set rate_limit 1000000
# create_run is measured for seconds: no repository's queue of waiting runs stops it
config_set ci_waiting_runs 1000000
migrate_db
start_fcgi_only 2
"$STATE/trivial" "$TRIVIAL_SOCK" 2 2>>"$TRASH/trivial.stderr" &
TRIVIAL_PID=$!
wait_for 10 test -S "$TRIVIAL_SOCK" || die "the trivial responder did not start"
mkdir -p "$STATIC_DIR"
start_nginx

# --- fixtures ------------------------------------------------------------------
FIX=$STATE/fixtures
mkdir -p "$FIX"
large=$FIX/large-$NFILES-$NCOMMITS.git
if ! test -f "$large/bench-ready"; then
	note "generating the large repository ($NFILES files, $NCOMMITS commits)"
	t0=$(date +%s)
	rm -rf "$large" && git init -q --bare "$large" &&
	perl "$perf_dir/gen-large.pl" "$NFILES" "$NCOMMITS" | git -C "$large" fast-import --quiet &&
	git -C "$large" symbolic-ref HEAD refs/heads/main &&
	touch "$large/bench-ready" || die "cannot generate the large repository"
	note "generated in $(( $(date +%s) - t0 )) s"
fi
make_fixture_repo "$TRASH/small.git" || die "cannot make the small repository"
make_user alice && make_user bob || die "cannot create users"
fm repo import alice/small --from "$TRASH/small.git" >/dev/null || die "import small"
note "importing the large repository"
fm repo import alice/large --from "$large" >/dev/null || die "import large"
TOKEN=$(make_token alice read,write) || die "cannot create a token"
git -C "$TRASH/small.git" show v1.0:big.txt >"$STATIC_DIR/big.txt"
pack_mb=$(du -sm "$large/objects/pack" | cut -f1)
large_files=$(git -C "$large" ls-tree -r main | wc -l)
large_commits=$(git -C "$large" rev-list --count main)

# create the pull request (feature into main) once
tool_call create_pull_request '{"repo":"alice/large","title":"rework","head":"feature","base":"main"}' >/dev/null
PR=$(tool_text | jq -r '.number // empty' 2>/dev/null)
test -n "$PR" || { cat "$RESP.body"; die "cannot create the pull request"; }

# --- measuring -------------------------------------------------------------------
BODIES=$TRASH/bodies
mkdir -p "$BODIES"
RESULTS=$TRASH/results.jsonl
: >"$RESULTS"
MODERN_HDRS="Authorization: Bearer $TOKEN|MCP-Protocol-Version: $MODERN_VERSION"
LEGACY_HDRS="Authorization: Bearer $TOKEN"

# body NAME JSON: a request body file
body () { printf '%s' "$2" >"$BODIES/$1.json"; }
body tools-list-legacy "$(legacy_body tools/list)"
body tools-list-modern "$(modern_body tools/list)"
call_body () { modern_body tools/call "$(jq -nc --arg n "$1" --argjson a "$2" '{name: $n, arguments: $a}')"; }
body file "$(call_body get_file_contents '{"repo":"alice/small","path":"big.txt","ref":"v1.0"}')"
# search: needles found nowhere, so search_code and git grep both read every file
body search "$(call_body search_code '{"repo":"alice/large","query":"foobarneedlex","limit":100}')"
body search-re "$(call_body search_code '{"repo":"alice/large","query":"foobar(needle|pin)x","regex":true,"limit":100}')"
body pr "$(call_body get_pull_request "{\"repo\":\"alice/large\",\"number\":$PR}")"
body issue "$(call_body create_issue '{"repo":"alice/large","title":"bench issue","body":"created by t/perf/bench.sh"}')"
body commits "$(call_body list_commits '{"repo":"alice/large","limit":50}')"
body tree "$(call_body get_tree '{"repo":"alice/large"}')"
body trivial '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

# check NAME HEADERS PATH: one request with curl; the answer must be a
# JSON-RPC result that is not a tool error, or the numbers would be a lie.
check () {
	local hdrs=() h
	IFS='|' read -r -a hs <<<"$2"
	for h in "${hs[@]}"; do hdrs+=(-H "$h"); done
	curl -sS --compressed -o "$TRASH/check.out" -w '%{http_code}' -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' "${hdrs[@]}" \
		--data-binary "@$BODIES/$1.json" "$BASE_URL$3" >"$TRASH/check.status" || return 1
	test "$(cat "$TRASH/check.status")" = 200 &&
	jq -e '.result and (.result.isError // false | not)' "$TRASH/check.out" >/dev/null || {
		echo "bench: $1 does not answer a result:" >&2
		head -c 600 "$TRASH/check.out" >&2; echo >&2
		return 1
	}
}

# wanted NAME: whether BENCH_ONLY (or its absence) asks for this case
wanted () {
	test -z "$ONLY" && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# wrk_post BODIES HEADERS CONNS SECONDS URL OUT: wrk POSTing the bodies
# (colon-separated files) with the headers ('|'-separated); its figures go
# to OUT as JSON, its own output to $TRASH/wrk.log.
wrk_post () {
	BENCH_BODIES=$1 BENCH_HEADERS=$2 BENCH_OUT=$6 \
		wrk -t$(( $3 < 2 ? 1 : 2 )) -c"$3" -d"$4s" --timeout 30s -s "$perf_dir/post.lua" "$5" \
		>"$TRASH/wrk.log" 2>&1
}

# run_wrk NAME BODY CONNS HEADERS PATH [SECONDS]: appends one result line.
run_wrk () {
	local name=$1 b=$2 c=$3 h=$4 p=$5 s=${6:-$SECS} out=$TRASH/wrk.out
	wanted "$name" || test "$name" = trivial || return 0
	check "$b" "$h" "$p" || die "case $name is broken"
	wrk_post "$BODIES/$b.json" "$h" "$c" 1 "$BASE_URL$p" /dev/null
	wrk_post "$BODIES/$b.json" "$h" "$c" "$s" "$BASE_URL$p" "$out" ||
		die "wrk failed for $name: $(cat "$TRASH/wrk.log")"
	jq -c --arg n "$name" --argjson c "$c" '{case: $n, conns: $c} + .' "$out" >>"$RESULTS"
	jq -e '.non2xx == 0 and .errors == 0' "$out" >/dev/null ||
		note "case $name c=$c: $(jq -r '"\(.non2xx) non-2xx answers, \(.errors) socket errors"' "$out") (marked in the table)"
	printf '  %-36s %8.1f req/s\n' "$name c=$c" "$(jq .rps "$out")" >&2
}

# run_pair NAME BODY CONNS HEADERS PATH: BENCH_ROUNDS rounds (default 5) of
# the trivial responder then NAME, BENCH_PAIR_SECONDS (default 3) each; the
# median of the rounds' ratios is NAME's ratio to the responder.  On a noisy
# machine the speed drifts over the minute between two long runs; within a
# round both see the same machine.
run_pair () {
	local name=$1 b=$2 c=$3 h=$4 p=$5 i r0 r1 out=$TRASH/pair.out
	wanted "$name" || return 0
	for i in $(seq "$ROUNDS"); do
		wrk_post "$BODIES/trivial.json" "" "$c" "$PAIR_SECS" "$BASE_URL/trivial" "$out" ||
			die "wrk failed for trivial (pair)"
		r0=$(jq .rps "$out")
		wrk_post "$BODIES/$b.json" "$h" "$c" "$PAIR_SECS" "$BASE_URL$p" "$out" ||
			die "wrk failed for $name (pair)"
		r1=$(jq .rps "$out")
		echo "$r1 $r0"
	done | jq -R -s -c --arg n "$name" --argjson c "$c" '
		[split("\n")[] | select(length > 0) | split(" ") | map(tonumber) | .[0] / .[1]] |
		{case: $n, conns: $c, rounds: map(. * 100 | round / 100), paired: (sort | .[length / 2 | floor])}' \
		>>"$RESULTS" || die "cannot record the pairs of $name"
	printf '  %-36s %s\n' "$name c=$c, paired" "$(jq -r -s 'last | "ratios \(.rounds | map(tostring) | join(" ")), median \(.paired * 100 | round / 100)"' "$RESULTS")" >&2
}

# run_static NAME CONNS: GET the static copy of the file.
run_static () {
	local out=$TRASH/wrk.out t=$(( $2 < 2 ? 1 : 2 ))
	wanted "$1" || wanted get_file_contents || return 0
	curl -sf "$BASE_URL/static/big.txt" | cmp -s - "$STATIC_DIR/big.txt" || die "static file not served"
	wrk -t1 -c"$2" -d1s "$BASE_URL/static/big.txt" >/dev/null 2>&1
	BENCH_OUT=$out wrk -t"$t" -c"$2" -d"${SECS}s" -s "$perf_dir/get.lua" "$BASE_URL/static/big.txt" \
		>"$TRASH/wrk.log" 2>&1 || die "wrk failed for $1"
	jq -c --arg n "$1" --argjson c "$2" '{case: $n, conns: $c} + .' "$out" >>"$RESULTS"
	printf '  %-36s %8.1f req/s\n' "$1 c=$2" "$(jq .rps "$out")" >&2
}

# run_git NAME COMMAND CASE: hyperfine's mean, as a ceiling in runs per
# second, of CASE (measured when CASE is).
run_git () {
	wanted "$3" || return 0
	# -i: git grep exits 1 when it finds nothing, which is what the search cases ask
	hyperfine -N -i --warmup 3 --min-runs 10 --export-json "$TRASH/hf.json" "$2" >/dev/null 2>&1 ||
		hyperfine -i --warmup 3 --min-runs 10 --export-json "$TRASH/hf.json" "$2" >/dev/null 2>&1 ||
		die "hyperfine failed for $1"
	jq -c --arg n "$1" --arg cmd "$2" '.results[0] | {case: $n, conns: 1, command: $cmd,
		rps: (1 / .mean), p50_ms: (.median * 1000), p99_ms: (.max * 1000), ceiling: true}' \
		"$TRASH/hf.json" >>"$RESULTS"
	printf '  %-36s %8.1f runs/s\n' "$1" "$(jq -s 'last.rps' "$RESULTS")" >&2
}

repo_large=$(find "$TRASH/repos" -maxdepth 3 -name 'large*' -type d | head -n 1)
test -n "$repo_large" || repo_large=$large
base=$(git -C "$repo_large" rev-parse main)
note "measuring, ${SECS}s per case (large repository: $large_files files, $large_commits commits, ${pack_mb} MB packed)"
for c in 1 16; do
	run_wrk trivial trivial "$c" "" /trivial
	run_wrk tools/list-legacy tools-list-legacy "$c" "$LEGACY_HDRS" /mcp
	run_wrk tools/list-2026-07-28 tools-list-modern "$c" "$MODERN_HDRS|Mcp-Method: tools/list" /mcp
	# the same answer to a client that does not accept gzip (curl without --compressed)
	run_wrk "tools/list-legacy, identity" tools-list-legacy "$c" "$LEGACY_HDRS|Accept-Encoding: identity" /mcp
	run_wrk get_file_contents file "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: get_file_contents" /mcp
	run_static static-10KB "$c"
	run_wrk search_code search "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: search_code" /mcp
	run_wrk search_code-regex search-re "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: search_code" /mcp
	run_wrk get_pull_request pr "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: get_pull_request" /mcp
	run_wrk list_commits-50 commits "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: list_commits" /mcp
	run_wrk get_tree-root tree "$c" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: get_tree" /mcp
done
note "pairing the cases compared with the trivial responder, $ROUNDS rounds of ${PAIR_SECS}s each"
run_pair tools/list-legacy tools-list-legacy 16 "$LEGACY_HDRS" /mcp
run_pair tools/list-2026-07-28 tools-list-modern 16 "$MODERN_HDRS|Mcp-Method: tools/list" /mcp
run_pair "tools/list-legacy, identity" tools-list-legacy 16 "$LEGACY_HDRS|Accept-Encoding: identity" /mcp
run_pair get_file_contents file 16 "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: get_file_contents" /mcp
run_wrk create_issue issue 4 "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: create_issue" /mcp
issues_made=$(db_sql "select count(*) from issues")
run_git "git grep -F -i" "git -C $repo_large grep -F -i -n foobarneedlex main" search_code
run_git "git grep -P -i" "git -C $repo_large grep -P -i -n foobar(needle|pin)x main" search_code-regex
run_git "git diff base...head" "git -C $repo_large diff main...feature" get_pull_request
run_git "git log -50" "git -C $repo_large log -50 --format=%H%x00%an%x00%ae%x00%aI%x00%s main" list_commits-50
run_git "git ls-tree" "git -C $repo_large ls-tree -l main" get_tree-root
# shellcheck source=bench-ci.sh
. "$perf_dir/bench-ci.sh"
# shellcheck source=bench-sdlc.sh
. "$perf_dir/bench-sdlc.sh"
# shellcheck source=bench-wiki.sh
. "$perf_dir/bench-wiki.sh"
# shellcheck source=bench-search.sh
. "$perf_dir/bench-search.sh"

# The cluster cases: a process of their own, with a cluster of their own.
CLUSTER_DONE=
if wanted cluster; then
	note "cluster: three Galera nodes and two hosts (t/perf/bench-cluster.sh)"
	if FORGEMCP_BENCH_BIN=$BIN BENCH_STATE=$STATE BENCH_SECONDS=$SECS BENCH_ROUNDS=$ROUNDS \
	    BENCH_PAIR_SECONDS=$PAIR_SECS bash "$perf_dir/bench-cluster.sh"; then
		CLUSTER_DONE=1
	else
		note "cluster: not measured (see above)"
	fi
fi

# --- memory and start-up ------------------------------------------------------------
rss_of_workers () {
	local p
	for p in $(pgrep -P "$SERVER_PID"); do
		awk -v p="$p" '/^VmRSS/ { printf "%s:%d ", p, $2 }' "/proc/$p/status"
	done
}
RSS_AFTER=$(rss_of_workers)
# a worker left large by a request shrinks after a second without one
sleep 2
RSS_IDLE=$(rss_of_workers)
SOAK_JSON=null
if test "$SOAK" = 1; then
	# legacy bodies: the modern ones need per-request Mcp-Method/Mcp-Name headers
	all=$BODIES/tools-list-legacy.json
	for x in 'get_file_contents {"repo":"alice/small","path":"big.txt","ref":"v1.0"}' \
		'list_commits {"repo":"alice/large","limit":50}' 'get_tree {"repo":"alice/large"}' \
		'search_code {"repo":"alice/large","query":"foobarneedle","limit":100}' \
		"get_pull_request {\"repo\":\"alice/large\",\"number\":$PR}"; do
		n=${x%% *}
		body "soak-$n" "$(legacy_body tools/call "$(jq -nc --arg n "$n" --argjson a "${x#* }" '{name: $n, arguments: $a}')")"
		check "soak-$n" "$LEGACY_HDRS" /mcp || die "soak body $n is broken"
		all=$all:$BODIES/soak-$n.json
	done
	soak_total=0
	soak_rss=
	for goal in 10000 100000; do
		t0=$(date +%s)
		while test "$soak_total" -lt "$goal"; do
			test $(( $(date +%s) - t0 )) -lt 3600 || die "soak: $goal requests not reached in an hour"
			wrk_post "$all" "$LEGACY_HDRS" 8 10 "$BASE_URL/mcp" "$TRASH/soak.out" ||
				die "soak: wrk failed"
			soak_total=$((soak_total + $(jq .requests "$TRASH/soak.out")))
		done
		sleep 2
		soak_rss="$soak_rss\"$goal\": \"$(rss_of_workers)(after $soak_total, idle 2 s)\","
	done
	SOAK_JSON="{${soak_rss%,}}"
fi

# The limiter's cost: tools/list with the account limit counted, then with
# rate_limit = 0 (off), back to back (BENCH_ONLY: the word "limit").
if wanted limit; then
	ONLY=
	run_wrk "tools/list-legacy, limit on" tools-list-legacy 16 "$LEGACY_HDRS" /mcp
	stop_server >/dev/null 2>&1
	config_set rate_limit 0
	start_fcgi_only 2
	run_wrk "tools/list-legacy, limit off" tools-list-legacy 16 "$LEGACY_HDRS" /mcp
	stop_server >/dev/null 2>&1
	config_set rate_limit 1000000
	start_fcgi_only 2
	ONLY=${BENCH_ONLY:-}
fi

# start-up: from exec to the first answered request, forgemcp fcgi with 1 worker.
# t/perf/startup.pl, already running, takes the time, starts the server and
# sends the request as soon as the socket accepts it: the time is the
# server's, not a poll's or a client's own start-up.
startup_ms () {
	local sock=$TRASH/startup.sock t
	printf '%s' "$(legacy_body tools/list)" >"$TRASH/startup.body"
	mapfile -t cgienv < <(cgi_env_ "$TRASH/startup.body" | grep -v '^CONTENT_LENGTH=')
	t=$(perl "$perf_dir/startup.pl" "$sock" "$TRASH/startup.body" "${cgienv[@]}" -- \
		"$FORGEMCP" fcgi --listen "$sock" --workers 1 2>>"$SERVER_LOG") || { echo null; return; }
	stop_pid "$(cat "$sock.pid")" 5
	if grep -q '"result"' "$sock.out"; then
		echo "${t#* }"
	else
		echo null
	fi
}
STARTUP=null
if wanted start-up; then
	STARTUP=$(for i in 1 2 3 4 5 6 7 8 9; do startup_ms; done | sort -n | sed -n 5p)
fi

# catalogue: what tools/list costs a client's context, as served: the tools
# array in bytes, in total, per tool (median, smallest, largest) and per
# toolset (X-MCP-Toolsets), into $STATE/catalogue.json.
catalogue () {
	local set out=$TRASH/catalogue.out sets='{}'
	curl -sS -o "$out" -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \
		--data-binary "@$BODIES/tools-list-legacy.json" "$BASE_URL/mcp" || return 1
	for set in repos issues pull_requests notifications users search; do
		curl -sS -o "$out.$set" -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \
			-H "X-MCP-Toolsets: $set" --data-binary "@$BODIES/tools-list-legacy.json" \
			"$BASE_URL/mcp" || return 1
		sets=$(jq -c --arg s "$set" --argjson n "$(jq -c '.result.tools | tojson | length' "$out.$set")" \
			'. + {($s): $n}' <<<"$sets")
	done
	jq --argjson sets "$sets" '.result.tools | map({name, bytes: (tojson | length)}) | sort_by(.bytes) |
		{total: (map(.bytes) | add + length + 1), tools: length,
		 median: .[length / 2 | floor].bytes, smallest: .[0], largest: .[-1],
		 over_1200: map(select(.bytes > 1200) | .name), toolsets: $sets, per_tool: .}' \
		"$out" >"$STATE/catalogue.json"
}
if wanted catalogue; then
	catalogue || die "cannot read the catalogue"
fi

# --- the table -------------------------------------------------------------------
# The machine it ran on: ratios move with the CPU, so a figure names its machine.
machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
machine="${machine:-unknown CPU}, $(nproc) cores, $(uname -sr)"
jq -s --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg rss "$RSS_AFTER" --arg rss_idle "$RSS_IDLE" --argjson soak "$SOAK_JSON" \
	--arg startup "$STARTUP" --arg ci_start "$CI_START" --arg secs "$SECS" --arg host "$machine" \
	--argjson sdlc "$SDLC_JSON" --argjson wiki "$WIKI_JSON" --argjson search "$SEARCH_JSON" \
	--arg issues "$issues_made" --argjson files "$large_files" --argjson commits "$large_commits" \
	--argjson pack "$pack_mb" -f "$perf_dir/table.jq" "$RESULTS" >"$STATE/bench.json" ||
	die "cannot build bench.json"
echo "machine: $machine"
jq -r '.table[] | [.case, .conns, .rps, .p50_ms, .p99_ms, .ceiling, .ratio,
	(if (.non2xx // 0) + (.errors // 0) > 0 then "INVALID: \(.non2xx) non-2xx, \(.errors) errors" else "" end)] | @tsv' "$STATE/bench.json" |
awk -F'\t' 'BEGIN { printf "| %-36s | %5s | %9s | %9s | %9s | %-22s | %6s |\n", "case", "conns", "req/s", "p50 ms", "p99 ms", "ceiling", "ratio"
	print "| --- | ---: | ---: | ---: | ---: | --- | ---: |" }
	# a case with failed requests gets a note after the row
	{ printf "| %-36s | %5s | %9.1f | %9.2f | %9.2f | %-22s | %6s |%s\n", $1, $2, $3, $4, $5, $6, ($7 == "" ? "-" : $7), ($8 == "" ? "" : " " $8) }'
jq -r '"worker RSS after the run (pid:kB): \(.rss_after_run_kb); idle 2 s later: \(.rss_idle_kb)",
	"worker start-up, exec to first answer, 1 worker (median of 9): \(.startup_ms) ms",
	"CI: approve_pull_request_checks to the first job running, idle runner (median of 5): \(.ci_start_ms) ms",
	"create_issue: \(.issues_created) issues created",
	(if .sdlc then "sdlc: a call through forgemcp mcp jira: issues (50 rows) \(.sdlc.issues_ms) ms, issue (50 comments) \(.sdlc.issue_ms) ms" else "sdlc: not run" end),
	(if .wiki then "wiki: \(.wiki.pages) pages, a call through forgemcp mcp wiki: search median \(.wiki.search_p50_ms) ms, p90 \(.wiki.search_p90_ms) ms; page median \(.wiki.page_p50_ms) ms, p90 \(.wiki.page_p90_ms) ms; relevance \(.wiki.relevance_top3) of 20 in the first three" else "wiki: not run" end),
	"large repository: \(.large_repo.files) files, \(.large_repo.commits) commits, \(.large_repo.pack_mb) MB packed",
	(if .soak then "soak RSS: \(.soak)" else "soak: not run (BENCH_SOAK=1)" end),
	"json: '"$STATE"'/bench.json"' "$STATE/bench.json"
jq -r 'select(.search) | "",
	"search_code against git grep (median of the rounds: git ms / search_code ms; ratio = git / search_code):",
	"| repository | case | hits | git grep ms | search_code ms | ratios of the rounds | ratio |",
	"| --- | --- | ---: | ---: | ---: | --- | ---: |",
	(.search[] | "| \(.repo) | \(.case) | \(.hits) | \(.git_ms) | \(.search_ms) | \(.rounds | map(tostring) | join(" ")) | \(.ratio) |")' \
	"$STATE/bench.json"
if test -n "$CLUSTER_DONE"; then
	jq -r '"cluster, reads (get_issue; each host \(.host_cpu_pct)% of a core): both hosts \(.reads.both_rps)/s, host 1 alone \(.reads.one_rps)/s; ratio \(.reads.ratio) (rounds \(.reads.rounds | map(tostring) | join(" ")); target >= 1.8)",
		"cluster, create_issue at 32 connections: single MariaDB \(.create.single_spread_rps)/s in 32 repositories, \(.create.single_hot_rps)/s in one; cluster \(.create.cluster_spread.rps)/s in 32 (\(.create.cluster_spread.retries) retries for \(.create.cluster_spread.issues) issues: \(.create.cluster_spread.retry_pct)%; target < 5%), \(.create.cluster_hot.rps)/s in one (\(.create.cluster_hot.retry_pct)%); in one with both hosts on node 1 \(.create.one_node_hot.rps)/s (\(.create.one_node_hot.retry_pct)%), with host 2 writing through node 1 \(.create.write_node_hot.rps)/s (\(.create.write_node_hot.retry_pct)%)",
		"json: '"$STATE"'/cluster.json"' "$STATE/cluster.json"
fi
if test -s "$STATE/catalogue.json"; then
	jq -r '"catalogue (tools/list tools array): \(.total) bytes for \(.tools) tools; per tool: median \(.median), smallest \(.smallest.bytes) (\(.smallest.name)), largest \(.largest.bytes) (\(.largest.name)); \(.over_1200 | length) tools over 1,200 bytes",
		"catalogue per toolset: \(.toolsets | to_entries | map("\(.key) \(.value)") | join(", ")) bytes",
		"json: '"$STATE"'/catalogue.json"' "$STATE/catalogue.json"
fi
