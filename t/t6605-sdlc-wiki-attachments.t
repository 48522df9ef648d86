#!/bin/bash
# t6605: the wiki's attachments downloaded: `attachment` through `forgemcp mcp
# wiki` queues one wiki_fetch command for the wiki agent (git backend), waits,
# and writes the hub's copy under <data directory>/downloads/wiki-<id>/ with a
# cleaned name; the agent offline, a second call, a copy already there, a
# file over 10 MB, an attachment gone with a re-sync, and the hub API's
# attachment routes refusing what they do not serve.
. ./test-lib.sh

start_all
make_user ann && make_user rita && make_user bob &&
ANN_TOKEN=$(make_token ann read,write) &&
RITA_READ=$(make_token rita read) &&
fm repo create ann/wiki >/dev/null || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

WIKI=$TRASH/repos/ann/wiki.git
WORK=$TRASH/wiki-work
. "$TEST_DIRECTORY/lib/wiki.sh"
git -c init.defaultBranch=main init -q "$WORK" &&
printf 'Главная.\n' | page home.md DOC-1 "Главная" &&
printf 'Схемы.\n' | page home/guide.md DOC-2 "Руководство" &&
mkdir -p "$WORK/home/guide" &&
printf '\211PNG\r\n\032\n\000\001\002 binary' >"$WORK/home/guide/схема.png" &&
printf 'odd name\n' >"$WORK/home/guide/$(printf 'a:b\\c\td.txt')" &&
head -c 1572864 /dev/urandom >"$WORK/home/guide/big.bin" &&
printf 'late\n' >"$WORK/home/guide/late.txt" &&
head -c 1048576 /dev/urandom >"$WORK/home/guide/mid.bin" &&
head -c 10485761 /dev/urandom >"$WORK/home/guide/huge.bin" &&
commit "wiki" || { echo "Bail out! the wiki repository"; exit 1; }

agent () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module wiki --backend git --interval 0.1 "$@" >>agent.log 2>&1
}
agent_bg () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module wiki --backend git --interval 0.1 >>agent.log 2>&1 &
	AGENT=$!
	test_register_pid "$AGENT"
}
# att NAME: the id of the attachment named NAME (a LIKE pattern; db_sql speaks ASCII only)
att () { db_sql "SELECT id FROM wiki_attachments WHERE name LIKE \"$1\""; }
# att_in PROJECT NAME: the id of the attachment NAME of PROJECT's copy
att_in () {
	db_sql "SELECT a.id FROM wiki_attachments a JOIN wiki_pages w ON w.id = a.page_id
		JOIN tracker_projects p ON p.id = w.project_id WHERE p.label = \"$1\" AND a.name LIKE \"$2\""
}
fetches () { db_sql "SELECT COUNT(*) FROM tracker_commands WHERE type = \"wiki_fetch\""; }
DL=$TRASH/state/downloads

test_expect_success 'setup: the project, its root and a first sync' '
	hub POST projects "{\"label\":\"AWPCA\",\"name\":\"АВП\",\"wiki_root\":\"ann/wiki@main:DOC-1\"}" &&
	test "$STATUS" = 201 && agent --once &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 2 &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_attachments")" = 6 &&
	PNG=$(att "%.png") && BIG=$(att big.bin) && HUGE=$(att huge.bin) && LATE=$(att late.txt) &&
	ODD=$(db_sql "SELECT id FROM wiki_attachments WHERE name LIKE \"a:b%\"") &&
	test -n "$PNG" && test -n "$ODD"
'

test_expect_success 'agent offline: one command queued, the state and the hint; a second call queues none' '
	{ echo "$INIT"; call 2 attachment "{\"id\":$PNG,\"wait_seconds\":1}"
	  call 3 attachment "{\"id\":$PNG,\"wait_seconds\":0}"; } | sdlc wiki --project AWPCA &&
	C=$(db_sql "SELECT command_id FROM wiki_attachments WHERE id = $PNG") && test -n "$C" &&
	iserr 2 && test "$(text 2)" = "вложение #$PNG «схема.png» (страница DOC-2) ещё скачивается: команда $C (поставлена сейчас), ждали 1 с; агент wiki выполнит её, когда будет онлайн (status) — вызовите attachment позже, вторая команда не поставится" &&
	iserr 3 && text 3 | grep "^вложение #$PNG «схема.png» (страница DOC-2) ещё скачивается: команда $C, ждали 0 с;" &&
	test "$(fetches)" = 1 && test ! -e "$DL"
'

