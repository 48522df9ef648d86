#!/bin/bash
# t5200: issue and pull request numbers under concurrency: unique, gapless, nothing consumed by failures.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all 4
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

R=alice/numbers
CLIENTS=4
PER_CLIENT=50

# counter: the shared counter of alice/numbers
counter () {
	db_sql "select next_number from repositories where name = 'numbers'"
}

test_expect_success 'set up a repository with 100 branches to open pull requests from' '
	fm repo import $R --from "$TRASH/project.git" >/dev/null &&
	add_branches "$TRASH/repos/alice/numbers.git" n 100 &&
	test "$(git --git-dir="$TRASH/repos/alice/numbers.git" for-each-ref "refs/heads/n*" | wc -l)" = 100 &&
	test "$(counter)" = 1
'

# client K: 50 creates, alternating issues and pull requests (25 each, on
# branches of its own), with a refused create after every fifth one, sent
# one after the other on one connection (tool_stream).  Each answer goes to
# answers/K-I.json (answers/refused-K-I.json for a refused one).
client () {
	local k=$1 i=1 pr=0 args tool
	while test $i -le $PER_CLIENT; do
		if test $(( (i + k) % 2 )) = 0; then
			tool=create_issue
			args="{\"repo\":\"$R\",\"title\":\"client $k issue $i\",\"body\":\"from client $k\"}"
		else
			pr=$((pr + 1))
			tool=create_pull_request
			args="{\"repo\":\"$R\",\"title\":\"client $k pr $i\",\"head\":\"n$(printf %03d $((k * 25 + pr)))\",\"base\":\"main\"}"
		fi
		printf '%s\t%s\t%s\n' "$tool" "$args" "answers/$k-$i.json"
		if test $((i % 5)) = 0; then
			case $(( (i / 5) % 4 )) in
			0) tool=create_issue; args="{\"repo\":\"$R\",\"title\":\"   \"}" ;;
			1) tool=create_pull_request; args="{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"no-such\",\"base\":\"main\"}" ;;
			2) tool=create_pull_request; args="{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"main\",\"base\":\"main\"}" ;;
			3) tool=create_pull_request; args="{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"n001\",\"base\":\"main\"}" ;;
			esac
			printf '%s\t%s\t%s\n' "$tool" "$args" "answers/refused-$k-$i.json"
		fi
		i=$((i + 1))
	done >requests-$k &&
	tool_stream "$ALICE_TOKEN" requests-$k >statuses-$k &&
	test "$(wc -l <statuses-$k)" = $((PER_CLIENT + PER_CLIENT / 5)) &&
	if grep -v "^200 " statuses-$k; then
		echo "client $k: the requests above were not answered 200"
		return 1
	fi
}

test_expect_success "$((CLIENTS * PER_CLIENT)) creates from $CLIENTS parallel clients all succeed" '
	mkdir -p answers &&
	pids= &&
	for k in $(seq 0 $((CLIENTS - 1))); do
		client $k >"client-$k.log" 2>&1 &
		pids="$pids $!"
	done &&
	status=0 &&
	for p in $pids; do wait $p || status=1; done &&
	cat client-*.log &&
	test $status = 0 &&
	test "$(ls answers/[0-9]*-*.json | wc -l)" = $((CLIENTS * PER_CLIENT)) &&
	jq -s -e "all(.[]; .result.isError != true and (.result.structuredContent.number | type == \"number\"))" answers/[0-9]*-*.json
'

test_expect_success 'the numbers are unique and gapless: exactly 1..200' '
	jq -r ".result.structuredContent.number" answers/[0-9]*-*.json | sort -n >got &&
	seq 1 $((CLIENTS * PER_CLIENT)) >expect &&
	test_cmp expect got
'

test_expect_success 'the answers point at the right kind of page' '
	jq -s -e "all(.[]; .result.structuredContent.url | test(\"/alice/numbers/(issues|pulls)/[0-9]+$\"))" answers/[0-9]*-*.json &&
	test "$(grep -l "/pulls/" answers/[0-9]*-*.json | wc -l)" = 100 &&
	test "$(grep -l "/issues/" answers/[0-9]*-*.json | wc -l)" = 100
'

test_expect_success 'every refused create was an in-band error' '
	test "$(ls answers/refused-*.json | wc -l)" = $((CLIENTS * PER_CLIENT / 5)) &&
	jq -s -e "all(.[]; .result.isError == true)" answers/refused-*.json
