# lib-mcp.sh: users, tokens and fixtures; MCP requests through nginx and assertions on the last response.
#
# Sourced by t/test-lib.sh; not meant to be run or sourced on its own.
# Licensed under the ISC license, see LICENSE.

# ---------------------------------------------------------------------------
# Users, tokens and fixture repositories

# make_user LOGIN: creates a user.
make_user () {
	FM_FIXTURE=1 fm user add "$1" --name "User $1" --email "$1@example.com" >/dev/null 2>>"$TRASH/cli.stderr"
}

# make_token LOGIN SCOPES [more args]: prints a new token.
make_token () {
	local u=$1 s=$2
	shift 2
	FM_FIXTURE=1 fm token create --user "$u" --scopes "$s" "$@" 2>>"$TRASH/cli.stderr"
}

TEST_TICK=1700000000

test_tick () {
	TEST_TICK=$((TEST_TICK + 60))
	GIT_AUTHOR_DATE="$TEST_TICK +0000"
	GIT_COMMITTER_DATE="$TEST_TICK +0000"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL=author@example.com
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# make_fixture_repo DIR.git: a deterministic bare repository:
#   commit 1: README.md, src/lib/deep/nested.txt, docs/guide.md
#   commit 2: logo.bin (binary), big.txt (exactly 10240 bytes)      <- tag v1.0
#   commit 3: README.md changed
# Sets FIXTURE_C1, FIXTURE_C2, FIXTURE_C3 (commit ids).  Built once per run
# (for each TEST_TICK it starts at) and copied after that (fixture_cached_).
make_fixture_repo () {
	fixture_cached_ fixture "$1" make_fixture_repo_build_ FIXTURE_C1 FIXTURE_C2 FIXTURE_C3
}

make_fixture_repo_build_ () {
	bare=$1
	work=$TRASH/fixture-work.$$
	rm -rf "$work" "$bare"
	git -c init.defaultBranch=main init -q "$work" || return 1
	(
		cd "$work" &&
		git config user.useConfigOnly false &&
		printf '# fixture\n\nA repository for tests.\n' >README.md &&
		mkdir -p src/lib/deep docs &&
		printf 'deep inside\n' >src/lib/deep/nested.txt &&
		printf 'Guide\n=====\n\nUnicode: caf\303\251 \342\234\223\n' >docs/guide.md &&
		git add . && test_tick && git commit -q -m 'first commit' &&
		printf '\211PNG\r\n\032\n\000\001\002\003\377\376binary\000data' >logo.bin &&
		perl -e 'for my $i (0..255) { printf "line %03d: %s\n", $i, "x" x 29 }' >big.txt &&
		test "$(wc -c <big.txt)" = 10240 &&
		git add . && test_tick && git commit -q -m 'add binary and big files' &&
		test_tick && git tag -a -m 'release 1.0' v1.0 &&
		printf '# fixture\n\nA repository for tests.\nVersion two.\n' >README.md &&
		git add . && test_tick && git commit -q -m 'third commit'
	) || return 1
	FIXTURE_C1=$(git -C "$work" rev-parse HEAD~2)
	FIXTURE_C2=$(git -C "$work" rev-parse HEAD~1)
	FIXTURE_C3=$(git -C "$work" rev-parse HEAD)
	git clone -q --bare "$work" "$bare" || return 1
	rm -rf "$work"
}

# fixture_cached_ NAME DIR.git BUILDER VAR...: DIR.git as BUILDER DIR.git
# makes it, with the variables VAR... and the clock (TEST_TICK and the git
# dates) it leaves.  The first script of a run to ask builds it and keeps a
# copy in $FORGEMCP_TRASH/.fixtures/ under a key made of NAME, TEST_TICK and
# the text of BUILDER; the others copy it (one cp instead of some thirty git
# runs).  Scripts build at once: each builds into a directory of its own and
# the first to finish puts it in place.
fixture_cached_ () {
	local name=$1 dest=$2 builder=$3 key dir tmp v
	shift 3
	key=$(declare -f "$builder" | cksum) || return 1
	key=$name-$TEST_TICK-${key%% *}
	dir=$FORGEMCP_TRASH/.fixtures/$key
	bare=$dest
	if test -f "$dir/vars"; then
		rm -rf "$dest" &&
		cp -a "$dir/repo.git" "$dest" &&
		. "$dir/vars"
		return
	fi
	"$builder" "$dest" || return 1
	tmp=$FORGEMCP_TRASH/.fixtures/.new.$key.$$
	rm -rf "$tmp" &&
	mkdir -p "$tmp" &&
	cp -a "$dest" "$tmp/repo.git" &&
	for v in "$@" TEST_TICK; do
		printf '%s=%q\n' "$v" "${!v}"
	done >"$tmp/vars" &&
	for v in GIT_AUTHOR_DATE GIT_COMMITTER_DATE; do
		if test -n "${!v:-}"; then printf 'export %s=%q\n' "$v" "${!v}"; fi
	done >>"$tmp/vars" &&
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
	return 0
}

# setup_fixtures: the standard cast for tool and auth tests.
#   alice: owns alice/fixture (public, imported fixture) and alice/secret (private)
#   bob:   owns bob/hidden (private, imported fixture), bob/tools (public, empty)
#   carol: reader on bob/hidden
# Tokens: ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN (read,write), WRITE_ONLY_TOKEN (alice, write)
setup_fixtures () {
	make_user alice &&
	make_user bob &&
	make_user carol &&
	make_fixture_repo "$TRASH/fixture.git" &&
	FM_FIXTURE=1 fm repo import alice/fixture --from "$TRASH/fixture.git" --description 'the fixture' >/dev/null &&
	FM_FIXTURE=1 fm repo create alice/secret --private --description 'alice private' >/dev/null &&
	FM_FIXTURE=1 fm repo import bob/hidden --from "$TRASH/fixture.git" --private >/dev/null &&
	FM_FIXTURE=1 fm repo create bob/tools --description 'bob public tools' >/dev/null &&
	FM_FIXTURE=1 fm collaborator add bob/hidden carol reader >/dev/null &&
	ALICE_TOKEN=$(make_token alice read,write) &&
	BOB_TOKEN=$(make_token bob read,write) &&
	CAROL_TOKEN=$(make_token carol read) &&
	WRITE_ONLY_TOKEN=$(make_token alice write) &&
	TOKEN=$ALICE_TOKEN
}

# ---------------------------------------------------------------------------
# HTTP requests through nginx

RESP=$TRASH/resp
EMPTY_OBJ='{}'
TOKEN=
MODERN_VERSION=2026-07-28

# mcp_post [options] [BODY]: POSTs BODY (or --file F) to the endpoint.
# Options:
#   -H 'Name: value'    extra header (repeatable)
#   --no-auth           send no Authorization header
#   --token T           use T as the bearer token
#   --no-ctype          send no Content-Type header
#   --ctype VALUE       Content-Type value
#   -X METHOD           HTTP method (default POST)
#   --path PATH         request path (default /mcp)
#   --url URL           whole URL
#   --file F            body from file F
# Leaves $RESP.status, $RESP.headers (CR stripped) and $RESP.body.
mcp_post () {
	local method=POST path=/mcp url= auth=yes tok=$TOKEN ctype=application/json file=
	set -- "$@" --end-of-options--
	while test "$1" != --end-of-options--; do
		case $1 in
		-H) set -- "$@" -H "$2"; shift 2 ;;
		--no-auth) auth=no; shift ;;
		--token) tok=$2; shift 2 ;;
		--no-ctype) ctype=; shift ;;
		--ctype) ctype=$2; shift 2 ;;
		-X) method=$2; shift 2 ;;
		--path) path=$2; shift 2 ;;
		--url) url=$2; shift 2 ;;
		--file) file=$2; shift 2 ;;
		*) printf '%s' "$1" >"$RESP.req"; file=$RESP.req; shift ;;
		esac
	done
	shift
	test -n "$url" || url=$BASE_URL$path
	if test "$auth" = yes && test -n "$tok"; then
		set -- "$@" -H "Authorization: Bearer $tok"
	fi
	if test -n "$ctype"; then
		set -- "$@" -H "Content-Type: $ctype"
	else
		set -- "$@" -H "Content-Type:"
	fi
	case $method in
	POST|PUT|PATCH)
		test -n "$file" || { : >"$RESP.req"; file=$RESP.req; }
		set -- "$@" --data-binary "@$file" ;;
	esac
	if mcp_client_here_; then
		mcp_client_post_ "$method" "$url" "$file" "$@"
		case $? in 0) return 0 ;; 1) return 1 ;; esac
	fi
	rm -f "$RESP.status" "$RESP.headers" "$RESP.body"
	curl -sS -X "$method" -H 'Accept: application/json, text/event-stream' \
		-H 'Expect:' "$@" -o "$RESP.body" -D "$RESP.headers.raw" \
		-w '%{http_code}' "$url" >"$RESP.status" || {
		echo "curl failed for $method $url"
		return 1
	}
	tr -d '\r' <"$RESP.headers.raw" >"$RESP.headers"
	local status
	read -r status <"$RESP.status" || :
	{ printf '### %s -> %s\n' "$method" "$status"
	  cat "$RESP.headers" "$RESP.body" 2>/dev/null; echo; } >>"$RESPONSES_LOG"
	if test "${TEST_VERBOSE:-}" = 1; then
		echo "> $method $url: $status"
		cat "$RESP.headers" "$RESP.body"
		echo
	fi
	return 0
}

