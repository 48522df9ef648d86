#!/bin/bash
# t6620: the wiki copy from a Confluence-style server: a fake one on
# 127.0.0.1 speaking its REST format from fixture files (children and
# attachments paged two at a time, basic authentication), `forgemcp agent
# --module wiki --backend confluence` reading it, and `forgemcp mcp wiki`
# reading the copy: the tree, a page of every construct converted to exact
# Markdown, a 45,000-character Cyrillic page split and joined back, a
# re-sync after a change, and hostile sources and uploads (errors, garbage,
# a timeout, a page too big, a tree too deep, a cycle, too many pages)
# that each fail the sync with a reason and leave the previous copy.
. ./test-lib.sh

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
start_all
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"

CF=$TRASH/cf
CF_LOG=$TRASH/fake-confluence.log
mkdir -p "$CF/pages" "$CF/children" "$CF/attachments" && : >"$CF_LOG" &&
printf 'cf-secret-token\n' >"$TRASH/cf.token" && chmod 600 "$TRASH/cf.token"
perl "$TEST_DIRECTORY/lib/fake-confluence.pl" --dir "$CF" --port-file "$TRASH/cf.port" \
	--log "$CF_LOG" --auth "ann@example.org:cf-secret-token" \
	>"$TRASH/cf.out" 2>"$TRASH/cf.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/cf.port" || { echo "Bail out! the fake Confluence did not start"; exit 1; }
CF_URL=http://127.0.0.1:$(cat "$TRASH/cf.port")

# cpage ID TITLE [ANCESTORS]: the page's REST answer, its storage text from stdin
cpage () {
	jq -n --rawfile s /dev/stdin --arg id "$1" --arg t "$2" --arg anc "${3:-}" '{
	  id: $id, type: "page", status: "current", title: $t, space: {key: "DOCS"},
	  version: {number: 1},
	  ancestors: ($anc | split(",") | map(select(. != "") | {id: ., type: "page"})),
	  body: {storage: {value: $s, representation: "storage"}},
	  _links: {webui: ("/pages/viewpage.action?pageId=" + $id)}}' >"$CF/pages/$1.json"
}
# kids ID CHILD...: the child pages of ID
kids () { local id=$1; shift; printf '%s\n' "$@" >"$CF/children/$id"; }

# the long page: 450 paragraphs of 98 characters (the last 99), 45,000 in Markdown
perl -CS -e 'for (1..450) { printf "<p>%05d %s</p>\n", $_, "\x{449}" x ($_ == 450 ? 93 : 92) }' >long.storage
perl -CS -e 'print join("\n\n", map { sprintf "%05d %s", $_, "\x{449}" x ($_ == 450 ? 93 : 92) } 1..450), "\n"' >long.md

cat >all.storage <<'EOF'
<h1>Заголовок первый</h1>
<p>Абзац с <strong>жирным</strong>, <em>курсивом</em> и <code>кодом</code>.<br/>Новая строка.</p>
<h2>Списки</h2>
<ul><li>один</li><li>два<ul><li>вложенный</li></ul></li></ul>
<ol><li>первый</li><li>второй</li></ol>
<p><a href="https://example.org/doc">Ссылка</a></p>
<table><tbody><tr><th>Ключ</th><th>Значение</th></tr><tr><td>a</td><td>1</td></tr></tbody></table>
<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sql</ac:parameter><ac:plain-text-body><![CDATA[SELECT * FROM t WHERE a < 1;]]></ac:plain-text-body></ac:structured-macro>
<p><span>неизвестный</span> <custom-tag>элемент</custom-tag></p>
EOF
cat >all.md <<'EOF'
# Заголовок первый

Абзац с **жирным**, *курсивом* и `кодом`.\
Новая строка.

## Списки

- один
- два
  - вложенный

1. первый
2. второй

