#!/bin/bash
# t5700: review discussions of pull requests: general and anchored threads, anchors checked against a revision's diff, saved context, paged replies, resolve/reopen with state_version, who may, notifications.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# erin opens pull request #1 (feature -> main) while a writer, then is a
# reader again: the pull request's author without the writer role.
fm collaborator add $P erin writer >/dev/null &&
tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Greet the world\",\"head\":\"feature\",\"base\":\"main\"}" \
	--token "$ERIN_TOKEN" && test_jq ".result.structuredContent.number == 1" &&
fm collaborator add $P erin reader >/dev/null &&
tool_call create_issue "{\"repo\":\"$P\",\"title\":\"an issue, #2\"}" &&
test_jq ".result.structuredContent.number == 2" &&
tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Other\",\"head\":\"other\",\"base\":\"main\"}" &&
test_jq ".result.structuredContent.number == 3" ||
	{ echo "Bail out! pull requests"; exit 1; }

# with_repo VAR ARGS: sets VAR to ARGS (a JSON object without repo) with
# "repo":"$P" added
with_repo () {
	local rest=${2#*\{}
	if [[ $rest =~ ^[[:space:]]*\}[[:space:]]*$ ]]; then
		printf -v "$1" '{"repo":"%s"}' "$P"
	else
		printf -v "$1" '{"repo":"%s",%s' "$P" "$rest"
	fi
}
# create TOKEN ARGS: create_pull_request_discussion on $P (ARGS without repo)
create () {
	local a
	with_repo a "$2" &&
	tool_call create_pull_request_discussion "$a" --token "$1"
}
# reply TOKEN NUMBER DISCUSSION BODY
reply () {
	local b
	json_str b "$4" &&
	tool_call reply_pull_request_discussion "{\"repo\":\"$P\",\"number\":$2,\"discussion\":$3,\"body\":$b}" --token "$1"
}
# state TOOL TOKEN NUMBER DISCUSSION STATE_VERSION: resolve or reopen
state () {
	tool_call "$1_pull_request_discussion" "{\"repo\":\"$P\",\"number\":$3,\"discussion\":$4,\"state_version\":$5}" --token "$2"
}
# discussions ARGS: list_pull_request_discussions on $P as alice; out.json
discussions () {
	local a
	with_repo a "$1" &&
	tool_call list_pull_request_discussions "$a" && forge_ok
}
# count: the rows of discussions and of replies
count () {
	db_sql "select (select count(*) from discussions), (select count(*) from discussion_replies)"
}
# notes LOGIN: LOGIN's notifications as reason:actor lines, oldest first
notes () {
	db_sql "select concat(n.reason, ':', a.login) from notifications n join users u on u.id = n.user_id join users a on a.id = n.actor_id where u.login = '$1' order by n.id"
}
# push BRANCH FILE CONTENT: a new commit on BRANCH of the served repository changing FILE
push () {
	local idx=$TRASH/push.index blob tree commit
	rm -f "$idx" &&
	blob=$(printf '%b' "$3" | git --git-dir="$PROJECT_GIT" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx git --git-dir="$PROJECT_GIT" read-tree "$1" &&
	GIT_INDEX_FILE=$idx git --git-dir="$PROJECT_GIT" update-index --add --cacheinfo "100644,$blob,$2" &&
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$PROJECT_GIT" write-tree) &&
	test_tick &&
	commit=$(git --git-dir="$PROJECT_GIT" commit-tree "$tree" -p "$1" -m "push: $2") &&
	git --git-dir="$PROJECT_GIT" update-ref "refs/heads/$1" "$commit"
}

test_expect_success 'tools/list shows the discussion tools with titles and hints' '
	mcp_modern tools/list &&
	for t in list create reply resolve reopen; do
		test_jq ".result.tools[] | select(.name | test(\"^${t}_pull_request_discussions?$\")) | .title | length > 0" || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"list_pull_request_discussions\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request_discussion\") | .annotations.readOnlyHint == false" &&
	test_jq ".result.tools[] | select(.name == \"resolve_pull_request_discussion\") | .annotations.idempotentHint == true and .annotations.destructiveHint == false"
'

test_expect_success 'no discussions yet' '
	discussions "{\"number\":1}" &&
	jq -e ". == {discussions: [], page: 1, has_more: false}" out.json
'

test_expect_success 'a general thread: no path, made on the current revision' '
	create "$FRANK_TOKEN" "{\"number\":1,\"body\":\"Why greet the world at all? cc @bob\"}" &&
	forge_ok &&
	jq -e ".id == 1 and .author == \"frank\" and .state == \"open\" and .state_version == 1 and .version == 1" out.json &&
	jq -e ".path == null and .line == null and .side == null and .anchor_context == null" out.json &&
	jq -e ".body == \"Why greet the world at all? cc @bob\" and .replies_count == 0" out.json &&
	jq -e ".url == \"$BASE_URL/$P/pulls/1#discussion-1\"" out.json &&
	test "$(count)" = "$(printf "1\t0")"
'

test_expect_success 'opening a discussion notifies the pull request author and the mentioned' '
	test "$(notes erin)" = "comment:frank" &&
	test "$(notes bob)" = "mention:frank" &&
	test -z "$(notes frank)"
'

test_expect_success 'anchored on the new side: the added line and the diff around it are saved' '
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"Louder?\",\"path\":\"src/app.c\",\"line\":6,\"side\":\"new\"}" &&
	forge_ok &&
	jq -e ".id == 2 and .path == \"src/app.c\" and .line == 6 and .side == \"new\" and .version == 1" out.json &&
	jq -j .anchor_context out.json >got &&
	printf "@@ -4,5 +4,5 @@\n main(void)\n {\n-\tputs(\"hello\");\n+\tputs(\"hello, world\");\n \treturn 0;\n }\n" >expect &&
	test_cmp expect got
'

test_expect_success 'side defaults to new; a context line is on both sides' '
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"The signature\",\"path\":\"src/app.c\",\"line\":4}" &&
	forge_ok &&
	jq -e ".side == \"new\" and .line == 4" out.json &&
	jq -r .anchor_context out.json | head -2 >got &&
	printf "@@ -3,4 +3,4 @@\n int\n" >expect &&
	test_cmp expect got
'

test_expect_success 'anchored on the old side: the removed line, numbered as before the change' '
	create "$ALICE_TOKEN" "{\"number\":1,\"body\":\"This was fine\",\"path\":\"src/app.c\",\"line\":6,\"side\":\"old\"}" &&
	forge_ok &&
	jq -e ".id == 4 and .side == \"old\" and .line == 6" out.json &&
	jq -j .anchor_context out.json >got &&
	printf "@@ -3,6 +3,6 @@\n int\n main(void)\n {\n-\tputs(\"hello\");\n+\tputs(\"hello, world\");\n \treturn 0;\n }\n" >expect &&
	test_cmp expect got
'

test_expect_success 'an added file: line 1 of the new side' '
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"Name it\",\"path\":\"src/new.c\",\"line\":1}" &&
	forge_ok &&
	jq -j .anchor_context out.json >got &&
	printf "@@ -0,0 +1,1 @@\n+int helper(void) { return 42; }\n" >expect &&
	test_cmp expect got
'

test_expect_success 'a file the diff does not change is refused and nothing is stored' '
	before=$(count) &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"README.md\",\"line\":1}" &&
	forge_error "README.md. is not changed in revision 1 of pull request #1" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"no/such/file.c\",\"line\":1}" &&
	forge_error "is not changed" &&
	test "$(count)" = "$before"
'

test_expect_success 'a line outside every hunk is refused, naming the valid lines' '
	before=$(count) &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"docs/notes.txt\",\"line\":1}" &&
	forge_error "line 1 of the new side of .docs/notes.txt. is not shown in the diff of revision 1 of pull request #1: the new-side lines you can anchor to are 2-6" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"src/app.c\",\"line\":9,\"side\":\"old\"}" &&
	forge_error "old-side lines you can anchor to are 3-8" &&
	test "$(count)" = "$before"
'

test_expect_success 'the wrong side is refused: an added file has no old side' '
	before=$(count) &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"src/new.c\",\"line\":1,\"side\":\"old\"}" &&
	forge_error "the old side of .src/new.c. has no lines in the diff of revision 1 .* use side \"new\"" &&
	test "$(count)" = "$before"
'

test_expect_success 'incomplete anchors, a blank body, a bad side and an unknown revision are refused' '
	before=$(count) &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"src/app.c\"}" &&
	forge_error "path needs line" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"line\":6}" &&
	forge_error "give path too" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"  \n \"}" &&
	forge_error "body must not be blank" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"src/app.c\",\"line\":6,\"side\":\"left\"}" &&
	test_json .result.isError true &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"../etc/passwd\",\"line\":1}" &&
	test_json .result.isError true &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"version\":7}" &&
	forge_error "7" &&
	test "$(count)" = "$before"
'

test_expect_success 'a missing pull request, or an issue number, is not found' '
	create "$DAVE_TOKEN" "{\"number\":99,\"body\":\"x\"}" &&
	forge_error "pull request #99 not found in alice/project" &&
	create "$DAVE_TOKEN" "{\"number\":2,\"body\":\"x\"}" &&
	forge_error "#2 in alice/project is an issue, not a pull request"
'

test_expect_success 'the list: previews, anchors and counts, oldest first' '
	discussions "{\"number\":1}" &&
	jq -e ".page == 1 and .has_more == false and (.discussions | map(.id)) == [1,2,3,4,5]" out.json &&
	jq -e ".discussions[0] | .preview == \"Why greet the world at all? cc @bob\" and .preview_truncated == false and .replies_count == 0 and .recent_replies == [] and .path == null" out.json &&
	jq -e ".discussions[1] | .author == \"dave\" and .path == \"src/app.c\" and .line == 6 and .side == \"new\" and .version == 1 and (has(\"anchor_context\") | not) and (has(\"body\") | not)" out.json &&
	jq -e ".discussions[0].created_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\")" out.json
'

test_expect_success 'a long body is previewed by its first 200 characters' '
	body=$(printf "%0.sé" $(seq 1 250)) &&
	create "$DAVE_TOKEN" "$(jq -nc --arg b "$body" "{number: 3, body: \$b}")" &&
	forge_ok &&
	long=$(jq .id out.json) &&
	jq -e ".body | length == 250" out.json &&
	discussions "{\"number\":3}" &&
	jq -e ".discussions[0] | .id == $long and (.preview | length) == 200 and .preview_truncated == true and (.preview | test(\"^é+$\"))" out.json
'

test_expect_success 'the saved context stays after the head moves; new discussions use the new revision' '
	push feature src/app.c "#include <stdio.h>\n#include <stdlib.h>\n\nint\nmain(void)\n{\n\tputs(\"hello, world\");\n\treturn EXIT_SUCCESS;\n}\n" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"On the new head\",\"path\":\"src/app.c\",\"line\":8}" &&
	forge_ok &&
	jq -e ".version == 2" out.json &&
	jq -r .anchor_context out.json | grep -x "+	return EXIT_SUCCESS;" &&
	discussions "{\"number\":1,\"discussion\":2}" &&
	jq -e ".discussion | .version == 1 and .line == 6 and .body == \"Louder?\"" out.json &&
	jq -j .discussion.anchor_context out.json >got &&
	printf "@@ -4,5 +4,5 @@\n main(void)\n {\n-\tputs(\"hello\");\n+\tputs(\"hello, world\");\n \treturn 0;\n }\n" >expect &&
	test_cmp expect got
'

test_expect_success 'an anchor on an older revision is checked against that revision' '
	before=$(count) &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"x\",\"path\":\"src/app.c\",\"line\":9,\"version\":1}" &&
	forge_error "line 9 of the new side of .src/app.c. is not shown in the diff of revision 1 of pull request #1: the new-side lines you can anchor to are 3-8" &&
	test "$(count)" = "$before" &&
	create "$DAVE_TOKEN" "{\"number\":1,\"body\":\"Back then\",\"path\":\"src/app.c\",\"line\":7,\"version\":1}" &&
	forge_ok &&
	jq -e ".version == 1" out.json &&
	jq -r .anchor_context out.json | grep -x " 	return 0;"
'

test_expect_success '55 replies: the list shows the count and the three newest, oldest first' '
	for i in $(seq 1 55); do
		reply "$DAVE_TOKEN" 1 1 "reply $i" && forge_ok || return 1
	done &&
	jq -e ".discussion == 1 and .number == 1 and .state == \"open\" and (.id | type) == \"number\"" out.json &&
	discussions "{\"number\":1}" &&
	jq -e ".discussions[0] | .replies_count == 55 and (.recent_replies | map(.preview)) == [\"reply 53\", \"reply 54\", \"reply 55\"]" out.json &&
	jq -e ".discussions[0].recent_replies[0] | .author == \"dave\" and .preview_truncated == false" out.json &&
	jq -e ".discussions[1] | .replies_count == 0 and .recent_replies == []" out.json
'

test_expect_success 'one discussion in full: replies in chronological pages of 50' '
	discussions "{\"number\":1,\"discussion\":1}" &&
	jq -e ".page == 1 and .has_more == true and .discussion.id == 1 and .discussion.replies_count == 55" out.json &&
	jq -e ".discussion.body == \"Why greet the world at all? cc @bob\" and .discussion.anchor_context == null" out.json &&
	jq -e "(.discussion.replies | length) == 50 and .discussion.replies[0].body == \"reply 1\" and .discussion.replies[49].body == \"reply 50\"" out.json &&
	discussions "{\"number\":1,\"discussion\":1,\"page\":2}" &&
	jq -e ".page == 2 and .has_more == false and (.discussion.replies | map(.body)) == [\"reply 51\",\"reply 52\",\"reply 53\",\"reply 54\",\"reply 55\"]" out.json &&
	discussions "{\"number\":1,\"discussion\":1,\"page\":3}" &&
	jq -e ".has_more == false and .discussion.replies == []" out.json
'

test_expect_success 'a reply notifies the discussion author (reason reply), not the replier' '
	test "$(notes frank | sort -u)" = "reply:dave" &&
	test "$(notes frank | wc -l)" = 55 &&
	test -z "$(notes dave)" &&
	tool_call list_inbox "{}" --token "$FRANK_TOKEN" && forge_ok &&
	jq -e ".notifications[0] | .reason == \"reply\" and .actor == \"dave\" and .repo == \"$P\" and .subject == {type: \"pull_request\", number: 1, title: \"Greet the world\"}" out.json &&
	reply "$FRANK_TOKEN" 1 1 "my own reply, hi @carol" && forge_ok &&
	test "$(notes frank | wc -l)" = 55 &&
	test "$(notes carol)" = "mention:frank"
'

test_expect_success 'a discussion id of another pull request is not found' '
	before=$(count) &&
	discussions "{\"number\":3}" &&
	other=$(jq ".discussions[0].id" out.json) &&
	tool_call list_pull_request_discussions "{\"repo\":\"$P\",\"number\":1,\"discussion\":$other}" &&
	forge_error "discussion $other not found in pull request #1 of alice/project" &&
	reply "$DAVE_TOKEN" 1 "$other" "wrong place" &&
	forge_error "discussion $other not found in pull request #1" &&
	state resolve "$DAVE_TOKEN" 1 "$other" 1 &&
	forge_error "discussion $other not found" &&
	reply "$DAVE_TOKEN" 1 999999 "nowhere" &&
	forge_error "discussion 999999 not found" &&
	test "$(count)" = "$before"
'

test_expect_success 'resolve with the observed state_version; again is a no-op' '
	state resolve "$DAVE_TOKEN" 1 2 1 && forge_ok &&
	jq -e ". == {id: 2, number: 1, state: \"resolved\", state_version: 2, changed: true, url: \"$BASE_URL/$P/pulls/1#discussion-2\"}" out.json &&
	test "$(db_sql "select d.state, d.state_version, u.login from discussions d join users u on u.id = d.state_changed_by where d.id = 2")" = "$(printf "resolved\t2\tdave")" &&
	state resolve "$DAVE_TOKEN" 1 2 1 && forge_ok &&
	jq -e ".state == \"resolved\" and .state_version == 2 and .changed == false" out.json &&
	discussions "{\"number\":1,\"discussion\":2}" &&
	jq -e ".discussion.state == \"resolved\" and .discussion.state_version == 2" out.json
'

test_expect_success 'a stale state_version is refused with reload and retry; nothing changes' '
	before=$(db_sql "checksum table discussions") &&
	state reopen "$DAVE_TOKEN" 1 2 1 &&
	forge_error "discussion 2 of pull request #1 of alice/project has changed since you read it \(state_version is now 2, you passed 1\): reload it with list_pull_request_discussions and retry" &&
	test "$(db_sql "checksum table discussions")" = "$before" &&
	state reopen "$DAVE_TOKEN" 1 2 2 && forge_ok &&
	jq -e ".state == \"open\" and .state_version == 3 and .changed == true" out.json &&
	state resolve "$DAVE_TOKEN" 1 2 2 &&
	forge_error "state_version is now 3, you passed 2.*reload" &&
	test "$(db_sql "select state, state_version from discussions where id = 2")" = "$(printf "open\t3")"
'

test_expect_success 'who may resolve: a reader or stranger may not resolve another'\''s discussion' '
	before=$(db_sql "checksum table discussions") &&
	state resolve "$FRANK_TOKEN" 3 "$long" 1 &&
	forge_error "you cannot resolve discussion $long of pull request #3 on alice/project: that needs the writer role or more, and your role is none" &&
	state resolve "$ERIN_TOKEN" 3 "$long" 1 &&
	forge_error "needs the writer role or more, and your role is reader" &&
	test "$(db_sql "checksum table discussions")" = "$before"
'

test_expect_success 'who may resolve: the discussion author without a role, the pull request author as a reader' '
	state resolve "$FRANK_TOKEN" 1 1 1 && forge_ok &&
	jq -e ".state == \"resolved\" and .changed == true" out.json &&
	state reopen "$ERIN_TOKEN" 1 1 2 && forge_ok &&
	jq -e ".state == \"open\" and .state_version == 3" out.json &&
	state resolve "$ERIN_TOKEN" 1 4 1 && forge_ok &&
	jq -e ".state == \"resolved\"" out.json &&
	state resolve "$ALICE_TOKEN" 3 "$long" 1 && forge_ok
'

test_expect_success 'replying to a resolved discussion keeps it resolved' '
	reply "$ERIN_TOKEN" 1 4 "still fine" && forge_ok &&
	jq -e ".state == \"resolved\"" out.json &&
	test "$(notes alice | tail -1)" = "reply:erin"
'

test_expect_success 'the list of discussions pages by 50' '
	for i in $(seq 2 51); do
		create "$DAVE_TOKEN" "{\"number\":3,\"body\":\"thread $i\"}" && forge_ok || return 1
	done &&
	discussions "{\"number\":3}" &&
	jq -e ".page == 1 and .has_more == true and (.discussions | length) == 50 and .discussions[0].id == $long and .discussions[49].preview == \"thread 50\"" out.json &&
	discussions "{\"number\":3,\"page\":2}" &&
	jq -e ".page == 2 and .has_more == false and (.discussions | map(.preview)) == [\"thread 51\"]" out.json
'

test_expect_success 'a private repository is invisible to a stranger, like a missing one' '
	tool_call list_pull_request_discussions "{\"repo\":\"bob/hidden\",\"number\":1}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call create_pull_request_discussion "{\"repo\":\"bob/hidden\",\"number\":1,\"body\":\"x\"}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$"
'

test_done
