#!/bin/bash
# t5600: pull request revisions (a push noticed on read, a target change),
# get_pull_request_diff of any revision, and edit_pull_request.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# pr TITLE HEAD BASE [TOKEN]: create_pull_request on alice/project
pr () {
	tool_call create_pull_request "$(jq -nc --arg r "$P" --arg t "$1" --arg h "$2" --arg b "$3" \
		'{repo: $r, title: $t, head: $h, base: $b}')" --token "${4:-$ALICE_TOKEN}"
}

# get_pr N: get_pull_request; the answer goes to out.json
get_pr () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" && forge_ok
}

# diff_pr N [VERSION]: get_pull_request_diff; the answer goes to out.json
diff_pr () {
	tool_call get_pull_request_diff "{\"repo\":\"$P\",\"number\":$1${2:+,\"version\":$2}}" &&
	forge_ok
}

# edit_pr JSON [TOKEN]: edit_pull_request with JSON merged into {repo}
edit_pr () {
	tool_call edit_pull_request "$(jq -nc --arg r "$P" --argjson a "$1" '{repo: $r} + $a')" \
		--token "${2:-$ALICE_TOKEN}"
}

# revisions N: "version reason" lines of pull request N, oldest first
revisions () {
	db_sql "select v.version, v.reason from pull_request_revisions v join pull_requests p on p.id = v.pull_request_id where p.number = $1 order by v.version" | tr '\t' ' '
}

# push_commit BRANCH FILE TEXT: a commit on BRANCH of the bare repository
# made outside the server (as a git push would), adding FILE
push_commit () {
	local blob tree commit
	blob=$(printf '%s\n' "$3" | git --git-dir="$PROJECT_GIT" hash-object -w --stdin) &&
	tree=$( (git --git-dir="$PROJECT_GIT" ls-tree "$1" &&
		printf '100644 blob %s\t%s\n' "$blob" "$2") | git --git-dir="$PROJECT_GIT" mktree) &&
	commit=$(GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=T \
		GIT_COMMITTER_EMAIL=t@example.org \
		git --git-dir="$PROJECT_GIT" commit-tree "$tree" -p "$1" -m "push: $2") &&
	git --git-dir="$PROJECT_GIT" update-ref "refs/heads/$1" "$commit"
}

edit_version () {
	db_sql "select edit_version from pull_requests where number = $1"
}

test_expect_success 'tools/list shows both tools with their hints' '
	mcp_modern tools/list &&
	test_jq ".result.tools[] | select(.name == \"get_pull_request_diff\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"edit_pull_request\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == false"
'

test_expect_success 'opening a pull request records revision 1, opened' '
	pr "Greet the world" feature main && forge_ok &&
	test "$(revisions 1)" = "1 opened" &&
	test "$(db_sql "select head_commit, base_ref, base_commit, merge_base from pull_request_revisions")" = \
		"$(printf "%s\tmain\t%s\t%s" "$PROJECT_FEATURE" "$PROJECT_P2" "$PROJECT_P1")"
'

test_expect_success 'get_pull_request shows version, merge_state and merge_commit' '
	get_pr 1 &&
	jq -e ".version == 1 and .version_note == null and .edit_version == 1" out.json &&
	jq -e ".merge_state == \"none\" and .merge_commit == null and .draft == false" out.json &&
	jq -e ".issue == null and .closing_issue_numbers == []" out.json &&
	jq -j .diff out.json >got &&
	git --git-dir="$PROJECT_GIT" diff main...feature >expect &&
	test_cmp expect got &&
	test "$(revisions 1)" = "1 opened"
'

test_expect_success 'get_pull_request_diff: the latest revision, its target and git'"'"'s patch' '
	diff_pr 1 &&
	jq -e ".version == 1 and .reason == \"opened\" and .number == 1" out.json &&
	jq -e ".target == {ref: \"main\", commit: \"$PROJECT_P2\"}" out.json &&
	jq -e ".head_commit == \"$PROJECT_FEATURE\" and .merge_base == \"$PROJECT_P1\"" out.json &&
	jq -e ".files_changed == 3 and .truncated == false and (.files | map(.path) | sort) == [\"docs/notes.txt\", \"src/app.c\", \"src/new.c\"]" out.json &&
	jq -j .patch out.json >got &&
	test_cmp expect got
'