[Ссылка](https://example.org/doc)

| Ключ | Значение |
| --- | --- |
| a | 1 |

```sql
SELECT * FROM t WHERE a < 1;
```

неизвестный элемент
EOF

printf '<p>Главная страница вики.</p>' | cpage 1001 "Главная" &&
printf '<h1>Руководство</h1><p>Статус Согласован: документ принят.</p><p>See the INSTALL page.</p>' |
	cpage 1002 "Руководство" 1001 &&
cpage 1003 "Все конструкции" 1001 <all.storage &&
cpage 1004 "Длинная страница" 1001 <long.storage &&
printf '<p>How to install the hub.</p>' | cpage 1005 "Install guide" 1001,1002 &&
kids 1001 1002 1003 1004 && kids 1002 1005 &&
printf 'схема.png\t18\timage/png\ndata.csv\t8\ttext/csv\nplan.pdf\t100000\tapplication/pdf\n' \
	>"$CF/attachments/1002" || { echo "Bail out! the Confluence fixtures"; exit 1; }

printf '# Руководство\n\nСтатус Согласован: документ принят.\n\nSee the INSTALL page.\n' >guide.expect

# agent [ARGS...]: the Confluence backend, with the fake's address and credentials
agent () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
	FORGEMCP_WIKI_CONFLUENCE_URL=$CF_URL FORGEMCP_WIKI_CONFLUENCE_USER=ann@example.org \
	FORGEMCP_WIKI_CONFLUENCE_TOKEN_FILE=$TRASH/cf.token FORGEMCP_WIKI_CONFLUENCE_TIMEOUT=${CF_TIMEOUT:-20} \
		"$FORGEMCP" agent --module wiki --backend confluence "$@" >>agent.log 2>&1
}
# agent_bg: the same, running (its pid in AGENT)
agent_bg () {
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
	FORGEMCP_WIKI_CONFLUENCE_URL=$CF_URL FORGEMCP_WIKI_CONFLUENCE_USER=ann@example.org \
	FORGEMCP_WIKI_CONFLUENCE_TOKEN_FILE=$TRASH/cf.token FORGEMCP_WIKI_CONFLUENCE_TIMEOUT=${CF_TIMEOUT:-20} \
		"$FORGEMCP" agent --module wiki --backend confluence --interval 0.1 >>agent.log 2>&1 &
	AGENT=$!
	test_register_pid "$AGENT"
}
# part ID FILE: the Markdown of page answer ID (without its header and continuation) into FILE
part () {
	jq -s -j ".[] | select(.id == $1) | .result.content[0].text" out >"$2.raw" &&
	perl -CSD -Mutf8 -0777 -ne 's/\A.*?\n\n//s; s/\n\nпродолжение: offset=\d+\z//; print' "$2.raw" >"$2"
}
chars () { perl -CSD -0777 -ne 'print length' "$1"; }

test_expect_success 'the confluence backend needs the server'"'"'s address' '
	rc=0 && env FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN \
		"$FORGEMCP" agent --module wiki --backend confluence --once 2>err || rc=$? &&
	test $rc = 2 && grep "the confluence backend needs wiki_confluence_url" err &&
	rc=0 && "$FORGEMCP" agent --module wiki --backend svn 2>err || rc=$? &&
	test $rc = 2 && grep "backend is --backend git or --backend confluence" err &&
	"$FORGEMCP" agent --help >help && grep -- "--backend NAME" help && grep wiki_confluence_url help
'

test_expect_success 'a Confluence root: confluence:<prefix>-<page id>; a bad one refused' '
	{ echo "$INIT"; call 2 project_create "{\"label\":\"DOCS\",\"name\":\"Документация\",\"wiki_root\":\"confluence:DOCS-1001\"}"; } |
		sdlc wiki &&
	okres 2 && text 2 | grep -x "корень вики: confluence:DOCS-1001" &&
	hub PATCH projects/DOCS "{\"wiki_root\":\"confluence:1001\"}" && test "$STATUS" = 422 &&
	jq -e ".error == \"wiki_root — код страницы (DOC-1), <владелец>/<репозиторий>[@<ветка>]:<код> или confluence:<код>, а не «confluence:1001»\"" hub.json
'

test_expect_success 'the agent syncs the tree from the server: paged listings, credentials, the copy whole' '
	agent --once &&
	{ echo "$INIT"; call 2 status "{}"; call 3 tree "{\"depth\":3}"; } | sdlc wiki --project DOCS &&
	okres 2 && text 2 >status.txt &&
	grep "^последняя синхронизация: #[0-9]* .*, done, страниц: 5, ревизия [0-9a-f]\{12\}$" status.txt &&
	grep -x "ошибки нет" status.txt &&
	okres 3 && N=$(chars all.md) && G=$(chars guide.expect) && cat >expect.tree <<-EOT &&
	DOCS-1001 Главная (23 симв.)
	  DOCS-1002 Руководство ($G симв.)
	    DOCS-1005 Install guide (24 симв.)
	  DOCS-1003 Все конструкции ($N симв.)
	  DOCS-1004 Длинная страница (45000 симв.)
	EOT
	text 3 >tree.txt && test_cmp expect.tree tree.txt &&
	grep -x "GET /rest/api/content/1001/child/page?limit=100&start=0" "$CF_LOG" &&
	grep -x "GET /rest/api/content/1001/child/page?limit=100&start=2" "$CF_LOG" &&
	grep -x "GET /rest/api/content/1002/child/attachment?limit=100&start=2" "$CF_LOG" &&
	! grep cf-secret-token agent.log
