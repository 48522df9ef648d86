#!/bin/bash
# t6540: agent_status of `forgemcp mcp jira`, with the agent played by curl:
# online and the commands handed out again, a published version and a
# rollback, the launcher before and after a restart of the hub, 429s of
# the last day, the settings version; and what `forgemcp agent` reports.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json && fm tracker import aurora.json >/dev/null ||
	{ echo "Bail out! fixtures"; exit 1; }

claim () { hub POST agent/claim "${1:-{\}}"; }
status () {
	{ echo "$INIT"; call 2 agent_status "{}"; } | sdlc jira &&
	okres 2 && text 2 >status.txt
}

test_expect_success 'before any claim: offline, never seen, no publication, the launcher unknown' '
	status &&
	test "$(cat status.txt)" = "агент офлайн: ещё не выходил на связь
текущей команды нет
довыданных команд нет
429 за сутки: 0
версия настроек: неизвестна (в хабе: 0)
публикации нет
запускатель: неизвестно (агент ещё не выходил на связь после перезапуска хаба)"
'

test_expect_success 'a command handed out twice without a report: online, and its line with the count 2' '
	hub POST batches "{\"title\":\"t\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"x\"}]}" &&
	claim "{\"version\":\"6\",\"launcher\":\"1\",\"lease_seconds\":1}" && C=$(jq .command.id hub.json) &&
	sleep 1.1 && claim "{\"version\":\"6\",\"launcher\":\"1\",\"lease_seconds\":1}" &&
	jq -e ".command.id == $C and .command.handouts == 2" hub.json &&
	status &&
	sed -n 1p status.txt | grep "^агент онлайн: jira v6, последний запрос [0-9][0-9]\.[0-9][0-9] [0-9][0-9]:[0-9][0-9]$" &&
	grep -x "текущая команда: #$C ensure_fields, пакет [0-9]*" status.txt &&
	grep -x "довыданные команды:" status.txt &&
	grep -x "#$C ensure_fields — выдана 2 раза" status.txt &&
	grep -x "запускатель: v1" status.txt
'

test_expect_success 'v7 published, v6 under launcher v1 rolled back: publication, update, rollback, launcher' '
	hub POST agent/publish "{\"version\":\"7\"}" && test "$STATUS" = 200 &&
	hub POST agent/publish "{\"version\":\"v7; drop\"}" && test "$STATUS" = 422 &&
	claim "{\"version\":\"6\",\"launcher\":\"1\",\"update_state\":\"rolled_back\",\"update_target\":\"7\",\"update_error\":\"v7 не прошла проверку\",\"rate_limited\":3}" &&
	claim "{\"version\":\"6\",\"launcher\":\"1\",\"update_state\":\"rolled_back\",\"update_target\":\"7\",\"update_error\":\"v7 не прошла проверку\",\"rate_limited\":2}" &&
	status &&
	grep "^публикация: v7 от [0-9][0-9]\.[0-9][0-9] [0-9][0-9]:[0-9][0-9]$" status.txt &&
	grep -x "обновление: rolled_back v6 → v7" status.txt &&
	grep -x "откат с v7 на v6: v7 не прошла проверку" status.txt &&
	grep -x "запускатель: v1" status.txt &&
	grep -x "429 за сутки: 5" status.txt
'

test_expect_success 'after a restart of the hub, before a claim: the launcher is unknown, nothing else is said of it' '
	restart_server &&
	status &&
	grep -x "запускатель: неизвестно (агент ещё не выходил на связь после перезапуска хаба)" status.txt &&
	! grep "без запускателя" status.txt && ! grep "агент запущен без run.py" status.txt
'

test_expect_success 'an agent without a launcher; the settings version it runs with' '
	{ echo "$INIT"; call 2 settings_set "{\"key\":\"agent_poll_seconds\",\"value\":\"3\"}"; } | sdlc jira &&
	claim "{\"version\":\"6\",\"settings_version\":1}" &&
	status &&
	grep -x "без запускателя" status.txt && grep -x "агент запущен без run.py: обновлять его некому" status.txt &&
	grep -x "версия настроек: 1 (в хабе: 1)" status.txt && ! grep "^обновление:" status.txt
'

test_expect_success 'forgemcp agent reports its version and the launcher of FORGEMCP_AGENT_LAUNCHER' '
	FORGEMCP_AGENT_LAUNCHER=2 FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		fm agent --module jira --backend local --once 2>agent.log &&
	status &&
	sed -n 1p status.txt | grep "^агент онлайн: jira v$(fm --version | sed -n "s/^forgemcp //p"), " &&
	grep -x "запускатель: v2" status.txt
'

test_done
