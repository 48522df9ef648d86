#!/bin/bash
# t6500: the sdlc hub's tracker mirror: the hub API under /hub/ (through
# nginx), `forgemcp tracker import`, and `forgemcp mcp jira` as a real stdio
# process: start-up texts, project binding, the hub down, projects,
# project_create, issues, the issue card and a whole comment, byte for byte.
. ./test-lib.sh

start_all
ANN_TOKEN=
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) &&
ANN_READ=$(make_token ann read) || { echo "Bail out! fixtures"; exit 1; }

. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json || { echo "Bail out! fixture file"; exit 1; }

test_expect_success 'forgemcp mcp without a module, or an unknown one: exit 2 and the modules' '
	{ "$FORGEMCP" mcp 2>err </dev/null; test $? = 2; } &&
	grep -x "модуля по умолчанию больше нет: укажите модуль, sdlc-hub mcp <модуль> \[--project <метка>\]" err &&
	grep -x "модули: jira, wiki" err &&
	{ "$FORGEMCP" mcp --project AWPCA 2>err </dev/null; test $? = 2; } &&
	grep "модуля по умолчанию больше нет" err &&
	{ "$FORGEMCP" mcp nope 2>err </dev/null; test $? = 2; } &&
	grep -x "неизвестный модуль nope" err && grep -x "модули: jira, wiki" err
'

test_expect_success 'tracker import loads the fixture in one transaction; a bad one loads nothing' '
	fm tracker import aurora.json >import.out &&
	test "$(cat import.out)" = "imported 1 projects and 4 issues" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_comments")" = 7 &&
	echo "{\"issues\":[{\"id\":77,\"key\":\"BAD-1\",\"summary\":\"s\",\"status\":\"s\",\"created\":\"2026-11-01T10:00:00Z\"},{\"id\":78,\"key\":\"BAD-2\",\"summary\":\"s\",\"status\":\"s\",\"created\":\"yesterday\"}]}" >bad.json &&
	test_must_fail fm tracker import bad.json 2>err &&
	grep "issues\[1\]: id, key, summary, status and created" err &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_issues WHERE issue_key LIKE \"BAD-%\"")" = 0
'

test_expect_success 'hub API: projects with the count of own issues; a token is required' '
	hub GET projects && test "$STATUS" = 200 &&
	jq -e ".projects == [{label: \"AURORA\", name: \"Аврора\", board_id: 5120, board_type: null, own_issues: 2}]" hub.json &&
	hub GET projects "" "" && test "$STATUS" = 401
'

test_expect_success 'hub API: issues of a project are its own and its neighbours, newest first' '
	hub GET "issues?project=AURORA" && test "$STATUS" = 200 &&
	jq -e "[.issues[] | [.key, .own]] == [[\"AURORA-9001\", true], [\"AURORA-9003\", true], [\"OTHER-5\", false]] and .truncated == false" hub.json &&
	hub GET "issues?project=AURORA&limit=1" &&
	jq -e "(.issues | length) == 1 and .truncated == true" hub.json &&
	hub GET "issues?project=AURORA&status=%D0%93%D0%BE%D1%82%D0%BE%D0%B2%D0%BE" &&
	jq -e "[.issues[].key] == [\"AURORA-9003\"]" hub.json &&
	hub GET "issues?project=AURORA&text=%D0%BE%D1%81%D0%B2" &&
	jq -e "[.issues[].key] == [\"AURORA-9001\"]" hub.json &&
	hub GET "issues?project=AURORA&text=%25" && jq -e ".issues == []" hub.json &&
	hub GET "issues?project=AURORA&text=_" && jq -e ".issues == []" hub.json
'