'

test_expect_success 'page: the header with the Confluence address and the attachments; search finds Cyrillic' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOCS-1002\"}"; call 3 search "{\"query\":\"статус согласован\"}"; } |
		sdlc wiki --project DOCS &&
	okres 2 && text 2 >p.txt && test "$(sed -n 1p p.txt)" = "DOCS-1002 · Руководство" &&
	grep -x "путь: Главная / Руководство" p.txt &&
	grep -x "адрес: $CF_URL/pages/viewpage.action?pageId=1002" p.txt &&
	A=$(db_sql "SELECT id FROM wiki_attachments WHERE name = \"data.csv\"") &&
	grep "^вложения: #[0-9]* схема.png (18 Б) · #$A data.csv (8 Б) · #[0-9]* plan.pdf (97,6 КБ)$" p.txt &&
	test "$(db_sql "SELECT source FROM wiki_attachments WHERE id = $A")" = "$CF_URL/download/attachments/1002/data.csv" &&
	test "$(db_sql "SELECT mime FROM wiki_attachments WHERE name = \"plan.pdf\"")" = application/pdf &&
	part 2 guide && cmp guide.expect guide &&
	okres 3 && text 3 >s.txt && test "$(sed -n 1p s.txt)" = "DOCS-1002 · Руководство" &&
	sed -n 3p s.txt | grep "Статус Согласован: документ принят"
'

test_expect_success 'attachment: the file read from the server with the credentials, through the hub, into downloads/' '
	A=$(db_sql "SELECT id FROM wiki_attachments WHERE name = \"data.csv\"") &&
	P=$(db_sql "SELECT id FROM wiki_attachments WHERE name = \"plan.pdf\"") &&
	S=$(db_sql "SELECT id FROM wiki_attachments WHERE name LIKE \"%.png\"") &&
	mkdir -p "$CF/files/1002" && printf "a,b\n1,2" >"$CF/files/1002/data.csv" &&
	head -c 100000 /dev/urandom >"$CF/files/1002/plan.pdf" &&
	agent_bg &&
	{ echo "$INIT"; call 2 attachment "{\"id\":$A,\"wait_seconds\":20}"
	  call 3 attachment "{\"id\":$P,\"wait_seconds\":20}"; call 4 attachment "{\"id\":$S,\"wait_seconds\":20}"; } |
		sdlc wiki --project DOCS &&
	stop_pid $AGENT &&
	okres 3 && test "$(text 3)" = "$TRASH/state/downloads/wiki-$P/plan.pdf
plan.pdf (97,6 КБ), application/pdf, страница DOCS-1002" &&
	cmp "$CF/files/1002/plan.pdf" "$TRASH/state/downloads/wiki-$P/plan.pdf" &&
	grep -x "GET /download/attachments/1002/plan.pdf" "$CF_LOG" &&
	grep "agent: command [0-9]* (wiki_fetch, 100000 bytes): done$" agent.log &&
	iserr 2 && test "$(text 2)" = "вложение #$A «data.csv» (страница DOCS-1002) не скачано: файл в источнике — 7 байт, а при синхронизации был 8: копия устарела, сначала sync — вызовите attachment ещё раз, чтобы повторить" &&
	iserr 4 && text 4 | grep "^вложение #$S «схема.png» (страница DOCS-1002) не скачано: Confluence: GET /download/attachments/1002/%D1%81%D1%85%D0%B5%D0%BC%D0%B0.png: HTTP 404 — " &&
	test ! -e "$TRASH/state/downloads/wiki-$A" && ! grep cf-secret-token agent.log &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_upload_parts")" = 0
'

