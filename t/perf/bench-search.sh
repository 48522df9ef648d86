# t/perf/bench-search.sh: search_code against git grep, sourced by bench.sh
# after the main cases (its functions and the running stack are in scope).
#
# Five queries on the large repository (BENCH_FILES files) and, unless
# BENCH_HUGE_FILES=0, on one built the same way with BENCH_HUGE_FILES files
# (default 50000, about 255 MB of text, 197 MB packed), both as imported by
# `forgemcp repo import`; git reads the same bare repository:
#
#   literal    "FooBarNeedle", found in about 1 line of 500: search_code
#              stops at its limit (100 hits), git grep prints every hit
#   regex      "FooBar(Needle|Pin)" the same way (-P)
#   path       "FooBarNeedle" in src/07/*.h (git: -- 'src/07/*.h')
#   none       "foobarneedlex", found nowhere: both read every file
#   none-re    "foobar(needle|pin)x", found nowhere
#
# Each case runs BENCH_SEARCH_ROUNDS rounds (default 5, after one warm-up
# of each): one git grep process, then one search_code request through nginx
# timed from the outside: git from exec to exit (its start is what a user of
# git pays), search_code as curl's time_total, from connecting to the last
# byte of the answer (the server is running: curl's own start is not its);
# the ratio of a round is git's time over search_code's, and the case's
# ratio is the median of its rounds.  A worker closes its repositories after a second without a
# request, so a search after a git grep of more than a second starts cold:
# the figures are those of a search arriving at an idle server.
#
# BENCH_ONLY takes "search" (all of them) or "search-5k" / "search-50k"
# (one repository); the rows go to bench.json as "search".

search_wanted () { wanted search || wanted "search-$1"; }
HUGE_FILES=${BENCH_HUGE_FILES:-50000}
SEARCH_ROUNDS=${BENCH_SEARCH_ROUNDS:-5}
SEARCH_JSON=null

# search_size N: 5k, 50k (how a case names its repository)
search_size () { echo "$(($1 / 1000))k"; }

# search_repo FILES: the imported repository's name (alice/large or alice/huge),
# generating and importing the huge one on first use
search_repo () {
	local fix
	if test "$1" = "$NFILES"; then echo alice/large; return; fi
	fix=$FIX/large-$1-$NCOMMITS.git
	if ! test -f "$fix/bench-ready"; then
		note "generating the huge repository ($1 files, $NCOMMITS commits; a few minutes, once)" >&2
		rm -rf "$fix" && git init -q --bare "$fix" &&
		perl "$perf_dir/gen-large.pl" "$1" "$NCOMMITS" | git -C "$fix" fast-import --quiet &&
		git -C "$fix" symbolic-ref HEAD refs/heads/main &&
		touch "$fix/bench-ready" || die "cannot generate the huge repository"
	fi
	# the import (a pack built by libgit2, a few minutes) is kept beside the
	# fixture: later runs create the repository and copy that one's objects
	if test -d "$TRASH/repos/alice/huge.git"; then
		:
	elif test -f "$fix.imported/bench-ready"; then
		fm repo create alice/huge >/dev/null || die "create huge"
		rm -rf "$TRASH/repos/alice/huge.git/objects" "$TRASH/repos/alice/huge.git/refs" &&
		cp -a "$fix.imported/objects" "$fix.imported/refs" "$fix.imported/HEAD" \
			"$TRASH/repos/alice/huge.git/" &&
		{ ! test -f "$fix.imported/packed-refs" ||
		  cp -a "$fix.imported/packed-refs" "$TRASH/repos/alice/huge.git/"; } ||
			die "cannot copy the imported huge repository"
	else
		note "importing the huge repository" >&2
		fm repo import alice/huge --from "$fix" >/dev/null || die "import huge"
		rm -rf "$fix.imported" && cp -a "$TRASH/repos/alice/huge.git" "$fix.imported" &&
		touch "$fix.imported/bench-ready"
	fi
	echo alice/huge
}

# us_of COMMAND...: its wall time in microseconds (its output dropped)
us_of () {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))
}

