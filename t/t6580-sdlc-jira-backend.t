#!/bin/bash
# t6580: the Jira backend of `forgemcp agent`, the real agent process against
# a loopback Jira (t/lib/fake-jira.pl, Jira Server's REST API 2 and Agile
# 1.0 with its state in memory): a refresh mirrors the issues with the
# project's label, their comments, links, attachments and changelog and the
# board into the hub; a batch of `forgemcp mcp jira` runs in Jira (new
# issue, fields, a status through a transition, a link, sprints, rank, a
# file uploaded); attachments are fetched, never over 10 MB; Jira's 429 is
# waited out and counted; garbage, a 500, a cut connection, a redirect and
# a file larger than Jira said each end the command with a reason and
# leave nothing half-written; the credentials appear in no log.
. ./test-lib.sh

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
export TZ=Europe/Moscow
start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) &&
READ_TOKEN=$(make_token ann read) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
export TZ=Europe/Moscow

head -c 240026 /dev/urandom >png.bin && base64 -w0 png.bin >png.b64 &&
LONGNAME=$(printf 'ж%.0s' $(seq 1 300)).txt &&
jq -n --rawfile png png.b64 --arg x "$(printf 'x' | base64)" \
	--arg hostile "$(printf 'a/b:c\001.txt')" --arg long "$LONGNAME" '{
  statuses: ["Новая", "В работе", "Готово"],
  fields: [{id: "customfield_10002", name: "Story Points"}, {id: "customfield_10001", name: "Sprint"}],
  linkTypes: [{name: "Blocks", inward: "is blocked by", outward: "blocks"},
              {name: "Relates", inward: "relates to", outward: "relates to"}],
  projects: [{key: "AUR", name: "Aurora"}],
  boards: [{id: 7, name: "AUR board", type: "scrum", projectKey: "AUR",
            columns: [{name: "К работе", statuses: ["Новая"]}, {name: "В работе", statuses: ["В работе"]},
                      {name: "Готово", statuses: ["Готово"]}]}],
  sprints: [{id: 3, boardId: 7, name: "Спринт 1", state: "active", goal: "отчёты",
             startDate: "2026-11-20T09:00:00.000+03:00", endDate: "2026-12-04T18:00:00.000+03:00"},
            {id: 2, boardId: 7, name: "Спринт 0", state: "closed",
             startDate: "2026-11-01T09:00:00.000+03:00", endDate: "2026-11-14T18:00:00.000+03:00"}],
  issues: [
    {id: "1650", key: "AUR-1", summary: "Отчёт ОСВ", description: "см. [^запись.mp4]", type: "Ошибка",
     status: "В работе", priority: "High", assignee: "ivanov", reporter: "petrov", due: "2026-12-10",
     labels: ["AURORA"], story_points: 3, sprint: 3,
     created: "2026-11-01T10:00:00.000+0300", updated: "2026-11-02T10:00:00.000+0300",
     comments: [{id: "101", author: "petrov", body: "вот !скрин 1.png!", created: "2026-11-01T11:00:00.000+0300"},
                {id: "102", author: "ivanov", body: "принято", created: "2026-11-01T12:00:00.000+0300"}],
     attachments: [{id: "31337", filename: "скрин 1.png", mimeType: "image/png", author: "petrov",
                    created: "2026-11-01T10:59:00.000+0300", bytes_base64: $png},
                   {id: "31338", filename: "запись.mp4", mimeType: "video/mp4", author: "petrov",
                    created: "2026-11-01T10:58:00.000+0300", generated_size: 26214400},
                   {id: "31339", filename: $hostile, mimeType: "text/plain", author: "petrov",
                    created: "2026-11-01T10:57:00.000+0300", bytes_base64: $x},
                   {id: "31340", filename: "..", mimeType: "text/plain", author: "petrov",
                    created: "2026-11-01T10:56:00.000+0300", bytes_base64: $x},
                   {id: "31341", filename: $long, mimeType: "text/plain", author: "petrov",
                    created: "2026-11-01T10:55:00.000+0300", bytes_base64: $x}],
     links: [{type: "Blocks", outward: "AUR-2"}],
     changelog: [{id: "5001", author: "petrov", created: "2026-11-02T10:00:00.000+0300",
                  items: [{field: "status", fieldtype: "jira", from: "1", fromString: "Новая",
                           to: "2", toString: "В работе"}]}]},
    {id: "1651", key: "AUR-2", summary: "Вторая", type: "Задача", status: "Новая", labels: ["AURORA"],
     created: "2026-11-03T10:00:00.000+0300", updated: "2026-11-03T10:00:00.000+0300"},
    {id: "1652", key: "AUR-3", summary: "Чужая", type: "Задача", status: "Новая", labels: ["OTHER"],
     created: "2026-11-03T10:00:00.000+0300", updated: "2026-11-03T10:00:00.000+0300"},
    {id: "1653", key: "AUR-5", summary: "Большая", type: "Задача", status: "Новая", labels: ["AURORA"],
     description: ("я" * 20000),
     created: "2026-11-03T10:00:00.000+0300", updated: "2026-11-03T10:00:00.000+0300",
     comments: [range(1; 61) | {id: (200 + . | tostring), author: "petrov", body: ("ж" * 1500),
                created: "2026-11-04T10:00:00.000+0300"}],
     changelog: [range(1; 121) | {id: (6000 + . | tostring), author: "petrov",
                created: "2026-11-04T11:00:00.000+0300",
                items: [{field: "description", fieldtype: "jira", fromString: ("ю" * 900), toString: ("ю" * 900)}]}]}
  ]}' >jira.json || { echo "Bail out! fixture"; exit 1; }

