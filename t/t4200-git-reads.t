#!/bin/bash
# t4200: git reads: list_branches, list_commits, get_tree, get_file_contents line windows.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-git.sh"

start_all
mcp_client_start
setup_git_fixtures || { echo "Bail out! fixtures"; exit 1; }

R='"repo":"alice/gitfix"'

# ---- list_branches

test_expect_success 'list_branches: every branch with its commit, by name' '
	tool_ok list_branches "{$R}" &&
	jq -r ".branches[] | \"\(.name) \(.commit)\"" out.json >got &&
	gf_git for-each-ref --format="%(refname:short) %(objectname)" refs/heads | sort >expect &&
	test_cmp expect got &&
	jq -e ".truncated == false and .repo == \"alice/gitfix\" and .default_branch == \"main\"" out.json
'

test_expect_success 'list_branches: only the default branch is marked' '
	jq -r ".branches[] | select(.default) | .name" out.json >got &&
	echo main >expect &&
	test_cmp expect got
'

test_expect_success 'list_branches: paging with limit and after covers every branch once' '
	tool_ok list_branches "{$R,\"limit\":2}" &&
	jq -e ".truncated == true and (.branches | length) == 2 and .next_after == .branches[1].name" out.json &&
	jq -r ".branches[].name" out.json >all &&
	after=$(jq -r .next_after out.json) &&
	while :; do
		tool_ok list_branches "{$R,\"limit\":2,\"after\":\"$after\"}" || return 1
		jq -r ".branches[].name" out.json >>all
		jq -e ".truncated" out.json >/dev/null || break
		after=$(jq -r .next_after out.json)
	done &&
	gf_git for-each-ref --format="%(refname:short)" refs/heads | sort >expect &&
	test_cmp expect all
'

# ---- list_commits

test_expect_success 'list_commits: the default branch, newest first, as git log' '
	tool_ok list_commits "{$R}" &&
	jq -r ".commits[].id" out.json >got &&
	gf_git log --format=%H main >expect &&
	test_cmp expect got &&
	jq -e ".truncated == false and .head == \"$GF_MERGE\" and .ref == \"main\"" out.json
'

test_expect_success 'list_commits: author, email, date (UTC) and subject' '
	jq -c ".commits[] | [.author, .author_email, .date, .subject]" out.json >got &&
	gf_git log --date=format-local:%Y-%m-%dT%H:%M:%SZ \
		--format="[\"%an\",\"%ae\",\"%ad\",\"%s\"]" main >expect &&
	TZ=UTC test_cmp expect got
'

test_expect_success 'list_commits: the subject is the first line only' '
	tool_ok list_commits "{$R,\"ref\":\"feature\"}" &&
	jq -e ".commits[] | select(.id == \"$GF_F1\") | .subject == \"f1: rename, delete, add\"" out.json &&
	jq -r ".commits[].id" out.json >got &&
	gf_git log --format=%H feature >expect &&
	test_cmp expect got
'

for p in src/util.h src/app.c README.md src new-name.txt no/such/path; do
	test_expect_success "list_commits with path $p is git log -- $p" "
		tool_ok list_commits '{$R,\"ref\":\"main\",\"path\":\"$p\"}' &&
		jq -r '.commits[].id' out.json >got &&
		gf_git log --format=%H main -- '$p' >expect &&
		test_cmp expect got
	"
done

test_expect_success 'list_commits with path: a merge that only brings a change in is not listed' '
	tool_ok list_commits "{$R,\"path\":\"src/util.h\"}" &&
	jq -e "[.commits[].id] == [\"$GF_T1\", \"$GF_M1\"]" out.json
'

test_expect_success 'list_commits: cursor paging covers the history once' '
	tool_ok list_commits "{$R,\"limit\":2}" &&
	jq -e ".truncated == true and .next_cursor == .commits[1].id" out.json &&
	jq -r ".commits[].id" out.json >all &&
	cur=$(jq -r .next_cursor out.json) &&
	while :; do
		tool_ok list_commits "{$R,\"limit\":2,\"cursor\":\"$cur\"}" || return 1
		jq -r ".commits[].id" out.json >>all
		jq -e ".truncated" out.json >/dev/null || break
		cur=$(jq -r .next_cursor out.json)
	done &&
	gf_git log --format=%H main >expect &&
	test_cmp expect all
'

