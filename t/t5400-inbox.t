#!/bin/bash
# t5400: the inbox: notifications made by issues, pull requests and comments; list_inbox and mark_notification_read.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# "example.com" is a login too, so an address at example.com could wrongly mention it
make_user example.com || { echo "Bail out! user example.com"; exit 1; }

P=alice/project

# inbox TOKEN [ARGS]: list_inbox; the answer goes to out.json
inbox () {
	tool_call list_inbox "${2:-$EMPTY_OBJ}" --token "$1" && forge_ok
}

# mark TOKEN ARGS: mark_notification_read; the answer goes to out.json
mark () {
	tool_call mark_notification_read "$2" --token "$1" && forge_ok
}

# issue TOKEN REPO TITLE BODY: create_issue; out.json is {number, ...}
issue () {
	local r t b
	json_str r "$2" && json_str t "$3" && json_str b "$4" &&
	tool_call create_issue "{\"repo\":$r,\"title\":$t,\"body\":$b}" --token "$1" && forge_ok
}

# comment TOKEN REPO NUMBER BODY: add_issue_comment; out.json is {id, url}
comment () {
	local r b
	json_str r "$2" && json_str b "$4" &&
	tool_call add_issue_comment "{\"repo\":$r,\"number\":$3,\"body\":$b}" --token "$1" && forge_ok
}

# rows LOGIN: how many notification rows LOGIN has, read or not
rows () {
	db_sql "select count(*) from notifications n join users u on u.id = n.user_id where u.login = '$1'"
}

test_expect_success 'tools/list shows the inbox tools with titles and hints' '
	mcp_modern tools/list &&
	test_status 200 &&
	test_jq ".result.tools[] | select(.name == \"list_inbox\") | .title == \"List your notifications\" and .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"mark_notification_read\") | (.title | length > 0) and .annotations.readOnlyHint == false and .annotations.idempotentHint == true and .annotations.destructiveHint == false"
'

test_expect_success 'an empty inbox' '
	inbox "$BOB_TOKEN" &&
	jq -e ". == {notifications: [], page: 1, has_more: false, unread_count: 0}" out.json
'

test_expect_success 'an issue body mentions people: each one hears of it once' '
	issue "$ALICE_TOKEN" $P "Crash on start" "cc @bob and @erin (and @BOB again), not \`@frank\` in code, not me: @alice" &&
	jq -e ".number == 1" out.json &&
	test "$(rows bob)" = 1 &&
	test "$(rows erin)" = 1 &&
	test "$(rows frank)" = 0 &&
	test "$(rows alice)" = 0
'

test_expect_success 'list_inbox shows the mention with its repository, subject, actor and link' '
	inbox "$BOB_TOKEN" &&
	jq -e ".page == 1 and .has_more == false and .unread_count == 1 and (.notifications | length) == 1" out.json &&
	jq -e ".notifications[0] | .reason == \"mention\" and .unread == true and .repo == \"$P\" and .actor == \"alice\" and .read_at == null" out.json &&
	jq -e ".notifications[0].subject == {type: \"issue\", number: 1, title: \"Crash on start\"}" out.json &&
	jq -e ".notifications[0].url == \"$BASE_URL/$P/issues/1\"" out.json &&
	jq -e ".notifications[0].created_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\")" out.json &&
	test "$(jq .notifications[0].id out.json)" = "$(db_sql "select n.id from notifications n join users u on u.id = n.user_id where u.login = \"bob\"")"
'