printf 'jira-secret-token\n' >"$TRASH/jira.token" && chmod 600 "$TRASH/jira.token"
perl "$TEST_DIRECTORY/lib/fake-jira.pl" --state jira.json --port-file "$TRASH/jira.port" \
	--log "$TRASH/jira.log" --auth "bot:jira-secret-token" \
	>"$TRASH/jira.out" 2>"$TRASH/jira.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/jira.port" || { echo "Bail out! the loopback Jira did not start"; exit 1; }
JIRA=http://127.0.0.1:$(cat "$TRASH/jira.port")

printf '{"projects":[{"label":"AURORA","name":"Аврора","board_id":7}],"issues":[]}' >p.json &&
fm tracker import p.json >/dev/null || { echo "Bail out! the hub project"; exit 1; }

# agent_once: the Jira backend runs what is queued and stops (its log in agent.log)
agent_once () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN FORGEMCP_JIRA_URL=$JIRA \
	FORGEMCP_JIRA_USER=bot FORGEMCP_JIRA_TOKEN_FILE=$TRASH/jira.token \
		timeout 120 "$FORGEMCP" agent --module jira --backend jira --once >>agent.log 2>&1
}
# tool NAME ARGS_JSON: one call in a session bound to AURORA, its text in tool.txt
tool () {
	{ echo "$INIT"; call 2 "$1" "$2"; } | sdlc jira --project AURORA && text 2 >tool.txt
}
# fail PATH MODE [COUNT]: the loopback Jira fails the next requests under PATH
fail () {
	curl -sS -o /dev/null -X POST --data-binary \
		"{\"path\":\"$1\",\"mode\":\"$2\",\"count\":${3:-1},\"retry_after\":${4:-1}}" "$JIRA/_fake/fail"
}
jstate () { curl -sS "$JIRA/_fake/state" >jstate.json; }
# last_command: the state and error of the newest command, as "state|error"
last_command () {
	hub GET "batches/$(db_query "SELECT MAX(id) FROM tracker_batches")" &&
	jq -r ".batch.commands[-1] | \"\(.state)|\(.error // \"\")\"" hub.json
}
refresh_batch () {
	hub POST batches '{"project":"AURORA","title":"обновить","commands":[{"type":"refresh","full":true}]}' &&
	test "$STATUS" = 201
}

