# t/perf/bench-wiki.sh: the wiki module's cases of `make bench`, sourced by
# bench.sh after the sdlc hub's (its functions and the running stack are in
# scope).
#
#   wiki-search    `search` through `forgemcp mcp wiki`, one stdio session of
#                  200 calls of varied queries (Cyrillic and Latin, single
#                  words of every frequency, pairs, boolean and prefix
#                  forms), each call timed alone: median and p90 in ms; and
#                  the relevance check: 20 queries, each with a planted best
#                  page, and how many have it in the first three results
#   wiki-page      `page` the same way: varied codes, the long pages also
#                  from offset 20000
#
# The wiki: t/perf/gen-wiki.pl (BENCH_WIKI_PAGES pages, default 2128, at
# least 2,000) from the words of doc/*.md and README.md and made-up
# Russian and English words, in a bare repository made once under the
# fixtures, imported as alice/wiki and synced by the real agent
# (`forgemcp agent --module wiki --backend git --once`).
#
# BENCH_ONLY takes these names; "wiki" asks for both.

wiki_wanted () { wanted wiki || wanted "$1"; }
WIKI_JSON=null
rm -f "$TRASH/wiki-relevance.json"

# wiki_stats FILE: "median p90" of the ms of the calls in FILE (mcp-calls.pl's lines)
wiki_stats () {
	jq -s -r '[.[].ms] | sort | "\(.[length / 2 | floor]) \(.[length * 9 / 10 | floor])"' "$1"
}

# wiki_calls NAME CALLS: one forgemcp mcp wiki session of CALLS into $TRASH/NAME.jsonl
wiki_calls () {
	FORGEMCP_HUB_URL=$BASE_URL/hub FORGEMCP_HUB_TOKEN=$WIKI_TOKEN \
		perl "$perf_dir/mcp-calls.pl" "$2" -- "$FORGEMCP" mcp wiki --project WBENCH \
		>"$TRASH/$1.jsonl" 2>>"$TRASH/wiki.err" || die "forgemcp mcp wiki failed, see $TRASH/wiki.err"
	test "$(jq -s '[.[] | select(.error)] | length' "$TRASH/$1.jsonl")" = 0 ||
		die "$1: a call answered an error, see $TRASH/$1.jsonl"
}

