#!/bin/bash
# t6560: the tracker's attachments: loaded by `forgemcp tracker import`,
# in the card («вложения», «файлы:»), the hub API's attachment, fetch and
# content, and the `attachment` tool of `forgemcp mcp jira` with the real
# local agent fetching: the file written under the data directory, found
# by number or name, the refusals of §2.7.2, hostile names.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

head -c 240026 /dev/urandom >png.bin &&
printf 'счёт 60\n' >xlsx.bin &&
printf 'old x' >x1.bin && printf 'new x!' >x2.bin &&
base64 -w0 png.bin >png.b64 &&
head -c 700000 /dev/urandom >a7.bin && base64 -w0 a7.bin >a7.b64 &&
head -c 1100000 /dev/urandom >a11.bin && base64 -w0 a11.bin >a11.b64 &&
jq -n --rawfile png png.b64 --rawfile a7 a7.b64 --rawfile a11 a11.b64 --arg xlsx "$(base64 -w0 xlsx.bin)" \
	--arg x1 "$(base64 -w0 x1.bin)" --arg x2 "$(base64 -w0 x2.bin)" \
	--arg hostile "$(printf 'a/b:c\001.txt')" '{
  projects: [{label: "AURORA", name: "Аврора"}],
  issues: [
    {id: 1650, key: "AURORA-1650", summary: "Отчёт", status: "В работе",
     created: "2026-11-01T10:00:00Z", labels: ["AURORA"],
     comments: [{id: 101, author: "Петров", body: "см. скрин", created: "2026-11-02T09:00:00Z"},
                {id: 102, author: "Петров", body: "и запись", created: "2026-11-02T10:00:00Z"}],
     attachments: [
       {id: 31337, name: "скрин 1.png", mime: "image/png", author: "Петров",
        created: "2026-11-02T08:59:00Z", comments: [101], content: $png},
       {id: 31338, name: "запись.mp4", mime: "video/mp4", size: 26214400, author: "Петров",
        created: "2026-11-02T09:59:00Z", in_description: true},
       {id: 31339, name: "ОСВ 60.xlsx", author: "Иванов", created: "2026-11-01T11:00:00Z",
        content: $xlsx},
       {id: 31340, name: "x", author: "Иванов", created: "2026-11-01T12:00:00Z", content: $x1},
       {id: 31341, name: "x", author: "Иванов", created: "2026-11-01T13:00:00Z", content: $x2},
       {id: 31342, name: "потерян.txt", size: 10, author: "Иванов",
        created: "2026-11-01T14:00:00Z"},
       {id: 31343, name: $hostile, author: "Иванов", created: "2026-11-01T15:00:00Z",
        content: $x1},
       {id: 31344, name: "..", author: "Иванов", created: "2026-11-01T16:00:00Z",
        content: $x1}]},
    {id: 1651, key: "AURORA-1651", summary: "Без вложений", status: "Новая",
     created: "2026-11-01T10:00:00Z", labels: ["AURORA"]},
    {id: 1652, key: "AURORA-1652", summary: "Большие", status: "Новая",
     created: "2026-11-01T10:00:00Z", labels: ["AURORA"],
     attachments: [
       {id: 41001, name: "a.bin", author: "Иванов", created: "2026-11-01T10:00:00Z", content: $a7},
       {id: 41002, name: "b.bin", author: "Иванов", created: "2026-11-01T10:01:00Z", content: $a7},
       {id: 41003, name: "c.bin", author: "Иванов", created: "2026-11-01T10:02:00Z", content: $a11}]}
  ]}' >att.json && fm tracker import att.json >/dev/null || { echo "Bail out! fixture"; exit 1; }

STATE=$TRASH/state
DL=$STATE/downloads
# grab ID ARGS_JSON: the attachment tool in a session bound to AURORA, its text in att.txt
grab () {
	{ echo "$INIT"; call 2 attachment "$1"; } | sdlc jira --project AURORA && text 2 >att.txt
}
fetches () { grep -c "POST /hub/attachments/" "$NGINX_DIR/logs/access.log" || true; }
commands () { db_sql "SELECT COUNT(*) FROM tracker_commands WHERE type = 'fetch_attachment'"; }

test_expect_success 'import: a bad attachment loads nothing' '
	jq ".issues[1].attachments = [{id: 5, author: \"a\", created: \"2026-11-01T10:00:00Z\"}]" \
		att.json >bad.json &&
	test_must_fail fm tracker import bad.json 2>err &&
	grep "AURORA-1651: attachments\[0\]: id, name, author and created" err &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_attachments")" = 11
'