test_expect_success 'refresh: the issues with the label, their comments, attachments, links and journal' '
	tool projects "{}" && grep -F "неизвестен" tool.txt &&
	refresh_batch && agent_once &&
	test "$(last_command)" = "done|" &&
	hub GET "issues?project=AURORA" && test "$STATUS" = 200 &&
	jq -e "[.issues[].key] | sort == [\"AUR-1\", \"AUR-2\", \"AUR-5\"]" hub.json &&
	tool issue "{\"key\":\"AUR-1\"}" && okres 2 &&
	grep -F "Отчёт ОСВ" tool.txt &&
	grep -F "вложения (5):" tool.txt &&
	grep -F "больше 10 МБ — только в Jira" tool.txt &&
	grep -F "в описании" tool.txt &&
	grep -F "файлы: #31337 скрин 1.png" tool.txt &&
	grep -F "AUR-2" tool.txt &&
	grep -F "изменения (1):" tool.txt &&
	db_query "SELECT story_points, HEX(sprint), issue_rank FROM tracker_issues WHERE issue_key = '"'"'AUR-1'"'"'" >row &&
	test "$(cat row)" = "3.00	$(printf "Спринт 1" | od -An -tx1 | tr -d " \n" | tr a-f A-F)	1"
'

test_expect_success 'an issue too large for one request goes alone, its comments and journal after it; what the search capped is read' '
	grep -x "GET /rest/api/2/issue/AUR-5/comment -> 200" jira.log &&
	grep -x "GET /rest/api/2/issue/AUR-5 -> 200" jira.log &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_comments c JOIN tracker_issues i ON i.id = c.issue_id WHERE i.issue_key = '"'"'AUR-5'"'"'")" = 60 &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_changes c JOIN tracker_issues i ON i.id = c.issue_id WHERE i.issue_key = '"'"'AUR-5'"'"'")" = 120 &&
	test "$(db_query "SELECT CHAR_LENGTH(description) FROM tracker_issues WHERE issue_key = '"'"'AUR-5'"'"'")" = 20000 &&
	n=$(grep -c "POST /hub/agent/jira_issues" nginx/logs/access.log) && test "$n" -ge 5
'

test_expect_success 'refresh: the board type, its columns and sprints' '
	tool projects "{}" && grep -F "scrum" tool.txt &&
	! grep -F "неизвестен" tool.txt &&
	tool sprints "{}" && okres 2 && grep -F "Спринт 1" tool.txt && grep -F "Спринт 0" tool.txt &&
	db_query "SELECT COUNT(*) FROM tracker_board_columns WHERE board_id = 7" >n && test "$(cat n)" = 3
'

test_expect_success 'a long attachment name is cut to what the mirror holds, the rest of the card intact' '
	db_query "SELECT CHAR_LENGTH(filename) FROM tracker_attachments WHERE id = 31341" >n &&
	test "$(cat n)" -le 255
'

# agent_bg: the Jira backend in the background, its process id in AGENT
agent_bg () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN FORGEMCP_JIRA_URL=$JIRA \
	FORGEMCP_JIRA_USER=bot FORGEMCP_JIRA_TOKEN_FILE=$TRASH/jira.token \
		"$FORGEMCP" agent --module jira --backend jira --interval 0.1 >>agent.log 2>&1 &
	AGENT=$!
	test_register_pid "$AGENT"
}
# batch ARGS_JSON: batch_create in a session bound to AURORA, its text in batch.txt
batch () {
	{ echo "$INIT"; call 2 batch_create "$1"; } | sdlc jira --project AURORA && text 2 >batch.txt
}
# commands_of_last_batch: the states of the newest batch's commands, in order
commands_of_last_batch () {
	db_query "SELECT GROUP_CONCAT(state ORDER BY seq) FROM tracker_commands WHERE batch_id = (SELECT MAX(id) FROM tracker_batches)"
}

