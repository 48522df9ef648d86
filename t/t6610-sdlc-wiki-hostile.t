#!/bin/bash
# t6610: the wiki copy with hostile sources and arguments: a 1 MB page read
# in 20,000-character pieces, a tree 50 levels deep (and a 65-level one the
# sync refuses), an empty page, offsets at and past the end, and tool
# arguments the schemas refuse before any hub request.
. ./test-lib.sh

start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) &&
fm repo create ann/big >/dev/null || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

WIKI=$TRASH/repos/ann/big.git
WORK=$TRASH/big-work
. "$TEST_DIRECTORY/lib/wiki.sh"
# deep FROM TO: pages DEEP-FROM..DEEP-TO, each the child of the one before
deep () {
	local k
	for k in $(seq "$1" "$2"); do
		printf 'level %d\n' "$k" |
			page "deep/$k.md" "DEEP-$k" "Уровень $k" "$(test "$k" = 1 && echo DOC-1 || echo "DEEP-$((k - 1))")" || return 1
	done
}
# 1 MiB of Markdown: 524,288 two-byte characters in lines of 64
perl -CS -Mutf8 -e 'print "ж" x 63, "\n" for 1..8192' >big.body
git -c init.defaultBranch=main init -q "$WORK" &&
printf 'Корень.\n' | page root.md DOC-1 "Корень" &&
page root/big.md DOC-2 "Большая" <big.body &&
page root/empty.md DOC-3 "Пустая" </dev/null &&
printf -- '---\r\ncode: DOC-4\r\ntitle: Конец файла\r\n---' >"$WORK/root/eof.md" &&
deep 1 50 && commit "big" || { echo "Bail out! the wiki repository"; exit 1; }

chars () { perl -CSD -0777 -ne 'print length' "$1"; }
part () {
	jq -s -j ".[] | select(.id == $1) | .result.content[0].text" out >"$2.raw" &&
	perl -CSD -Mutf8 -0777 -ne 's/\A.*?\n\n//s; s/\n\nпродолжение: offset=\d+\z//; print' "$2.raw" >"$2"
}

test_expect_success 'project_create with a root queues its sync; the agent syncs a 1 MB page and a tree 50 levels deep' '
	{ echo "$INIT"; call 2 project_create "{\"label\":\"BIG\",\"name\":\"Большая вики\",\"wiki_root\":\"ann/big:DOC-1\"}"; } |
		sdlc wiki &&
	okres 2 && text 2 | grep -x "корень вики: ann/big:DOC-1" &&
	B=$(text 2 | sed -n "s/^id пакета синхронизации: //p") &&
	hub GET "batches/$B" && jq -e ".batch.project == \"BIG\" and .batch.author == \"claude\" and [.batch.commands[].type] == [\"wiki_sync\"]" hub.json &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN "$FORGEMCP" agent --module wiki --backend git --once &&
	hub GET "wiki/status?project=BIG" &&
	jq -e ".last.state == \"done\" and .last.pages == 54 and .synced != null" hub.json
'

test_expect_success 'the 1 MB page in pieces of 20,000 characters, the last without a continuation' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOC-2\"}"; call 3 page "{\"code\":\"DOC-2\",\"offset\":500000}"
	  call 4 page "{\"code\":\"DOC-2\",\"offset\":520000}"; } | sdlc wiki --project BIG &&
	okres 2 && text 2 | grep -x "символы 0–20000 из 524288" &&
	test "$(text 2 | tail -n 1)" = "продолжение: offset=20000" &&
	test "$(text 3 | tail -n 1)" = "продолжение: offset=520000" &&
	part 4 last && test "$(chars last)" = 4288 && ! text 4 | grep продолжение &&
	perl -CSD -0777 -ne "print substr(\$_, 520000)" big.body >expect.tail &&
	cmp expect.tail last
'

test_expect_success 'the tree 50 levels deep: a path of 51 titles; tree from a deep code' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DEEP-50\"}"; call 3 tree "{\"code\":\"DEEP-48\",\"depth\":5}"; } |
		sdlc wiki --project BIG &&
	okres 2 && test "$(text 2 | sed -n 2p | grep -o " / " | wc -l)" = 50 &&
	text 2 | sed -n 2p | grep "^путь: Корень / Уровень 1 / Уровень 2 / .* / Уровень 50$" &&
	okres 3 && test "$(text 3)" = "DEEP-48 Уровень 48 (9 симв.)
  DEEP-49 Уровень 49 (9 симв.)
    DEEP-50 Уровень 50 (9 симв.)"
'

test_expect_success 'an empty page: its header at offset 0; offsets at or past the end refused; CRLF front matter closing the file' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOC-3\"}"; call 3 page "{\"code\":\"DOC-3\",\"offset\":1}"
	  call 4 page "{\"code\":\"DOC-2\",\"offset\":524288}"; call 5 page "{\"code\":\"DOC-2\",\"offset\":524287}"
	  call 6 page "{\"code\":\"DOC-999\"}"; } | sdlc wiki --project BIG &&
	okres 2 && text 2 | grep -x "символы 0–0 из 0" && ! text 2 | grep продолжение &&
	iserr 3 && test "$(text 3)" = "offset 1 за концом страницы DOC-3: в ней 0 символов" &&
	iserr 4 && test "$(text 4)" = "offset 524288 за концом страницы DOC-2: в ней 524288 символов" &&
	okres 5 && part 5 one && printf "\n" >nl && cmp nl one &&
	iserr 6 && test "$(text 6)" = "страницы DOC-999 нет в копии вики проекта BIG" &&
	hub GET "wiki/tree?project=BIG&code=DOC-4" &&
	jq -e ".pages == [{code: \"DOC-4\", title: \"Конец файла\", depth: 0, chars: 0}]" hub.json
'

test_expect_success 'tool arguments the schemas refuse, before any hub request' '
	: >"$NGINX_DIR/logs/access.log" &&
	{ echo "$INIT"; call 2 page "{\"code\":\"DOC-1; DROP TABLE wiki_pages\"}"; call 3 tree "{\"depth\":0}"
	  call 4 page "{\"code\":\"DOC-1\",\"offset\":-1}"; call 5 search "{\"query\":\"\"}"
	  call 6 search "{\"query\":\"x\",\"limit\":51}"; call 7 root_set "{}"; } | sdlc wiki --project BIG &&
	for i in 2 3 4 5 6 7; do iserr $i || exit 1; done &&
	! grep "/hub/" "$NGINX_DIR/logs/access.log"
'

test_expect_success 'a tree deeper than 64 levels fails the sync and keeps the copy' '
	deep 51 66 && commit deeper &&
	hub POST wiki/sync "{\"project\":\"BIG\"}" && test "$STATUS" = 201 &&
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN "$FORGEMCP" agent --module wiki --backend git --once &&
	hub GET "wiki/status?project=BIG" &&
	jq -e ".last.state == \"failed\" and .last.error == \"deep/65.md: глубже 64 уровней от корня\" and .pages == 54" hub.json
'

test_done
