#!/bin/bash
# t6570: a project's board: sprints, sprint and backlog in `forgemcp mcp
# jira` from GET /hub/agile (a board's sprints and columns loaded by
# `forgemcp tracker import`), and the local agent's ensure_sprint_meta,
# ensure_sprint, ensure_sprint_state, ensure_rank and story points, queued
# by batch_create with the board the hub adds.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

jq -n '
def issue(n; status; sprint; sp; rank): {id: n, key: ("AWPCA-" + (n | tostring)),
  summary: ("Задача " + (n | tostring)), status: status, sprint: sprint, story_points: sp,
  rank: rank, assignee: "Иванов", created: "2026-10-01T10:00:00Z", labels: ["AWPCA"]};
{
  projects: [
    {label: "AWPCA", name: "АВП", board_id: 77,
     sprints: ([{name: "AWPCA_Sprint_3_Corrections", state: "active", start: "2026-10-01",
                 end: "2026-10-14", goal: "исправления"},
                {name: "AWPCA_Sprint_4", state: "future", start: "2026-10-15", end: "2026-10-28"}]
               + [range(1; 13) | {name: ("S" + tostring), state: "closed",
                 start: "2026-01-01", end: ("2026-0" + (if . < 10 then tostring else "9" end)
                 + "-" + (10 + . | tostring))}]),
     columns: [{name: "К работе", statuses: ["Новая"]},
               {name: "В работе", statuses: ["В работе", "Проверка"]},
               {name: "Готово", statuses: ["Готово"]}]},
    {label: "NOBOARD", name: "Без доски"},
    {label: "OTHER", name: "Другая доска", board_id: 88,
     sprints: [{name: "AWPCA_Sprint_3_Corrections", state: "active"}]}],
  issues: [
    issue(1; "Готово"; "AWPCA_Sprint_3_Corrections"; 3; null),
    issue(2; "В работе"; "AWPCA_Sprint_3_Corrections"; 5; null),
    issue(3; "Новая"; "AWPCA_Sprint_3_Corrections"; null; null),
    issue(4; "Проверка"; "AWPCA_Sprint_3_Corrections"; 2; null),
    issue(5; "Новая"; null; 1; 3000),
    issue(6; "Новая"; "S1"; null; 1000),
    issue(7; "В работе"; null; 8; 2000),
    issue(8; "Готово"; null; 1; 500),
    issue(9; "Новая"; null; null; null),
    {id: 20, key: "OTHER-1", summary: "Чужая", status: "Новая", labels: ["OTHER"],
     sprint: "AWPCA_Sprint_3_Corrections", created: "2026-10-01T10:00:00Z"}
  ]}' >agile.json && fm tracker import agile.json >/dev/null || { echo "Bail out! fixture"; exit 1; }

# tool NAME ARGS_JSON [LABEL]: one tool in a session bound to AWPCA (or LABEL), its text in tool.txt
tool () {
	{ echo "$INIT"; call 2 "$1" "$2"; } | sdlc jira --project "${3:-AWPCA}" && text 2 >tool.txt
}

test_expect_success 'sprints: active, future, the 10 latest closed and «ещё 2 закрытых»' '
	tool sprints "{}" && okres 2 &&
	test "$(sed -n 1p tool.txt)" = "имя | состояние | даты | задач (выполнено/всего) | SP (выполнено/всего) | без оценки" &&
	test "$(sed -n 2p tool.txt)" = "AWPCA_Sprint_3_Corrections | активный | 01.10–14.10 | 1/4 | 3/10 | 1" &&
	test "$(sed -n 3p tool.txt)" = "AWPCA_Sprint_4 | будущий | 15.10–28.10 | 0/0 | 0/0 | 0" &&
	test "$(sed -n 4p tool.txt | cut -d" " -f1-3)" = "S12 | закрыт" &&
	test "$(sed -n 13p tool.txt | cut -d" " -f1)" = "S3" &&
	test "$(sed -n 14p tool.txt)" = "ещё 2 закрытых" && test "$(wc -l <tool.txt)" = 14
'