test_expect_success 'a batch of forgemcp mcp jira runs in Jira: a new issue, fields and a status, a link, sprints, rank' '
	batch "{\"title\":\"в Jira\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Новая из хаба\",\"issue_type\":\"Задача\",\"due\":\"2026-12-25\"},{\"type\":\"ensure_fields\",\"key\":\"AUR-2\",\"status\":\"В работе\",\"story_points\":5,\"assignee\":\"petrov\"},{\"type\":\"ensure_link\",\"key\":\"new:1\",\"link_type\":\"Relates\",\"to\":\"AUR-2\"},{\"type\":\"ensure_sprint\",\"key\":\"AUR-2\",\"sprint\":\"Спринт 1\"},{\"type\":\"ensure_sprint_meta\",\"sprint\":\"Спринт 2\",\"goal\":\"дальше\",\"start\":\"2026-12-07\",\"end\":\"2026-12-18\"},{\"type\":\"ensure_rank\",\"key\":\"AUR-2\",\"before\":\"AUR-1\"},{\"type\":\"ensure_sprint_state\",\"sprint\":\"Спринт 2\",\"state\":\"active\"}]}" && okres 2 &&
	agent_once &&
	test "$(commands_of_last_batch)" = "done,done,done,done,done,done,done,done" &&
	grep -x "POST /rest/api/2/issue -> 201" jira.log &&
	grep -x "POST /rest/agile/1.0/sprint/3/issue -> 204" jira.log &&
	grep -x "PUT /rest/agile/1.0/issue/rank -> 204" jira.log &&
	grep -x "GET /rest/agile/1.0/board/7/sprint -> 200" jira.log &&
	jstate &&
	jq -e ".issues[] | select(.key == \"AUR-6\") | .summary == \"Новая из хаба\" and .labels == [\"AURORA\"] and .due == \"2026-12-25\"" jstate.json &&
	jq -e ".issues[] | select(.key == \"AUR-2\") | .status == \"В работе\" and .story_points == 5 and .assignee == \"petrov\" and .sprint == 3" jstate.json &&
	jq -e "[.issues[].links[]? | select(.type == \"Relates\")] | length == 1" jstate.json &&
	jq -e ".sprints[] | select(.name == \"Спринт 2\") | .goal == \"дальше\" and .state == \"active\" and (.startDate | startswith(\"2026-12-07\"))" jstate.json &&
	jq -e "[.issues[].key] | index(\"AUR-2\") < index(\"AUR-1\")" jstate.json &&
	tool issues "{}" && grep -F "AUR-6" tool.txt && grep -F "Новая из хаба" tool.txt &&
	tool issue "{\"key\":\"AUR-2\"}" && grep -F "В работе" tool.txt && grep -F "AUR-6" tool.txt
'

test_expect_success 'a status Jira has no transition to fails, naming those it has' '
	batch "{\"title\":\"плохой статус\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AUR-2\",\"status\":\"Нет такого\"}]}" && okres 2 &&
	agent_once &&
	hub GET "batches/$(db_query "SELECT MAX(id) FROM tracker_batches")" &&
	jq -r ".batch.commands[0] | .state, .error" hub.json >why &&
	test "$(sed -n 1p why)" = failed &&
	test "$(sed -n 2p why)" = "в Jira у AUR-2 нет перехода в статус «Нет такого»; есть: «Новая», «Готово»" &&
	test "$(jq -r ".batch.commands[1] | .type + \" \" + .state" hub.json)" = "refresh done"
'

printf 'файл для Jira\n' >upload.txt
test_expect_success 'ensure_attachment with a path: the file goes to Jira, the hub keeps no upload' '
	batch "{\"title\":\"файл\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AUR-2\",\"path\":\"$TRASH/upload.txt\"}]}" &&
	okres 2 && agent_once &&
	test "$(commands_of_last_batch)" = "done,done" &&
	jstate &&
	jq -r ".issues[] | select(.key == \"AUR-2\") | .attachments[] | select(.filename == \"upload.txt\") | .bytes_base64" jstate.json | base64 -d >sent &&
	cmp sent upload.txt &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_files")" = 0 &&
	tool issue "{\"key\":\"AUR-2\"}" && grep -F "upload.txt" tool.txt
