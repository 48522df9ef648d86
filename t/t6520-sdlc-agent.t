#!/bin/bash
# t6520: the agent of the sdlc hub: the protocol played with curl (claims in
# batch order, leases and hand-outs, reports and their refusals), then
# `forgemcp agent --module jira --backend local` as a real process: a batch
# made in `forgemcp mcp jira` is executed, batch_wait returns as it ends,
# and the new issue and its link show in issues and in both cards.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json && fm tracker import aurora.json >/dev/null ||
	{ echo "Bail out! fixtures"; exit 1; }

# agent_bg: the agent in the background, its process id in AGENT
agent_bg () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --interval 0.1 >>agent.log 2>&1 &
	AGENT=$!
	test_register_pid "$AGENT"
}
claim () { hub POST agent/claim "${1:-{\}}"; }

test_expect_success 'agent --help; a module or backend it does not have is a usage error' '
	fm agent --help | grep "usage: forgemcp agent --module jira --backend local" &&
	{ fm agent --module wiki --backend local 2>err; test $? = 2; } &&
	grep "agent: the wiki module.s backend is --backend git" err &&
	{ fm agent --module jira --backend git 2>err; test $? = 2; } &&
	grep "agent: the jira module.s backend is --backend local or --backend jira" err &&
	{ fm agent --module jira --backend jira 2>err; test $? = 2; } &&
	grep "agent: the jira backend needs jira_url" err &&
	{ fm agent --module nope --backend local 2>err; test $? = 2; } &&
	grep "agent: --module jira or --module wiki" err
'

test_expect_success 'the protocol: commands of a batch are handed out in order, again after the lease' '
	hub POST batches "{\"title\":\"api\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"Проверка\"}]}" &&
	test "$STATUS" = 201 && B=$(jq .id hub.json) &&
	claim && test "$STATUS" = 200 &&
	jq -e ".command | .batch == $B and .seq == 1 and .type == \"ensure_fields\" and .handouts == 1 and .project == \"AURORA\"" hub.json &&
	C1=$(jq .command.id hub.json) &&
	claim && jq -e ".command == null" hub.json &&
	sleep 1.2 && claim "{\"lease_seconds\":1}" &&
	jq -e ".command.id == $C1 and .command.handouts == 2" hub.json
'

test_expect_success 'reports name their hand-out: the late report of the agent whose lease ran out is refused, the next agent'\''s ends the command' '
	hub POST agent/report "{\"command\":$C1,\"handout\":1,\"state\":\"failed\",\"error\":\"Jira: 500\"}" &&
	test "$STATUS" = 409 &&
	jq -e ".error == \"отчёт от выдачи 1 не принят: команда $C1 выдана заново, сейчас выдача 2\"" hub.json &&
	hub POST agent/report "{\"command\":$C1,\"handout\":3,\"state\":\"done\"}" && test "$STATUS" = 409 &&
	jq -e ".error == \"отчёт от выдачи 3 не принят: у команды $C1 сейчас выдача 2\"" hub.json &&
	for h in "" "\"handout\":0," "\"handout\":\"2\"," "\"handout\":-2,"; do
		hub POST agent/report "{\"command\":$C1,$h\"state\":\"done\"}" && test "$STATUS" = 422 &&
		jq -e ".error == \"нужны command (id команды), handout (handouts из claim) и state: done или failed\"" hub.json ||
		return 1
	done &&
	test "$(db_sql "SELECT state, handouts, error IS NULL FROM tracker_commands WHERE id = $C1")" = "claimed	2	1" &&
	hub POST agent/report "{\"command\":$C1,\"handout\":2,\"state\":\"done\"}" && test "$STATUS" = 200 &&
	test "$(db_sql "SELECT state, error IS NULL FROM tracker_commands WHERE id = $C1")" = "done	1" &&
	hub POST agent/report "{\"command\":$C1,\"handout\":1,\"state\":\"done\"}" && test "$STATUS" = 409 &&
	jq -e ".error == \"команда $C1 не у агента: она done\"" hub.json
'

test_expect_success 'reports: done ends a command and lets the next go; other reports are refused' '
	claim && jq -e ".command.type == \"refresh\" and .command.params == {keys: [\"AURORA-9001\"]}" hub.json &&
	C2=$(jq .command.id hub.json) &&
	hub POST agent/report "{\"command\":$C2,\"handout\":1,\"state\":\"failed\"}" && test "$STATUS" = 422 &&
	jq -e ".error == \"у failed нужна причина: error\"" hub.json &&
	hub POST agent/report "{\"command\":999999,\"handout\":1,\"state\":\"done\"}" && test "$STATUS" = 404 &&
	jq -e ".error == \"команды 999999 нет\"" hub.json &&
	hub POST agent/report "{\"command\":$C2,\"handout\":1,\"state\":\"done\"}" && test "$STATUS" = 200 &&
	hub GET "batches/$B" && jq -e ".batch.state == \"done\"" hub.json
