#!/bin/bash
# t6600: the sdlc hub's wiki copy: a bare forge repository of Markdown pages
# (Russian and English) made here, `forgemcp agent --module wiki --backend
# git` syncing it, and `forgemcp mcp wiki` as a real stdio process: the
# binding refusals, root_set and sync, the tree, a 45,000-character page in
# 20,000-character pieces joined back exactly, titles, full-text search in
# another case, and failed syncs that leave the previous copy.
. ./test-lib.sh

start_all
make_user ann && make_user bob &&
ANN_TOKEN=$(make_token ann read,write) &&
fm repo create ann/wiki --description "the wiki" >/dev/null &&
fm repo create bob/secret --private >/dev/null || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

WIKI=$TRASH/repos/ann/wiki.git
WORK=$TRASH/wiki-work
. "$TEST_DIRECTORY/lib/wiki.sh"
# the long page: 450 lines of 100 characters (a number and Cyrillic), 45,000 in all
perl -CS -Mutf8 -e 'printf "%05d %s\n", $_, "щ" x 93 for 1..450' >long.body
git -c init.defaultBranch=main init -q "$WORK" &&
printf 'Главная страница вики.\n' | page home.md DOC-1 "Главная" &&
printf '# Руководство\n\nСтатус Согласован: документ принят.\nSee the INSTALL page.\n' |
	page home/guide.md DOC-2 "Руководство" &&
printf 'How to install the hub.\n' | page home/guide/install.md DOC-4 "Install guide" &&
printf 'Step one.\n' | page home/guide/install/step.md DOC-5 "Step one" &&
page home/long.md DOC-3 "Длинная страница" <long.body &&
printf '# not a page: no front matter\n' >"$WORK/README.md" &&
printf '\211PNG\r\n\032\n0123456789' >"$WORK/home/guide/схема.png" &&
printf 'a,b\n1,2\n' >"$WORK/home/guide/data.csv" &&
mkdir -p "$WORK/other" && printf 'x' >"$WORK/other/x.png" &&
printf 'Outside the root.\n' | page other.md DOC-9 "Другая" &&
commit "wiki" || { echo "Bail out! the wiki repository"; exit 1; }

agent_bg () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module wiki --backend git --interval 0.1 >>agent.log 2>&1 &
	AGENT=$!
	test_register_pid "$AGENT"
}
# part ID FILE: the Markdown of page answer ID (without its header and continuation) into FILE
part () {
	jq -s -j ".[] | select(.id == $1) | .result.content[0].text" out >"$2.raw" &&
	perl -CSD -Mutf8 -0777 -ne 's/\A.*?\n\n//s; s/\n\nпродолжение: offset=\d+\z//; print' "$2.raw" >"$2"
}
chars () { perl -CSD -0777 -ne 'print length' "$1"; }

test_expect_success 'mcp wiki: initialize names sdlc-wiki; tools/list is the snapshot t/sdlc-wiki-tools.json' '
	{ echo "$INIT"; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"; } |
		sdlc wiki --project AWPCA &&
	answer 1 ".result.serverInfo.name == \"sdlc-wiki\"" &&
	jq -s -S ".[] | select(.id == 2) | .result.tools" out >tools.json &&
	if test "${TEST_UPDATE_SNAPSHOT:-}" = 1; then cp tools.json "$TEST_DIRECTORY/sdlc-wiki-tools.json"; fi &&
	test_cmp "$TEST_DIRECTORY/sdlc-wiki-tools.json" tools.json &&
	jq -e "[.[].name] == [\"projects\", \"project_create\", \"root_set\", \"tree\", \"page\", \"search\", \"attachment\", \"sync\", \"status\"]" tools.json
'

test_expect_success 'mcp wiki unbound: tools but projects and project_create refused without a hub request' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 tree "{}"; call 3 sync "{}"; call 4 status "{}"; call 5 projects "{}"; } | sdlc wiki &&
	iserr 2 && test "$(text 2)" = "сессия не привязана к проекту: запустите MCP с --project <метка> (список — projects)" &&
	iserr 3 && iserr 4 && test "$(text 4)" = "$(text 2)" &&
	okres 5 && test "$(text 5)" = "проектов нет: project_create" &&
	! grep "/hub/wiki" "$NGINX_DIR/logs/access.log"
