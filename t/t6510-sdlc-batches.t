#!/bin/bash
# t6510: batches of the sdlc hub: batch_create through `forgemcp mcp jira`
# (the project's label added, the board set, the trailing refresh, the
# estimate in minutes), every refusal of a project batch with its text and
# nothing stored, the description generated from the hub's registry,
# batch_status and batches, and the hub API behind them.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json && fm tracker import aurora.json >/dev/null &&
hub POST projects '{"label":"OTHER","name":"Другой"}' && test "$STATUS" = 201 ||
	{ echo "Bail out! fixtures"; exit 1; }

# batch TITLE COMMANDS_JSON: batch_create in a session bound to AURORA
batch () {
	{ echo "$INIT"; call 2 batch_create "$(jq -nc --arg t "$1" --argjson c "$2" '{title: $t, commands: $c}')"; } |
		sdlc jira --project AURORA
}
batches_stored () { db_sql "SELECT COUNT(*) FROM tracker_batches"; }

test_expect_success 'batch_create: the label of the project added, the trailing refresh, the estimate in minutes' '
	batch "Новая ошибка" "[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Ошибка ОСВ 60\",\"issue_type\":\"bug\"}]" &&
	okres 2 && id=$(text 2 | sed -n "s/^пакет #\([0-9]*\) поставлен: .*/\1/p") && test -n "$id" &&
	test "$(text 2)" = "пакет #$id поставлен: команд — 2, оценка — 1 мин (estimate_seconds 50)" &&
	hub GET "batches/$id" && test "$STATUS" = 200 &&
	jq -e ".batch | .project == \"AURORA\" and .author == \"claude\" and .state == \"queued\" and
		[.commands[] | .type] == [\"ensure_issue\", \"refresh\"] and
		.commands[0].params == {temp_key: \"new:1\", summary: \"Ошибка ОСВ 60\", issue_type: \"bug\", labels: [\"AURORA\"]} and
		.commands[1].params == {keys: [\"new:1\"]} and .estimate_seconds == 50" hub.json
'

test_expect_success 'three commands make a batch of four; the sprint and story points get the board' '
	batch "1538 в спринт 2" "[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"Готово\",\"story_points\":5},
		{\"type\":\"ensure_link\",\"key\":\"AURORA-9001\",\"link_type\":\"Relates\",\"to\":\"OTHER-6\",\"direction\":\"outward\"},
		{\"type\":\"ensure_sprint\",\"key\":\"AURORA-9003\",\"sprint\":\"Спринт 2\"}]" &&
	okres 2 && text 2 | grep "команд — 4, оценка — 1 мин (estimate_seconds 60)" &&
	id=$(text 2 | sed -n "s/^пакет #\([0-9]*\) .*/\1/p") &&
	hub GET "batches/$id" &&
	jq -e ".batch.commands | [.[].type] == [\"ensure_fields\", \"ensure_link\", \"ensure_sprint\", \"refresh\"] and
		.[0].params.board_id == 5120 and .[2].params.board_id == 5120 and (.[1].params | has(\"board_id\") | not) and
		.[3].params == {keys: [\"AURORA-9001\", \"OTHER-6\", \"AURORA-9003\"]}" hub.json
'

test_expect_success 'refusals of a project batch say why and store nothing' '
	before=$(batches_stored) &&
	batch t "[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"s\",\"labels\":[\"OTHER\"]}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (ensure_issue): OTHER — метка другого проекта; метки других проектов запрещены" &&
	batch t "[{\"type\":\"ensure_fields\",\"key\":\"OTHER-5\",\"status\":\"x\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (ensure_fields): задача OTHER-5 не в проекте AURORA; команды над задачами вне проекта отклоняются" &&
	batch t "[{\"type\":\"ensure_fields\",\"key\":\"new:3\",\"status\":\"x\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (ensure_fields): временный ключ new:3 не задан выше в этом пакете (ensure_issue с temp_key)" &&
	batch t "[{\"type\":\"ensure_everything\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1: неизвестный тип «ensure_everything»; типы — в описании batch_create" &&
	batch t "[{\"type\":\"refresh\",\"full\":true},{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"colour\":\"red\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #2 (ensure_fields): неизвестный параметр colour" &&
	batch t "[{\"type\":\"ensure_issue\",\"summary\":\"s\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (ensure_issue): нет обязательного параметра temp_key" &&
	batch t "[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"due\":\"завтра\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (ensure_fields): due — дата ГГГГ-ММ-ДД" &&
	batch t "[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-9001\",\"file\":1,\"path\":\"/etc/passwd\"}]" &&
	iserr 2 && test "$(text 2)" = "у ensure_attachment либо path, либо file" &&
	batch t "[{\"type\":\"refresh\"}]" &&
	iserr 2 && test "$(text 2)" = "команда #1 (refresh): нужен либо keys, либо full" &&
	test "$(batches_stored)" = "$before"
'

test_expect_success 'unbound, batch_create is refused and nothing reaches the hub' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 batch_create "{\"title\":\"t\",\"commands\":[{\"type\":\"refresh\",\"full\":true}]}"; } | sdlc jira &&
	iserr 2 && test "$(text 2)" = "сессия не привязана к проекту: запустите MCP с --project <метка> (список — projects)" &&
	! grep "/hub/" "$NGINX_DIR/logs/access.log"
'

test_expect_success 'the hub API: a batch without an author is the api user'"'"'s; without a project no label is added' '
	hub POST batches "{\"title\":\"из API\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"s\"}]}" &&
	test "$STATUS" = 201 && id=$(jq .id hub.json) &&
	jq -e ".project == null and .commands == 2 and .estimate_seconds == 50" hub.json &&
	hub GET "batches/$id" &&
	jq -e ".batch | .author == \"api\" and .project == null and (.commands[0].params | has(\"labels\") | not)" hub.json &&
	hub POST batches "{\"title\":\"t\",\"project\":\"NOPE\",\"commands\":[{\"type\":\"refresh\",\"full\":true}]}" &&
	test "$STATUS" = 404 && jq -e ".error == \"проект NOPE не заведён в хабе\"" hub.json &&
	hub GET batches/999999 && test "$STATUS" = 404 && jq -e ".error == \"пакета 999999 нет\"" hub.json &&
	hub GET batches/x1 && test "$STATUS" = 404
'

test_expect_success 'batch_status shows each command; batches lists the project'"'"'s, or all unbound' '
	hub GET "batches?project=AURORA" && id=$(jq ".batches[] | select(.title == \"Новая ошибка\") | .id" hub.json) &&
	{ echo "$INIT"; call 2 batch_status "{\"id\":$id}"; call 3 batches "{}"; } | sdlc jira --project AURORA &&
	okres 2 && text 2 >status.txt &&
	sed -n 1p status.txt | grep "^пакет #$id «Новая ошибка» (проект AURORA, автор claude, создан [0-9][0-9]\.[0-9][0-9] [0-9][0-9]:[0-9][0-9]): queued$" &&
	test "$(sed -n 2,3p status.txt | sed "s/^#[0-9]* //")" = "ensure_issue — queued
refresh — queued" &&
	test "$(sed -n 4p status.txt)" = "оценка остатка: 1 мин" &&
	okres 3 && test "$(text 3 | sed -n 1p)" = "id | проект | название | состояние | команд | создан" &&
	test "$(text 3 | sed 1d | cut -d"|" -f2 | sort -u)" = " AURORA " &&
	{ echo "$INIT"; call 3 batches "{}"; } | sdlc jira &&
	text 3 | grep "| — | из API | queued | 2 |"
'

test_expect_success 'hostile input to the hub API: answered with a reason, nothing stored, the workers survive' '
	before=$(batches_stored) &&
	hub GET "issues?project=AURORA&text=%27%20OR%201%3D1--" && test "$STATUS" = 200 &&
	jq -e ".issues == []" hub.json &&
	hub GET "issues?project=AURORA%00x" && test "$STATUS" = 400 &&
	hub GET "issues/..%2F..%2Fetc%2Fpasswd" && test "$STATUS" = 404 &&
	hub GET "issues?project=$(printf "%02000d" 0)" && test "$STATUS" = 400 &&
	deep=$(printf "%0300d" 0 | sed "s/0/[/g") &&
	hub POST batches "{\"title\":\"t\",\"commands\":$deep}" && test "$STATUS" = 400 &&
	many=$(jq -nc "[range(60) | {type: \"refresh\", full: true}]") &&
	hub POST batches "{\"title\":\"t\",\"commands\":$many}" && test "$STATUS" = 422 &&
	jq -e ".error == \"в пакете 60 команд, а можно не больше 50 вместе с хвостовым refresh\"" hub.json &&
	printf "{\"title\":\"\\xff\xfe\",\"commands\":[]}" >bad-utf8.json &&
	STATUS=$(curl -sS -o hub.json -w "%{http_code}" -H "Authorization: Bearer $ANN_TOKEN" -H "Content-Type: application/json" --data-binary @bad-utf8.json "$BASE_URL/hub/batches") &&
	test "$STATUS" = 400 &&
	hub POST batches "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"s\",\"labels\":[\"a b\"]}]}" &&
	test "$STATUS" = 422 && jq -e ".error == \"команда #1 (ensure_issue): labels — список меток\"" hub.json &&
	long=a$(printf "%0400d" 0 | sed "s/0/я/g") &&
	hub POST batches "{\"title\":\"t\",\"commands\":[{\"type\":\"$long\"}]}" &&
	test "$STATUS" = 422 &&
	jq -e ".error | startswith(\"команда #1: неизвестный тип «aяяя\") and endswith(\"я\")" hub.json &&
	test "$(batches_stored)" = "$before" &&
	hub GET projects && test "$STATUS" = 200
'

test_expect_success 'the description of batch_create is the hub registry, every type and parameter' '
	{ echo "$INIT"; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"; } | sdlc jira --project AURORA &&
	jq -s -r ".[] | select(.id == 2) | .result.tools[] | select(.name == \"batch_create\") | .description" out >desc.txt &&
	hub GET commands && test "$STATUS" = 200 &&
	jq -r ".commands[] | \"- \" + .type + \":\" + ([.params[] | \" \" + (if .required then .name + \": \" + .format else \"[\" + .name + \": \" + .format + \"]\" end)] | join(\",\"))" hub.json >registry.txt &&
	test "$(wc -l <registry.txt)" = 9 &&
	while IFS= read -r line; do grep -qxF -- "$line" desc.txt || { echo "not in the description: $line"; exit 1; }; done <registry.txt &&
	grep -F "Метку проекта сессии хаб дописывает в ensure_issue сам; метки других проектов запрещены; команды над задачами вне проекта отклоняются" desc.txt &&
	grep -F "board_id для ensure_sprint, ensure_sprint_meta, ensure_sprint_state и ensure_fields со story_points выставляет хаб" desc.txt &&
	grep -F "В конец пакета хаб добавляет refresh" desc.txt &&
	grep -F -- "- ensure_issue: temp_key: new:<n>, summary: текст, [issue_type: текст]" desc.txt
'

test_done