test_expect_success 'sprint: the active one by board column; a name not there' '
	tool sprint "{}" && okres 2 &&
	cat >expect <<-EOF &&
	AWPCA_Sprint_3_Corrections — активный, 01.10–14.10
	цель: исправления
	задач: 1/4, SP: 3/10, без оценки: 1
	К работе:
	AWPCA-3 | Задача 3 | Иванов | —
	В работе:
	AWPCA-2 | Задача 2 | Иванов | 5
	AWPCA-4 | Задача 4 | Иванов | 2
	Готово:
	AWPCA-1 | Задача 1 | Иванов | 3
	EOF
	test_cmp expect tool.txt &&
	tool sprint "{\"name\":\"нет\"}" && iserr 2 &&
	test "$(cat tool.txt)" = "спринта «нет» нет на доске проекта; спринты — sprints" &&
	tool sprint "{\"name\":\"AWPCA_Sprint_4\"}" && okres 2 &&
	test "$(sed -n 2,3p tool.txt)" = "задач: 0/0, SP: 0/0, без оценки: 0
задач в спринте нет"
'

test_expect_success 'backlog: by rank, neither done nor in an open sprint, «ещё N»; no board' '
	tool backlog "{\"limit\":2}" && okres 2 &&
	cat >expect <<-EOF &&
	позиция | ключ | тема | статус | исполнитель | SP
	1 | AWPCA-6 | Задача 6 | Новая | Иванов | —
	2 | AWPCA-7 | Задача 7 | В работе | Иванов | 8
	ещё 2
	EOF
	test_cmp expect tool.txt &&
	tool backlog "{}" && test "$(sed -n 5p tool.txt)" = "4 | AWPCA-9 | Задача 9 | Новая | Иванов | —" &&
	tool sprints "{}" NOBOARD && test "$(cat tool.txt)" = "у проекта нет доски" &&
	tool backlog "{}" NOBOARD && test "$(cat tool.txt)" = "у проекта нет доски" &&
	hub GET "agile?project=NOPE" && test "$STATUS" = 404 &&
	hub GET agile && test "$STATUS" = 422 &&
	hub GET "agile/backlog?project=AWPCA&limit=0" && test "$STATUS" = 422
'

SPRINT_BATCH=$(jq -nc '{title: "спринт", commands: [
	{type: "ensure_sprint_meta", sprint: "AWPCA_Sprint_5", goal: "отчёты", start: "2026-11-01", end: "2026-11-14"},
	{type: "ensure_sprint", key: "AWPCA-5", sprint: "AWPCA_Sprint_5"},
	{type: "ensure_fields", key: "AWPCA-5", story_points: 2.5},
	{type: "ensure_rank", key: "AWPCA-9", before: "AWPCA-6"},
	{type: "ensure_sprint_state", sprint: "AWPCA_Sprint_3_Corrections", state: "closed"}]}')
test_expect_success 'the local agent: a new sprint, an issue into it, a rank, a sprint closed' '
	tool batch_create "$SPRINT_BATCH" &&
	okres 2 &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --once >agent.log 2>&1 &&
	! grep -i "failed" agent.log &&
	tool sprints "{}" && okres 2 &&
	test "$(sed -n 2p tool.txt)" = "AWPCA_Sprint_4 | будущий | 15.10–28.10 | 0/0 | 0/0 | 0" &&
	test "$(sed -n 3p tool.txt)" = "AWPCA_Sprint_5 | будущий | 01.11–14.11 | 0/1 | 0/2.5 | 0" &&
	test "$(sed -n 4p tool.txt)" = "AWPCA_Sprint_3_Corrections | закрыт | 01.10–14.10 | 1/1 | 3/3 | 0" &&
	tool backlog "{}" &&
	test "$(sed -n 2,3p tool.txt | cut -d" " -f3)" = "AWPCA-9
AWPCA-6" &&
	grep -c "AWPCA-[234] " tool.txt | grep -x 3 &&
	tool changes "{\"hours\":1,\"key\":\"AWPCA-5\",\"kinds\":\"field\"}" &&
	grep "claude: спринт: — → «AWPCA_Sprint_5»" tool.txt &&
	grep "claude: SP: «1» → «2.5»" tool.txt &&
	test "$(db_sql "SELECT sprint FROM tracker_issues WHERE issue_key = \"OTHER-1\"")" = AWPCA_Sprint_3_Corrections
'

test_expect_success 'an unknown sprint or a closed one fails the command with the reason' '
	tool batch_create "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_sprint\",\"key\":\"AWPCA-9\",\"sprint\":\"нет\"}]}" &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --once >agent.log 2>&1 &&
	grep "спринта «нет» нет на доске 77: его заводит ensure_sprint_meta" agent.log &&
	tool batch_create "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_sprint\",\"key\":\"AWPCA-9\",\"sprint\":\"S1\"}]}" &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --once >agent.log 2>&1 &&
	grep "спринт «S1» закрыт" agent.log
'

test_done