test_expect_success 'hub API refusals say why, with the status a client branches on' '
	hub GET issues && test "$STATUS" = 422 &&
	jq -e ".error == \"укажите project: метку проекта\"" hub.json &&
	hub GET "issues?project=NOPE" && test "$STATUS" = 404 &&
	jq -e ".error == \"проект NOPE не заведён в хабе\"" hub.json &&
	hub GET "issues?project=AURORA&limit=0" && test "$STATUS" = 422 &&
	jq -e ".error == \"limit — целое число от 1 до 500, а не «0»\"" hub.json &&
	hub GET issues/NOPE-1 && test "$STATUS" = 404 &&
	jq -e ".error == \"задачи NOPE-1 нет в зеркале: проверьте ключ или обновите зеркало (refresh)\"" hub.json &&
	hub GET nothing && test "$STATUS" = 404 &&
	jq -e ".error == \"в API хаба нет GET /hub/nothing\"" hub.json &&
	hub POST projects "{\"label\":\"X\",\"name\":\"x\"}" "$ANN_READ" && test "$STATUS" = 403 &&
	jq -e ".error == \"токену нужна область write\"" hub.json &&
	hub POST projects "{\"label\":\"lower\",\"name\":\"x\"}" && test "$STATUS" = 422 &&
	jq -e ".error | startswith(\"метка проекта — заглавные латинские буквы\")" hub.json &&
	hub POST projects "{\"label\":" && test "$STATUS" = 400 &&
	jq -e ".error | startswith(\"тело запроса — не JSON-объект\")" hub.json &&
	hub PUT projects "{}" && test "$STATUS" = 405 &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_projects")" = 1
'