'

test_expect_success 'the local backend'\''s run names its hand-out too: a late one is refused, the next agent'\''s applies the command' '
	hub POST batches "{\"title\":\"поздний\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"Проверка\"}]}" &&
	B=$(jq .id hub.json) && claim "{\"lease_seconds\":1}" && C=$(jq .command.id hub.json) &&
	sleep 1.2 && claim "{\"lease_seconds\":1}" && jq -e ".command.id == $C and .command.handouts == 2" hub.json &&
	hub POST agent/local "{\"command\":$C,\"handout\":1}" && test "$STATUS" = 409 &&
	jq -e ".error == \"запрос от выдачи 1 не принят: команда $C выдана заново, сейчас выдача 2\"" hub.json &&
	hub POST agent/local "{\"command\":$C}" && test "$STATUS" = 422 &&
	jq -e ".error == \"нужны command (id команды) и handout (handouts из claim)\"" hub.json &&
	hub GET issues/AURORA-9001 && jq -e ".issue.status != \"Проверка\"" hub.json &&
	hub POST agent/local "{\"command\":$C,\"handout\":2}" && test "$STATUS" = 200 &&
	jq -e ".state == \"done\"" hub.json &&
	hub GET issues/AURORA-9001 && jq -e ".issue.status == \"Проверка\"" hub.json &&
	claim && jq -e ".command.batch == $B and .command.type == \"refresh\"" hub.json &&
	hub POST agent/report "{\"command\":$(jq .command.id hub.json),\"handout\":1,\"state\":\"done\"}" &&
	test "$STATUS" = 200
'

test_expect_success 'a command handed out five times without a report fails' '
	hub POST batches "{\"title\":\"lost\",\"commands\":[{\"type\":\"refresh\",\"full\":true}]}" && B=$(jq .id hub.json) &&
	for i in 1 2 3 4 5; do claim "{\"lease_seconds\":1}" && jq -e ".command.handouts == $i" hub.json && sleep 1.1 || exit 1; done &&
	claim "{\"lease_seconds\":1}" && jq -e ".command == null" hub.json &&
	hub GET "batches/$B" &&
	jq -e ".batch | .state == \"failed\" and .commands[0].error == \"выдана агенту 5 раз без отчёта\"" hub.json
'

test_expect_success 'batch_cancel: the queued commands cancelled; the one at the agent named, stopped only with force' '
	hub POST batches "{\"title\":\"на отмену\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"A\"},{\"type\":\"ensure_fields\",\"key\":\"AURORA-9001\",\"status\":\"B\"}]}" &&
	B=$(jq .id hub.json) && claim && C=$(jq .command.id hub.json) &&
	jq -e ".command.batch == $B" hub.json &&
	{ echo "$INIT"; call 2 batch_cancel "{\"id\":$B}"; } | sdlc jira --project AURORA &&
	okres 2 && text 2 >cancel.txt &&
	sed -n 1p cancel.txt | grep "^пакет #$B «на отмену» .*: running$" &&
	test "$(sed -n 2,4p cancel.txt | sed "s/^#[0-9]* //")" = "ensure_fields — claimed
ensure_fields — cancelled: отменена: batch_cancel
refresh — cancelled: отменена: batch_cancel" &&
	grep -xF "команда #$C уже у агента и будет выполнена; остановить — \`POST /commands/$C/cancel\` с \`force: true\`" cancel.txt &&
	hub POST "commands/$C/cancel" "{}" && test "$STATUS" = 409 &&
	jq -e ".error == \"команда #$C уже у агента и будет выполнена; остановить — \`POST /commands/$C/cancel\` с \`force: true\`\"" hub.json &&
	hub POST "commands/$C/cancel" "{\"force\":true}" && test "$STATUS" = 200 &&
	hub POST agent/report "{\"command\":$C,\"handout\":1,\"state\":\"done\"}" && test "$STATUS" = 409 &&
	jq -e ".error == \"команда $C не у агента: она cancelled\"" hub.json &&
	hub GET "batches/$B" && jq -e ".batch.state == \"cancelled\"" hub.json &&
	hub POST "commands/$C/cancel" "{\"force\":true}" && test "$STATUS" = 409 &&
	jq -e ".error == \"команда $C уже завершена: cancelled\"" hub.json
