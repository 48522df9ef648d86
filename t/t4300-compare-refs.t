#!/bin/bash
# t4300: compare_refs: files, stats and patches checked against git diff on the same repository.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-git.sh"

start_all
mcp_client_start
setup_git_fixtures || { echo "Bail out! fixtures"; exit 1; }

R='"repo":"alice/gitfix"'

# all_pages ARGS_JSON OUT: calls compare_refs page by page, the patch text into OUT.
# Checks every page is at most 100 kB and ends at a line end when cut.
all_pages () {
	local off=0 pages=0
	: >"$2"
	while :; do
		tool_ok compare_refs "$(printf '%s' "$1" | jq -c --argjson o "$off" '. + {offset: $o}')" || return 1
		jq -j .patch out.json >page || return 1
		cat page >>"$2"
		pages=$((pages + 1))
		test "$(wc -c <page)" -le 100000 || { echo "page over 100 kB"; return 1; }
		jq -e ".truncated" out.json >/dev/null || break
		test "$(tail -c 1 page | od -An -c | tr -d " ")" = '\n' || { echo "page not cut at a line end"; return 1; }
		jq -e ".next_offset == $off + (.patch | utf8bytelength) and (.note | test(\"offset\"))" out.json || return 1
		off=$(jq .next_offset out.json)
	done
	PAGES=$pages
}

test_expect_success 'three-dot: the patch is git diff main...feature, paged' '
	all_pages "{$R,\"base\":\"main\",\"head\":\"feature\"}" got &&
	gf_git diff main...feature >expect &&
	test_cmp expect got &&
	test "$PAGES" -ge 2 &&
	jq -e ".patch_total == $(wc -c <expect)" out.json
'

test_expect_success 'three-dot is the default and names the merge base' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\"}" &&
	jq -e ".three_dot == true and .merge_base == \"$(gf_git merge-base main feature)\"" out.json &&
	jq -e ".base_commit == \"$GF_MERGE\" and .head_commit == \"$GF_F2\"" out.json &&
	jq -e ".truncated == true and .offset == 0 and .next_offset > 0" out.json
'

test_expect_success 'three-dot: files and statuses are git diff --name-status' '
	jq -r ".files[] | if .old_path then \"R\t\(.old_path)\t\(.path)\" else \"\(.status | .[0:1] | ascii_upcase)\t\(.path)\" end" out.json >got &&
	gf_git diff --name-status main...feature | sed "s/^R[0-9]*/R/" >expect &&
	test_cmp expect got &&
	jq -e ".files_changed == $(wc -l <expect)" out.json
'

test_expect_success 'three-dot: per-file stats are git diff --numstat' '
	jq -r ".files[] | if .binary then \"-\t-\t\(.path)\" else \"\(.additions)\t\(.deletions)\t\(.path)\" end" out.json >got &&
	gf_git diff --numstat main...feature | sed "s/{old-name.txt => new-name.txt}/new-name.txt/; s/old-name.txt => new-name.txt/new-name.txt/" >expect &&
	test_cmp expect got &&
	jq -e ".additions == ([.files[].additions] | add) and .deletions == ([.files[].deletions] | add)" out.json &&
	jq -e ".files[] | select(.path == \"data.bin\") | .binary == true" out.json
'

test_expect_success 'rename detection like git: the rename is one file' '
	jq -e ".files[] | select(.path == \"new-name.txt\") | .status == \"renamed\" and .old_path == \"old-name.txt\" and .additions == 1 and .deletions == 1" out.json &&
	jq -e "[.files[] | select(.path == \"old-name.txt\")] | length == 0" out.json
'

test_expect_success 'two-dot: the patch is git diff main feature' '
	all_pages "{$R,\"base\":\"main\",\"head\":\"feature\",\"three_dot\":false}" got &&
	gf_git diff main feature >expect &&
	test_cmp expect got &&
	jq -e "has(\"merge_base\") | not" out.json
'

test_expect_success 'two-dot and three-dot differ where main moved on' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"three_dot\":false}" &&
	jq -e "[.files[].path] | index(\"README.md\") != null and index(\"src/util.h\") != null" out.json &&
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\"}" &&
	jq -e "[.files[].path] | index(\"README.md\") == null" out.json
'

