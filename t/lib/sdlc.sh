# sdlc.sh: helpers of the sdlc hub scripts (t65xx): the AURORA fixture, hub
# API requests with curl, and `forgemcp mcp jira` driven line by line.
# Sourced after test-lib.sh and start_all; the script sets ANN_TOKEN
# (read,write) before it calls them.
#
# Licensed under the ISC license, see LICENSE.

export TZ=UTC

# The fixture: AURORA's own issues 9001 (7 comments) and 9003, its neighbour
# OTHER-5 (linked to 9001), and OTHER-6, linked to nothing of AURORA.
LONG=$(printf "%0500d" 0 | sed "s/0/я/g")
C101=$(printf 'строка %d\n' $(seq 1 100))
# sdlc_fixture FILE: writes the fixture document
sdlc_fixture () {
jq -n --arg long "$LONG" --arg c101 "$C101" '{
  projects: [{label: "AURORA", name: "Аврора", board_id: 5120}],
  issues: [
    {id: 9001, key: "AURORA-9001", type: "bug", summary: ("Отчёт ОСВ по счёту 60 " * 5),
     status: "В работе", assignee: "Иванов", due: "2026-12-20", sprint: "Спринт 2",
     story_points: 3, created: "2026-11-01T10:00:00Z", updated: "2026-11-03T09:30:00Z",
     labels: ["AURORA"], fields: {"Компонент": "Отчёты"},
     description: "Описание задачи",
     links: [{type: "Blocks", outward: "blocks", inward: "is blocked by", to: "OTHER-5"}],
     comments: ([range(1; 7) | {id: (100 + .), author: "Петров",
       body: ("комментарий " + (. | tostring)),
       created: ("2026-11-0" + (. | tostring) + "T12:00:00Z")}]
       | .[0].body = $c101
       | . + [{id: 107, author: "Сидоров", body: $long, created: "2026-11-08T15:45:00Z",
               updated: "2026-11-09T08:00:00Z"}])},
    {id: 9003, key: "AURORA-9003", type: "task", summary: "Вторая", status: "Готово",
     created: "2026-11-02T10:00:00Z", updated: "2026-11-02T10:00:00Z", labels: ["AURORA"]},
    {id: 5, key: "OTHER-5", type: "task", summary: "Соседняя задача", status: "Новая",
     created: "2026-10-01T10:00:00Z", updated: "2026-10-01T10:00:00Z", labels: ["OTHER"]},
    {id: 6, key: "OTHER-6", type: "task", summary: "Чужая задача", status: "Новая",
     created: "2026-10-01T10:00:00Z", updated: "2026-10-01T10:00:00Z", labels: ["OTHER"]}
  ]}' >"$1"
}

# hub METHOD PATH [BODY] [TOKEN]: a hub API request through nginx; the
# status in STATUS, the body in hub.json
hub () {
	local tok=${4-$ANN_TOKEN}
	set -- "$1" "$2" "${3:-}" ${tok:+-H "Authorization: Bearer $tok"}
	if test -n "$3"; then
		STATUS=$(curl -sS -o hub.json -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
			--data-binary "$3" "${@:4}" "$BASE_URL/hub/$2")
	else
		STATUS=$(curl -sS -o hub.json -w '%{http_code}' -X "$1" "${@:4}" "$BASE_URL/hub/$2")
	fi
	cat hub.json >>"$RESPONSES_LOG"
}

# sdlc ARGS... < LINES: forgemcp mcp with the hub of this instance and its
# data directory (downloads) $TRASH/state unless FORGEMCP_STATE names one;
# stdout to out (one JSON-RPC answer a line), stderr to err
HUB_URL=$BASE_URL/hub
# (both are kept in mcp.stderr and mcp-answers.log too, for t9990's token search)
# (the guard against a hang is longer than the longest wait a tool may
# take by default, attachment's 120 s: a slow agent on a loaded machine
# must make a tool wait, never make the harness kill it)
sdlc () {
	local rc=0
	FORGEMCP_HUB_URL=$HUB_URL FORGEMCP_HUB_TOKEN=$ANN_TOKEN FORGEMCP_STATE=${FORGEMCP_STATE:-$TRASH/state} \
		timeout 150 "$FORGEMCP" mcp "$@" >out 2>err || rc=$?
	cat err >>mcp.stderr
	cat out >>mcp-answers.log
	return $rc
}
# call ID TOOL ARGS_JSON: a tools/call line
call () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
		"$1" "$2" "$3"
}
# text ID: the text of answer ID in out; iserr ID: whether it is isError
# (jq -s: with one answer a line, jq -e alone would judge by the last line)
text () { jq -s -r ".[] | select(.id == $1) | .result.content[0].text" out; }
iserr () { jq -s -e ".[] | select(.id == $1) | .result.isError == true" out >/dev/null; }
okres () { jq -s -e ".[] | select(.id == $1) | .result.isError == false" out >/dev/null; }
# answer ID FILTER: FILTER holds for the whole answer ID
answer () { jq -s -e ".[] | select(.id == $1) | $2" out >/dev/null; }

# the initialize line of a session
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