test_expect_success 'a push outside the server is a new revision on the next read' '
	push_commit feature pushed.txt "pushed outside" &&
	NEW_HEAD=$(git --git-dir="$PROJECT_GIT" rev-parse feature) &&
	get_pr 1 &&
	jq -e ".version == 2" out.json &&
	jq -j .diff out.json | grep "^+++ b/pushed.txt" &&
	test "$(revisions 1 | tr "\n" ,)" = "1 opened,2 push," &&
	get_pr 1 && jq -e ".version == 2" out.json &&
	test "$(revisions 1 | wc -l)" = 2
'

test_expect_success 'the diff of revision 1 still shows its own head; revision 2 the push' '
	diff_pr 1 1 &&
	jq -e ".version == 1 and .head_commit == \"$PROJECT_FEATURE\"" out.json &&
	jq -e "[.files[].path] | index(\"pushed.txt\") == null" out.json &&
	jq -j .patch out.json >got &&
	test_cmp expect got &&
	diff_pr 1 2 &&
	jq -e ".version == 2 and .reason == \"push\" and .head_commit == \"$NEW_HEAD\"" out.json &&
	jq -e "[.files[].path] | index(\"pushed.txt\") != null" out.json
'

test_expect_success 'two readers noticing one push record one revision' '
	push_commit feature race.txt "race" &&
	pids= &&
	for i in 1 2 3 4; do
		fast_tool get_pull_request "{\"repo\":\"$P\",\"number\":1}" "$ALICE_TOKEN" race$i.json >code$i &
		pids="$pids $!"
	done &&
	wait $pids &&
	for i in 1 2 3 4; do
		test "$(cat code$i)" = 200 &&
		jq -e ".result.content[0].text | fromjson | .version == 3" race$i.json || return 1
	done &&
	test "$(revisions 1 | tr "\n" ,)" = "1 opened,2 push,3 push,"
'

test_expect_success 'an unknown version is refused, naming the versions that exist' '
	tool_call get_pull_request_diff "{\"repo\":\"$P\",\"number\":1,\"version\":9}" &&
	forge_error "version 9 not found: the pull request has versions 1 to 3" &&
	grep "pull request #1 of alice/project" errtext
'

test_expect_success 'get_pull_request_diff pages like compare_refs (path, offset)' '
	diff_pr 1 &&
	total=$(jq .patch_total out.json) &&
	tool_call get_pull_request_diff "{\"repo\":\"$P\",\"number\":1,\"path\":\"src/new.c\"}" && forge_ok &&
	jq -e ".path == \"src/new.c\" and (.patch | startswith(\"diff --git a/src/new.c b/src/new.c\"))" out.json &&
	tool_call get_pull_request_diff "{\"repo\":\"$P\",\"number\":1,\"offset\":$total}" && forge_ok &&
	jq -e ".patch == \"\" and .offset == $total and .truncated == false" out.json
'

test_expect_success 'edit_pull_request: a new title, metadata kept, version kept' '
	edit_pr "{\"number\":1,\"edit_version\":1,\"title\":\"  Greet everyone  \"}" && forge_ok &&
	jq -e ".number == 1 and .edit_version == 2 and .version == 3 and .changed == true and .target_changed == false" out.json &&
	get_pr 1 &&
	jq -e ".title == \"Greet everyone\" and .base == \"main\" and .body == null and .version == 3" out.json &&
	test "$(db_sql "select count(*) from events e join pull_requests p on p.id = e.pull_request_id where p.number = 1 and e.kind = \"edited\"")" = 1
'

test_expect_success 'a stale edit_version is refused and changes nothing' '
	edit_pr "{\"number\":1,\"edit_version\":1,\"title\":\"Stale\",\"target\":\"other\"}" &&
	forge_error "has changed since you read it \\(edit_version is now 2, you passed 1\\): reload it with get_pull_request and retry" &&
	get_pr 1 &&
	jq -e ".title == \"Greet everyone\" and .base == \"main\" and .edit_version == 2 and .version == 3" out.json
'

test_expect_success 'the same values again change nothing' '
	edit_pr "{\"number\":1,\"edit_version\":2,\"title\":\"Greet everyone\",\"target\":\"main\"}" && forge_ok &&
	jq -e ".changed == false and .edit_version == 2 and .version == 3" out.json &&
	test "$(revisions 1 | wc -l)" = 3
'