'

test_expect_success 'ensure_attachment with a file of the hub API: sent to Jira under the name it was uploaded with' '
	hub POST files "{\"name\":\"из API.txt\",\"size\":6}" && test "$STATUS" = 201 &&
	f=$(jq .id hub.json) &&
	hub POST "files/$f/parts" "{\"at\":0,\"data\":\"$(printf "абв" | base64)\"}" && test "$STATUS" = 200 &&
	hub POST batches "{\"project\":\"AURORA\",\"title\":\"файл API\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AUR-2\",\"file\":$f}]}" &&
	test "$STATUS" = 201 && agent_once &&
	test "$(commands_of_last_batch)" = "done,done" &&
	jstate && jq -r ".issues[] | select(.key == \"AUR-2\") | .attachments[] | select(.filename == \"из API.txt\") | .bytes_base64" jstate.json | base64 -d >sent &&
	test "$(cat sent)" = "абв"
'
test_expect_success 'attachment: fetched from Jira by the running agent, bytes equal; a second call queues nothing' '
	agent_bg &&
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31337\",\"wait_seconds\":30}"; } |
		sdlc jira --project AURORA && okres 2 && text 2 >att.txt &&
	path=$(sed -n 1p att.txt) &&
	case "$path" in */downloads/31337/"скрин 1.png") ;; *) false ;; esac &&
	cmp "$path" png.bin &&
	test "$(sed -n 2p att.txt)" = "скрин 1.png (234,4 КБ), image/png, задача AUR-1" &&
	n=$(db_query "SELECT COUNT(*) FROM tracker_commands WHERE type = '"'"'fetch_attachment'"'"'") &&
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31337\"}"; } |
		sdlc jira --project AURORA && okres 2 &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_commands WHERE type = '"'"'fetch_attachment'"'"'")" = "$n"
'

test_expect_success 'attachment: over 10 MB stays in Jira; a hostile name is written cleaned' '
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31338\"}"; } |
		sdlc jira --project AURORA && iserr 2 &&
	text 2 | grep -F "файл больше 10 МБ (25,0 МБ) — скачайте в Jira" &&
	! grep -F "/secure/attachment/31338" jira.log &&
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31339\",\"wait_seconds\":30}"; } |
		sdlc jira --project AURORA && okres 2 && text 2 >att.txt &&
	case "$(sed -n 1p att.txt)" in */downloads/31339/a_b_c_.txt) ;; *) false ;; esac &&
	test "$(cat "$(sed -n 1p att.txt)")" = x
'

test_expect_success 'a redirect is not followed: the fetch fails, nothing is written' '
	fail /rest/api/2/attachment/ redirect &&
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31340\",\"wait_seconds\":30}"; } |
		sdlc jira --project AURORA && iserr 2 && text 2 >att.txt &&
	grep -F "перенаправление (HTTP 302)" att.txt &&
	test ! -e "$TRASH/state/downloads/31340" &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_attachment_contents WHERE attachment_id = 31340")" = 0
'

test_expect_success 'a file larger than Jira said: the fetch fails, no copy is kept' '
	fail /secure/attachment/ oversize &&
	{ echo "$INIT"; call 2 attachment "{\"key\":\"AUR-1\",\"attachment\":\"#31340\",\"wait_seconds\":30}"; } |
		sdlc jira --project AURORA && iserr 2 && text 2 >att.txt &&
	grep -F "больше, чем сказала" att.txt &&
	test ! -e "$TRASH/state/downloads/31340" &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_attachment_contents WHERE attachment_id = 31340")" = 0 &&
	kill "$AGENT" && wait "$AGENT" 2>/dev/null; true
'

test_expect_success 'Jira answering 429: waited out as Retry-After says, retried, counted in agent_status' '
	fail /rest/api/2/search 429 2 2 &&
	refresh_batch && agent_once &&
	test "$(last_command)" = "done|" &&
	grep -c "Jira answers 429 to GET /rest/api/2/search: retrying in 2 s" agent.log >n && test "$(cat n)" = 2 &&
	tool agent_status "{}" && grep -x "429 за сутки: 2" tool.txt