'

test_expect_success 'the database agrees: 100 issues, 100 pull requests, counter at 201' '
	test "$(db_sql "select count(*) from issues i join repositories r on r.id = i.repo_id where r.name = \"numbers\"")" = 100 &&
	test "$(db_sql "select count(*) from pull_requests p join repositories r on r.id = p.repo_id where r.name = \"numbers\"")" = 100 &&
	db_sql "select number from issues i join repositories r on r.id = i.repo_id where r.name = \"numbers\" union all select number from pull_requests p join repositories r on r.id = p.repo_id where r.name = \"numbers\"" | sort -n >db-numbers &&
	test_cmp expect db-numbers &&
	test "$(counter)" = $((CLIENTS * PER_CLIENT + 1))
'

test_expect_success 'several workers served the creates' '
	grep -E "tool=create_(issue|pull_request)" "$SERVER_LOG" |
		sed -n "s/.*forgemcp\[\([0-9]*\)\].*/\1/p" | sort -u >pids &&
	test "$(wc -l <pids)" -ge 2
'

test_expect_success 'failed creates consume no number, and the next create takes 201' '
	for args in \
		"{\"repo\":\"$R\",\"title\":\"\"}" \
		"{\"repo\":\"$R\",\"title\":\" \t \"}"
	do
		tool_call create_issue "$args" && forge_error "title must not be blank" || return 1
	done &&
	pr_refused () {
		tool_call create_pull_request "$1" && forge_error "$2"
	} &&
	pr_refused "{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"nope\",\"base\":\"main\"}" "not found" &&
	pr_refused "{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"main\",\"base\":\"main\"}" "same branch" &&
	pr_refused "{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"n002\",\"base\":\"main\"}" "already open" &&
	tool_call create_pull_request "{\"repo\":\"$R\",\"title\":\"x\",\"head\":\"other\",\"base\":\"main\"}" --token "$ERIN_TOKEN" &&
	forge_error "^Repository not found|cannot open a pull request" &&
	test "$(counter)" = 201 &&
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"after the storm\"}" && forge_ok &&
	jq -e ".number == 201" out.json &&
	tool_call create_pull_request "{\"repo\":\"$R\",\"title\":\"and a pull request\",\"head\":\"other\",\"base\":\"main\"}" && forge_ok &&
	jq -e ".number == 202" out.json
'

test_expect_success '100 comments from 4 parallel clients on one issue: all stored, in order per client' '
	pids= &&
	for k in 0 1 2 3; do
		(
			for i in $(seq -w 1 25); do
				printf "add_issue_comment\t%s\tanswers/comment-%s-%s.json\n" \
					"{\"repo\":\"$R\",\"number\":201,\"body\":\"c$k-$i\"}" "$k" "$i"
			done >comments-$k &&
			tool_stream "$ALICE_TOKEN" comments-$k >statuses-c$k &&
			test "$(grep -c "^200 " statuses-c$k)" = 25 || { cat statuses-c$k; exit 1; }
		) &
		pids="$pids $!"
	done &&
	status=0 &&
	for p in $pids; do wait $p || status=1; done &&
	test $status = 0 &&
	jq -s -e "length == 100 and all(.[]; .result.isError != true)" answers/comment-*.json &&
	tool_call get_issue "{\"repo\":\"$R\",\"number\":201,\"comments_limit\":100}" && forge_ok &&
	jq -e ".comments_total == 100 and (.comments | length) == 100" out.json &&
	for k in 0 1 2 3; do
		jq -r ".comments[].body | select(startswith(\"c$k-\"))" out.json >order-$k &&
		seq -w 1 25 | sed "s/^/c$k-/" >expect-$k &&
		test_cmp expect-$k order-$k || return 1
	done
'

test_expect_success 'no transaction had to be retried' '
	test_must_fail grep "transaction aborted by the database" "$SERVER_LOG"
'

test_expect_success 'an insert the database refuses is rolled back with its number' '
	db_sql "alter table issues add constraint t5200_no_forbidden check (title <> \"forbidden\")" &&
	test_when_finished "db_sql \"alter table issues drop constraint t5200_no_forbidden\"" &&
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"forbidden\"}" &&
	test_status 200 && test_json .result.isError true &&
	test "$(counter)" = 203 &&
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"allowed\"}" && forge_ok &&
	jq -e ".number == 203" out.json
'

test_done