test_expect_success 'the agent online: the file under downloads/wiki-<id>/, byte for byte, in directories only the user can enter' '
	agent_bg &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$PNG}"; } | sdlc wiki --project AWPCA &&
	okres 2 && test "$(text 2)" = "$DL/wiki-$PNG/схема.png
схема.png (18 Б), image/png, страница DOC-2" &&
	cmp "$WORK/home/guide/схема.png" "$DL/wiki-$PNG/схема.png" &&
	test "$(stat -c %a "$DL")" = 700 && test "$(stat -c %a "$DL/wiki-$PNG")" = 700 &&
	test "$(stat -c %a "$DL/wiki-$PNG/схема.png")" = 600 &&
	test "$(fetches)" = 1 &&
	test "$(db_sql "SELECT state FROM tracker_commands WHERE id = $C")" = done &&
	! ls -a "$DL/wiki-$PNG" | grep download-
'

test_expect_success 'called again: the answer at once, no command, the file not written again' '
	before=$(stat -c %Y.%i "$DL/wiki-$PNG/схема.png") &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$PNG}"; } | sdlc wiki --project AWPCA &&
	okres 2 && text 2 | sed -n 1p | grep -x "$DL/wiki-$PNG/схема.png" &&
	test "$(fetches)" = 1 && test "$(stat -c %Y.%i "$DL/wiki-$PNG/схема.png")" = "$before"
'

test_expect_success 'a file of another size in its place is replaced by the copy' '
	printf "x" >"$DL/wiki-$PNG/схема.png" &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$PNG}"; } | sdlc wiki --project AWPCA &&
	okres 2 && cmp "$WORK/home/guide/схема.png" "$DL/wiki-$PNG/схема.png" && test "$(fetches)" = 1
'

test_expect_success 'a name with / \ : and a tab is written cleaned; 1.5 MB arrive whole' '
	{ echo "$INIT"; call 2 attachment "{\"id\":$ODD}"; call 3 attachment "{\"id\":$BIG}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && text 2 | sed -n 1p | grep -x "$DL/wiki-$ODD/a_b_c_d.txt" &&
	test "$(cat "$DL/wiki-$ODD/a_b_c_d.txt")" = "odd name" &&
	okres 3 && text 3 | sed -n 2p | grep -x "big.bin (1,5 МБ), application/octet-stream, страница DOC-2" &&
	cmp "$WORK/home/guide/big.bin" "$DL/wiki-$BIG/big.bin"
'

test_expect_success 'over 10 MB: refused with the limit, nothing queued' '
	n=$(fetches) &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$HUGE}"; } | sdlc wiki --project AWPCA &&
	iserr 2 && test "$(text 2)" = "вложение $HUGE больше 10 МБ — только в источнике вики" &&
	test "$(fetches)" = "$n" && test ! -e "$DL/wiki-$HUGE"
'

test_expect_success 'the hub API: content, fetch and the attachment itself refuse what they do not serve' '
	hub GET "wiki/attachments/$PNG/content?project=AWPCA" && test "$STATUS" = 200 &&
	cmp "$WORK/home/guide/схема.png" hub.json &&
	hub GET "wiki/attachments/$HUGE/content?project=AWPCA" && test "$STATUS" = 409 &&
	jq -e ".error == \"копии вложения $HUGE в хабе нет (состояние remote): сначала POST /hub/wiki/attachments/$HUGE/fetch\"" hub.json &&
	hub GET "wiki/attachments/$PNG/fetch?project=AWPCA" && test "$STATUS" = 405 &&
	hub POST "wiki/attachments/$PNG/content?project=AWPCA" "{}" && test "$STATUS" = 405 &&
	hub GET "wiki/attachments/$PNG/other?project=AWPCA" && test "$STATUS" = 404 &&
	hub GET "wiki/attachments/0$PNG?project=AWPCA" && test "$STATUS" = 404 &&
	hub GET "wiki/attachments/$PNG/content" && test "$STATUS" = 422 &&
	hub POST projects "{\"label\":\"OTHER\",\"name\":\"x\"}" && test "$STATUS" = 201 &&
	hub GET "wiki/attachments/$PNG/content?project=OTHER" && test "$STATUS" = 404 &&
	hub POST "wiki/attachments/$PNG/fetch?project=OTHER" && test "$STATUS" = 404 &&
	jq -e ".error == \"вложения $PNG нет в копии вики проекта OTHER — id вложений показывает page\"" hub.json &&
	hub POST "wiki/attachments/$PNG/fetch?project=AWPCA" "" "$RITA_READ" && test "$STATUS" = 200 &&
	jq -e ".queued == false and .attachment.state == \"ready\"" hub.json &&
	hub GET "wiki/attachments/$PNG/content?project=AWPCA" "" "" && test "$STATUS" = 401