test_expect_success 'a small compare is whole: commits and tags as refs' '
	tool_ok compare_refs "{$R,\"base\":\"$GF_M1\",\"head\":\"zeta\"}" &&
	jq -j .patch out.json >got &&
	gf_git diff $GF_M1...zeta >expect &&
	test_cmp expect got &&
	jq -e ".truncated == false and (has(\"next_offset\") | not) and .files_changed == 1" out.json
'

test_expect_success 'per-file patch: one file, as git diff -- path' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"src/feature.c\"}" &&
	jq -j .patch out.json >got &&
	gf_git diff main...feature -- src/feature.c >expect &&
	test_cmp expect got &&
	jq -e ".truncated == false and .patch_total == $(wc -c <expect)" out.json &&
	jq -e ".files[] | select(.path == \"src/feature.c\") | .patch_bytes == $(wc -c <expect)" out.json
'

test_expect_success 'per-file patch: a large file pages on its own' '
	all_pages "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"large.txt\"}" got &&
	gf_git diff main...feature -- large.txt >expect &&
	test_cmp expect got &&
	test "$PAGES" -ge 2
'

test_expect_success 'per-file patch: a renamed file by its new or old path' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"new-name.txt\"}" &&
	jq -j .patch out.json >got &&
	head -n 1 got | grep -Fx "diff --git a/old-name.txt b/new-name.txt" &&
	grep -Fx "rename from old-name.txt" got &&
	grep -Fx "+renamed line 10" got &&
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"old-name.txt\"}" &&
	jq -j .patch out.json >got2 &&
	test_cmp got got2
'

test_expect_success 'per-file patch of an unchanged file names it' '
	tool_call compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"README.md\"}" &&
	tool_error "README.md.* is not changed between main and feature"
'

test_expect_success 'binary and no-newline files as git prints them' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"data.bin\"}" &&
	jq -j .patch out.json >got &&
	gf_git diff main...feature -- data.bin >expect &&
	test_cmp expect got &&
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"path\":\"nonl.txt\"}" &&
	jq -j .patch out.json >got &&
	gf_git diff main...feature -- nonl.txt >expect &&
	test_cmp expect got &&
	grep -F "No newline at end of file" got
'

test_expect_success 'the same ref twice: nothing changed' '
	tool_ok compare_refs "{$R,\"base\":\"main\",\"head\":\"main\"}" &&
	jq -e ".files == [] and .patch == \"\" and .truncated == false and .patch_total == 0" out.json
'

test_expect_success 'a missing ref names it' '
	tool_call compare_refs "{$R,\"base\":\"main\",\"head\":\"gone-branch\"}" &&
	tool_error "^ref .gone-branch. not found" &&
	tool_call compare_refs "{$R,\"base\":\"gone-base\",\"head\":\"main\"}" &&
	tool_error "gone-base"
'

test_expect_success 'an offset past the end of the patch is refused' '
	tool_call compare_refs "{$R,\"base\":\"$GF_M1\",\"head\":\"zeta\",\"offset\":100000000}" &&
	tool_error "past the end of the patch"
'

test_expect_success 'bad refs and missing arguments are in-band errors' '
	tool_call compare_refs "{$R,\"base\":\"main..feature\",\"head\":\"main\"}" &&
	tool_error "invalid ref" &&
	tool_call compare_refs "{$R,\"base\":\"main\"}" &&
	tool_error head &&
	tool_call compare_refs "{$R,\"base\":\"main\",\"head\":\"feature\",\"three_dot\":\"yes\"}" &&
	tool_error three_dot
'

test_expect_success 'a private repository of another user is not found' '
	tool_call compare_refs "{\"repo\":\"bob/hidden\",\"base\":\"v1.0\",\"head\":\"main\"}" &&
	tool_error "^Repository not found or not accessible$" &&
	cp errtext hidden.txt &&
	tool_call compare_refs "{\"repo\":\"bob/nothing\",\"base\":\"v1.0\",\"head\":\"main\"}" &&
	tool_text >missing.txt &&
	test_cmp missing.txt hidden.txt &&
	tool_ok compare_refs "{\"repo\":\"bob/hidden\",\"base\":\"v1.0\",\"head\":\"main\"}" "$CAROL_TOKEN" &&
	jq -j .patch out.json >got &&
	git --git-dir="$TRASH/fixture.git" diff v1.0...main >expect &&
	test_cmp expect got
'

test_expect_success 'compare_refs is read-only and titled' '
	mcp_modern tools/list &&
	test_jq ".result.tools[] | select(.name == \"compare_refs\") | .annotations.readOnlyHint == true and (.title | length) > 0"
'

test_done
