#!/bin/bash
# t6530: what the sdlc hub keeps of its own: notes of an issue (own issues
# and new:<n> of a project batch only, moved to the key the agent makes),
# settings with their version, and the sync log in the local time zone.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json && fm tracker import aurora.json >/dev/null ||
	{ echo "Bail out! fixtures"; exit 1; }

test_expect_success 'notes_set on an own issue: the notes after; the card shows them' '
	{ echo "$INIT"; call 2 notes_set "{\"key\":\"AURORA-9001\",\"goal\":\"Сверить ОСВ\",\"next_step\":\"Выгрузить 60\"}"
	  call 3 notes_set "{\"key\":\"AURORA-9001\",\"goal\":\"\",\"risks\":\"Нет доступа\"}"
	  call 4 issue "{\"key\":\"AURORA-9001\"}"; } | sdlc jira --project AURORA &&
	okres 2 && test "$(text 2)" = "заметки AURORA-9001:
цель: Сверить ОСВ
следующий шаг: Выгрузить 60" &&
	okres 3 && test "$(text 3)" = "заметки AURORA-9001:
следующий шаг: Выгрузить 60
риски: Нет доступа" &&
	text 4 | grep -A2 -x "заметки:" | grep -x "риски: Нет доступа"
'

test_expect_success 'notes_set: a neighbour is refused, so is an empty call; unbound, nothing is sent' '
	{ echo "$INIT"; call 2 notes_set "{\"key\":\"OTHER-5\",\"text\":\"x\"}"; call 3 notes_set "{\"key\":\"AURORA-9003\"}"; } |
		sdlc jira --project AURORA &&
	iserr 2 && test "$(text 2)" = "OTHER-5 не в проекте AURORA" &&
	iserr 3 && test "$(text 3)" = "нет полей заметок: goal, next_step, risks, text" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_notes WHERE issue_key IN (\"OTHER-5\", \"AURORA-9003\")")" = 0 &&
	{ echo "$INIT"; call 2 notes_set "{\"key\":\"AURORA-9001\",\"text\":\"x\"}"; } | sdlc jira &&
	iserr 2 && text 2 | grep "^сессия не привязана к проекту"
'

test_expect_success 'notes on new:1 follow the issue its batch makes; sync_log shows the refresh' '
	{ echo "$INIT"; call 2 sync_log "{}"; } | sdlc jira --project AURORA &&
	test "$(text 2)" = "прогонов обновления ещё не было" &&
	{ echo "$INIT"; call 2 notes_set "{\"key\":\"new:1\",\"next_step\":\"Проверить\"}"
	  call 3 batch_create "{\"title\":\"с заметкой\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Новая с заметкой\"}]}"; } |
		sdlc jira --project AURORA &&
	okres 2 && okres 3 && B=$(text 3 | sed -n "s/^пакет #\([0-9]*\) .*/\1/p") &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN fm agent --module jira --backend local --once 2>agent.log &&
	hub GET "batches/$B" && jq -e ".batch.state == \"done\"" hub.json &&
	{ echo "$INIT"; call 2 issue "{\"key\":\"AURORA-9004\"}"; } | sdlc jira --project AURORA &&
	text 2 | grep -x "следующий шаг: Проверить" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_notes WHERE issue_key LIKE \"%new:%\"")" = 0 &&
	history=$(db_sql "SELECT DATE_FORMAT(history_at, \"%Y-%m-%d %H:%i:%s\") FROM tracker_sync_runs") &&
	db_sql "INSERT INTO tracker_sync_runs (state, issues, started_at, finished_at) VALUES (\"failed\", 0, \"2026-11-30 21:30:00\", \"2026-11-30 21:30:00\")" &&
	{ echo "$INIT"; call 2 sync_log "{}"; } | TZ=Europe/Moscow sdlc jira --project AURORA &&
	okres 2 && text 2 >log.txt &&
	test "$(sed -n 2p log.txt | sed "s/^#[0-9]* //")" = "AURORA, $(TZ=Europe/Moscow date -d "$history UTC" +"%d.%m %H:%M"), done, задач: 1, журнал: принят $(TZ=Europe/Moscow date -d "$history UTC" +"%d.%m %H:%M")" &&
	test "$(sed -n 1p log.txt | sed "s/^#[0-9]* //")" = "все проекты, 01.12 00:30, failed, задач: 0, журнал: нет"
'

test_expect_success 'notes on new:2 follow the key another backend reports for its ensure_issue' '
	{ echo "$INIT"; call 2 notes_set "{\"key\":\"new:2\",\"risks\":\"Сроки\"}"
	  call 3 batch_create "{\"title\":\"чужой бэкенд\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:2\",\"summary\":\"Из Jira\"}]}"; } |
		sdlc jira --project AURORA &&
	okres 2 && okres 3 &&
	hub POST agent/claim "{}" && test "$STATUS" = 200 &&
	jq -e ".command.type == \"ensure_issue\"" hub.json &&
	C=$(jq -r .command.id hub.json) &&
	hub POST agent/report "{\"command\":$C,\"handout\":1,\"state\":\"done\",\"result\":{\"key\":\"AURORA-9100\"}}" &&
	test "$STATUS" = 200 &&
	test "$(db_sql "SELECT HEX(risks) FROM tracker_notes WHERE issue_key = \"AURORA-9100\"")" = \
		"$(printf "Сроки" | od -An -tx1 | tr -d " \n" | tr a-f A-F)" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_notes WHERE issue_key LIKE \"%new:%\"")" = 0
'

test_expect_success 'settings: set raises settings_version by one; get shows values and defaults; refusals' '
	{ echo "$INIT"; call 2 settings_set "{\"key\":\"agent_lease_seconds\",\"value\":\"120\"}"
	  call 3 settings_set "{\"key\":\"jira_url\",\"value\":\"https://jira.example.com\"}"
	  call 4 settings_get "{}"; call 5 settings_get "{\"key\":\"jira_url\"}"
	  call 6 settings_set "{\"key\":\"agent_lease_seconds\",\"value\":\"5\"}"
	  call 7 settings_set "{\"key\":\"colour\",\"value\":\"red\"}"; } | sdlc jira &&
	okres 2 && test "$(text 2)" = "agent_lease_seconds = 120
settings_version: 1" &&
	okres 3 && text 3 | grep -x "settings_version: 2" &&
	okres 4 && test "$(text 4)" = "settings_version: 2
agent_lease_seconds = 120
agent_poll_seconds = 5 (по умолчанию)
jira_page_size = 100 (по умолчанию)
jira_url = https://jira.example.com" &&
	test "$(text 5)" = "settings_version: 2
jira_url = https://jira.example.com" &&
	iserr 6 && test "$(text 6)" = "agent_lease_seconds — целое число от 10 до 3600" &&
	iserr 7 && text 7 | grep "^настройки colour нет; есть: agent_lease_seconds" &&
	hub GET settings && jq -e ".version == 2" hub.json
'

test_done