test_expect_success 'hub API: the issue with fields, labels, both sides of its links and comments' '
	hub GET issues/AURORA-9001 && test "$STATUS" = 200 &&
	jq -e ".issue | .key == \"AURORA-9001\" and .labels == [\"AURORA\"] and .comment_count == 7 and
		.fields == [{name: \"Компонент\", value: \"Отчёты\"}] and
		.links == [{type: \"Blocks\", direction: \"blocks\", side: \"outward\", key: \"OTHER-5\", summary: \"Соседняя задача\", status: \"Новая\"}] and
		[.comments[].id] == [107, 106, 105, 104, 103, 102, 101]" hub.json &&
	hub GET issues/OTHER-5 &&
	jq -e ".issue.links == [{type: \"Blocks\", direction: \"is blocked by\", side: \"inward\", key: \"AURORA-9001\", summary: (\"Отчёт ОСВ по счёту 60 \" * 5), status: \"В работе\"}]" hub.json
'

test_expect_success 'mcp jira: initialize names sdlc-jira; tools/list is the snapshot t/sdlc-jira-tools.json' '
	{ echo "$INIT"; echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"; } | sdlc jira --project AURORA &&
	test "$(wc -l <out)" = 2 &&
	answer 1 ".result.serverInfo.name == \"sdlc-jira\" and .result.protocolVersion == \"2025-06-18\"" &&
	jq -s -S ".[] | select(.id == 2) | .result.tools" out >tools.json &&
	if test "${TEST_UPDATE_SNAPSHOT:-}" = 1; then cp tools.json "$TEST_DIRECTORY/sdlc-jira-tools.json"; fi &&
	test_cmp "$TEST_DIRECTORY/sdlc-jira-tools.json" tools.json &&
	jq -e "[.[] | [.name, .annotations.readOnlyHint]] == [[\"projects\", true], [\"project_create\", false], [\"issues\", true], [\"issue\", true], [\"comment\", true], [\"changes\", true], [\"attachment\", false], [\"sprints\", true], [\"sprint\", true], [\"backlog\", true], [\"batch_create\", false], [\"batch_status\", true], [\"batches\", true], [\"batch_wait\", true], [\"refresh\", false], [\"batch_cancel\", false], [\"command_retry\", false], [\"notes_set\", false], [\"settings_get\", true], [\"settings_set\", false], [\"sync_log\", true], [\"agent_status\", true]]" tools.json
'

test_expect_success 'mcp jira: issues is the table of own issues and neighbours, summaries cut at 80' '
	{ echo "$INIT"; call 2 issues "{}"; call 3 issues "{\"status\":\"Готово\"}"; } | sdlc jira --project AURORA &&
	okres 2 &&
	text 2 >issues.txt &&
	printf "%s\n" "ключ | тема | статус | срок | исполнитель | спринт | SP" \
		"AURORA-9001 | Отчёт ОСВ по счёту 60 Отчёт ОСВ по счёту 60 Отчёт ОСВ по счёту 60 Отчёт ОСВ по с… | В работе | 20.12 | Иванов | Спринт 2 | 3" \
		"AURORA-9003 | Вторая | Готово | — | — | — | —" \
		"OTHER-5 | Соседняя задача | Новая | — | — | — | —" >expect &&
	test_cmp expect issues.txt &&
	test "$(text 3 | sed -n 2p | cut -d" " -f1)" = AURORA-9003
'

test_expect_success 'mcp jira: the card shows 5 comments of 7, newest first, cut at 300 with …, then ещё 2; none: комментариев нет' '
	{ echo "$INIT"; call 2 issue "{\"key\":\"AURORA-9001\"}"; call 3 issue "{\"key\":\"AURORA-9003\"}"; } |
		sdlc jira --project AURORA &&
	okres 2 && text 2 >card.txt &&
	text 3 | grep -x "комментариев нет" && ! text 3 | grep "ещё" &&
	grep -x "комментарии (7):" card.txt &&
	grep -x "#107 Сидоров, 08.11 15:45" card.txt &&
	grep -x "$(printf "%0300d" 0 | sed "s/0/я/g")…" card.txt &&
	grep -x "ещё 2" card.txt &&
	test "$(grep -c "^#10[0-9] " card.txt)" = 5 &&
	! grep "^#101 " card.txt &&
	grep -x "blocks OTHER-5 «Соседняя задача» (Новая; Blocks)" card.txt &&
	grep -x "Компонент: Отчёты" card.txt
'

test_expect_success 'mcp jira: comment gives one comment whole; a missing number says so' '
	{ echo "$INIT"; call 2 comment "{\"key\":\"AURORA-9001\",\"comment_id\":\"101\"}"
	  call 3 comment "{\"key\":\"AURORA-9001\",\"comment_id\":\"#107\"}"
	  call 4 comment "{\"key\":\"AURORA-9001\",\"comment_id\":\"999\"}"; } | sdlc jira --project AURORA &&
	okres 2 && text 2 >c101.txt &&
	{ echo "AURORA-9001 #101 Петров, создан 01.11 12:00"; printf "%s\n" "$C101"; } >expect &&
	test_cmp expect c101.txt &&
	test "$(text 3 | sed -n 1p)" = "AURORA-9001 #107 Сидоров, создан 08.11 15:45, изменён 09.11 08:00" &&
	test "$(text 3 | sed -n 2p)" = "$LONG" &&
	iserr 4 && test "$(text 4)" = "у AURORA-9001 нет комментария #999"
'

test_expect_success 'mcp jira without --project: issues refused, nothing sent to the hub; projects works' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 issues "{}"; call 3 issue "{\"key\":\"AURORA-9001\"}"; call 4 projects "{}"; } | sdlc jira &&
	iserr 2 && test "$(text 2)" = "сессия не привязана к проекту: запустите MCP с --project <метка> (список — projects)" &&
	iserr 3 && test "$(text 3)" = "$(text 2)" &&
	okres 4 && test "$(text 4)" = "метка | название | доска | тип доски | своих задач
AURORA | Аврора | 5120 | неизвестен | 2" &&
	! grep "/hub/issues" "$NGINX_DIR/logs/access.log" &&
	grep "GET /hub/projects" "$NGINX_DIR/logs/access.log"
'

test_expect_success 'mcp jira --project with a label the hub lacks: the binding refusal; projects works' '
	{ echo "$INIT"; call 2 issues "{}"; call 3 projects "{}"; } | sdlc jira --project STOKS &&
	iserr 2 && test "$(text 2)" = "проект STOKS не заведён в хабе: project_create или исправьте --project в .mcp.json" &&
	okres 3 &&
	grep -q "GET /hub/projects/STOKS HTTP/1.1\" 404" "$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 issues "{\"limit\":1}"; } | sdlc jira --project "A/../B" &&
	iserr 2 && test "$(text 2)" = "проект A/../B не заведён в хабе: project_create или исправьте --project в .mcp.json" &&
	! grep -q "/hub/projects/A" "$NGINX_DIR/logs/access.log" &&
	hub GET projects/AURORA && test "$STATUS" = 200 &&
	jq -e ".project.label == \"AURORA\" and .project.board_id == 5120 and .project.own_issues == 2" hub.json &&
	hub GET projects/aurora && test "$STATUS" = 404 &&
	hub POST projects/AURORA "{}" && test "$STATUS" = 405 &&
	{ echo "$INIT"; call 2 projects "{}"; } | sdlc jira --project AURORA &&
	text 2 | grep -x "AURORA (текущий) | Аврора | 5120 | неизвестен | 2"
'

test_expect_success 'mcp jira with the hub down: one line, and the server goes on answering' '
	HUB_URL=http://127.0.0.1:$(free_port)/hub &&
	{ echo "$INIT"; call 2 issues "{}"; call 3 projects "{}"; echo "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"; } |
		sdlc jira --project AURORA &&
	HUB_URL=$BASE_URL/hub &&
	iserr 2 && test "$(text 2)" = "хаб не запущен: sdlc-hub serve" &&
	iserr 3 && test "$(text 3)" = "хаб не запущен: sdlc-hub serve" &&
	answer 4 ".result == {}"
'

test_expect_success 'project_create from an unbound session: the batch id and a .mcp.json fragment without a token' '
	{ echo "$INIT"; call 2 project_create "{\"label\":\"STOCKS_DRRK\",\"name\":\"Запасы ДРРК\",\"board_id\":5120}"
	  call 3 project_create "{\"label\":\"STOCKS_DRRK\",\"name\":\"Запасы ДРРК\"}"; } | sdlc jira &&
	okres 2 && text 2 >created.txt &&
	batch=$(db_sql "SELECT b.id FROM tracker_batches b JOIN tracker_projects p ON p.id = b.project_id WHERE p.label = \"STOCKS_DRRK\"") &&
	grep -x "id пакета обновления: $batch" created.txt &&
	grep -x "проект STOCKS_DRRK «Запасы ДРРК» заведён, доска 5120" created.txt &&
	sed -n "/^фрагмент .mcp.json:$/{n;p;}" created.txt >frag.json &&
	jq -e ".mcpServers[\"sdlc-jira\"] | .command == \"$FORGEMCP\" and .args == [\"mcp\", \"jira\", \"--project\", \"STOCKS_DRRK\"]" frag.json &&
	grep "\"--project\",\"STOCKS_DRRK\"" frag.json &&
	! grep -F "$ANN_TOKEN" created.txt && ! grep -i token frag.json &&
	test "$(db_sql "SELECT CONCAT(b.author, \" \", c.type, \" \", c.state, \" \", c.params) FROM tracker_commands c JOIN tracker_batches b ON b.id = c.batch_id WHERE b.id = $batch")" = "claude refresh queued {\"project\":\"STOCKS_DRRK\"}" &&
	iserr 3 && test "$(text 3)" = "проект STOCKS_DRRK уже заведён в хабе" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_batches")" = 1
'

test_expect_success 'mcp jira: arguments outside the schema are refused before the hub is asked' '
	{ echo "$INIT"; call 2 issue "{}"; call 3 comment "{\"key\":\"AURORA-9001\",\"comment_id\":\"x1\"}"
	  call 4 nope "{}"; } | sdlc jira --project AURORA &&
	iserr 2 && text 2 | grep "key" &&
	iserr 3 && text 3 | grep "comment_id" &&
	answer 4 ".error.code == -32602"
'

test_done