test_expect_success 'the storage format of every construct becomes exactly the Markdown expected' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOCS-1003\"}"; } | sdlc wiki --project DOCS &&
	okres 2 && part 2 all.got && test_cmp all.md all.got
'

test_expect_success 'the 45,000-character Cyrillic page in pieces of 20,000, joined back exactly' '
	{ echo "$INIT"; call 2 page "{\"code\":\"DOCS-1004\"}"; call 3 page "{\"code\":\"DOCS-1004\",\"offset\":20000}"
	  call 4 page "{\"code\":\"DOCS-1004\",\"offset\":40000}"; } | sdlc wiki --project DOCS &&
	okres 2 && test "$(text 2 | tail -n 1)" = "продолжение: offset=20000" &&
	text 2 | grep -x "символы 0–20000 из 45000" &&
	test "$(text 3 | tail -n 1)" = "продолжение: offset=40000" && ! text 4 | grep продолжение &&
	part 2 a && part 3 b && part 4 c &&
	test "$(chars a)" = 20000 && test "$(chars b)" = 20000 && test "$(chars c)" = 5000 &&
	cat a b c >joined && cmp joined long.md && cp c c.before
'

test_expect_success 'a re-sync after the server changed a page and added one: sync {wait} with the agent running' '
	printf "<p>How to install the hub, <strong>updated</strong>.</p>" | cpage 1005 "Install guide" 1001,1002 &&
	printf "<p>Новая страница.</p>" | cpage 1006 "Новая" 1001,1002 && kids 1002 1005 1006 &&
	REV1=$(db_sql "SELECT revision FROM wiki_sync_runs WHERE state = \"done\" ORDER BY id DESC LIMIT 1") &&
	agent_bg &&
	{ echo "$INIT"; call 2 sync "{\"wait\":true}"; call 3 page "{\"code\":\"DOCS-1005\"}"; call 4 page "{\"code\":\"DOCS-1006\"}"; } |
		sdlc wiki --project DOCS &&
	stop_pid $AGENT &&
	okres 2 && text 2 | grep "^пакет #[0-9]*: done$" && text 2 | grep -x "страниц в копии: 6" &&
	okres 3 && text 3 | grep -x "How to install the hub, \*\*updated\*\*." &&
	okres 4 && text 4 | grep -x "путь: Главная / Руководство / Новая" &&
	REV2=$(db_sql "SELECT revision FROM wiki_sync_runs WHERE state = \"done\" ORDER BY id DESC LIMIT 1") &&
	test "$REV1" != "$REV2"
'

# sync_fails WHAT: a sync by the agent fails with the error WHAT, and the copy stays
sync_fails () {
	{ echo "$INIT"; call 2 sync "{}"; } | sdlc wiki --project DOCS && okres 2 &&
	agent --once &&
	{ echo "$INIT"; call 2 status "{}"; call 3 page "{\"code\":\"DOCS-1004\",\"offset\":40000}"; } |
		sdlc wiki --project DOCS &&
	okres 2 && text 2 >status.txt &&
	grep "^последняя синхронизация: #[0-9]* .*, failed, страниц: 0" status.txt &&
	grep -x "ошибка: $1" status.txt && grep -x "страниц в копии: 6" status.txt &&
	okres 3 && part 3 c.after && cmp c.before c.after &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 6
}
# keep: page 1005 as it is, put back when the test ends, passed or not
keep () {
	cp "$CF/pages/1005.json" 1005.json.keep &&
	test_when_finished 'cp 1005.json.keep "$CF/pages/1005.json" && rm -f "$CF/pages/1005.status" "$CF/pages/1005.hang"'
}

test_expect_success 'an HTTP error from the server fails the sync and names the request' '
	keep && echo 500 >"$CF/pages/1005.status" &&
	sync_fails "Confluence: GET /rest/api/content/1005: HTTP 500"
'

test_expect_success 'an answer that is not JSON fails the sync' '
	keep && printf "<html>maintenance</html>" >"$CF/pages/1005.json" &&
	sync_fails "Confluence: GET /rest/api/content/1005: ответ — не объект JSON"
'

test_expect_success 'a server that does not answer in time (wiki_confluence_timeout) fails the sync' '
	keep && : >"$CF/pages/1005.hang" && CF_TIMEOUT=2 &&
	sync_fails "Confluence не ответил за 2 с: GET /rest/api/content/1005" && CF_TIMEOUT=
'