if wiki_wanted wiki-search || wiki_wanted wiki-page; then
	WIKI_PAGES=${BENCH_WIKI_PAGES:-2128}
	wiki=$FIX/wiki-$WIKI_PAGES.git
	if ! test -f "$wiki/bench-ready"; then
		note "generating the wiki ($WIKI_PAGES pages)"
		rm -rf "$wiki" "$wiki.out" && git init -q --bare "$wiki" && mkdir -p "$wiki.out" &&
		perl "$perf_dir/gen-wiki.pl" "$WIKI_PAGES" "$wiki.out" "$top"/doc/*.md "$top/README.md" |
			git -C "$wiki" fast-import --quiet &&
		git -C "$wiki" symbolic-ref HEAD refs/heads/main &&
		touch "$wiki/bench-ready" || die "cannot generate the wiki"
	fi
	wiki_files=$(git -C "$wiki" ls-tree -r main | wc -l)
	wiki_mb=$(git -C "$wiki" ls-tree -r -l main | awk '{ s += $4 } END { printf "%.1f", s / 1048576 }')
	wiki_long=$(git -C "$wiki" ls-tree -r -l main | awk '$4 >= 30000 { n++ } END { print n + 0 }')
	fm repo import alice/wiki --from "$wiki" >/dev/null || die "import the wiki"
	WIKI_TOKEN=$(make_token alice read,write) || die "cannot create the wiki token"
	curl -sS -o "$TRASH/wiki-project.json" -w '%{http_code}' -H 'Content-Type: application/json' \
		-H "Authorization: Bearer $WIKI_TOKEN" \
		--data-binary '{"label":"WBENCH","name":"Wiki bench","wiki_root":"alice/wiki@main:DOC-1"}' \
		"$BASE_URL/hub/projects" >"$TRASH/wiki-project.status" &&
	test "$(cat "$TRASH/wiki-project.status")" = 201 ||
		die "cannot create the WBENCH project: $(cat "$TRASH/wiki-project.json")"
	t0=$(date +%s%N)
	FORGEMCP_HUB_URL=$BASE_URL/hub FORGEMCP_HUB_TOKEN=$WIKI_TOKEN \
		"$FORGEMCP" agent --module wiki --backend git --once >>"$TRASH/wiki-agent.log" 2>&1 ||
		die "the wiki agent failed, see $TRASH/wiki-agent.log"
	wiki_sync_s=$(awk "BEGIN { printf \"%.1f\", ($(date +%s%N) - $t0) / 1e9 }")
	curl -sS -H "Authorization: Bearer $WIKI_TOKEN" "$BASE_URL/hub/wiki/status?project=WBENCH" \
		>"$TRASH/wiki-status.json" || die "cannot read the wiki status"
	jq -e '.last.state == "done"' "$TRASH/wiki-status.json" >/dev/null ||
		die "the wiki sync did not end well: $(cat "$TRASH/wiki-status.json")"
	wiki_synced=$(jq .pages "$TRASH/wiki-status.json")
	note "wiki: $wiki_synced pages ($wiki_files files, $wiki_mb MB of Markdown, $wiki_long of 30,000+ bytes) synced in $wiki_sync_s s"
fi

if wiki_wanted wiki-search; then
	# the relevance queries first, then the others, round again to 200 calls
	{ cut -f1 "$wiki.out/relevance.tsv"; cat "$wiki.out/search.txt"; } >"$TRASH/wiki-queries.txt"
	for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TRASH/wiki-queries.txt"; done | head -n 200 |
		jq -R -r '"search\t" + ({query: .} | tojson)' >"$TRASH/wiki-search.in"
	wiki_calls wiki-search "$TRASH/wiki-search.in"
	read -r search_p50 search_p90 <<<"$(wiki_stats "$TRASH/wiki-search.jsonl")"
	# relevance: the first 20 answers against their best pages
	head -n 20 "$TRASH/wiki-search.jsonl" | jq -c -s --rawfile rel "$wiki.out/relevance.tsv" '
		($rel | split("\n") | map(select(length > 0) | split("\t"))) as $r
		| [range(0; 20) as $i | {query: $r[$i][0], best: $r[$i][1], got: .[$i].codes[0:3],
			hit: (.[$i].codes[0:3] | index($r[$i][1]) != null),
			rank: ((.[$i].codes | index($r[$i][1])) // null | if . == null then null else . + 1 end)}]' \
		>"$TRASH/wiki-relevance.json"
	wiki_hits=$(jq '[.[] | select(.hit)] | length' "$TRASH/wiki-relevance.json")
	note "wiki-search: $search_p50 ms median, $search_p90 ms p90 a call (200 calls); relevance: $wiki_hits of 20 best pages in the first three"
	jq -r '.[] | select(.hit | not) | "bench:   missed: «\(.query)» best \(.best), rank \(.rank // "not in the first 10"), first three \(.got | join(" "))"' \
		"$TRASH/wiki-relevance.json" >&2
fi

if wiki_wanted wiki-page; then
	for i in 1 2 3 4 5; do cat "$wiki.out/pages.tsv"; done | head -n 200 |
		jq -R -r 'split("\t") | "page\t" + ({code: .[0]} + (if .[1] == "0" then {} else {offset: (.[1] | tonumber)} end) | tojson)' \
		>"$TRASH/wiki-page.in"
	wiki_calls wiki-page "$TRASH/wiki-page.in"
	read -r page_p50 page_p90 <<<"$(wiki_stats "$TRASH/wiki-page.jsonl")"
	note "wiki-page: $page_p50 ms median, $page_p90 ms p90 a call (200 calls)"
fi

if wiki_wanted wiki-search || wiki_wanted wiki-page; then
	test -f "$TRASH/wiki-relevance.json" || echo "[]" >"$TRASH/wiki-relevance.json"
	WIKI_JSON=$(jq -n --argjson pages "$wiki_synced" --argjson long "$wiki_long" --arg mb "$wiki_mb" \
		--arg sync "$wiki_sync_s" --arg s50 "${search_p50:-}" --arg s90 "${search_p90:-}" \
		--arg p50 "${page_p50:-}" --arg p90 "${page_p90:-}" --arg hits "${wiki_hits:-}" \
		--slurpfile rel "$TRASH/wiki-relevance.json" '
		def num: tonumber? // null;
		{pages: $pages, long_pages: $long, markdown_mb: ($mb | num), sync_s: ($sync | num),
		 search_p50_ms: ($s50 | num), search_p90_ms: ($s90 | num),
		 page_p50_ms: ($p50 | num), page_p90_ms: ($p90 | num),
		 relevance_top3: ($hits | num),
		 relevance_missed: ($rel[0] // [] | map(select(.hit | not)))}' 2>/dev/null ||
		jq -n --argjson pages "$wiki_synced" '{pages: $pages}')
fi