test_expect_success 'list_commits: cursor paging with a path' '
	tool_ok list_commits "{$R,\"path\":\"src\",\"limit\":1}" &&
	jq -r ".commits[].id" out.json >all &&
	cur=$(jq -r .next_cursor out.json) &&
	tool_ok list_commits "{$R,\"path\":\"src\",\"limit\":5,\"cursor\":\"$cur\"}" &&
	jq -r ".commits[].id" out.json >>all &&
	jq -e ".truncated == false" out.json &&
	gf_git log --format=%H main -- src >expect &&
	test_cmp expect all
'

test_expect_success 'list_commits: a cursor from another history is refused' '
	tool_call list_commits "{$R,\"ref\":\"release/1.0\",\"cursor\":\"$GF_F2\"}" &&
	tool_error "cursor .* is not in the history" &&
	tool_call list_commits "{$R,\"cursor\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"}" &&
	tool_error "cursor"
'

test_expect_success 'list_commits: a missing ref names it' '
	tool_call list_commits "{$R,\"ref\":\"no-such-branch\"}" &&
	tool_error "no-such-branch"
'

test_expect_success 'list_commits: limit out of range names the argument' '
	tool_call list_commits "{$R,\"limit\":0}" &&
	tool_error limit &&
	tool_call list_commits "{$R,\"limit\":\"3\"}" &&
	tool_error limit
'

# ---- get_tree

test_expect_success 'get_tree: the root as git ls-tree shows it' '
	tool_ok get_tree "{$R}" &&
	jq -r ".entries[] | \"\(.mode) \(.id)\t\(.name)\"" out.json >got &&
	gf_git ls-tree main | sed "s/ [a-z]* / /" >expect &&
	test_cmp expect got &&
	jq -e ".total == $(gf_git ls-tree main | wc -l) and .truncated == false and .path == \"\"" out.json
'

test_expect_success 'get_tree: types and sizes' '
	jq -e ".entries[] | select(.name == \"src\") | .type == \"tree\" and (has(\"size\") | not)" out.json &&
	jq -e ".entries[] | select(.name == \"link\") | .type == \"symlink\" and .size == 9" out.json &&
	jq -e ".entries[] | select(.name == \"vendor\") | .type == \"commit\" and .mode == \"160000\"" out.json &&
	jq -e ".entries[] | select(.name == \"README.md\") | .type == \"blob\" and .mode == \"100644\" and .size == $(gf_git cat-file -s main:README.md)" out.json
'

test_expect_success 'get_tree: a subdirectory, with or without a trailing slash' '
	tool_ok get_tree "{$R,\"path\":\"src/lib\"}" &&
	jq -c "[.entries[] | [.name, .path, .type]]" out.json >got &&
	echo "[[\"a.c\",\"src/lib/a.c\",\"blob\"],[\"deep\",\"src/lib/deep\",\"tree\"]]" >expect &&
	test_cmp expect got &&
	tool_ok get_tree "{$R,\"path\":\"src/lib/\"}" &&
	jq -c "[.entries[] | [.name, .path, .type]]" out.json >got2 &&
	test_cmp expect got2
'

test_expect_success 'get_tree at another ref' '
	tool_ok get_tree "{$R,\"ref\":\"feature\",\"path\":\"src\"}" &&
	jq -e "[.entries[].name] | index(\"feature.c\") != null" out.json &&
	jq -e ".commit == \"$GF_F2\"" out.json
'

test_expect_success 'get_tree: paging with limit and offset' '
	tool_ok get_tree "{$R,\"limit\":5}" &&
	jq -e ".truncated == true and .next_offset == 5 and (.entries | length) == 5" out.json &&
	jq -r ".entries[].name" out.json >all &&
	off=5 &&
	while :; do
		tool_ok get_tree "{$R,\"limit\":5,\"offset\":$off}" || return 1
		jq -r ".entries[].name" out.json >>all
		jq -e ".truncated" out.json >/dev/null || break
		off=$(jq -r .next_offset out.json)
	done &&
	gf_git ls-tree --name-only main >expect &&
	test_cmp expect all
'

test_expect_success 'get_tree: a file, a missing path, a missing ref' '
	tool_call get_tree "{$R,\"path\":\"README.md\"}" &&
	tool_error "not a directory.*get_file_contents" &&
	tool_call get_tree "{$R,\"path\":\"nowhere\"}" &&
	tool_error "^path not found: nowhere@main" &&
	tool_call get_tree "{$R,\"ref\":\"nope\"}" &&
	tool_error "nope" &&
	tool_call get_tree "{$R,\"path\":\"../x\"}" &&
	tool_error "invalid path"
'

# ---- get_file_contents line windows

