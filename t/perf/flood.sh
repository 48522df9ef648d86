#!/bin/bash
# t/perf/flood.sh: `make bench-flood`, what one account's flood of slow calls
# costs another account.  Starts mariadbd, forgemcp fcgi with 4 workers and
# nginx (from t/test-lib.sh), imports this checkout as alice/src, and for each
# account_concurrency (the default, half the workers, then 4: no limit) lets
# alice send the most expensive search the schema allows from FLOOD_CLIENTS
# connections at once for FLOOD_SECONDS, while bob asks tools/list one call
# after another; then alice and carol flood together (half the connections
# each), with the default.  Prints bob's latency (p50, p95, max) and what the
# flooding accounts got.
#
#   t/perf/flood.sh BUILD_DIR
#
# Environment: FLOOD_SECONDS (default 15), FLOOD_CLIENTS (default 16).
set -u

perf_dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$perf_dir/../.." && pwd)
build=$(cd "${1:?usage: flood.sh BUILD_DIR}" && pwd)
SECS=${FLOOD_SECONDS:-15}
CLIENTS=${FLOOD_CLIENTS:-16}

export FORGEMCP_BUILD=$build FORGEMCP_TRASH=$build/t/flood-state
mkdir -p "$FORGEMCP_TRASH"
# test-lib.sh derives its paths from $0: pretend to be a script in t/.
BASH_ARGV0=$top/t/flood.t
# shellcheck source=../test-lib.sh
. "$top/t/test-lib.sh" >/dev/null
trap 'stop_all >/dev/null 2>&1' EXIT

note () { echo "flood: $*" >&2; }

start_db
config_set log_level warn
migrate_db
make_user alice >/dev/null
make_user bob >/dev/null
make_user carol >/dev/null
ALICE=$(make_token alice read)
BOB=$(make_token bob read)
CAROL=$(make_token carol read)
git clone -q --bare "$top" "$TRASH/src.git" &&
	"$FORGEMCP" repo import alice/src --from "$TRASH/src.git" >/dev/null 2>&1 ||
	{ note "cannot import $top as alice/src"; exit 1; }

search='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_code","arguments":{"repo":"alice/src","query":"(?=(.*){2}\\d)","regex":true,"offset":100000}}}'
list='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

# post TOKEN BODY: one request; prints "status seconds".
post () {
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H "Authorization: Bearer $1" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		--data-binary "$2" "$BASE_URL/mcp"
}

# run LIMIT [TOKEN...]: one round with account_concurrency LIMIT (empty: the
# default), the flood's connections shared by the accounts of TOKEN... (alice's
# when none is given).
run () {
	local end i tok pids=() label=${1:-default} floods=("${@:2}")
	test ${#floods[@]} -gt 0 || floods=("$ALICE")
	test ${#floods[@]} -gt 1 && label="$label,${#floods[@]}x"
	stop_server >/dev/null 2>&1
	if test -n "$1"; then config_set account_concurrency "$1"; else config_unset account_concurrency; fi
	start_fcgi_only 4
	test -n "$NGINX_PID" || start_nginx
	post "$BOB" "$list" >/dev/null
	end=$(( $(date +%s) + SECS ))
	: >"$TRASH/alice.$label"
	for i in $(seq "$CLIENTS"); do
		tok=${floods[$(( i % ${#floods[@]} ))]}
		( while test "$(date +%s)" -lt "$end"; do post "$tok" "$search"; done \
			>>"$TRASH/alice.$label" ) &
		pids+=($!)
	done
	sleep 1
	: >"$TRASH/bob.$label"
	while test "$(date +%s)" -lt "$end"; do
		post "$BOB" "$list" >>"$TRASH/bob.$label"
	done
	wait "${pids[@]}"
	perl -e '
		my ($label, $bob, $alice) = @ARGV;
		open my $bf, "<", $bob or die; my (@t, %bs);
		while (<$bf>) { my ($s, $t) = split; $bs{$s}++; push @t, $t * 1000 }
		@t = sort { $a <=> $b } @t;
		my $q = sub { $t[int($_[0] * $#t + 0.5)] };
		open my $af, "<", $alice or die; my %as; $as{(split)[0]}++ while <$af>;
		printf "account_concurrency %-10s bob tools/list: %4d calls, p50 %7.1f ms, p95 %7.1f ms, max %7.1f ms, statuses %s; flood: %s\n",
			$label, scalar @t, $q->(0.5), $q->(0.95), $t[-1],
			join(",", map { "$_ x$bs{$_}" } sort keys %bs),
			join(", ", map { "$_ x$as{$_}" } sort keys %as);
	' "$label" "$TRASH/bob.$label" "$TRASH/alice.$label"
}

note "$CLIENTS connections of alice's slowest search for ${SECS} s, bob's tools/list meanwhile"
run ""
run 4
run "" "$ALICE" "$CAROL"