'

for mode in garbage 500 cut; do
test_expect_success "a Jira answering $mode: the refresh fails with a reason, the mirror is as it was" '
	db_query "SELECT GROUP_CONCAT(issue_key, summary, status ORDER BY id) FROM tracker_issues" >before &&
	fail /rest/api/2/search '"$mode"' &&
	refresh_batch && agent_once &&
	last_command >end &&
	case "$(cat end)" in
	failed\|*"ответ — не JSON"*|failed\|*"HTTP 500"*|failed\|*"Jira недоступен"*) ;;
	*) cat end; false ;;
	esac &&
	db_query "SELECT GROUP_CONCAT(issue_key, summary, status ORDER BY id) FROM tracker_issues" >after &&
	cmp before after &&
	tool sync_log "{\"limit\":1}" && grep ", failed, задач: 0, журнал: нет, ошибка: Jira" tool.txt
'
done

test_expect_success 'the agent API refuses what a refresh may not write, and files and parts of other commands' '
	refresh_batch && hub POST agent/claim "{\"module\":\"jira\"}" && C=$(jq .command.id hub.json) &&
	test "$(jq -r .command.type hub.json)" = refresh &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":1,\"issues\":[{\"id\":99,\"key\":\"OTHER-1\",\"summary\":\"x\",\"status\":\"Новая\",\"created\":\"2026-11-01T00:00:00Z\",\"labels\":[\"OTHER\"]}]}" &&
	test "$STATUS" = 422 && jq -e ".error == \"страница обновления не принята: issues[0]: no label AURORA: not of the project this refresh is for\"" hub.json &&
	long=$(printf "%01001d" 0) &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":1,\"issues\":[{\"id\":99,\"key\":\"AUR-99\",\"summary\":\"$long\",\"status\":\"Новая\",\"created\":\"2026-11-01T00:00:00Z\",\"labels\":[\"AURORA\"]}]}" &&
	test "$STATUS" = 422 && jq -e ".error == \"страница обновления не принята: issues[0]: summary is longer than the mirror holds\"" hub.json &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":1,\"more\":{\"key\":\"AUR-3\",\"comments\":[]}}" &&
	test "$STATUS" = 422 && jq -e ".error | contains(\"no issue AUR-3 of the project AURORA\")" hub.json &&
	test "$(db_query "SELECT COUNT(*) FROM tracker_issues WHERE id = 99")" = 0 &&
	hub POST agent/jira_issues "{\"command\":$C,\"issues\":[]}" && test "$STATUS" = 422 &&
	jq -e ".error == \"нужны command (id команды refresh) и handout (handouts из claim)\"" hub.json &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":2,\"issues\":[]}" && test "$STATUS" = 409 &&
	jq -e ".error == \"страница от выдачи 2 не принята: у команды $C сейчас выдача 1\"" hub.json &&
	hub GET "agent/file?command=$C" && test "$STATUS" = 404 &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":1,\"part\":0,\"data\":\"eA==\",\"last\":true}" && test "$STATUS" = 404 &&
	hub POST agent/jira_issues "{\"command\":999999,\"handout\":1,\"issues\":[]}" && test "$STATUS" = 404 &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":1,\"issues\":[]}" "$READ_TOKEN" && test "$STATUS" = 403 &&
	hub POST agent/report "{\"command\":$C,\"handout\":1,\"state\":\"failed\",\"error\":\"t\"}" && test "$STATUS" = 200 &&
	hub POST agent/jira_issues "{\"command\":$C,\"handout\":1,\"issues\":[]}" && test "$STATUS" = 409
'

test_expect_success 'the credentials are in no log: agent, hub, nginx, the loopback Jira, module servers' '
	basic=$(printf "bot:jira-secret-token" | base64) &&
	! grep -rF -e jira-secret-token -e "$basic" agent.log server.log nginx/logs jira.log mcp.stderr mcp-answers.log
'

test_done