test_expect_success 'a comment on your issue notifies you; its mentions too, outside code blocks' '
	comment "$BOB_TOKEN" $P 1 "$(printf "Seen it.\n\n\`\`\`\n@frank in a fence\n\`\`\`\n\n~~~~ sh\n@dave in a tilde fence\n~~~~\n\nThanks @erin.")" &&
	cid=$(jq .id out.json) &&
	test "$(rows frank)" = 0 &&
	test "$(rows dave)" = 0 &&
	test "$(rows erin)" = 2 &&
	test "$(rows bob)" = 1 &&
	inbox "$ALICE_TOKEN" &&
	jq -e "(.notifications | length) == 1 and .unread_count == 1" out.json &&
	jq -e ".notifications[0] | .reason == \"comment\" and .actor == \"bob\" and .subject.number == 1" out.json &&
	jq -e ".notifications[0].url == \"$BASE_URL/$P/issues/1#issuecomment-$cid\"" out.json &&
	test "$(db_sql "select count(*) from notifications where comment_id = $cid")" = 2
'

test_expect_success 'an author who is also mentioned gets one notification: the mention' '
	comment "$ERIN_TOKEN" $P 1 "@alice can you look? (@alice)" &&
	cid=$(jq .id out.json) &&
	test "$(db_sql "select n.reason from notifications n join users u on u.id = n.user_id where u.login = \"alice\" and n.comment_id = $cid")" = mention &&
	inbox "$ALICE_TOKEN" &&
	jq -e "(.notifications | length) == 2 and .unread_count == 2" out.json &&
	jq -e ".notifications[0] | .reason == \"mention\" and .actor == \"erin\" and .url == \"$BASE_URL/$P/issues/1#issuecomment-$cid\"" out.json
'

test_expect_success 'nobody is notified of their own action' '
	before=$(rows alice) &&
	comment "$ALICE_TOKEN" $P 1 "Note to self, @alice: fixed soon" &&
	test "$(rows alice)" = "$before" &&
	issue "$ALICE_TOKEN" $P "Mine" "@alice only" &&
	test "$(rows alice)" = "$before"
'

test_expect_success 'e-mail addresses, unknown logins and glued @ are no mentions' '
	before=$(db_sql "select count(*) from notifications") &&
	comment "$ALICE_TOKEN" $P 1 "Write to dave@example.com or <frank.x+y@example.com>; @nobody-here; path/@erin; a=@erin; @frank@host" &&
	test "$(db_sql "select count(*) from notifications")" = "$before" &&
	comment "$ALICE_TOKEN" $P 1 "(@example.com, see this)" &&
	test "$(rows example.com)" = 1
'

test_expect_success 'a lone backtick opens no code span; an unclosed fence runs to the end' '
	bob=$(rows bob) dave=$(rows dave) &&
	comment "$ALICE_TOKEN" $P 1 "Type \`\` \` \`\` for a backtick; a lone \` then @bob" &&
	test "$(rows bob)" = $((bob + 1)) &&
	comment "$ALICE_TOKEN" $P 1 "$(printf "@bob:\n\n\`\`\`\nno end @dave\n\n@dave")" &&
	test "$(rows bob)" = $((bob + 2)) &&
	test "$(rows dave)" = "$dave"
'

test_expect_success 'a pull request description mentions people; subject is the pull request' '
	tool_call create_pull_request "$(jq -nc --arg r $P \
		"{repo: \$r, title: \"Greet\", head: \"feature\", base: \"main\", body: \"Please review, @frank and @Frank.\"}")" \
		--token "$DAVE_TOKEN" && forge_ok &&
	pr=$(jq .number out.json) &&
	inbox "$FRANK_TOKEN" &&
	jq -e "(.notifications | length) == 1" out.json &&
	jq -e ".notifications[0] | .reason == \"mention\" and .actor == \"dave\" and .url == \"$BASE_URL/$P/pulls/$pr\"" out.json &&
	jq -e ".notifications[0].subject == {type: \"pull_request\", number: $pr, title: \"Greet\"}" out.json
'

test_expect_success 'a comment on your pull request notifies you' '
	comment "$ERIN_TOKEN" $P "$pr" "Looks right" &&
	inbox "$DAVE_TOKEN" &&
	jq -e "(.notifications | length) == 1" out.json &&
	jq -e ".notifications[0] | .reason == \"comment\" and .actor == \"erin\" and .subject.type == \"pull_request\" and .subject.number == $pr" out.json
'

test_expect_success 'a refused write notifies nobody' '
	before=$(rows bob) &&
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"  \",\"body\":\"@bob\"}" --token "$ALICE_TOKEN" &&
	forge_error "title must not be blank" &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":999,\"body\":\"@bob\"}" --token "$ALICE_TOKEN" &&
	forge_error "no issue or pull request #999" &&
	test "$(rows bob)" = "$before"
'

test_expect_success 'only the first 50 distinct mentions of a text count' '
	body=$(for i in $(seq 1 50); do printf "@ghost%02d " $i; done; echo "@frank") &&
	before=$(rows frank) &&
	comment "$ALICE_TOKEN" $P 1 "$body" &&
	test "$(rows frank)" = "$before" &&
	comment "$ALICE_TOKEN" $P 1 "@ghost01 @frank" &&
	test "$(rows frank)" = $((before + 1))
'

test_expect_success 'a mention of a stranger in a private repository creates nothing' '
	issue "$ALICE_TOKEN" alice/secret "Secret plan" "@frank and @bob, look" &&
	comment "$ALICE_TOKEN" alice/secret 1 "@frank again" &&
	test "$(db_sql "select count(*) from notifications n join repositories r on r.id = n.repo_id where r.name = \"secret\"")" = 0 &&
	inbox "$FRANK_TOKEN" &&
	test_must_fail grep -i secret out.json
'

test_expect_success 'a collaborator of the private repository is notified' '
	fm collaborator add alice/secret bob reader >/dev/null &&
	comment "$ALICE_TOKEN" alice/secret 1 "@bob now you can see it" &&
	inbox "$BOB_TOKEN" &&
	jq -e ".notifications[0] | .repo == \"alice/secret\" and .reason == \"mention\" and .subject.title == \"Secret plan\"" out.json &&
	test "$(rows frank)" = "$(db_sql "select count(*) from notifications n join users u on u.id = n.user_id join repositories r on r.id = n.repo_id where u.login = \"frank\" and r.name = \"project\"")"
'

test_expect_success 'a repository made private later hides its notifications' '
	inbox "$BOB_TOKEN" &&
	jq -e "(.notifications | length) == 4 and .unread_count == 4" out.json &&
	hidden=$(jq "[.notifications[] | select(.repo == \"$P\") | .id][0]" out.json) &&
	test -n "$hidden" &&
	db_sql "update repositories set private = 1 where name = \"project\"" &&
	inbox "$BOB_TOKEN" &&
	jq -e "(.notifications | length) == 1 and .unread_count == 1 and .notifications[0].repo == \"alice/secret\"" out.json &&
	inbox "$BOB_TOKEN" "{\"unread\":true}" &&
	jq -e "(.notifications | length) == 1" out.json &&
	inbox "$ERIN_TOKEN" &&
	jq -e "(.notifications | length) == 2 and all(.notifications[]; .repo == \"$P\")" out.json &&
	mark "$BOB_TOKEN" "{\"all\":true}" &&
	jq -e ". == {marked: 1, unread_count: 0}" out.json &&
	test "$(db_sql "select read_at is null from notifications where id = $hidden")" = 1 &&
	tool_call mark_notification_read "{\"id\":$hidden}" --token "$BOB_TOKEN" &&
	forge_error "^notification $hidden not found" &&
	db_sql "update repositories set private = 0 where name = \"project\"" &&
	inbox "$BOB_TOKEN" &&
	jq -e "(.notifications | length) == 4 and .unread_count == 3" out.json
'

test_expect_success 'newest first, 50 a page, with has_more' '
	base=$(rows frank) &&
	for i in $(seq 1 52); do
		comment "$DAVE_TOKEN" $P 1 "ping $i @frank" || return 1
	done &&
	last=$(jq .id out.json) &&
	total=$((base + 52)) &&
	test "$(rows frank)" = $total &&
	inbox "$FRANK_TOKEN" &&
	jq -e ".page == 1 and .has_more == true and (.notifications | length) == 50 and .unread_count == $total" out.json &&
	jq -e ".notifications[0].url == \"$BASE_URL/$P/issues/1#issuecomment-$last\"" out.json &&
	jq -e "[.notifications[].id] == ([.notifications[].id] | sort | reverse)" out.json &&
	jq "[.notifications[].id]" out.json >page1 &&
	inbox "$FRANK_TOKEN" "{\"page\":2}" &&
	jq -e ".page == 2 and .has_more == false and (.notifications | length) == $((total - 50))" out.json &&
	jq -e ".notifications[0].id < $(jq "last" page1)" out.json &&
	inbox "$FRANK_TOKEN" "{\"page\":3}" &&
	jq -e ".page == 3 and .notifications == [] and .has_more == false" out.json
'

test_expect_success 'mark one read: marked 1, then the unread filter leaves it out' '
	inbox "$FRANK_TOKEN" &&
	one=$(jq ".notifications[0].id" out.json) &&
	unread=$(jq .unread_count out.json) &&
	mark "$FRANK_TOKEN" "{\"id\":$one}" &&
	jq -e ". == {marked: 1, unread_count: $((unread - 1))}" out.json &&
	inbox "$FRANK_TOKEN" &&
	jq -e ".notifications[0] | .id == $one and .unread == false and (.read_at | test(\"Z$\"))" out.json &&
	jq -r ".notifications[0].read_at" out.json >first_read &&
	inbox "$FRANK_TOKEN" "{\"unread\":true}" &&
	jq -e "all(.notifications[]; .unread and .id != $one) and .unread_count == $((unread - 1))" out.json &&
	jq -e "(.notifications | length) == 50 and .has_more == true" out.json
'

test_expect_success 'marking it again succeeds, changes nothing and keeps the first read_at' '
	sleep 1 &&
	mark "$FRANK_TOKEN" "{\"id\":$one}" &&
	jq -e ". == {marked: 0, unread_count: $((unread - 1))}" out.json &&
	inbox "$FRANK_TOKEN" &&
	test "$(jq -r ".notifications[0].read_at" out.json)" = "$(cat first_read)"
'

test_expect_success 'mark all: every unread one, once' '
	mark "$FRANK_TOKEN" "{\"all\":true}" &&
	jq -e ". == {marked: $((unread - 1)), unread_count: 0}" out.json &&
	test "$(db_sql "select count(*) from notifications n join users u on u.id = n.user_id where u.login = \"frank\" and n.read_at is null")" = 0 &&
	inbox "$FRANK_TOKEN" "{\"unread\":true}" &&
	jq -e ". == {notifications: [], page: 1, has_more: false, unread_count: 0}" out.json &&
	mark "$FRANK_TOKEN" "{\"all\":true}" &&
	jq -e ". == {marked: 0, unread_count: 0}" out.json &&
	inbox "$FRANK_TOKEN" &&
	test "$(jq -r ".notifications[0].read_at" out.json)" = "$(cat first_read)"
'

test_expect_success 'someone else'"'"'s notification is not found and stays unread' '
	theirs=$(db_sql "select n.id from notifications n join users u on u.id = n.user_id where u.login = \"erin\" and n.read_at is null order by n.id limit 1") &&
	test -n "$theirs" &&
	tool_call mark_notification_read "{\"id\":$theirs}" --token "$FRANK_TOKEN" &&
	forge_error "^notification $theirs not found" &&
	test "$(db_sql "select read_at is null from notifications where id = $theirs")" = 1 &&
	tool_call mark_notification_read "{\"id\":987654321}" --token "$FRANK_TOKEN" &&
	forge_error "^notification 987654321 not found"
'

test_expect_success 'mark_notification_read needs exactly one of id and all' '
	tool_call mark_notification_read "{}" --token "$ERIN_TOKEN" &&
	forge_error "id .*all: true" &&
	tool_call mark_notification_read "{\"id\":$theirs,\"all\":true}" --token "$ERIN_TOKEN" &&
	forge_error "not both" &&
	tool_call mark_notification_read "{\"all\":false}" --token "$ERIN_TOKEN" &&
	forge_error "all must be true" &&
	tool_call mark_notification_read "{\"id\":0}" --token "$ERIN_TOKEN" &&
	forge_error "id" &&
	test "$(db_sql "select count(*) from notifications n join users u on u.id = n.user_id where u.login = \"erin\" and n.read_at is not null")" = 0
'

test_expect_success 'list_inbox refuses a bad page or unread' '
	tool_call list_inbox "{\"page\":0}" --token "$ERIN_TOKEN" &&
	forge_error page &&
	tool_call list_inbox "{\"unread\":\"yes\"}" --token "$ERIN_TOKEN" &&
	forge_error unread &&
	tool_call list_inbox "{\"other\":1}" --token "$ERIN_TOKEN" &&
	forge_error other
'

test_expect_success 'scopes: list_inbox reads, mark_notification_read writes' '
	ERIN_READ=$(make_token erin read) &&
	inbox "$ERIN_READ" &&
	jq -e ".unread_count == 2" out.json &&
	tool_call mark_notification_read "{\"all\":true}" --token "$ERIN_READ" &&
	test_status 403 &&
	test "$(db_sql "select count(*) from notifications n join users u on u.id = n.user_id where u.login = \"erin\" and n.read_at is null")" = 2
'

test_done