'

test_expect_success 'the hub down: every wiki tool answers the one line, and the server goes on' '
	{ echo "$INIT"; call 2 tree "{}"; call 3 projects "{}"; call 4 status "{}"; } |
		FORGEMCP_HUB_URL=http://127.0.0.1:$(free_port)/hub FORGEMCP_HUB_TOKEN=$ANN_TOKEN timeout 30 \
		"$FORGEMCP" mcp wiki --project AWPCA >out 2>err &&
	for i in 2 3 4; do iserr $i && test "$(text $i)" = "хаб не запущен: sdlc-hub serve" || exit 1; done
'

test_expect_success 'project_create unbound: the project, and a .mcp.json fragment for sdlc-wiki' '
	{ echo "$INIT"; call 2 project_create "{\"label\":\"SFM_KEDR\",\"name\":\"Кедр\"}"; } | sdlc wiki &&
	okres 2 && text 2 >pc.txt &&
	grep -x "проект SFM_KEDR «Кедр» заведён" pc.txt &&
	grep -x "корня вики нет: root_set DOC-…" pc.txt &&
	sed -n "/^фрагмент .mcp.json:$/{n;p}" pc.txt >frag.json &&
	jq -e ".mcpServers[\"sdlc-wiki\"].args == [\"mcp\", \"wiki\", \"--project\", \"SFM_KEDR\"]" frag.json &&
	! grep -i token frag.json
'

test_expect_success 'no root: tree, page and search refused with the root hint, and no /hub/wiki request' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 tree "{}"; call 3 page "{\"code\":\"DOC-1\"}"; call 4 search "{\"query\":\"x\"}"
	  call 5 sync "{}"; call 6 status "{}"; } | sdlc wiki --project SFM_KEDR &&
	iserr 2 && test "$(text 2)" = "у проекта SFM_KEDR нет корня вики: root_set DOC-…" &&
	iserr 3 && test "$(text 3)" = "$(text 2)" && iserr 4 && iserr 5 && test "$(text 5)" = "$(text 2)" &&
	okres 6 && test "$(text 6 | sed -n 1p)" = "корень вики: нет (root_set DOC-…)" &&
	! grep "/hub/wiki/tree" "$NGINX_DIR/logs/access.log" &&
	! grep "/hub/wiki/pages" "$NGINX_DIR/logs/access.log" &&
	grep "GET /hub/projects/SFM_KEDR " "$NGINX_DIR/logs/access.log"
'

test_expect_success 'root_set: the root and a sync batch; not synced yet; a second sync is the same batch' '
	hub POST projects "{\"label\":\"AWPCA\",\"name\":\"АВП\"}" && test "$STATUS" = 201 &&
	{ echo "$INIT"; call 2 root_set "{\"root\":\"ann/wiki@main:DOC-1\"}"; call 3 page "{\"code\":\"DOC-3\"}"
	  call 4 sync "{}"; call 5 tree "{}"; } | sdlc wiki --project AWPCA &&
	okres 2 && test "$(text 2 | sed -n 1p)" = "корень вики проекта AWPCA: ann/wiki@main:DOC-1" &&
	B=$(text 2 | sed -n "s/^id пакета синхронизации: //p") && test -n "$B" &&
	iserr 3 && test "$(text 3)" = "вики проекта ещё не синхронизирована: sync" &&
	okres 4 && test "$(text 4)" = "синхронизация вики уже идёт: пакет #$B" &&
	iserr 5 && test "$(text 5)" = "$(text 3)" &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_commands WHERE type = \"wiki_sync\"")" = 1 &&
	hub PATCH projects/AWPCA "{\"wiki_root\":\"DOC 1\"}" && test "$STATUS" = 422 &&
	jq -e ".error == \"wiki_root — код страницы (DOC-1), <владелец>/<репозиторий>[@<ветка>]:<код> или confluence:<код>, а не «DOC 1»\"" hub.json &&
	long=a$(printf "%0200d" 0 | sed "s/0/я/g") &&
	hub PATCH projects/AWPCA "{\"wiki_root\":\"$long\"}" && test "$STATUS" = 422 &&
	jq -e ".error | test(\"«aя+»$\")" hub.json &&
	hub PATCH projects/AWPCA "{\"wiki_root\":\"bob/secret@main:DOC-1\"}" && test "$STATUS" = 422 &&
	jq -e ".error == \"репозитория bob/secret нет или он недоступен токену\"" hub.json &&
	hub POST projects "{\"label\":\"SNEAK\",\"name\":\"x\",\"wiki_root\":\"bob/secret:DOC-1\"}" &&
	test "$STATUS" = 422 && test "$(db_sql "SELECT wiki_root FROM tracker_projects WHERE label = \"AWPCA\"")" = ann/wiki@main:DOC-1 &&
	test "$(db_sql "SELECT COUNT(*) FROM tracker_projects WHERE label = \"SNEAK\"")" = 0