'

printf 'ведомость ОСВ по счёту 60: итог за квартал\n' >late.bin
test_expect_success 'parts and the {command, handout, error} name their hand-out: a late one of an agent whose lease ran out is refused, the next agent'\''s file is whole' '
	db_sql "INSERT INTO tracker_attachments (id, issue_id, filename, size, author, created_at)
		VALUES (77001, 9001, \"ведомость.txt\", $(wc -c <late.bin), \"Иванов\", UTC_TIMESTAMP(3))" &&
	hub POST attachments/77001/fetch && test "$STATUS" = 202 &&
	data=$(base64 -w0 late.bin) && p0=${data:0:32} && p1=${data:32} &&
	claim "{\"lease_seconds\":1}" && jq -e ".command.type == \"fetch_attachment\" and .command.handouts == 1" hub.json &&
	C=$(jq .command.id hub.json) &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":1,\"part\":0,\"data\":\"$p0\",\"last\":false}" &&
	test "$STATUS" = 200 &&
	sleep 1.2 && claim "{\"lease_seconds\":1}" && jq -e ".command.id == $C and .command.handouts == 2" hub.json &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":2,\"part\":0,\"data\":\"$p0\",\"last\":false}" &&
	test "$STATUS" = 200 &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":1,\"part\":1,\"data\":\"QUFBQQ==\",\"last\":true}" &&
	test "$STATUS" = 409 &&
	jq -e ".error == \"часть от выдачи 1 не принята: команда $C выдана заново, сейчас выдача 2\"" hub.json &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":3,\"part\":1,\"data\":\"QUFBQQ==\",\"last\":true}" &&
	test "$STATUS" = 409 &&
	jq -e ".error == \"часть от выдачи 3 не принята: у команды $C сейчас выдача 2\"" hub.json &&
	for h in "" "\"handout\":0," "\"handout\":\"2\","; do
		hub POST agent/jira_fetch "{\"command\":$C,$h\"part\":1,\"data\":\"QUFBQQ==\",\"last\":true}" &&
		test "$STATUS" = 422 &&
		jq -e ".error == \"нужны command, handout (handouts из claim) и либо error, либо part (0, 1, …), data (base64) и last\"" hub.json ||
		return 1
	done &&
	hub POST agent/jira_fetch "{\"command\":$C,\"error\":\"Jira: 500\"}" && test "$STATUS" = 422 &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":1,\"error\":\"Jira: 500\"}" && test "$STATUS" = 409 &&
	jq -e ".error == \"отчёт от выдачи 1 не принят: команда $C выдана заново, сейчас выдача 2\"" hub.json &&
	hub GET attachments/77001 && jq -e ".attachment.state == \"fetching\"" hub.json &&
	test "$(db_sql "SELECT GROUP_CONCAT(part ORDER BY part) FROM wiki_upload_parts WHERE command_id = $C")" = 0 &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":2,\"part\":1,\"data\":\"$p1\",\"last\":true}" &&
	test "$STATUS" = 200 && jq -e ".state == \"done\" and .error == null" hub.json &&
	hub GET attachments/77001/content && test "$STATUS" = 200 && cmp hub.json late.bin &&
	hub POST agent/jira_fetch "{\"command\":$C,\"handout\":2,\"part\":0,\"data\":\"$p0\",\"last\":false}" &&
	test "$STATUS" = 409 && jq -e ".error == \"команда $C не у агента: она done\"" hub.json
'

test_expect_success 'the agent runs a batch of forgemcp mcp jira; batch_wait returns as it ends' '
	{ echo "$INIT"; call 2 batch_create "{\"title\":\"Ошибка со связью\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Ошибка ОСВ 60\",\"issue_type\":\"bug\"},{\"type\":\"ensure_link\",\"key\":\"new:1\",\"link_type\":\"Blocks\",\"to\":\"AURORA-9003\"}]}"; } |
		sdlc jira --project AURORA &&
	okres 2 && B=$(text 2 | sed -n "s/^пакет #\([0-9]*\) .*/\1/p") &&
	agent_bg &&
	{ echo "$INIT"; call 2 batch_wait "{\"id\":$B,\"timeout_minutes\":10}"; } | sdlc jira --project AURORA &&
	okres 2 && text 2 >wait.txt &&
	sed -n 1p wait.txt | grep "): done$" &&
	test "$(sed -n 2,4p wait.txt | sed "s/^#[0-9]* //")" = "ensure_issue — done
ensure_link — done
refresh — done" &&
	hub GET "batches/$B" &&
	jq -e ".batch.commands[0] | .state == \"done\"" hub.json &&
	test "$(db_sql "SELECT result FROM tracker_commands WHERE batch_id = $B AND seq = 1")" = "{\"temp_key\":\"new:1\",\"key\":\"AURORA-9004\"}"
'

test_expect_success 'the new issue is in issues with the label; its link shows on both cards' '
	{ echo "$INIT"; call 2 issues "{}"; call 3 issue "{\"key\":\"AURORA-9004\"}"; call 4 issue "{\"key\":\"AURORA-9003\"}"; } |
		sdlc jira --project AURORA &&
	text 2 | grep "^AURORA-9004 | Ошибка ОСВ 60 | Новая | — | — | — | —$" &&
	text 3 | grep -x "метки: AURORA" &&
	text 3 | grep -x "blocks AURORA-9003 «Вторая» (Готово; Blocks)" &&
	text 4 | grep -x "is blocked by AURORA-9004 «Ошибка ОСВ 60» (Новая; Blocks)"
'

test_expect_success 'failures: a sprint command without a board fails; what needs a failed new issue is skipped' '
	hub POST batches "{\"title\":\"no project\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"s\"},{\"type\":\"ensure_fields\",\"key\":\"new:1\",\"status\":\"x\"},{\"type\":\"ensure_sprint\",\"key\":\"AURORA-9001\",\"sprint\":\"S\"}]}" &&
	B=$(jq .id hub.json) &&
	{ echo "$INIT"; call 2 batch_wait "{\"id\":$B,\"timeout_minutes\":1}"; } | sdlc jira --project AURORA &&
	text 2 >wait.txt &&
	sed -n 1p wait.txt | grep "): failed$" &&
	grep "ensure_issue — failed: у пакета нет проекта: ключ новой задачи берётся из метки проекта" wait.txt &&
	grep "ensure_fields — skipped: new:1 не создана: её ensure_issue не выполнен" wait.txt &&
	grep "ensure_sprint — failed: у ensure_sprint нет board_id: его добавляет хаб в пакет проекта с доской" wait.txt &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_issues")" = 5
'

test_expect_success 'refresh: a line with the batch; with wait, its result; unbound, refused' '
	{ echo "$INIT"; call 2 refresh "{\"keys\":[\"AURORA-9001\"]}"; call 3 refresh "{\"full\":true,\"wait\":true}"
	  call 4 refresh "{}"; call 5 batch_wait "{\"id\":1,\"timeout_minutes\":61}"; } | sdlc jira --project AURORA &&
	okres 2 && text 2 | grep -x "пакет обновления #[0-9]* поставлен" &&
	okres 3 && text 3 | sed -n 1p | grep "«полное обновление» (проект AURORA, автор claude, .*): done$" &&
	iserr 4 && test "$(text 4)" = "нужен либо keys, либо full: true" &&
	iserr 5 && text 5 | grep timeout_minutes &&
	{ echo "$INIT"; call 2 refresh "{\"full\":true}"; } | sdlc jira &&
	iserr 2 && text 2 | grep "^сессия не привязана к проекту"
'

test_expect_success 'command_retry: a new batch of the command; another project'"'"'s or none is refused' '
	{ echo "$INIT"; call 2 command_retry "{\"id\":$C1}"; } | sdlc jira --project AURORA &&
	okres 2 && B=$(text 2 | sed -n "s/^пакет #\([0-9]*\) поставлен: команд — 2, .*/\1/p") && test -n "$B" &&
	hub GET "batches/$B" &&
	jq -e ".batch | .title == \"повтор команды $C1\" and .author == \"claude\" and .commands[0].params == {key: \"AURORA-9001\", status: \"Проверка\"}" hub.json &&
	S=$(db_sql "SELECT c.id FROM tracker_commands c JOIN tracker_batches b ON b.id = c.batch_id WHERE b.project_id IS NULL AND c.type = \"ensure_sprint\"") &&
	{ echo "$INIT"; call 2 command_retry "{\"id\":$S}"; call 3 command_retry "{\"id\":999999}"; } | sdlc jira --project AURORA &&
	iserr 2 && test "$(text 2)" = "команда $S из пакета без проекта: в сессии проекта AURORA её не повторить" &&
	iserr 3 && test "$(text 3)" = "команды 999999 нет" &&
	{ echo "$INIT"; call 2 command_retry "{\"id\":$C1}"; } | sdlc jira &&
	iserr 2 && text 2 | grep "^сессия не привязана к проекту"
'

test_expect_success 'SIGTERM stops the agent' '
	kill -TERM "$AGENT" && wait_for 10 eval "! kill -0 $AGENT 2>/dev/null"
'

test_done