test_expect_success 'a page over 4 MB of Markdown fails the sync in the hub, after an upload in parts' '
	keep && perl -e "print q(<p>), q(x) x (4 * 1024 * 1024 + 10), q(</p>)" | cpage 1005 "Огромная" 1001,1002 &&
	: >"$NGINX_DIR/logs/access.log" &&
	sync_fails "страница DOCS-1005: 4194315 байт, больше 4194304" &&
	test "$(grep -c "POST /hub/agent/wiki_pages " "$NGINX_DIR/logs/access.log")" -gt 100 &&
	! grep "POST /hub/agent/wiki_pages .* 413 " "$NGINX_DIR/logs/access.log"
'

test_expect_success 'a tree deeper than 64 levels fails the sync' '
	test_when_finished "rm -f \"$CF/children/1005\"" && prev=1005 && anc=1001,1002,1005 &&
	for k in $(seq 2001 2065); do
		printf "<p>level %s</p>" $k | cpage $k "Уровень $k" $anc && kids $prev $k &&
		prev=$k && anc=$anc,$k || return 1
	done &&
	sync_fails "страница DOCS-2063: глубже 64 уровней от корня"
'

test_expect_success 'a cycle of ancestors (a page listed under its own descendant) fails the sync' '
	test_when_finished "rm -f \"$CF/children/1005\" \"$CF/children/2001\"" && kids 1005 2001 && kids 2001 1002 &&
	sync_fails "страница DOCS-1002 встречается в дереве дважды (под страницей DOCS-2001): цикл предков или страница под двумя родителями"
'

test_expect_success 'a page among its own ancestors fails the sync' '
	cp "$CF/pages/1006.json" 1006.json.keep &&
	test_when_finished "cp 1006.json.keep \"$CF/pages/1006.json\"" &&
	printf "<p>x</p>" | cpage 1006 "Новая" 1001,1002,1006 &&
	sync_fails "страница DOCS-1006 — среди своих предков (ancestors): цикл предков"
'

test_expect_success 'credentials the server refuses fail the sync with its status' '
	printf "wrong-token\n" >"$TRASH/cf.token" &&
	test_when_finished "printf \"cf-secret-token\\n\" >\"$TRASH/cf.token\"" &&
	sync_fails "Confluence: GET /rest/api/content/1001: HTTP 401"
'

# upload COMMAND HANDOUT ROOT FILE: the document FILE sent to the hub in parts of at
# most 30,000 bytes (never inside a character), as the agent sends it, by one process;
# the last answer in hub.json, each in the responses log; fails when one is not 200
upload () {
	perl -MHTTP::Tiny -MJSON::PP -e '
		my ($cmd, $handout, $root, $file, $url, $tok, $log) = @ARGV;
		open my $fh, "<:raw", $file or die "$file: $!\n";
		my $doc = do { local $/; <$fh> };
		my ($http, $json) = (HTTP::Tiny->new(timeout => 120), JSON::PP->new->utf8->canonical);
		my ($off, $part, $len, $res) = (0, 0, length $doc);
		do {
			my $n = $len - $off < 30000 ? $len - $off : 30000;
			$n-- while $off + $n < $len && $n > 0 && (ord(substr($doc, $off + $n, 1)) & 0xc0) == 0x80;
			my $text = substr($doc, $off, $n);
			utf8::decode($text);
			$off += $n;
			$res = $http->post($url, { headers => { Authorization => "Bearer $tok",
			    "Content-Type" => "application/json" }, content => $json->encode({
			    command => 0 + $cmd, handout => 0 + $handout, root => $root,
			    part => $part++, text => $text,
			    last => $off >= $len ? JSON::PP::true : JSON::PP::false }) });
			if (open(my $l, ">>", $log)) { print $l $res->{content}; close $l }
			exit 1 if $res->{status} != 200;
		} while ($off < $len);
		open my $o, ">", "hub.json" or die; print $o $res->{content};
	' "$1" "$2" "$3" "$4" "$BASE_URL/hub/agent/wiki_pages" "$ANN_TOKEN" "$RESPONSES_LOG"
}
# claim: queues a sync and claims it as an agent would; its command id in C, its hand-out in H
claim () {
	hub POST wiki/sync "{\"project\":\"DOCS\"}" &&
	hub POST agent/claim "{\"module\":\"wiki\"}" && C=$(jq .command.id hub.json) && test "$C" != null &&
	H=$(jq .command.handouts hub.json)
}
last_error () { hub GET "wiki/status?project=DOCS" && jq -r .last.error hub.json; }