# search_case SIZE NAME ARGS_JSON GITDIR PATHSPEC GIT_ARGS...: one row of
# search.jsonl (PATHSPEC: "" for the whole tree)
search_case () {
	local size=$1 name=$2 args=$3 gitdir=$4 spec=$5 i g s
	local -a tail=(main)
	shift 5
	test -n "$spec" && tail+=(-- "$spec")
	body "search-$size-$name" "$(call_body search_code "$args")"
	check "search-$size-$name" "$MODERN_HDRS|Mcp-Method: tools/call|Mcp-Name: search_code" /mcp ||
		die "case search $size $name is broken"
	hits=$(jq '.result.structuredContent.results | length' "$TRASH/check.out")
	git -C "$gitdir" grep "$@" "${tail[@]}" >/dev/null 2>&1
	for i in $(seq "$SEARCH_ROUNDS"); do
		g=$(us_of git -C "$gitdir" grep "$@" "${tail[@]}")
		s=$(curl -sS -o /dev/null -w '%{time_total}' -H 'Content-Type: application/json' \
			-H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $TOKEN" \
			-H "MCP-Protocol-Version: $MODERN_VERSION" -H 'Mcp-Method: tools/call' \
			-H 'Mcp-Name: search_code' --data-binary "@$BODIES/search-$size-$name.json" \
			"$BASE_URL/mcp")
		echo "$g $s"	# microseconds, seconds
	done | jq -R -s -c --arg size "$size" --arg n "$name" --arg git "git grep $* ${tail[*]}" \
		--argjson hits "$hits" '
		[split("\n")[] | select(length > 0) | split(" ") | map(tonumber)
		 | [.[0] / 1000, .[1] * 1000]] as $r
		| def med: sort | .[length / 2 | floor];
		{repo: $size, case: $n, git: $git, hits: $hits,
		 git_ms: ($r | map(.[0]) | med | . * 10 | round / 10),
		 search_ms: ($r | map(.[1]) | med | . * 10 | round / 10),
		 rounds: ($r | map(.[0] / .[1] * 100 | round / 100)),
		 ratio: ($r | map(.[0] / .[1]) | med * 100 | round / 100)}' >>"$TRASH/search.jsonl" ||
		die "cannot record search $size $name"
	jq -r -s 'last | "  search \(.repo) \(.case): git \(.git_ms) ms, search_code \(.search_ms) ms, ratios \(.rounds | map(tostring) | join(" ")), median \(.ratio)"' \
		"$TRASH/search.jsonl" >&2
}

# search_repo_cases FILES
search_repo_cases () {
	local size repo gitdir
	size=$(search_size "$1")
	search_wanted "$size" || return 0
	repo=$(search_repo "$1") || exit 1
	gitdir=$TRASH/repos/$repo.git
	test -d "$gitdir" || die "no repository at $gitdir"
	note "search_code against git grep on $repo ($(git -C "$gitdir" ls-tree -r main | wc -l) files, $(du -sm "$gitdir/objects/pack" | cut -f1) MB packed), $SEARCH_ROUNDS rounds"
	search_case "$size" literal "{\"repo\":\"$repo\",\"query\":\"FooBarNeedle\",\"limit\":100}" \
		"$gitdir" "" -F -i -n FooBarNeedle
	search_case "$size" regex "{\"repo\":\"$repo\",\"query\":\"FooBar(Needle|Pin)\",\"regex\":true,\"limit\":100}" \
		"$gitdir" "" -P -i -n 'FooBar(Needle|Pin)'
	search_case "$size" path "{\"repo\":\"$repo\",\"query\":\"FooBarNeedle\",\"path\":\"src/07/*.h\",\"limit\":100}" \
		"$gitdir" "src/07/*.h" -F -i -n FooBarNeedle
	search_case "$size" none "{\"repo\":\"$repo\",\"query\":\"foobarneedlex\",\"limit\":100}" \
		"$gitdir" "" -F -i -n foobarneedlex
	search_case "$size" none-re "{\"repo\":\"$repo\",\"query\":\"foobar(needle|pin)x\",\"regex\":true,\"limit\":100}" \
		"$gitdir" "" -P -i -n 'foobar(needle|pin)x'
}

if search_wanted 5k || search_wanted "$(search_size "$HUGE_FILES")"; then
	: >"$TRASH/search.jsonl"
	search_repo_cases "$NFILES"
	test "$HUGE_FILES" -gt 0 && search_repo_cases "$HUGE_FILES"
	SEARCH_JSON=$(jq -s -c . "$TRASH/search.jsonl")
fi
