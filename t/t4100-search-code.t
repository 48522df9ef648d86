#!/bin/bash
# t4100: search_code: fixed strings, regular expressions, path globs, limits and paging.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-git.sh"

start_all
mcp_client_start
setup_git_fixtures || { echo "Bail out! fixtures"; exit 1; }

R='"repo":"alice/gitfix"'

# hits: "path:line" of each result, in order
hits () {
	jq -r '.results[] | "\(.path):\(.line)"' out.json
}

# grep_hits REF ARGS...: "path:line" from git grep on the fixture (huge.txt left out:
# search_code skips files over 1 MiB)
grep_hits () {
	local ref=$1
	shift
	gf_git grep -I -n --no-color "$@" "$ref" -- . ":(exclude)huge.txt" |
		sed "s/^$ref://" | cut -d: -f1,2
}

test_expect_success 'a fixed string, case-insensitive, as git grep -F -i' '
	tool_ok search_code "{$R,\"query\":\"needle\",\"limit\":100}" &&
	hits >got &&
	grep_hits main -F -i needle >expect &&
	test_cmp expect got &&
	test "$(wc -l <got)" -ge 5 &&
	jq -e ".truncated == false and .repo == \"alice/gitfix\" and .ref == \"main\" and .commit == \"$GF_MERGE\"" out.json
'

test_expect_success 'binary files are skipped, large files counted as skipped' '
	jq -e "[.results[].path] | index(\"data.bin\") == null and index(\"huge.txt\") == null" out.json &&
	jq -e ".skipped_large_files == 1" out.json
'

test_expect_success 'the snippet is the matching line' '
	jq -e ".results[] | select(.path == \"src/lib/deep/b.c\") | .line == 3 and .snippet == \"int b2(void) { return 2; } /* NEEDLE two */\"" out.json
'

test_expect_success 'a long line is cut to about 200 bytes around the match' '
	jq -e ".results[] | select(.path == \"long.txt\") | (.snippet | length) <= 200 and (.snippet | test(\" needle \"))" out.json
'

test_expect_success 'a non-UTF-8 line gives a valid UTF-8 snippet' '
	jq -e ".results[] | select(.path == \"latin1.txt\") | .snippet == \"caf\uFFFD latin1 needle\"" out.json
'

test_expect_success 'the query case does not matter' '
	hits >lower &&
	tool_ok search_code "{$R,\"query\":\"NeEdLe\",\"limit\":100}" &&
	hits >upper &&
	test_cmp lower upper
'

test_expect_success 'a query with regex characters is a fixed string by default' '
	tool_ok search_code "{$R,\"query\":\"b2(void)\"}" &&
	test "$(hits)" = "src/lib/deep/b.c:3" &&
	tool_ok search_code "{$R,\"query\":\".*\"}" &&
	jq -e ".results == []" out.json
'

test_expect_success 'one hit per line, line numbers as git grep' '
	tool_ok search_code "{$R,\"query\":\"o\",\"path\":\"src/**\",\"limit\":100}" &&
	hits >got &&
	gf_git grep -I -n -F -i o main -- "src/" | sed "s/^main://" | cut -d: -f1,2 >expect &&
	test_cmp expect got
'

test_expect_success 'regex: anchors work per line' '
	tool_ok search_code "{$R,\"query\":\"^int b\",\"regex\":true}" &&
	hits >got &&
	grep_hits main -i -E "^int b" >expect &&
	test_cmp expect got &&
	test "$(wc -l <got)" = 2
'

test_expect_success 'regex: alternation and classes, case-insensitive' '
	tool_ok search_code "{$R,\"query\":\"needle (one|two)\",\"regex\":true}" &&
	hits >got &&
	printf "%s\n" src/lib/a.c:1 src/lib/deep/b.c:3 >expect &&
	test_cmp expect got
'

test_expect_success 'regex: a bad pattern is an error with pcre2 message' '
	tool_call search_code "{$R,\"query\":\"needle (one\",\"regex\":true}" &&
	tool_error "^invalid regular expression at offset [0-9]+: missing closing parenthesis"
'

test_expect_success 'regex: a catastrophic pattern stops at the match limit' '
	tool_call search_code "{$R,\"query\":\"(a|aa)+[^a\\\\n]\",\"regex\":true,\"path\":\"oneline.txt\"}" &&
	tool_error "too costly" &&
	tool_ok search_code "{$R,\"query\":\"needle\",\"path\":\"src/**\"}"