test_expect_success 'a description edit replaces closing_issue_numbers and tells new mentions' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"one\"}" && forge_ok && I1=$(jq .number out.json) &&
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"two\"}" && forge_ok && I2=$(jq .number out.json) &&
	edit_pr "{\"number\":1,\"edit_version\":2,\"description\":\"Fixes #$I1. cc @dave\"}" && forge_ok &&
	jq -e ".edit_version == 3 and .changed == true" out.json &&
	get_pr 1 && jq -e ".closing_issue_numbers == [$I1] and .body == \"Fixes #$I1. cc @dave\"" out.json &&
	edit_pr "{\"number\":1,\"edit_version\":3,\"description\":\"Closes #$I2 and resolves #$I1. cc @dave @erin\"}" && forge_ok &&
	get_pr 1 && jq -e ".closing_issue_numbers == [$I2, $I1]" out.json &&
	edit_pr "{\"number\":1,\"edit_version\":4,\"description\":\"No closures now.\"}" && forge_ok &&
	get_pr 1 && jq -e ".closing_issue_numbers == [] and .edit_version == 5" out.json &&
	test "$(db_sql "select u.login, count(*) from notifications n join users u on u.id = n.user_id where n.reason = \"mention\" group by u.login order by u.login" | tr "\t\n" ":,")" = "dave:1,erin:1,"
'

test_expect_success 'a target change records a revision with the saved target' '
	edit_pr "{\"number\":1,\"edit_version\":5,\"target\":\"other\"}" && forge_ok &&
	jq -e ".changed == true and .target_changed == true and .version == 4 and .edit_version == 6" out.json &&
	test "$(revisions 1 | tail -n 1)" = "4 target" &&
	get_pr 1 && jq -e ".base == \"other\" and .version == 4" out.json &&
	diff_pr 1 &&
	jq -e ".version == 4 and .target.ref == \"other\" and .target.commit == \"$(git --git-dir="$PROJECT_GIT" rev-parse other)\"" out.json &&
	jq -j .patch out.json >got &&
	git --git-dir="$PROJECT_GIT" diff other...feature >expect-other &&
	test_cmp expect-other got
'

test_expect_success 'the diff of revision 1 after the target change: its saved target and old content' '
	diff_pr 1 1 &&
	jq -e ".target == {ref: \"main\", commit: \"$PROJECT_P2\"} and .head_commit == \"$PROJECT_FEATURE\"" out.json &&
	jq -j .patch out.json >got &&
	test_cmp expect got
'

test_expect_success 'a new target at the same commit as the old one is still a new revision' '
	git --git-dir="$PROJECT_GIT" update-ref refs/heads/other-twin "$(git --git-dir="$PROJECT_GIT" rev-parse other)" &&
	edit_pr "{\"number\":1,\"edit_version\":6,\"target\":\"other-twin\"}" && forge_ok &&
	jq -e ".target_changed == true and .version == 5" out.json &&
	test "$(revisions 1 | tail -n 1)" = "5 target" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"other-twin\"}" && forge_ok &&
	jq -e ".changed == false and .version == 5 and .edit_version == 7" out.json
'

test_expect_success 'bad targets are refused and change nothing' '
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"feature\"}" &&
	forge_error "target .feature. is the pull request.s head branch" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"nowhere\",\"title\":\"X\"}" &&
	forge_error "target branch .nowhere. not found in alice/project" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"a..b\"}" &&
	forge_error "target branch name .a\\.\\.b. is not valid" &&
	get_pr 1 &&
	jq -e ".base == \"other-twin\" and .title == \"Greet everyone\" and .edit_version == 7 and .version == 5" out.json
'

test_expect_success 'a target another open pull request from the same head has: refused' '
	pr "Into main too" feature main && forge_ok && M=$(jq .number out.json) &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"main\"}" &&
	forge_error "^pull request #$M of alice/project is already open from .feature. into .main.: retargeting #1 would make two" &&
	get_pr 1 &&
	jq -e ".base == \"other-twin\" and .edit_version == 7 and .version == 5" out.json &&
	db_sql "update pull_requests set state = \"closed\", closed_at = utc_timestamp() where number = $M"
'

test_expect_success 'nothing to edit, a blank title: refused' '
	edit_pr "{\"number\":1,\"edit_version\":7}" &&
	forge_error "nothing to edit" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"title\":\" \"}" &&
	forge_error "title must not be blank" &&
	edit_pr "{\"number\":99,\"edit_version\":1,\"title\":\"x\"}" &&
	forge_error "pull request #99 not found in alice/project" &&
	test "$(edit_version 1)" = 7