test_expect_success 'get_file_contents: a small file is whole, with its line counts' '
	tool_ok get_file_contents "{$R,\"path\":\"README.md\"}" &&
	jq -e ".total_lines == 4 and .start_line == 1 and .end_line == 4 and .truncated == false and (has(\"next_offset\") | not)" out.json &&
	jq -j .content out.json >got &&
	gf_git cat-file -p main:README.md >expect &&
	test_cmp expect got
'

test_expect_success 'get_file_contents: the default window is 2000 lines' '
	tool_ok get_file_contents "{$R,\"path\":\"large.txt\",\"ref\":\"feature\"}" &&
	jq -e ".total_lines == 4000 and .start_line == 1 and .end_line == 2000 and .truncated == true and .next_offset == 2001" out.json &&
	jq -e ".note | test(\"next_offset\")" out.json &&
	jq -j .content out.json >got &&
	tool_ok get_file_contents "{$R,\"path\":\"large.txt\",\"ref\":\"feature\",\"offset\":2001}" &&
	jq -e ".start_line == 2001 and .end_line == 4000 and .truncated == false" out.json &&
	jq -j .content out.json >>got &&
	gf_git cat-file -p feature:large.txt >expect &&
	test_cmp expect got
'

test_expect_success 'get_file_contents: offset and limit pick exact lines' '
	tool_ok get_file_contents "{$R,\"path\":\"large.txt\",\"ref\":\"feature\",\"offset\":10,\"limit\":5}" &&
	jq -e ".start_line == 10 and .end_line == 14 and .next_offset == 15 and .size == $(gf_git cat-file -s feature:large.txt)" out.json &&
	jq -j .content out.json >got &&
	gf_git cat-file -p feature:large.txt | sed -n 10,14p >expect &&
	test_cmp expect got
'

test_expect_success 'get_file_contents: the last line without a newline counts' '
	tool_ok get_file_contents "{$R,\"path\":\"nonl.txt\",\"offset\":2}" &&
	jq -e ".total_lines == 2 and .start_line == 2 and .end_line == 2 and .content == \"last line without newline\"" out.json
'

test_expect_success 'get_file_contents: an answer never holds more than 256 KiB' '
	tool_ok get_file_contents "{$R,\"path\":\"wide.txt\",\"limit\":3000}" &&
	jq -e ".end_line == 2621 and .truncated == true and .next_offset == 2622" out.json &&
	test "$(jq -j .content out.json | wc -c)" -le 262144 &&
	jq -j .content out.json >got &&
	tool_ok get_file_contents "{$R,\"path\":\"wide.txt\",\"offset\":2622,\"limit\":3000}" &&
	jq -j .content out.json >>got &&
	gf_git cat-file -p main:wide.txt >expect &&
	test_cmp expect got
'

test_expect_success 'get_file_contents: a line longer than 256 KiB is cut and says so' '
	tool_ok get_file_contents "{$R,\"path\":\"oneline.txt\"}" &&
	jq -e ".truncated == true and .total_lines == 1 and .end_line == 1 and .size == 300001" out.json &&
	test "$(jq -j .content out.json | wc -c)" = 262144 &&
	jq -e ".note | test(\"cut\")" out.json
'

test_expect_success 'get_file_contents: offset past the end is an error naming the length' '
	tool_call get_file_contents "{$R,\"path\":\"README.md\",\"offset\":5}" &&
	tool_error "past the end of the file \\(4 lines\\)" &&
	tool_call get_file_contents "{$R,\"path\":\"README.md\",\"offset\":0}" &&
	tool_error offset
'

test_expect_success 'get_file_contents: binary stays base64 with its size' '
	tool_ok get_file_contents "{$R,\"path\":\"data.bin\"}" &&
	jq -e ".encoding == \"base64\" and .size == $(gf_git cat-file -s main:data.bin)" out.json &&
	jq -r .content out.json | base64 -d >got &&
	gf_git cat-file -p main:data.bin >expect &&
	cmp expect got
'

test_expect_success 'get_file_contents: non-UTF-8 text comes base64, lines still counted' '
	tool_ok get_file_contents "{$R,\"path\":\"latin1.txt\"}" &&
	jq -e ".encoding == \"base64\" and .total_lines == 1" out.json &&
	jq -r .content out.json | base64 -d >got &&
	gf_git cat-file -p main:latin1.txt >expect &&
	cmp expect got
'

test_expect_success 'get_file_contents: spec errors keep their text' '
	tool_call get_file_contents "{$R,\"path\":\"nope.txt\"}" &&
	tool_error "^File not found: nope.txt@main$"
'

# ---- the private repository, through every tool

