#!/bin/bash
# t6550: the tracker's change feed: the journal loaded by `forgemcp tracker
# import` and written by the local agent's ensure_fields, GET /hub/changes
# and its refusals, and `changes` and the card's «изменения» in `forgemcp
# mcp jira`, in Moscow time (TZ=Europe/Moscow, UTC+3) against a UTC hub.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

NOW=$(date -u +%s)
T1=$((NOW - 1200))
YESTERDAY=$(($(TZ=Europe/Moscow date -d "today 00:00" +%s) - 7200))
utc () { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# msk SECONDS: an event's time as the feed shows it: HH:MM today, DD.MM HH:MM on another day
msk () {
	if test "$(TZ=Europe/Moscow date -d "@$1" +%F)" = "$(TZ=Europe/Moscow date +%F)"; then
		TZ=Europe/Moscow date -d "@$1" +%H:%M
	else
		TZ=Europe/Moscow date -d "@$1" "+%d.%m %H:%M"
	fi
}
dated () { TZ=Europe/Moscow date -d "@$1" "+%d.%m %H:%M"; }
COMMENT=$(printf "%0250d" 0 | sed "s/0/ж/g")
VALUE=$(printf "%0100d" 0 | sed "s/0/ц/g")

jq -n --arg t1 "$(utc $T1)" --arg t2 "$(utc $((T1 - 60)))" --arg t3 "$(utc $((T1 - 120)))" \
	--arg t4 "$(utc $((T1 - 180)))" --arg t5 "$(utc $((T1 - 240)))" \
	--arg t6 "$(utc $((T1 - 300)))" --arg y "$(utc $YESTERDAY)" \
	--arg comment "$COMMENT" --arg value "$VALUE" --argjson now "$NOW" '
def at(s): s | todate;
{
  projects: [{label: "AWPCA", name: "АВП"}, {label: "TRUNC", name: "Много"}],
  issues: [
    {id: 1, key: "AWPCA-1", summary: "Отчёт по счёту 60", status: "Готово",
     created: "2026-10-01T10:00:00Z", labels: ["AWPCA"],
     comments: [{id: 501, author: "Сидоров", body: $comment, created: $t5}],
     changes: [
       {at: $t1, author: "Петров Пётр", kind: "status", from: "В работе", to: "Готово"},
       {at: $t2, author: "Петров Пётр", kind: "description", from: "старое", to: "новое"},
       {at: $t3, author: "Иванов", kind: "due", from: "2026-10-20", to: "2026-10-25"},
       {at: $t4, author: "Иванов", kind: "due", from: "2026-10-25T00:00:00.000+0300", to: null},
       {at: $t6, author: "Иванов", kind: "field", field: "Компонент", from: null, to: $value}]},
    {id: 2, key: "AWPCA-2", summary: "Вчерашняя", status: "В работе",
     created: "2026-10-01T10:00:00Z", labels: ["AWPCA"],
     changes: [{at: $y, author: "Петров Пётр", kind: "status", from: "Новая", to: "В работе"}]},
    {id: 3, key: "AWPCA-3", summary: "Старая", status: "Готово",
     created: "2026-10-01T10:00:00Z", labels: ["AWPCA"],
     changes: [range(1; 8) | {at: ("2026-11-0" + tostring + "T09:30:00Z"), author: "Петров Пётр",
       kind: "field", field: "приоритет", from: ("p" + tostring), to: ("p" + (. + 1 | tostring))}]},
    {id: 4, key: "AWPCA-4", summary: "Без изменений", status: "Новая",
     created: "2026-10-01T10:00:00Z", labels: ["AWPCA"]},
    {id: 5, key: "TRUNC-1", summary: "Шумная", status: "Новая",
     created: "2026-10-01T10:00:00Z", labels: ["TRUNC"],
     changes: [range(0; 205) | {at: at($now - 3600 - .), author: "бот", kind: "status",
       from: "a", to: "b"}]}
  ]}' >changes.json || { echo "Bail out! fixture"; exit 1; }

# feed ARGS_JSON [--project LABEL]: the changes tool in Moscow time, its text in feed.txt
feed () {
	{ echo "$INIT"; call 2 changes "$1"; } | TZ=Europe/Moscow sdlc jira "${@:2}" &&
	text 2 >feed.txt
}
# (the access log leaves the query out: the period is checked in the answer's first line)
access_count () { grep -c "GET /hub/changes" "$NGINX_DIR/logs/access.log" || true; }

test_expect_success 'tracker import loads the journal; a bad change loads nothing' '
	fm tracker import changes.json >import.out &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_changes")" = 218 &&
	jq ".issues[0].changes[0].kind = \"colour\" | .issues[0].key = \"AWPCA-9\" | .issues[0].id = 9" \
		changes.json >bad.json &&
	test_must_fail fm tracker import bad.json 2>err &&
	grep "AWPCA-9: changes\[0\]: at (YYYY-MM-DDTHH:MM:SSZ), author and kind" err &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_issues WHERE issue_key = \"AWPCA-9\"")" = 0