'

test_expect_success 'no target change while a merge is queued; other edits go on' '
	db_sql "update pull_requests set merge_state = \"queued\" where number = 1" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"target\":\"main\"}" &&
	forge_error "has a merge queued: its target cannot change" &&
	edit_pr "{\"number\":1,\"edit_version\":7,\"title\":\"Queued title\"}" && forge_ok &&
	jq -e ".edit_version == 8 and .version == 5" out.json &&
	get_pr 1 && before=$(jq -c .closing_issue_numbers out.json) &&
	edit_pr "{\"number\":1,\"edit_version\":8,\"description\":\"Now fixes #4242\"}" &&
	forge_error "has a merge queued: the issues its description declares closed cannot change" &&
	get_pr 1 && jq -e ".edit_version == 8" out.json &&
	test "$(jq -c .closing_issue_numbers out.json)" = "$before" &&
	db_sql "update pull_requests set merge_state = \"none\" where number = 1"
'

test_expect_success 'a closed pull request cannot change its target' '
	pr "Other work" other main && forge_ok && N=$(jq .number out.json) &&
	db_sql "update pull_requests set state = \"closed\", closed_at = utc_timestamp() where number = $N" &&
	edit_pr "{\"number\":$N,\"edit_version\":1,\"target\":\"feature\"}" &&
	forge_error "is closed: only an open pull request can change its target" &&
	get_pr $N && jq -e ".base == \"main\" and .version == 1 and .edit_version == 1" out.json &&
	edit_pr "{\"number\":$N,\"edit_version\":1,\"title\":\"Closed but renamed\"}" && forge_ok &&
	jq -e ".changed == true" out.json
'

test_expect_success 'roles: a writer may edit; a reader and a stranger may not' '
	edit_pr "{\"number\":1,\"edit_version\":8,\"title\":\"By dave\"}" "$DAVE_TOKEN" && forge_ok &&
	edit_pr "{\"number\":1,\"edit_version\":9,\"title\":\"By erin\"}" "$ERIN_TOKEN" &&
	forge_error "^you cannot edit pull request #1 on alice/project: that needs the writer role or more, and your role is reader" &&
	edit_pr "{\"number\":1,\"edit_version\":9,\"target\":\"main\"}" "$FRANK_TOKEN" &&
	forge_error "^you cannot edit pull request #1 on alice/project: that needs the writer role or more, and your role is none" &&
	get_pr 1 && jq -e ".title == \"By dave\" and .edit_version == 9 and .base == \"other-twin\"" out.json
'

test_expect_success 'the author edits without the writer role' '
	pr "Dave opens" huge main "$DAVE_TOKEN" && forge_ok && N=$(jq .number out.json) &&
	db_sql "update collaborators c join users u on u.id = c.user_id set c.role = \"reader\" where u.login = \"dave\"" &&
	edit_pr "{\"number\":$N,\"edit_version\":1,\"title\":\"Dave, now a reader\"}" "$DAVE_TOKEN" && forge_ok &&
	jq -e ".changed == true" out.json &&
	db_sql "update collaborators c join users u on u.id = c.user_id set c.role = \"writer\" where u.login = \"dave\""
'

test_expect_success 'a private repository looks missing to a stranger' '
	tool_call edit_pull_request "{\"repo\":\"bob/hidden\",\"number\":1,\"edit_version\":1,\"title\":\"x\"}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call get_pull_request_diff "{\"repo\":\"bob/hidden\",\"number\":1}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$"
'

test_expect_success 'a deleted head branch keeps the last revision and says so' '
	pr "Doomed work" doomed main && forge_ok && N=$(jq .number out.json) &&
	git --git-dir="$PROJECT_GIT" update-ref -d refs/heads/doomed &&
	get_pr $N &&
	jq -e ".version == 1 and (.version_note | test(\"head branch .doomed. no longer exists: version 1 is the last revision\"))" out.json &&
	diff_pr $N &&
	jq -e ".version == 1 and [.files[].path] == [\"doomed.txt\"]" out.json
'

test_expect_success 'a pull request without revisions gets version 1 when read' '
	db_sql "delete v from pull_request_revisions v join pull_requests p on p.id = v.pull_request_id where p.number = 1; update pull_requests set version = 0 where number = 1" &&
	get_pr 1 && jq -e ".version == 1" out.json &&
	test "$(revisions 1)" = "1 opened"
'

test_done