# mcp_client_start: from now on mcp_post (and everything built on it) sends
# through one keep-alive connection of t/lib/mcp-client.pl, a coprocess,
# instead of a curl process per request; the files it leaves are the same.
# Requests from subshells, to other URLs, with HEAD, with an Accept header
# of their own or with a header that shapes the connection itself (Host,
# Content-Length, Transfer-Encoding, Connection, Expect) still go through
# curl.  Call it after start_nginx.
MCP_CLIENT_PID=
MCP_CLIENT_OWNER=
mcp_client_start () {
	coproc MCP_CLIENT { exec perl "$TEST_DIRECTORY/lib/mcp-client.pl" 127.0.0.1 "$HTTP_PORT" \
		2>>"$TRASH/mcp-client.stderr"; }
	test_register_pid "$MCP_CLIENT_PID"
	MCP_CLIENT_OWNER=$BASHPID
}

# mcp_client_here_: the keep-alive client runs and this shell may use it
# (its coprocess pipes belong to the shell that started it, not to a
# subshell)
mcp_client_here_ () {
	test -n "$MCP_CLIENT_PID" && test "$BASHPID" = "$MCP_CLIENT_OWNER"
}

# mcp_client_post_ METHOD URL FILE [-H HEADER]...: mcp_post's request through
# the coprocess.  Returns 2 when this request is one for curl (nothing sent),
# 1 when the client failed, else 0.
mcp_client_post_ () {
	local method=$1 url=$2 file=$3 line status
	shift 3
	case $method in HEAD) return 2 ;; esac
	case $url in "$BASE_URL"/*) ;; *) return 2 ;; esac
	# the Accept header curl is given first, as mcp_post gives it
	line="$method	${url#"$BASE_URL"}	$file	$RESP	$RESPONSES_LOG	Accept: application/json, text/event-stream"
	while test $# -gt 0; do
		case $1 in
		-H)
			case ${2,,} in
			host:*|content-length:*|transfer-encoding:*|connection:*|expect:?*|accept:*|*$'\t'*|*$'\n'*|*\;)
				return 2 ;;
			esac
			line="$line	$2"
			shift 2 ;;
		--data-binary) shift 2 ;;
		*) return 2 ;;
		esac
	done
	printf '%s\n' "$line" >&"${MCP_CLIENT[1]}" &&
	read -r status <&"${MCP_CLIENT[0]}" || { echo "the keep-alive client is gone"; return 1; }
	if test "$status" = 000; then
		echo "no answer for $method $url"
		return 1
	fi
	if test "${TEST_VERBOSE:-}" = 1; then
		echo "> $method $url: $status"
		cat "$RESP.headers" "$RESP.body"
		echo
	fi
	return 0
}

# json_meta [EXTRA_JSON_OBJECT]: the modern per-request _meta object.
json_meta () {
	if test -z "${1:-}"; then
		# the common case, without a jq run: MODERN_VERSION needs no escaping
		printf '{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":{}}\n' \
			"$MODERN_VERSION"
		return
	fi
	jq -nc --arg v "$MODERN_VERSION" --argjson extra "$1" \
		'{"io.modelcontextprotocol/protocolVersion": $v,
		  "io.modelcontextprotocol/clientCapabilities": {}} + $extra'
}

# body_plain_ METHOD PARAMS_JSON ID: whether modern_body and legacy_body may
# write the body without jq, as jq would send it but for white space: a
# METHOD of lower-case letters, / and _; PARAMS_JSON null or an object (not
# naming _meta), in printable ASCII without a fraction, an exponent, a
# number of 16 digits or more or an escape jq rewrites (TOOL_ARGS_FOR_JQ_); an ID
# that is an integer of at most 15 digits (sent as a number) or "none".
# Sets BODY_ID_ to the body's id member (empty for "none").
body_plain_ () {
	[[ $1 =~ ^[a-z/_]+$ ]] && [[ ! $2 =~ $TOOL_ARGS_FOR_JQ_ ]] &&
	[[ $2 =~ ^[[:space:]]*(null|\{.*\})[[:space:]]*$ ]] && [[ $2 != *_meta* ]] &&
	[[ $3 =~ ^(0|-?[1-9][0-9]{0,14}|none)$ ]] || return 1
	BODY_ID_=
	test "$3" = none || BODY_ID_=",\"id\":$3"
}

# modern_body METHOD [PARAMS_JSON] [ID]: a modern request body (params gain _meta).
# ID "none" makes a notification.
modern_body () {
	local p=${2:-$EMPTY_OBJ} id=${3:-1} inner
	if body_plain_ "$1" "$p" "$id" && [[ $p =~ ^[[:space:]]*\{ ]]; then
		# the object's members after _meta, as jq's ({_meta: $meta} + $p) orders them
		inner=${p#*\{}
		inner=${inner#"${inner%%[! $'\t\n']*}"}
		test "${inner:0:1}" = "}" || inner=,$inner
		printf '{"jsonrpc":"2.0","method":"%s","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":{}}%s%s}\n' \
			"$1" "$MODERN_VERSION" "$inner" "$BODY_ID_"
		return
	fi
	jq -nc --arg m "$1" --argjson p "$p" --argjson meta "$(json_meta)" \
		--arg id "$id" \
		'{jsonrpc: "2.0", method: $m, params: ({_meta: $meta} + $p)}
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# legacy_body METHOD [PARAMS_JSON] [ID]
legacy_body () {
	local p=${2:-null} id=${3:-1}
	if body_plain_ "$1" "$p" "$id"; then
		if [[ $p =~ ^[[:space:]]*null ]]; then p=; else p=,\"params\":$p; fi
		printf '{"jsonrpc":"2.0","method":"%s"%s%s}\n' "$1" "$p" "$BODY_ID_"
		return
	fi
	jq -nc --arg m "$1" --argjson p "$p" --arg id "$id" \
		'{jsonrpc: "2.0", method: $m}
		 + (if $p == null then {} else {params: $p} end)
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# mcp_modern METHOD [PARAMS_JSON] [mcp_post options]: a modern request with
# the standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
mcp_modern () {
	local m=$1 p=${2:-$EMPTY_OBJ} name
	shift
	test $# -gt 0 && shift
	# .name // .uri // empty, without jq when the object names neither or
	# opens with a plain string "name"
	if [[ $p != *'"name"'* && $p != *'"uri"'* && $p =~ ^[[:space:]]*\{ ]]; then
		name=
	elif [[ $p =~ ^[[:space:]]*\{[[:space:]]*\"name\"[[:space:]]*:[[:space:]]*\"([ !#-[^-~]+)\" ]]; then
		name=${BASH_REMATCH[1]}
	else
		name=$(printf '%s' "$p" | jq -r '.name // .uri // empty')
	fi
	if test -n "$name"; then
		set -- -H "Mcp-Name: $name" "$@"
	fi
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m" "$@" \
		"$(modern_body "$m" "$p")"
}

# mcp_legacy METHOD [PARAMS_JSON] [mcp_post options]: no _meta, no modern headers.
mcp_legacy () {
	local m=$1 p=${2:-null}
	shift
	test $# -gt 0 && shift
	mcp_post "$@" "$(legacy_body "$m" "$p")"
}

# until_refused OUT CMD...: runs CMD (a request through mcp_post) again and
# again until two 429s in a row, the second 3 s after the first: long
# enough for the workers to give back the requests of the account they
# held (1 to 1.25 s after their last request, later on a busy machine);
# writes the number of 200s to OUT.  At most 300 requests; any other
# status fails.
until_refused () {
	local out=$1 ok=0 refused=0 i status
	shift
	for i in $(seq 1 300); do
		"$@" || return 1
		status=$(cat "$RESP.status")
		case $status in
		200)	ok=$((ok + 1)) refused=0 ;;
		429)	refused=$((refused + 1))
			test $refused = 2 && break
			sleep 3 ;;
		*)	return 1 ;;
		esac
	done
	echo $ok >"$out"
}

# tool_call NAME ARGS_JSON [mcp_post options]: a modern tools/call, as
# mcp_modern tools/call '{"name":NAME,"arguments":ARGS_JSON}' sends it
# (the body built by one jq run instead of three).
#
# With the keep-alive client (mcp_client_start), arguments jq would send
# unchanged but for white space (printable ASCII without a fraction, an
# exponent, a number of 16 digits or more, or an escape other than \", \\,
# \n, \r, \t, \b and \f, which jq writes as they are) go into the body as
# they are, without a jq run.
TOOL_ARGS_FOR_JQ_='[^ -~]|[\\]([^"\\nrtbf]|$)|[0-9][.eE]|[0-9]{16}'
tool_call () {
	local n=$1 a=${2:-$EMPTY_OBJ} body
	shift
	test $# -gt 0 && shift
	if test -n "$MCP_CLIENT_PID" && [[ $n =~ ^[a-z_]+$ ]] && [[ ! $a =~ $TOOL_ARGS_FOR_JQ_ ]] &&
	   [[ $a =~ ^[[:space:]]*[[{] ]]; then
		body="{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$MODERN_VERSION\",\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"$n\",\"arguments\":$a},\"id\":1}"
	else
		body=$(jq -nc --arg n "$n" --argjson a "$a" --argjson meta "{\"io.modelcontextprotocol/protocolVersion\":\"$MODERN_VERSION\",\"io.modelcontextprotocol/clientCapabilities\":{}}" \
			'{jsonrpc: "2.0", method: "tools/call",
			  params: ({_meta: $meta} + {name: $n, arguments: $a}), id: 1}')
	fi
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: tools/call" \
		-H "Mcp-Name: $n" "$@" "$body"
}

# json_str VAR TEXT: sets VAR to TEXT as a JSON string literal, without a
# process (for UTF-8 text whose only control characters are tab, CR, LF).
json_str () {
	local s=$2
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	s=${s//$'\r'/\\r}
	printf -v "$1" '"%s"' "$s"
}

# json_int VAR FILE KEY: sets VAR to what jq -r .KEY prints for FILE (a
# JSON object with an integer KEY, as a tool's text has its number); without
# a process when the object opens with that member ({"KEY":INTEGER, as the
# server writes its texts), else with a jq run.  Fails when jq does.
json_int () {
	local line= v
	IFS= read -r line <"$2"
	if [[ $line =~ ^\{\"$3\":(0|-?[1-9][0-9]{0,14})[,}] ]]; then
		printf -v "$1" '%s' "${BASH_REMATCH[1]}"
		return 0
	fi
	v=$(jq -r ".$3" "$2") || return 1
	printf -v "$1" '%s' "$v"
}

# json_value VAR FILE PATH [DEFAULT]: sets VAR to what jq -r 'PATH' (jq -r
# 'PATH // DEFAULT' with a DEFAULT, an integer) prints for FILE, one JSON
# document (a response body, a tool's text), PATH being .KEY.KEY...  Asked
# of the keep-alive client (no jq run) when there is one and the value is
# null, a boolean, an integer or a string without control characters; else
# of jq.  Fails when jq does.
json_value () {
	local answer= filter=$3${4:+ // $4} file=$2
	[[ $file == /* ]] || file=$PWD/$file
	if mcp_client_here_ &&
	   [[ $3 =~ $JSON_PATH_RE_ && $file != *[$'\t\n']* ]]; then
		printf 'VALUE\t%s\t%s\n' "$file" "$3" >&"${MCP_CLIENT[1]}" &&
		IFS= read -r answer <&"${MCP_CLIENT[0]}"
		case $answer in
		ok$'\t'*)
			answer=${answer#ok$'\t'}
			case $answer in null|false) test -z "${4:-}" || answer=$4 ;; esac
			printf -v "$1" '%s' "$answer"
			return 0 ;;
		esac
	fi
	answer=$(jq -r "$filter" "$2") || return 1
	printf -v "$1" '%s' "$answer"
}

# body_sorted OUT: the last response's body with its object members sorted
# by name, one a line, in OUT: laid out by the keep-alive client's JSON
# encoder when there is one (and the body is one JSON document), else by jq
# -S; for comparing two answers written by it, not for comparing with text
# written otherwise.  Fails when jq does.
body_sorted () {
	local answer=
	if mcp_client_here_; then
		printf 'SORTED\t%s\t%s\n' "$RESP.body" "$1" >&"${MCP_CLIENT[1]}" &&
		read -r answer <&"${MCP_CLIENT[0]}"
		test "$answer" = ok && return 0
	fi
	jq -S . "$RESP.body" >"$1"
}

# tool_text: prints result.content[0].text of the last response.
tool_text () {
	jq -r '.result.content[0].text' "$RESP.body"
}

# ---------------------------------------------------------------------------
# Assertions on the last response

show_response_ () {
	echo "--- status: $(cat "$RESP.status" 2>/dev/null)"
	cat "$RESP.headers" 2>/dev/null
	echo "--- body:"
	head -c 2000 "$RESP.body" 2>/dev/null
	echo
}

# test_status CODE
test_status () {
	local status=
	read -r status <"$RESP.status" || :
	if test "$status" != "$1"; then
		echo "expected HTTP status $1"
		show_response_
		return 1
	fi
}

# JSON texts that jq -cS prints unchanged (in the C locale).
# A jq path of plain keys (.KEY.KEY...), which the keep-alive client reads.
JSON_PATH_RE_='^(\.[A-Za-z_][A-Za-z0-9_]*)+$'
JSON_SELF_NORMAL_='^(-?(0|[1-9][0-9]*)|true|false|null|"[] !#-[^-~]*")$'

# test_json FILTER EXPECTED: jq -c FILTER on the body equals EXPECTED.
# With the keep-alive client, a FILTER that is a path (.KEY.KEY...) whose
# value is its own normal form, as EXPECTED is, is read by the client (no
# jq run, JVALUE); anything else by jq.
test_json () {
	local actual= expect
	# An integer, true, false, null or a plain ASCII string is its own
	# normal form; anything else is normalised by jq.
	if [[ $2 =~ $JSON_SELF_NORMAL_ ]]; then
		expect=$2
		if mcp_client_here_ &&
		   [[ $1 =~ $JSON_PATH_RE_ && $RESP != *[$'\t\n']* ]]; then
			printf 'JVALUE\t%s\t%s\n' "$RESP.body" "$1" >&"${MCP_CLIENT[1]}" &&
			IFS= read -r actual <&"${MCP_CLIENT[0]}"
		fi
	else
		expect=$(printf '%s' "$2" | jq -cS . 2>/dev/null) || expect=$2
	fi
	case $actual in
	ok$'\t'*) actual=${actual#ok$'\t'} ;;
	*) actual=$(jq -cS "$1" "$RESP.body" 2>&1) ;;
	esac
	if test "$actual" != "$expect"; then
		echo "expected $1 == $2, got: $actual"
		show_response_
		return 1
	fi
}

# jq_all_prog_ SOURCE FILTER...: sets JQ_ALL_PROG_ to a jq program (for
# jq -n) that is true when SOURCE (a jq expression on inputs) gives one
# JSON value on which the last output of each FILTER is neither false nor
# null, as jq -e FILTER has it; false when SOURCE gives no value or more
# than one, an error when a FILTER fails.  Every FILTER is evaluated (no
# short cut), so an error in any of them is seen.
jq_all_prog_ () {
	local f src=$1
	shift
	JQ_ALL_PROG_=
	for f in "$@"; do
		JQ_ALL_PROG_="$JQ_ALL_PROG_${JQ_ALL_PROG_:+, }([($f)] | last)"
	done
	JQ_ALL_PROG_="[$src] | if length == 1 then .[0] | [$JQ_ALL_PROG_] | map(. != null and . != false) | all else false end"
}

# test_jq FILTER...: jq -e FILTER on the body is true, for each FILTER.
# Several filters are checked by one jq run (jq_all_prog_); only when that
# fails is each one run on its own, in order, to say which.
test_jq () {
	local f
	if test $# -gt 1; then
		jq_all_prog_ inputs "$@"
		jq -n -e "$JQ_ALL_PROG_" "$RESP.body" >/dev/null 2>&1 && return 0
	fi
	for f in "$@"; do
		if ! jq -e "$f" "$RESP.body" >/dev/null 2>&1; then
			echo "expected true: $f"
			show_response_
			return 1
		fi
	done
}

# test_text_jq FILTER...: the tool result's text parses as JSON and each
# FILTER is true on it.  One jq run (fromjson) when that holds; only when it
# does not is the text taken out and given to a jq run per FILTER as
# before, to decide.
test_text_jq () {
	local f
	if test $# = 1; then
		jq -e ".result.content[0].text | fromjson | ($1)" "$RESP.body" >/dev/null 2>&1 && return 0
	else
		jq_all_prog_ 'inputs | .result.content[0].text | fromjson' "$@"
		jq -n -e "$JQ_ALL_PROG_" "$RESP.body" >/dev/null 2>&1 && return 0
	fi
	for f in "$@"; do
		if ! tool_text | jq -e "$f" >/dev/null 2>&1; then
			echo "expected true on the tool text: $f"
			show_response_
			return 1
		fi
	done
}

# header_line_ NAME: sets HEADER_VALUE_ to the value of the first header
# NAME of the last response (leading spaces removed), without a process;
# fails when there is none.
header_line_ () {
	local line name=${1,,}
	HEADER_VALUE_=
	test -f "$RESP.headers" || return 1
	while IFS= read -r line || test -n "$line"; do
		if [[ ${line,,} == "$name":* ]]; then
			HEADER_VALUE_=${line#*:}
			HEADER_VALUE_=${HEADER_VALUE_#"${HEADER_VALUE_%%[! ]*}"}
			return 0
		fi
	done <"$RESP.headers"
	return 1
}

# test_header NAME REGEX: a header NAME exists and its (first) value
# matches the extended regular expression REGEX.
test_header () {
	if ! header_line_ "$1" || ! [[ $HEADER_VALUE_ =~ $2 ]]; then
		echo "expected header $1 matching /$2/"
		show_response_
		return 1
	fi
}

# test_no_header NAME
test_no_header () {
	if header_line_ "$1"; then
		echo "unexpected header $1"
		show_response_
		return 1
	fi
}

header_value () {
	sed -n "s/^$1: *//Ip" "$RESP.headers" | head -n 1
}