'

test_expect_success 'path glob: *.c matches at any depth' '
	tool_ok search_code "{$R,\"query\":\"int\",\"path\":\"*.c\",\"limit\":100}" &&
	hits | cut -d: -f1 | sort -u >got &&
	printf "%s\n" src/app.c src/lib/a.c src/lib/deep/b.c tests/c.c >expect &&
	test_cmp expect got
'

test_expect_success 'path glob: * stays in one directory, ** crosses them' '
	tool_ok search_code "{$R,\"query\":\"int\",\"path\":\"src/*.c\",\"limit\":100}" &&
	test "$(hits | cut -d: -f1 | sort -u)" = src/app.c &&
	tool_ok search_code "{$R,\"query\":\"int\",\"path\":\"src/**/*.c\",\"limit\":100}" &&
	hits | cut -d: -f1 | sort -u >got &&
	printf "%s\n" src/app.c src/lib/a.c src/lib/deep/b.c >expect &&
	test_cmp expect got &&
	tool_ok search_code "{$R,\"query\":\"int\",\"path\":\"**/b.c\"}" &&
	test "$(hits | cut -d: -f1 | sort -u)" = src/lib/deep/b.c &&
	tool_ok search_code "{$R,\"query\":\"hello\",\"path\":\"src/*.[ch]\",\"limit\":100}" &&
	hits | cut -d: -f1 | sort -u >got &&
	printf "%s\n" src/app.c src/util.h >expect &&
	test_cmp expect got &&
	tool_ok search_code "{$R,\"query\":\"int\",\"path\":\"nothing/**\"}" &&
	jq -e ".results == [] and .truncated == false" out.json
'

test_expect_success 'the default limit is 20 and truncated says more matched' '
	tool_ok search_code "{$R,\"query\":\"wide\"}" &&
	jq -e "(.results | length) == 20 and .truncated == true and .next_offset == 20" out.json &&
	jq -e ".note | test(\"offset 20\")" out.json
'

test_expect_success 'paging with offset at the commit gives every hit once' '
	: >all &&
	off=0 &&
	while :; do
		tool_ok search_code "{$R,\"query\":\"large line\",\"ref\":\"$GF_F2\",\"limit\":100,\"offset\":$off}" || return 1
		hits >>all
		jq -e ".truncated" out.json >/dev/null || break
		off=$(jq .next_offset out.json)
		test "$off" -lt 1000 || break
	done &&
	grep_hits feature -F -i "large line" | head -n 1000 >expect &&
	head -n 1000 all >got &&
	test_cmp expect got
'

test_expect_success 'another ref' '
	tool_ok search_code "{$R,\"query\":\"return 42\",\"ref\":\"feature\"}" &&
	test "$(hits)" = "src/feature.c:3" &&
	tool_ok search_code "{$R,\"query\":\"return 42\"}" &&
	jq -e ".results == []" out.json
'

test_expect_success 'limit out of range is clamped to 1..100, not refused' '
	tool_ok search_code "{$R,\"query\":\"large line\",\"ref\":\"$GF_F2\",\"limit\":1000}" &&
	jq -e "(.results | length) == 100 and .truncated == true and .next_offset == 100" out.json &&
	tool_ok search_code "{$R,\"query\":\"large line\",\"ref\":\"$GF_F2\",\"limit\":0}" &&
	jq -e "(.results | length) == 1 and .next_offset == 1" out.json &&
	tool_ok search_code "{$R,\"query\":\"large line\",\"ref\":\"$GF_F2\",\"limit\":-5}" &&
	jq -e "(.results | length) == 1 and .next_offset == 1" out.json
'

test_expect_success 'a limit that is not an integer and a missing query name the argument' '
	tool_call search_code "{$R,\"query\":\"x\",\"limit\":1.5}" &&
	tool_error limit &&
	tool_call search_code "{$R,\"query\":\"x\",\"limit\":\"5\"}" &&
	tool_error limit &&
	tool_call search_code "{$R}" &&
	tool_error query &&
	tool_call search_code "{$R,\"query\":\"x\",\"regex\":1}" &&
	tool_error regex
'

test_expect_success 'a missing ref names it' '
	tool_call search_code "{$R,\"query\":\"x\",\"ref\":\"nope\"}" &&
	tool_error "^ref .nope. not found"
'