'

test_expect_success 'the agent syncs the copy; sync {wait} answers with the result' '
	agent_bg &&
	{ echo "$INIT"; call 2 sync "{\"wait\":true}"; call 3 status "{}"; call 4 projects "{}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && text 2 >sync.txt && grep "^пакет #[0-9]*: done$" sync.txt &&
	grep -x "страниц в копии: 5" sync.txt && grep -x "ошибки нет" sync.txt &&
	okres 3 && text 3 >status.txt &&
	grep -x "корень вики: ann/wiki@main:DOC-1" status.txt &&
	grep "^последняя синхронизация: #[0-9]* .*, done, страниц: 5, ревизия " status.txt &&
	grep -x "пакета в работе нет" status.txt && grep -x "агент wiki:" status.txt &&
	grep "^агент онлайн: wiki v" status.txt && grep "^публикации нет$" status.txt &&
	text 4 | grep "^AWPCA (текущий) | АВП | ann/wiki@main:DOC-1 | 5 | " &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages WHERE code = \"DOC-9\"")" = 0
'

test_expect_success 'tree: depth 2 from the root by default, deeper from a code, with sizes' '
	{ echo "$INIT"; call 2 tree "{}"; call 3 tree "{\"code\":\"DOC-2\"}"; call 4 tree "{\"code\":\"DOC-77\"}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && cat >expect <<-\EOT &&
	DOC-1 Главная (23 симв.)
	  DOC-2 Руководство (73 симв.)
	    DOC-4 Install guide (24 симв.)
	  DOC-3 Длинная страница (45000 симв.)
	EOT
	text 2 >tree.txt && test_cmp expect tree.txt &&
	okres 3 && test "$(text 3 | sed -n 3p)" = "    DOC-5 Step one (10 симв.)" &&
	iserr 4 && test "$(text 4)" = "страницы DOC-77 нет в копии вики проекта AWPCA"
'

test_expect_success 'page: 45,000 characters in pieces of 20,000 by characters, joined back exactly' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOC-3\"}"; call 3 page "{\"code\":\"DOC-3\",\"offset\":20000}"
	  call 4 page "{\"code\":\"DOC-3\",\"offset\":40000}"; call 5 page "{\"code\":\"DOC-3\",\"offset\":45000}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && okres 3 && okres 4 &&
	text 2 >p1.txt && test "$(sed -n 1p p1.txt)" = "DOC-3 · Длинная страница" &&
	grep -x "путь: Главная / Длинная страница" p1.txt &&
	grep -x "адрес: ann/wiki@main:home/long.md" p1.txt &&
	grep "^синхронизирована: [0-9][0-9]\.[0-9][0-9] [0-9][0-9]:[0-9][0-9]$" p1.txt &&
	grep -x "вложений нет" p1.txt && grep -x "символы 0–20000 из 45000" p1.txt &&
	test "$(tail -n 1 p1.txt)" = "продолжение: offset=20000" &&
	test "$(text 3 | tail -n 1)" = "продолжение: offset=40000" &&
	! text 4 | grep "продолжение" &&
	part 2 a && part 3 b && part 4 c &&
	test "$(chars a)" = 20000 && test "$(chars b)" = 20000 && test "$(chars c)" = 5000 &&
	cat a b c >joined && cmp joined long.body &&
	iserr 5 && test "$(text 5)" = "offset 45000 за концом страницы DOC-3: в ней 45000 символов"
'

test_expect_success 'page by title: exact gives the page; inexact gives candidates with codes' '
	{ echo "$INIT"; call 2 page "{\"title\":\"Руководство\"}"; call 3 page "{\"title\":\"руковод\"}"
	  call 4 page "{\"code\":\"DOC-2\",\"title\":\"x\"}"; call 5 page "{\"title\":\"нет такой\"}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && test "$(text 2 | sed -n 1p)" = "DOC-2 · Руководство" &&
	iserr 3 && test "$(text 3)" = "страницы с названием «руковод» нет; похожие (1):
DOC-2 Руководство — Главная / Руководство" &&
	iserr 4 && test "$(text 4)" = "нужен либо code, либо title" &&
	iserr 5 && test "$(text 5)" = "страницы с названием «нет такой» нет, похожих тоже"
'

test_expect_success 'attachments: the files in a page'"'"'s folder, with ids in its header; attachment downloads one' '
	A1=$(db_sql "SELECT id FROM wiki_attachments WHERE name = \"data.csv\"") &&
	A2=$(db_sql "SELECT id FROM wiki_attachments WHERE name LIKE \"%.png\"") &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_attachments")" = 2 &&
	{ echo "$INIT"; call 2 page "{\"code\":\"DOC-2\"}"; call 3 attachment "{\"id\":$A2}"
	  call 4 attachment "{\"id\":999999}"; } | sdlc wiki --project AWPCA &&
	okres 2 && text 2 | grep -x "вложения: #$A1 data.csv (8 Б) · #$A2 схема.png (18 Б)" &&
	okres 3 && test "$(text 3)" = "$TRASH/state/downloads/wiki-$A2/схема.png
схема.png (18 Б), image/png, страница DOC-2" &&
	cmp "$WORK/home/guide/схема.png" "$TRASH/state/downloads/wiki-$A2/схема.png" &&
	iserr 4 && test "$(text 4)" = "вложения 999999 нет в копии вики проекта AWPCA — id вложений показывает page" &&
	hub GET "wiki/attachments/$A2?project=AWPCA" &&
	jq -e ".attachment | .mime == \"image/png\" and .size == 18 and .page == \"DOC-2\"" hub.json
'

test_expect_success 'search: Cyrillic words in another case, with path and snippet; the hub sees the project' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 search "{\"query\":\"статус согласован\"}"; call 3 search "{\"query\":\"install\"}"
	  call 4 search "{\"query\":\"щщщщщщщщщщ\"}"; call 5 search "{\"query\":\"+руководство -install\"}"; } |
		sdlc wiki --project AWPCA &&
	okres 2 && text 2 >s.txt && test "$(sed -n 1p s.txt)" = "DOC-2 · Руководство" &&
	test "$(sed -n 2p s.txt)" = "  Главная / Руководство" &&
	sed -n 3p s.txt | grep "Статус Согласован: документ принят" &&
	grep "GET /hub/wiki/search " "$NGINX_DIR/logs/access.log" &&
	okres 3 && text 3 | grep -x "DOC-4 · Install guide" && text 3 | grep -x "DOC-2 · Руководство" &&
	okres 4 && test "$(text 4)" = "по запросу «щщщщщщщщщщ» ничего не нашлось" &&
	okres 5 && test "$(text 5 | grep -c "^DOC-")" = 0
'

# sync_fails MESSAGE WHAT: commits the work tree, syncs, and checks the error and the old copy
sync_fails () {
	commit "$1" &&
	{ echo "$INIT"; call 2 sync "{\"wait\":true}"; call 3 page "{\"code\":\"DOC-3\",\"offset\":40000}"; call 4 status "{}"; } |
		sdlc wiki --project AWPCA &&
	text 2 | grep "^пакет #[0-9]*: failed$" &&
	text 4 | grep -x "ошибка: $2" &&
	okres 3 && part 3 c2 && cmp c2 c &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 5
}

test_expect_success 'a failed sync leaves the previous copy and says why: colliding codes' '
	printf "dup\n" | page home/dup.md DOC-2 "Дубль" &&
	sync_fails collide "код DOC-2 у двух страниц: home/dup.md и home/guide.md" &&
	rm "$WORK/home/dup.md"
'

test_expect_success 'a failed sync: a cycle of parents, then invalid UTF-8' '
	printf "a\n" | page a.md DOC-7 "A" DOC-8 && printf "b\n" | page b.md DOC-8 "B" DOC-7 &&
	sync_fails cycle "страницы образуют цикл родителей: DOC-7 (a.md) — её предок она сама" &&
	rm "$WORK/a.md" "$WORK/b.md" &&
	printf -- "---\ncode: DOC-6\n---\n\377\376 bad\n" >"$WORK/home/bad.md" &&
	sync_fails utf8 "home/bad.md: не UTF-8 (или нулевой байт)" &&
	rm "$WORK/home/bad.md" &&
	printf "x\n" | page home/x.md "not a code" "X" &&
	sync_fails code "home/x.md: в front matter нет кода страницы (code: DOC-1) или он не такой: not a code" &&
	rm "$WORK/home/x.md"
'

test_expect_success 'a good sync after the failures replaces the copy again' '
	printf "Новая страница.\n" | page home/new.md DOC-10 "Новая" && commit good &&
	{ echo "$INIT"; call 2 sync "{\"wait\":true}"; call 3 page "{\"code\":\"DOC-10\"}"; } |
		sdlc wiki --project AWPCA &&
	text 2 | grep "^пакет #[0-9]*: done$" && text 2 | grep -x "ошибки нет" &&
	okres 3 && text 3 | grep -x "Новая страница." &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 6
'

test_expect_success 'the jira agent does not take wiki commands; a root without a repository fails the sync' '
	stop_pid "$AGENT" &&
	hub PATCH projects/AWPCA "{\"wiki_root\":\"DOC-1\"}" && test "$STATUS" = 200 && B=$(jq .batch hub.json) &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN "$FORGEMCP" agent --module jira --backend local --once &&
	hub GET "batches/$B" && jq -e ".batch.state == \"queued\"" hub.json &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN "$FORGEMCP" agent --module wiki --backend git --once &&
	hub GET "wiki/status?project=AWPCA" &&
	jq -e ".last.state == \"failed\" and (.last.error | startswith(\"корень вики DOC-1 не называет репозиторий\")) and .synced == null" hub.json
'

test_expect_success 'root_set while a sync runs queues another; a sync reads the root when it runs' '
	hub PATCH projects/AWPCA "{\"wiki_root\":\"ann/wiki@main:DOC-1\"}" && B1=$(jq .batch hub.json) &&
	hub POST agent/claim "{\"module\":\"wiki\"}" && jq -e ".command.batch == $B1" hub.json &&
	C1=$(jq .command.id hub.json) &&
	hub POST wiki/sync "{\"project\":\"AWPCA\"}" && test "$STATUS" = 200 &&
	jq -e ".queued == false and .batch == $B1" hub.json &&
	hub PATCH projects/AWPCA "{\"wiki_root\":\"ann/wiki@main:DOC-2\"}" &&
	jq -e ".queued == true and .batch != $B1" hub.json &&
	hub POST agent/wiki_git "{\"command\":$C1}" && test "$STATUS" = 422 &&
	jq -e ".error == \"нужны command (id команды) и handout (handouts из claim)\"" hub.json &&
	hub POST agent/wiki_git "{\"command\":$C1,\"handout\":2}" && test "$STATUS" = 409 &&
	jq -e ".error == \"запрос от выдачи 2 не принят: у команды $C1 сейчас выдача 1\"" hub.json &&
	hub POST agent/wiki_git "{\"command\":$C1,\"handout\":1}" && test "$STATUS" = 200 &&
	jq -e ".state == \"done\" and .pages == 3" hub.json &&
	hub POST agent/wiki_git "{\"command\":$C1,\"handout\":1}" && test "$STATUS" = 409 &&
	hub GET "wiki/tree?project=AWPCA&depth=5" &&
	jq -e "[.pages[] | [.code, .depth]] == [[\"DOC-2\", 0], [\"DOC-4\", 1], [\"DOC-5\", 2]]" hub.json &&
	hub POST agent/claim "{\"module\":\"wiki\"}" && C2=$(jq .command.id hub.json) &&
	hub POST agent/wiki_git "{\"command\":$C2,\"handout\":1}" && jq -e ".state == \"done\" and .pages == 3" hub.json
'

test_done