'

test_expect_success 'hub API: a period of a project, newest first, comments among the journal' '
	hub GET "changes?project=AWPCA&since=$(utc $((T1 - 3600)))" && test "$STATUS" = 200 &&
	jq -e "[.events[] | [.key, .kind]] == [[\"AWPCA-1\",\"status\"],[\"AWPCA-1\",\"description\"],
		[\"AWPCA-1\",\"due\"],[\"AWPCA-1\",\"due\"],[\"AWPCA-1\",\"comment\"],[\"AWPCA-1\",\"field\"]]
		and .truncated == false and .since == \"$(utc $((T1 - 3600)))\"
		and .events[0].author == \"Петров Пётр\" and .events[0].status == \"Готово\"" hub.json &&
	hub GET "changes?key=AWPCA-1&kinds=status,comment&since=$(utc $((T1 - 3600)))" &&
	jq -e "[.events[].kind] == [\"status\", \"comment\"]" hub.json &&
	hub GET "changes?project=TRUNC&since=$(utc $((NOW - 7200)))&limit=3" &&
	jq -e "(.events | length) == 3 and .truncated == true and .limit == 3" hub.json
'

test_expect_success 'hub API: a time with an offset, also with the + a query string makes a space' '
	since=$(TZ=Europe/Moscow date -d "@$((T1 - 30))" +%Y-%m-%dT%H:%M:%S) &&
	hub GET "changes?project=AWPCA&since=$since%2B03:00" &&
	jq -e "[.events[].kind] == [\"status\"]" hub.json &&
	hub GET "changes?project=AWPCA&since=$since+03:00" &&
	jq -e "[.events[].kind] == [\"status\"]" hub.json
'

test_expect_success 'hub API refusals: no offset, no since, bad kinds, until first, unknown names' '
	hub GET "changes?project=AWPCA&since=2026-10-22T00:00:00" && test "$STATUS" = 422 &&
	jq -e ".error == \"since: время без смещения: «2026-10-22T00:00:00»; укажите его, например 2026-10-22T14:05:00+03:00\"" hub.json &&
	hub GET "changes?project=AWPCA" && test "$STATUS" = 422 &&
	jq -e ".error | startswith(\"нужен since\")" hub.json &&
	hub GET "changes?project=AWPCA&since=yesterday" && test "$STATUS" = 422 &&
	jq -e ".error | endswith(\": «yesterday»\")" hub.json &&
	hub GET "changes?project=AWPCA&since=2026-10-22T00:00Z&kinds=status,colour" && test "$STATUS" = 422 &&
	jq -e ".error == \"kinds: неизвестный вид «colour»; виды: status, description, dates, comment, field\"" hub.json &&
	hub GET "changes?project=AWPCA&since=2026-10-22T00:00Z&until=2026-10-21T00:00Z" && test "$STATUS" = 422 &&
	hub GET "changes?project=NOPE&since=2026-10-22T00:00Z" && test "$STATUS" = 404 &&
	jq -e ".error == \"проект NOPE не заведён в хабе\"" hub.json &&
	hub GET "changes?key=NOPE-1&since=2026-10-22T00:00Z" && test "$STATUS" = 404 &&
	hub POST "changes" "{}" && test "$STATUS" = 405
'

test_expect_success 'changes {}: the period from the start of today, local time' '
	before=$(TZ=Europe/Moscow date +"%d.%m %H:%M") &&
	feed "{}" --project AWPCA && okres 2 &&
	after=$(TZ=Europe/Moscow date +"%d.%m %H:%M") &&
	today=$(TZ=Europe/Moscow date +%d.%m) &&
	{ test "$(head -1 feed.txt)" = "изменения с $today 00:00 по $before" ||
	  test "$(head -1 feed.txt)" = "изменения с $today 00:00 по $after"; }
'

test_expect_success 'changes {hours: 2}: grouped by issue, each event as the specification writes it' '
	n=$(access_count) && start=$(date +%s) &&
	feed "{\"hours\":2}" --project AWPCA && okres 2 && end=$(date +%s) &&
	cat >expect <<-EOF &&
	AWPCA-1 Отчёт по счёту 60 — Готово
	$(msk $T1) Петров Пётр: статус «В работе» → «Готово»
	$(msk $((T1 - 60))) Петров Пётр: описание изменено
	$(msk $((T1 - 120))) Иванов: срок 20.10 → 25.10
	$(msk $((T1 - 180))) Иванов: срок 25.10 → —
	$(msk $((T1 - 240))) Сидоров: комментарий: $(printf "%0200d" 0 | sed "s/0/ж/g")…
	$(msk $((T1 - 300))) Иванов: Компонент: — → «$(printf "%080d" 0 | sed "s/0/ц/g")…»
	EOF
	sed 1d feed.txt >actual && test_cmp expect actual &&
	test "$(access_count)" = $((n + 1)) &&
	{ test "$(head -1 feed.txt)" = "изменения с $(dated $((start - 7200))) по $(dated $start)" ||
	  test "$(head -1 feed.txt)" = "изменения с $(dated $((end - 7200))) по $(dated $end)"; }
'

test_expect_success 'changes: an event of another day has its date; a local since without offset' '
	feed "{\"since\":\"$(TZ=Europe/Moscow date -d "@$((YESTERDAY - 60))" +%Y-%m-%dT%H:%M)\",\"until\":\"$(TZ=Europe/Moscow date -d "@$((YESTERDAY + 60))" +"%Y-%m-%d %H:%M")\"}" --project AWPCA &&
	okres 2 &&
	test "$(sed -n 1p feed.txt)" = "изменения с $(dated $((YESTERDAY - 60))) по $(dated $((YESTERDAY + 60)))" &&
	test "$(sed -n 2p feed.txt)" = "AWPCA-2 Вчерашняя — В работе" &&
	test "$(sed -n 3p feed.txt)" = "$(dated $YESTERDAY) Петров Пётр: статус «Новая» → «В работе»"
'

test_expect_success 'changes: kinds, an empty period, the truncated line' '
	feed "{\"hours\":2,\"kinds\":\"status\"}" --project AWPCA &&
	test "$(sed 1d feed.txt)" = "AWPCA-1 Отчёт по счёту 60 — Готово
$(msk $T1) Петров Пётр: статус «В работе» → «Готово»" &&
	feed "{\"since\":\"2020-01-01\",\"until\":\"2020-01-02\"}" --project AWPCA &&
	okres 2 && test "$(sed -n 1p feed.txt)" = "изменения с 01.01 00:00 по 02.01 00:00" &&
	test "$(sed -n 2p feed.txt)" = "за период изменений нет" &&
	feed "{\"hours\":5}" --project TRUNC && okres 2 &&
	test "$(grep -c "бот: статус" feed.txt)" = 200 &&
	test "$(tail -1 feed.txt)" = "показаны последние 200 событий, сузьте период"
'

test_expect_success 'changes: hours and since together, a hub refusal, unbound with and without key' '
	n=$(access_count) &&
	feed "{\"hours\":1,\"since\":\"2026-10-22\"}" --project AWPCA &&
	iserr 2 && test "$(cat feed.txt)" = "либо hours, либо since" &&
	feed "{\"hours\":1}" && iserr 2 &&
	test "$(cat feed.txt)" = "сессия не привязана к проекту: запустите MCP с --project <метка> (список — projects)" &&
	test "$(access_count)" = "$n" &&
	feed "{\"hours\":2,\"key\":\"AWPCA-1\",\"kinds\":\"status\"}" && okres 2 &&
	test "$(sed -n 2p feed.txt)" = "AWPCA-1 Отчёт по счёту 60 — Готово" &&
	feed "{\"since\":\"2026-13-45\"}" --project AWPCA && iserr 2 &&
	grep "не время вида" feed.txt &&
	feed "{\"hours\":0}" --project AWPCA && answer 2 ".error.code == -32602 or .result.isError == true"
'

test_expect_success 'the card: the 5 latest journal items with dates and «ещё 2»; none, no line' '
	{ echo "$INIT"; call 2 issue "{\"key\":\"AWPCA-3\"}"; call 3 issue "{\"key\":\"AWPCA-4\"}"; } |
		TZ=Europe/Moscow sdlc jira --project AWPCA &&
	text 2 >card.txt &&
	cat >expect <<-EOF &&
	изменения (7):
	07.11 12:30 Петров Пётр: приоритет: «p7» → «p8»
	06.11 12:30 Петров Пётр: приоритет: «p6» → «p7»
	05.11 12:30 Петров Пётр: приоритет: «p5» → «p6»
	04.11 12:30 Петров Пётр: приоритет: «p4» → «p5»
	03.11 12:30 Петров Пётр: приоритет: «p3» → «p4»
	ещё 2
	вложений нет
	EOF
	sed -n "/^изменения (/,\$p" card.txt >actual && test_cmp expect actual &&
	text 3 >card4.txt && grep "^комментариев нет" card4.txt && ! grep "изменения" card4.txt
'

test_expect_success 'the local agent journals what ensure_fields changes, by the batch author' '
	hub POST batches "{\"title\":\"t\",\"project\":\"AWPCA\",\"commands\":[{\"type\":\"ensure_fields\",\"key\":\"AWPCA-4\",\"status\":\"В работе\",\"assignee\":\"Иванов\",\"summary\":\"Без изменений\",\"due\":\"2026-12-31\"}]}" &&
	test "$STATUS" = 201 &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --once >agent.log 2>&1 &&
	feed "{\"hours\":1,\"key\":\"AWPCA-4\"}" && okres 2 &&
	sed 1,2d feed.txt | sed "s/^[0-9:]* //" >actual &&
	cat >expect <<-EOF &&
	api: статус «Новая» → «В работе»
	api: исполнитель: — → «Иванов»
	api: срок — → 31.12
	EOF
	sort expect >e && sort actual >a && test_cmp e a
'

test_done