test_expect_success 'a private repository of another user is not found' '
	tool_call search_code "{\"repo\":\"bob/hidden\",\"query\":\"fixture\"}" &&
	tool_error "^Repository not found or not accessible$" &&
	cp errtext hidden.txt &&
	tool_call search_code "{\"repo\":\"bob/nothing\",\"query\":\"fixture\"}" &&
	tool_text >missing.txt &&
	test_cmp missing.txt hidden.txt &&
	tool_ok search_code "{\"repo\":\"bob/hidden\",\"query\":\"fixture\"}" "$CAROL_TOKEN" &&
	test "$(hits)" = "README.md:1"
'

test_expect_success 'search_code is read-only and titled' '
	mcp_modern tools/list &&
	test_jq ".result.tools[] | select(.name == \"search_code\") | .annotations.readOnlyHint == true and (.title | length) > 0 and (.inputSchema.required == [\"repo\", \"query\"])"
'

# A tree of 400 files is read in shares by one thread per CPU: the hits
# must still come in tree order, with paging exact across the shares.
test_expect_success 'a large tree read in parallel pages exactly like git grep' '
	git init -q many &&
	(
		cd many &&
		for d in a b c d e f g h; do
			mkdir -p "$d" &&
			for i in $(seq 1 50); do
				{
					echo "file $d/$i"
					if test $(( (i * 7 + ${#d}) % 3 )) = 0; then echo "a Spread needle here"; fi
					echo "middle"
					if test $(( i % 5 )) = 0; then echo "SPREAD NEEDLE again"; fi
				} >"$d/f$i.txt" || exit 1
			done
		done &&
		git add . && git -c user.name=t -c user.email=t@example.com commit -q -m many
	) &&
	git clone -q --bare many many.git &&
	fm repo import alice/many --from many.git >/dev/null &&
	git -C many grep -n -i -F "spread needle" HEAD | sed "s/^HEAD://" | cut -d: -f1,2 >expect &&
	test "$(wc -l <expect)" -gt 100 &&
	: >all &&
	off=0 &&
	while :; do
		tool_ok search_code "{\"repo\":\"alice/many\",\"query\":\"spread needle\",\"limit\":7,\"offset\":$off}" || return 1
		hits >>all
		jq -e ".truncated" out.json >/dev/null || break
		off=$(jq .next_offset out.json)
	done &&
	test_cmp expect all &&
	tool_ok search_code "{\"repo\":\"alice/many\",\"query\":\"^spread\",\"regex\":true,\"limit\":100}" &&
	git -C many grep -n -i -P "^spread" HEAD | sed "s/^HEAD://" | cut -d: -f1,2 >expect &&
	hits >got &&
	test_cmp expect got
'

test_expect_success 'a worker idle for a second after a search (and shrunk if it grew) answers the same' '
	tool_ok search_code "{\"repo\":\"alice/many\",\"query\":\"spread needle\",\"limit\":100}" &&
	hits >before &&
	sleep 1.5 &&
	tool_ok search_code "{\"repo\":\"alice/many\",\"query\":\"spread needle\",\"limit\":100}" &&
	hits >after &&
	test_cmp before after &&
	test -s after
'

test_expect_success 'binary as git grep -I: a NUL in the first 8,000 bytes, not control characters' '
	git init -q ctl &&
	(
		cd ctl &&
		printf "\033[1mbold\033[0m \001\002\003\004\005\006\a\b\016\017 needle in ctl\n" >ctl.txt &&
		for i in $(seq 1 20); do printf "\033\001\002\003\004\005\006\016\017\020\021\n"; done >>ctl.txt &&
		{ seq 1 2000; printf "\000 after the peek\nneedle late\n"; } >late.txt &&
		{ printf "text needle first\n\000\n"; } >early.bin &&
		git add . && git -c user.name=t -c user.email=t@example.com commit -q -m ctl
	) &&
	git clone -q --bare ctl ctl.git &&
	fm repo import alice/ctl --from ctl.git >/dev/null &&
	tool_ok search_code "{\"repo\":\"alice/ctl\",\"query\":\"NEEDLE\",\"limit\":100}" &&
	hits >got &&
	git -C ctl grep -I -n -i -F needle HEAD | sed "s/^HEAD://" | cut -d: -f1,2 >expect &&
	printf "ctl.txt:1\nlate.txt:2002\n" >want &&
	test_cmp want expect &&
	test_cmp expect got
'

test_done