'

test_expect_success 'a re-sync before the agent fetched: the command fails, the tool says to take the id again' '
	kill $AGENT && { wait $AGENT 2>/dev/null || :; } &&
	hub POST wiki/sync "{\"project\":\"AWPCA\"}" && test "$STATUS" = 201 &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$LATE,\"wait_seconds\":0}"; } | sdlc wiki --project AWPCA &&
	iserr 2 && C=$(db_sql "SELECT command_id FROM wiki_attachments WHERE id = $LATE") &&
	agent --once &&
	test "$(db_sql "SELECT state FROM tracker_commands WHERE id = $C")" = failed &&
	grep -F "agent: command $C (wiki_fetch): failed: вложения $LATE больше нет в копии вики (она пересинхронизирована): возьмите id из page" agent.log &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$LATE}"; } | sdlc wiki --project AWPCA &&
	iserr 2 && test "$(text 2)" = "вложения $LATE нет в копии вики проекта AWPCA — id вложений показывает page"
'

test_expect_success 'no place for downloads: the reason, and nothing queued twice' '
	NEW=$(att_in AWPCA big.bin) && n=$(fetches) &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$NEW,\"wait_seconds\":0}"; } |
		FORGEMCP_STATE=/proc/version/x sdlc wiki --project AWPCA &&
	iserr 2 && text 2 | grep "ещё скачивается" && agent --once &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$NEW}"; } |
		FORGEMCP_STATE=/proc/version/x sdlc wiki --project AWPCA &&
	iserr 2 && test "$(text 2)" = "каталог для вложений /proc/version/x/downloads/wiki-$NEW не создать: Not a directory" &&
	test "$(fetches)" = $((n + 1))
'

test_expect_success 'a repository the root'"'"'s setter can no longer see: neither a sync nor a fetch reads it' '
	fm repo import bob/notes --from "$WIKI" >/dev/null &&
	hub POST projects "{\"label\":\"BOBW\",\"name\":\"x\",\"wiki_root\":\"bob/notes@main:DOC-1\"}" &&
	test "$STATUS" = 201 && agent --once &&
	N=$(att_in BOBW late.txt) &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$N,\"wait_seconds\":0}"; } | sdlc wiki --project BOBW &&
	iserr 2 &&
	db_sql "UPDATE repositories r JOIN users u ON u.id = r.owner_id SET r.private = 1
		WHERE u.login = \"bob\" AND r.name = \"notes\"" &&
	hub POST wiki/sync "{\"project\":\"BOBW\"}" && test "$STATUS" = 201 &&
	agent_bg &&
	why="репозиторий bob/notes больше не виден тому, кто задал корень вики: копия не обновлена; задайте корень заново (root_set)" &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$N,\"wait_seconds\":20}"; call 3 sync "{\"wait\":true}"; call 4 status "{}"; } |
		sdlc wiki --project BOBW &&
	kill $AGENT &&
	iserr 2 && test "$(text 2)" = "вложение #$N «late.txt» (страница DOC-2) не скачано: $why — вызовите attachment ещё раз, чтобы повторить" &&
	okres 4 && text 4 | grep -x "ошибка: $why" && text 4 | grep -x "страниц в копии: 2"
'

test_expect_success 'wiki_copies_mb: a new copy drops the ones fetched longest ago; a file over it is not fetched' '
	config_set wiki_copies_mb 2 && restart_server &&
	BIG2=$(att_in AWPCA big.bin) && MID=$(att_in AWPCA mid.bin) &&
	test "$(db_sql "SELECT state FROM wiki_attachments WHERE id = $BIG2")" = ready &&
	agent_bg &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$MID,\"wait_seconds\":20}"; } | sdlc wiki --project AWPCA &&
	okres 2 && cmp "$WORK/home/guide/mid.bin" "$DL/wiki-$MID/mid.bin" &&
	test "$(db_sql "SELECT state FROM wiki_attachments WHERE id = $BIG2")" = remote &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_attachment_contents WHERE attachment_id = $BIG2")" = 0 &&
	config_set wiki_copies_mb 1 && restart_server &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$BIG2,\"wait_seconds\":20}"; } | sdlc wiki --project AWPCA &&
	kill $AGENT &&
	iserr 2 && test "$(text 2)" = "вложение #$BIG2 «big.bin» (страница DOC-2) не скачано: файл больше, чем хаб хранит копий вложений проекта (wiki_copies_mb = 1) — вызовите attachment ещё раз, чтобы повторить" &&
	test "$(db_sql "SELECT state FROM wiki_attachments WHERE id = $MID")" = ready
'

test_done