test_expect_success 'hub API: the card lists attachments newest first; one attachment; refusals' '
	hub GET issues/AURORA-1650 && test "$STATUS" = 200 &&
	jq -e "[.issue.attachments[].id] == [31338, 31337, 31344, 31343, 31342, 31341, 31340, 31339]
		and .issue.attachments[1] == {id: 31337, key: \"AURORA-1650\", name: \"скрин 1.png\",
		size: 240026, mime: \"image/png\", author: \"Петров\", created: \"2026-11-02T08:59:00Z\",
		in_description: false, state: \"remote\", command: null, error: null, comments: [101]}" hub.json &&
	hub GET attachments/31338 && jq -e ".attachment.in_description == true" hub.json &&
	hub GET attachments/9 && test "$STATUS" = 404 &&
	jq -e ".error == \"вложения 9 нет в зеркале: id вложений показывает карточка задачи (issue)\"" hub.json &&
	hub POST attachments/31338/fetch && test "$STATUS" = 413 &&
	hub GET attachments/31337/content && test "$STATUS" = 409 &&
	jq -e ".error | startswith(\"копии вложения 31337 в хабе нет (состояние remote)\")" hub.json &&
	hub GET attachments/31337/fetch && test "$STATUS" = 405 &&
	test "$(commands)" = 0
'

test_expect_success 'the card: «вложения (8):», the marks of each, «файлы:» under comment 101' '
	{ echo "$INIT"; call 2 issue "{\"key\":\"AURORA-1650\"}"; call 3 issue "{\"key\":\"AURORA-1651\"}"; } |
		sdlc jira --project AURORA &&
	text 2 >card.txt &&
	grep -x "вложения (8):" card.txt &&
	grep -x "#31338 запись.mp4 (25,0 МБ) — Петров, 02.11, в описании, больше 10 МБ — только в Jira" card.txt &&
	grep -x "#31337 скрин 1.png (234,4 КБ) — Петров, 02.11, в #101" card.txt &&
	grep -x "#31342 потерян.txt (10 Б) — Иванов, 01.11" card.txt &&
	grep -A2 "^#101 " card.txt | grep -x "файлы: #31337 скрин 1.png" &&
	! grep -A2 "^#102 " card.txt | grep "файлы:" &&
	text 3 | grep -x "вложений нет"
'

test_expect_success 'the agent offline: «скачивание ещё идёт» after wait_seconds; no second command' '
	start=$(date +%s) &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"#31337\",\"wait_seconds\":4}" &&
	end=$(date +%s) && iserr 2 &&
	n=$(db_sql "SELECT command_id FROM tracker_attachments WHERE id = 31337") &&
	test "$(cat att.txt)" = "скачивание ещё идёт (команда #$n, агент офлайн); вызовите attachment ещё раз — вторая команда не поставится" &&
	# (under 60: the 4 s asked for, not the 120 s the tool waits by default)
	test $((end - start)) -ge 4 && test $((end - start)) -lt 60 &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"31337\",\"wait_seconds\":0}" &&
	grep "(команда #$n, агент офлайн)" att.txt &&
	test "$(commands)" = 1
'

FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
	"$FORGEMCP" agent --module jira --backend local --interval 0.1 >>agent.log 2>&1 &
test_register_pid $!

test_expect_success 'with the agent: the file under downloads/<id>/, 0700, its bytes; a second call at once' '
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"#31337\"}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31337/скрин 1.png" &&
	test "$(sed -n 2p att.txt)" = "скрин 1.png (234,4 КБ), image/png, задача AURORA-1650" &&
	cmp png.bin "$DL/31337/скрин 1.png" &&
	test "$(stat -c %a "$DL/31337")" = 700 && test "$(stat -c %a "$DL")" = 700 &&
	before=$(stat -c "%i %Y" "$DL/31337/скрин 1.png") && n=$(commands) &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"31337\",\"wait_seconds\":0}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31337/скрин 1.png" &&
	test "$(stat -c "%i %Y" "$DL/31337/скрин 1.png")" = "$before" &&
	test "$(commands)" = "$n" &&
	{ echo "$INIT"; call 2 issue "{\"key\":\"AURORA-1650\"}"; } | sdlc jira --project AURORA &&
	text 2 | grep -x "#31337 скрин 1.png (234,4 КБ) — Петров, 02.11, в #101, скачано"
'

test_expect_success 'by name: the file; the newest of two with a line; a missing name asks nothing' '
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"ОСВ 60.xlsx\"}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31339/ОСВ 60.xlsx" && cmp xlsx.bin "$DL/31339/ОСВ 60.xlsx" &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"x\"}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31341/x" && cmp x2.bin "$DL/31341/x" &&
	test "$(sed -n 3p att.txt)" = "у 2 вложений «x», взято самое новое #31341" &&
	n=$(fetches) &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"нет.txt\"}" && iserr 2 &&
	test "$(cat att.txt)" = "у AURORA-1650 нет вложения «нет.txt»; список — issue AURORA-1650" &&
	test "$(fetches)" = "$n"
'

test_expect_success 'over 10 MB: the text and no request; a fetch that fails says why' '
	n=$(fetches) &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"#31338\"}" && iserr 2 &&
	test "$(cat att.txt)" = "файл больше 10 МБ (25,0 МБ) — скачайте в Jira: задача AURORA-1650, вложение «запись.mp4»" &&
	test "$(fetches)" = "$n" &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"потерян.txt\",\"wait_seconds\":20}" && iserr 2 &&
	test "$(cat att.txt)" = "не удалось скачать: в локальном трекере нет файла этого вложения" &&
	hub GET attachments/31342 && jq -e ".attachment.state == \"failed\"" hub.json
'

test_expect_success 'hostile names: / \ : and control characters become _, «..» attachment-<id>' '
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"#31343\"}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31343/a_b_c_.txt" && cmp x1.bin "$DL/31343/a_b_c_.txt" &&
	grab "{\"key\":\"AURORA-1650\",\"attachment\":\"#31344\"}" && okres 2 &&
	test "$(sed -n 1p att.txt)" = "$DL/31344/attachment-31344" &&
	test "$(find "$DL" -type f | wc -l)" = 5 && ! find "$DL" -name ".download-*" | grep .
'

# batch ARGS_JSON: batch_create in a session bound to AURORA, its text in batch.txt
batch () {
	{ echo "$INIT"; call 2 batch_create "$1"; } | sdlc jira --project AURORA && text 2 >batch.txt
}
files () { db_sql "SELECT COUNT(*) FROM tracker_files"; }
batches () { db_sql "SELECT COUNT(*) FROM tracker_batches"; }
OSV="$TRASH/ОСВ сч. 60 за 2 кв. 2026.xlsx"

test_expect_success 'batch_create with a path: a bad one is refused and nothing is uploaded or queued' '
	head -c 70000 /dev/urandom >"$OSV" && head -c 11534336 /dev/zero >big.bin &&
	nf=$(files) && nb=$(batches) &&
	batch "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"$OSV\"},{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"$TRASH/nope.xlsx\"}]}" &&
	iserr 2 && test "$(cat batch.txt)" = "файл не найден: $TRASH/nope.xlsx" &&
	batch "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"$OSV\",\"file\":3}]}" &&
	iserr 2 && test "$(cat batch.txt)" = "у ensure_attachment либо path, либо file" &&
	batch "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"$TRASH/big.bin\"}]}" &&
	iserr 2 && test "$(cat batch.txt)" = "файл больше 10 МБ (11,0 МБ): $TRASH/big.bin" &&
	batch "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"$TRASH\"}]}" &&
	iserr 2 && test "$(cat batch.txt)" = "не файл: $TRASH" &&
	batch "{\"title\":\"t\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"state/x\"}]}" &&
	iserr 2 && test "$(cat batch.txt)" = "путь не абсолютный: state/x" &&
	test "$(files)" = "$nf" && test "$(batches)" = "$nb"
'

test_expect_success 'batch_create with a path: uploaded in parts, queued with file and filename, attached by the agent' '
	batch "{\"title\":\"с файлом\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"issue_type\":\"bug\",\"summary\":\"ОСВ\"},{\"type\":\"ensure_attachment\",\"key\":\"new:1\",\"path\":\"$OSV\"}]}" &&
	okres 2 && B=$(sed -n "s/^пакет #\([0-9]*\) поставлен.*/\1/p" batch.txt) && test -n "$B" &&
	hub GET "batches/$B" &&
	F=$(jq ".batch.commands[1].params.file" hub.json) &&
	jq -e ".batch.commands[1].params == {key: \"new:1\", file: $F, filename: \"ОСВ сч. 60 за 2 кв. 2026.xlsx\"}
		and .batch.commands[-1].type == \"refresh\"" hub.json &&
	for i in $(seq 100); do hub GET "batches/$B"; jq -e ".batch.state == \"done\"" hub.json >/dev/null && break; sleep 0.2; done &&
	jq -e ".batch.state == \"done\"" hub.json &&
	KEY=$(db_sql "SELECT i.issue_key FROM tracker_attachments a JOIN tracker_issues i ON i.id = a.issue_id WHERE a.filename LIKE \"%2026.xlsx\"") &&
	test "$(files)" = 0 &&
	grab "{\"key\":\"$KEY\",\"attachment\":\"ОСВ сч. 60 за 2 кв. 2026.xlsx\"}" && okres 2 &&
	cmp "$OSV" "$(sed -n 1p att.txt)" &&
	test "$(sed -n 2p att.txt)" = "ОСВ сч. 60 за 2 кв. 2026.xlsx (68,3 КБ), тип неизвестен, задача $KEY"
'

test_expect_success 'hub API files: only the uploader attaches a file; parts in order; limits' '
	make_user bob && BOB=$(make_token bob read,write) &&
	hub POST files "{\"name\":\"a.txt\",\"size\":6}" && test "$STATUS" = 201 &&
	F=$(jq .id hub.json) && jq -e ".received == 0 and .complete == false" hub.json &&
	hub POST "files/$F/parts" "{\"at\":3,\"data\":\"YWJj\"}" && test "$STATUS" = 409 &&
	hub POST "files/$F/parts" "{\"at\":0,\"data\":\"YWJj\"}" "$BOB" && test "$STATUS" = 404 &&
	hub POST "files/$F/parts" "{\"at\":0,\"data\":\"YWJ\"}" && test "$STATUS" = 422 &&
	hub POST "files/$F/parts" "{\"at\":0,\"data\":\"YWJjZGVmZ2g=\"}" && test "$STATUS" = 422 &&
	hub POST "files/$F/parts" "{\"at\":0,\"data\":\"YWJj\"}" && test "$STATUS" = 200 &&
	hub POST batches "{\"title\":\"t\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"file\":$F}]}" &&
	test "$STATUS" = 422 && jq -e ".error | contains(\"загружен не до конца\")" hub.json &&
	hub POST "files/$F/parts" "{\"at\":3,\"data\":\"ZGVm\"}" && jq -e ".complete == true" hub.json &&
	hub POST batches "{\"title\":\"t\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"file\":$F}]}" "$BOB" &&
	test "$STATUS" = 422 &&
	hub POST files "{\"name\":\"big\",\"size\":10485761}" && test "$STATUS" = 413 &&
	hub POST files "{\"name\":\"\",\"size\":1}" && test "$STATUS" = 422 &&
	hub GET "files/$F" "" "$BOB" && test "$STATUS" = 404 &&
	hub POST batches "{\"title\":\"t\",\"project\":\"AURORA\",\"commands\":[{\"type\":\"ensure_attachment\",\"key\":\"AURORA-1651\",\"path\":\"/etc/passwd\"}]}" &&
	test "$STATUS" = 422 && jq -e ".error | contains(\"path читает и загружает MCP-сервер\")" hub.json
'

test_expect_success 'tracker_copies_mb: a new copy drops the oldest; a file over the whole is not fetched' '
	config_set tracker_copies_mb 1 && restart_server &&
	grab "{\"key\":\"AURORA-1652\",\"attachment\":\"a.bin\"}" && okres 2 &&
	grab "{\"key\":\"AURORA-1652\",\"attachment\":\"b.bin\"}" && okres 2 &&
	cmp a7.bin "$(sed -n 1p att.txt)" &&
	hub GET attachments/41001 && jq -e ".attachment.state == \"remote\"" hub.json &&
	hub GET attachments/41002 && jq -e ".attachment.state == \"ready\"" hub.json &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_attachment_contents WHERE attachment_id > 41000")" = 1 &&
	grab "{\"key\":\"AURORA-1652\",\"attachment\":\"c.bin\",\"wait_seconds\":20}" && iserr 2 &&
	test "$(cat att.txt)" = "не удалось скачать: файл больше, чем хаб хранит копий вложений трекера (tracker_copies_mb = 1)"
'

test_expect_success 'an account holds at most 1000 files no batch took' '
	uid=$(db_sql "SELECT id FROM users WHERE login = \"ann\"") &&
	held=$(db_sql "SELECT COUNT(*) FROM tracker_files WHERE user_id = $uid") &&
	db_sql "INSERT INTO tracker_files (user_id, filename, size, created_at) SELECT $uid, \"f\", 0, UTC_TIMESTAMP(3) FROM seq_1_to_$((999 - held))" &&
	hub POST files "{\"name\":\"one\",\"size\":0}" && test "$STATUS" = 201 &&
	hub POST files "{\"name\":\"two\",\"size\":0}" && test "$STATUS" = 413 &&
	jq -e ".error | startswith(\"файлов аккаунта, ещё не взятых пакетами, стало бы больше 1000\")" hub.json
'

test_done