test_body_empty () {
	if test -s "$RESP.body"; then
		echo "expected an empty body"
		show_response_
		return 1
	fi
}

# test_rpc_error STATUS CODE [ID_JSON]: a JSON-RPC error with that HTTP status,
# code and (when given) echoed id.  When CODE is an integer and ID_JSON is
# its own normal form (JSON_SELF_NORMAL_), the keep-alive client (RPCERROR,
# no jq run) or else one jq run checks it all; only when that fails are the
# checks run one by one, to say which.
test_rpc_error () {
	local answer=
	test_status "$1" || return 1
	if mcp_client_here_ &&
	   [[ $2 =~ ^-?(0|[1-9][0-9]{0,14})$ && $RESP != *[$'\t\n']* ]] &&
	   { test $# -lt 3 || [[ $3 =~ $JSON_SELF_NORMAL_ && $3 != *$'\t'* && -n $3 ]]; }; then
		printf 'RPCERROR\t%s\t%s\t%s\n' "$RESP.body" "$2" "${3-}" >&"${MCP_CLIENT[1]}" &&
		read -r answer <&"${MCP_CLIENT[0]}"
		test "$answer" = ok && return 0
	fi
	if [[ $2 =~ ^-?[0-9]{1,15}$ ]] && { test $# -lt 3 || [[ $3 =~ $JSON_SELF_NORMAL_ ]]; } &&
	   jq -e --argjson code "$2" --arg id "${3-}" --argjson hasid "$(($# >= 3))" \
		'.jsonrpc == "2.0" and .error.code == $code and
		 (.error.message | type == "string" and length > 0) and (has("result") | not) and
		 ($hasid == 0 or (.id | tojson) == $id)' "$RESP.body" >/dev/null 2>&1; then
		return 0
	fi
	test_json .jsonrpc '"2.0"' &&
	test_json .error.code "$2" &&
	test_jq '.error.message | type == "string" and length > 0' &&
	test_jq 'has("result") | not' &&
	if test $# -ge 3; then test_json .id "$3"; fi
}

# test_common_headers: every response carries these.
test_common_headers () {
	test_header Cache-Control 'no-store' &&
	test_header X-Request-Id '^[0-9a-f]{32}$' &&
	test_no_header Mcp-Session-Id
}

# tool_ok TOOL ARGS_JSON [TOKEN]: a successful call (HTTP 200, no isError);
# the tool's text, parsed, goes to out.json.
tool_ok () {
	tool_call "$1" "$2" --token "${3:-$ALICE_TOKEN}" &&
	test_status 200 &&
	result_text_ ok out.json
}

# result_text_ ok|error FILE: with one jq run, checks that the last answer is
# a tool success (ok: result.isError is not true) or an in-band tool error
# (error: result.isError is true and there is no JSON-RPC error), and writes
# result.content[0].text to FILE.  With the keep-alive client the coprocess
# does it instead when the text is a plain JSON string (no jq run); it
# answers "jq" for anything else, and jq decides as before.
result_text_ () {
	local filter
	if test "$1" = ok; then
		filter='if .result.isError != true then .result.content[0].text
			else error("expected a tool result that is not an error") end'
	else
		filter='if .result.isError == true and (has("error") | not) then .result.content[0].text
			else error("expected an in-band tool error (result.isError true, no error)") end'
	fi
	if mcp_client_here_; then
		local answer=
		printf 'TEXT\t%s\t%s\t%s\n' "$1" "$RESP.body" "$2" >&"${MCP_CLIENT[1]}" &&
		read -r answer <&"${MCP_CLIENT[0]}"
		case $answer in
		ok) return 0 ;;
		fail)
			echo "expected $(test "$1" = ok && echo "a tool result that is not an error" ||
				echo "an in-band tool error (result.isError true, no error)")"
			show_response_
			return 1 ;;
		esac
	fi
	if ! jq -r "$filter" "$RESP.body" >"$2"; then
		show_response_
		return 1
	fi
}

# test_tool_success: the last answer is a tool result that is not an error
# and has content, as test_jq '.result.isError != true and (.result.content
# | length > 0)' checks it; asked of the keep-alive client (no jq run) when
# there is one and the answer's text is a plain string, else of jq.
test_tool_success () {
	local answer=
	if mcp_client_here_; then
		printf 'TEXT\tok\t%s\t/dev/null\n' "$RESP.body" >&"${MCP_CLIENT[1]}" &&
		read -r answer <&"${MCP_CLIENT[0]}"
	fi
	case $answer in
	ok) return 0 ;;
	fail)
		echo "expected true: .result.isError != true and (.result.content | length > 0)"
		show_response_
		return 1 ;;
	esac
	test_jq '.result.isError != true and (.result.content | length > 0)'
}

# tool_error TEXT_REGEX: the last response is an in-band tool error (HTTP
# 200, a result with isError, no JSON-RPC error) whose text matches.
tool_error () {
	test_status 200 &&
	result_text_ error errtext &&
	grep -E -- "$1" errtext || { echo "error text: $(cat errtext)"; return 1; }
}