for call in 'list_branches {}' 'list_commits {}' 'get_tree {}' \
	'list_commits {"path":"README.md"}' 'get_file_contents {"path":"README.md","offset":2}'; do
	tool=${call%% *}
	extra=${call#* }
	test_expect_success "$tool: a private repository of another user is not found ($extra)" "
		args=\$(jq -nc --argjson e '$extra' '{repo: \"bob/hidden\"} + \$e') &&
		tool_call $tool \"\$args\" &&
		tool_error '^Repository not found or not accessible\$' &&
		cp errtext hidden.txt &&
		args=\$(jq -nc --argjson e '$extra' '{repo: \"bob/nothing\"} + \$e') &&
		tool_call $tool \"\$args\" &&
		tool_text >missing.txt &&
		test_cmp missing.txt hidden.txt &&
		args=\$(jq -nc --argjson e '$extra' '{repo: \"bob/hidden\"} + \$e') &&
		tool_ok $tool \"\$args\" \"\$BOB_TOKEN\"
	"
done

# ---- refs that change between reads
#
# A worker remembers what a ref resolved to while the stat of its loose
# file and of packed-refs stays the same, but not for files modified in
# the last 2 s.  settle backdates them so that the reads after it are
# answered from memory; the reads after a change must not be.

settle () {
	find "$GF/refs" "$GF/packed-refs" -type f -exec touch -m -d "-1 minute" {} + 2>/dev/null
	return 0
}

# reads_at REF COMMIT: four reads of README.md at REF (both workers serve
# some) all resolve to COMMIT.
reads_at () {
	local i
	for i in 1 2 3 4; do
		tool_ok get_file_contents "{$R,\"path\":\"README.md\",\"ref\":\"$1\"}" &&
		jq -e --arg c "$2" ".commit == \$c" out.json >/dev/null ||
			{ echo "read $i at $1: $(cat out.json 2>/dev/null)"; return 1; }
	done
}

# reads_absent REF: four reads at REF are the not-found error.
reads_absent () {
	local i
	for i in 1 2 3 4; do
		tool_call get_file_contents "{$R,\"path\":\"README.md\",\"ref\":\"$1\"}" --token "$ALICE_TOKEN" &&
		tool_error "ref .$1. not found" || return 1
	done
}

test_expect_success 'a branch moved between reads is read at its new commit' '
	gf_git update-ref refs/heads/moving "$GF_M1" &&
	settle && reads_at moving "$GF_M1" &&
	gf_git update-ref refs/heads/moving "$GF_M2" &&
	reads_at moving "$GF_M2" &&
	settle && reads_at moving "$GF_M2" &&
	gf_git update-ref refs/heads/moving "$GF_M3" &&
	reads_at moving "$GF_M3" &&
	settle && reads_at moving "$GF_M3"
'

test_expect_success 'a branch packed, then moved in packed-refs only, then deleted' '
	gf_git pack-refs --all &&
	! test -e "$GF/refs/heads/moving" &&
	reads_at moving "$GF_M3" &&
	settle && reads_at moving "$GF_M3" &&
	sed -i "s|^$GF_M3 refs/heads/moving\$|$GF_M1 refs/heads/moving|" "$GF/packed-refs" &&
	grep -q "^$GF_M1 refs/heads/moving\$" "$GF/packed-refs" &&
	reads_at moving "$GF_M1" &&
	settle && reads_at moving "$GF_M1" &&
	gf_git update-ref -d refs/heads/moving &&
	reads_absent moving &&
	settle && reads_absent moving
'

test_expect_success 'a tag moved, then shadowed by a new branch of its name, then freed again' '
	gf_git tag -f movingtag "$GF_M1" &&
	settle && reads_at movingtag "$GF_M1" &&
	gf_git tag -f -a -m "moved" movingtag "$GF_M2" &&
	reads_at movingtag "$GF_M2" &&
	settle && reads_at movingtag "$GF_M2" &&
	gf_git update-ref refs/heads/movingtag "$GF_M3" &&
	reads_at movingtag "$GF_M3" &&
	settle && reads_at movingtag "$GF_M3" &&
	gf_git update-ref -d refs/heads/movingtag &&
	reads_at movingtag "$GF_M2" &&
	settle && reads_at movingtag "$GF_M2" &&
	gf_git tag -d movingtag &&
	reads_absent movingtag
'

test_expect_success 'the read tools are read-only and titled in tools/list' '
	mcp_modern tools/list &&
	test_jq "[.result.tools[] | select(.name == (\"list_branches\", \"list_commits\", \"get_tree\", \"get_file_contents\"))] | length == 4 and all(.annotations.readOnlyHint == true and (.title | length) > 0)"
'

test_done