test_expect_success 'an upload of more than 20,000 pages is refused by the hub; the copy stays' '
	jq -n "{pages: ([range(0; 20001)] | map({code: \"DOCS-\(. + 1)\", title: \"p\", parent: (if . == 0 then null else \"DOCS-1\" end), source: \"s\", body: \"\"}))}" >many.json &&
	claim && upload "$C" "$H" confluence:DOCS-1 many.json &&
	jq -e ".state == \"failed\"" hub.json &&
	test "$(last_error)" = "в копии 20001 страниц, больше 20000" &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 6
'

test_expect_success 'a hostile upload: colliding codes, a cycle of parents, a bad shape, parts out of order, of another hand-out or of none' '
	printf "{\"pages\":[{\"code\":\"DOCS-1\",\"title\":\"a\",\"parent\":null,\"source\":\"s\",\"body\":\"\"},{\"code\":\"DOCS-1\",\"title\":\"b\",\"parent\":null,\"source\":\"s\",\"body\":\"\"}]}" >dup.json &&
	claim && upload "$C" "$H" confluence:DOCS-1 dup.json &&
	test "$(last_error)" = "код DOCS-1 у двух страниц: страница DOCS-1 и страница DOCS-1" &&
	printf "{\"pages\":[{\"code\":\"DOCS-1\",\"title\":\"r\",\"parent\":null,\"source\":\"s\",\"body\":\"\"},{\"code\":\"DOCS-2\",\"title\":\"a\",\"parent\":\"DOCS-3\",\"source\":\"s\",\"body\":\"\"},{\"code\":\"DOCS-3\",\"title\":\"b\",\"parent\":\"DOCS-2\",\"source\":\"s\",\"body\":\"\"}]}" >cycle.json &&
	claim && upload "$C" "$H" confluence:DOCS-1 cycle.json &&
	test "$(last_error)" = "страницы образуют цикл родителей: DOCS-2 (страница DOCS-2) — её предок она сама" &&
	printf "{\"pages\":[{\"code\":\"DOCS-1\",\"title\":7}]}" >shape.json &&
	claim && upload "$C" "$H" confluence:DOCS-1 shape.json &&
	test "$(last_error)" = "копия от агента: pages[0] — не {code, title, parent, source, body} строками" &&
	claim && hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"handout\":$H,\"part\":1,\"text\":\"x\",\"last\":true}" &&
	test "$STATUS" = 409 && jq -e ".error == \"часть 1 не по порядку: начните с части 0\"" hub.json &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"handout\":$((H + 1)),\"part\":0,\"text\":\"x\",\"last\":true}" &&
	test "$STATUS" = 409 && jq -e ".error == \"часть от выдачи $((H + 1)) не принята: у команды $C сейчас выдача $H\"" hub.json &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"part\":0,\"text\":\"x\",\"last\":true}" &&
	test "$STATUS" = 422 && jq -e ".error == \"нужны command, root, handout (handouts из claim) и либо error, либо part (0, 1, …), text и last\"" hub.json &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"error\":\"stop\"}" && test "$STATUS" = 422 &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"handout\":$((H + 1)),\"error\":\"stop\"}" &&
	test "$STATUS" = 409 && jq -e ".error == \"отчёт от выдачи $((H + 1)) не принят: у команды $C сейчас выдача $H\"" hub.json &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"handout\":$H,\"error\":\"stop\"}" &&
	test "$STATUS" = 200 && jq -e ".state == \"failed\" and .error == \"stop\"" hub.json &&
	hub POST agent/wiki_pages "{\"command\":$C,\"root\":\"confluence:DOCS-1\",\"handout\":$H,\"part\":0,\"text\":\"x\",\"last\":true}" &&
	test "$STATUS" = 409 &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_pages")" = 6 &&
	test "$(db_sql "SELECT COUNT(*) FROM wiki_upload_parts")" = 0
'

test_expect_success 'a good sync after the failures replaces the copy again' '
	{ echo "$INIT"; call 2 sync "{}"; } | sdlc wiki --project DOCS && agent --once &&
	hub GET "wiki/status?project=DOCS" &&
	jq -e ".last.state == \"done\" and .last.pages == 6 and .last.error == null" hub.json
'

test_done
