#!/bin/bash
# t3000: bearer tokens, the token cache table, scopes and the OAuth metadata
# (mcp-wire.md §7, A1-A5).
. ./test-lib.sh

start_all
mcp_client_start
make_user alice
TOKEN=$(make_token alice read,write)
WRITE_ONLY=$(make_token alice write)
make_user bob

test_expect_success 'a valid token is served' '
	mcp_modern tools/list &&
	test_status 200
'

test_expect_success 'A1: no Authorization is 401 with a Bearer realm challenge' '
	mcp_modern tools/list "{}" --no-auth &&
	test_status 401 &&
	test_header WWW-Authenticate "^Bearer realm=\"forgemcp\"$" &&
	test_json .jsonrpc "\"2.0\"" &&
	test_json .error "{\"code\":-32001,\"message\":\"Unauthorized\"}" &&
	test_jq ".id == 1 or .id == null" &&
	test_common_headers
'

test_expect_success 'A1: no token on a legacy request, and on a notification, is 401 too' '
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	mcp_post --no-auth "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" &&
	test_status 401
'

test_expect_success 'A1: without authorization_server there is no resource_metadata' '
	mcp_legacy ping null --no-auth &&
	test_must_fail grep -i resource_metadata "$RESP.headers"
'

invalid_token_challenge () {
	test_status 401 &&
	test_header WWW-Authenticate "^Bearer realm=\"forgemcp\", error=\"invalid_token\"" &&
	test_json .error.code -32001 &&
	test_json .error.message "\"Unauthorized\"" &&
	test_common_headers
}

test_expect_success 'A2: an unknown token is 401 invalid_token' '
	mcp_legacy ping null --token "fm_this-is-not-a-token-at-all-000000" &&
	invalid_token_challenge
'

for h in 'Bearer' 'Bearer ' 'Bearer a b' 'Bearer  ' 'Bearer "quoted"'; do
	test_expect_success "A2: a malformed Authorization '$h' is 401 invalid_token" "
		mcp_legacy ping null --no-auth -H 'Authorization: $h' &&
		invalid_token_challenge
	"
done

for h in 'Basic YWxpY2U6cGFzcw==' 'Token abc' 'Bearertoken'; do
	test_expect_success "another scheme ('$h') is 401 with the Bearer challenge" "
		mcp_legacy ping null --no-auth -H 'Authorization: $h' &&
		test_status 401 &&
		test_header WWW-Authenticate '^Bearer realm=\"forgemcp\"' &&
		test_json .error.code -32001
	"
done

test_expect_success 'the scheme name is case-insensitive (RFC 7235)' '
	mcp_legacy ping null --no-auth -H "Authorization: bearer $TOKEN" &&
	test_status 200
'

test_expect_success 'a token differing in one character is refused' '
	last=${TOKEN: -1} &&
	if test "$last" = a; then other=b; else other=a; fi &&
	mcp_legacy ping null --token "${TOKEN%?}$other" &&
	invalid_token_challenge
'

test_expect_success 'every variant differing only in the last character is refused' '
	for c in A Z a z 0 9 - _; do
		test "$c" = "${TOKEN: -1}" && continue
		mcp_legacy ping null --token "${TOKEN%?}$c" &&
		invalid_token_challenge || return 1
	done
'

test_expect_success 'over stdio (the lookup without the rate limiter) too' '
	legacy_body ping null 7 | FORGEMCP_TOKEN="$TOKEN" "$FORGEMCP" stdio >stdio-ok.log 2>>stdio.stderr &&
	jq -e ".id == 7 and .result == {}" stdio-ok.log &&
	last=${TOKEN: -1} &&
	if test "$last" = a; then other=b; else other=a; fi &&
	legacy_body ping null 8 | FORGEMCP_TOKEN="${TOKEN%?}$other" "$FORGEMCP" stdio >stdio-refused.log 2>>stdio.stderr &&
	jq -e ".id == 8 and .error.code == -32001" stdio-refused.log
'

test_expect_success 'A2: an expired token is 401 invalid_token' '
	tok=$(make_token alice read --expires 1h --name soon) &&
	mcp_legacy ping null --token "$tok" &&
	test_status 200 &&
	db_sql "update tokens set expires_at = utc_timestamp() - interval 1 minute where name = '\''soon'\''" &&
	mcp_legacy ping null --token "$tok" &&
	invalid_token_challenge
'

test_expect_success 'A2: a revoked token is 401 invalid_token' '
	tok=$(make_token alice read --name revoke-me) &&
	mcp_legacy ping null --token "$tok" &&
	test_status 200 &&
	fm token revoke "$(db_sql "select id from tokens where name = '\''revoke-me'\''")" &&
	mcp_legacy ping null --token "$tok" &&
	invalid_token_challenge
'

test_expect_success 'a token whose hash is put in the table directly works (documented contract)' '
	tok=$(head -c 30 /dev/urandom | base64 | tr "+/" "-_") &&
	test_record_token "$tok" &&
	db_sql "insert into tokens (token_hash, user_id, name, scopes) select '\''$(sha256_hex "$tok")'\'', id, '\''external'\'', '\''read'\'' from users where login = '\''bob'\''" &&
	mcp_legacy ping null --token "$tok" &&
	test_status 200
'

test_expect_success 'last_used_at is written on use' '
	tok=$(make_token alice read --name usage) &&
	test "$(db_sql "select last_used_at is null from tokens where name = '\''usage'\''")" = 1 &&
	mcp_legacy ping null --token "$tok" &&
	test_status 200 &&
	test "$(db_sql "select timestampdiff(second, last_used_at, utc_timestamp()) < 10 from tokens where name = '\''usage'\''")" = 1
'

test_expect_success 'last_used_at is written at most once a minute' '
	db_sql "update tokens set last_used_at = utc_timestamp() - interval 20 second where name = '\''usage'\''" &&
	before=$(db_sql "select last_used_at from tokens where name = '\''usage'\''") &&
	tok=$(make_token alice read --name usage2) &&
	mcp_legacy ping null --token "$tok" &&
	db_sql "update tokens set last_used_at = utc_timestamp() - interval 20 second where name = '\''usage2'\''" &&
	before2=$(db_sql "select last_used_at from tokens where name = '\''usage2'\''") &&
	mcp_legacy ping null --token "$tok" && test_status 200 &&
	mcp_legacy ping null --token "$tok" && test_status 200 &&
	after2=$(db_sql "select last_used_at from tokens where name = '\''usage2'\''") &&
	test "$before2" = "$after2"
'

test_expect_success 'last_used_at older than a minute is refreshed' '
	tok=$(make_token alice read --name usage3) &&
	mcp_legacy ping null --token "$tok" &&
	db_sql "update tokens set last_used_at = utc_timestamp() - interval 5 minute where name = '\''usage3'\''" &&
	mcp_legacy ping null --token "$tok" && test_status 200 &&
	test "$(db_sql "select timestampdiff(second, last_used_at, utc_timestamp()) < 10 from tokens where name = '\''usage3'\''")" = 1
'

test_expect_success 'A5: a token in the query string is ignored (401 without error=)' '
	mcp_legacy ping null --no-auth --path "/mcp?access_token=$TOKEN" &&
	test_status 401 &&
	test_header WWW-Authenticate "^Bearer realm=\"forgemcp\"$"
'

test_expect_success 'A5: a token in the body is ignored' '
	mcp_post --no-auth "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"access_token\":\"$TOKEN\"}" &&
	test_status 401
'

test_expect_success 'A3: a token without the read scope calling a read tool is 403' '
	tool_call list_repositories "{}" --token "$WRITE_ONLY" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\"" &&
	test_header WWW-Authenticate "scope=\"read\"" &&
	test_header WWW-Authenticate "^Bearer " &&
	test_json .error.code -32001 &&
	test_json .id 1 &&
	test_common_headers
'

test_expect_success 'A3: the same in the legacy era, id echoed' '
	mcp_post --token "$WRITE_ONLY" "{\"jsonrpc\":\"2.0\",\"id\":\"sc-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_file_contents\",\"arguments\":{\"repo\":\"alice/x\",\"path\":\"a\"}}}" &&
	test_status 403 &&
	test_header WWW-Authenticate "insufficient_scope" &&
	test_json .id "\"sc-1\""
'

test_expect_success 'A3: scope is checked before the arguments' '
	tool_call get_file_contents "{\"bogus\":1}" --token "$WRITE_ONLY" &&
	test_status 403
'

test_expect_success 'a write-only token still lists tools and pings' '
	mcp_modern tools/list "{}" --token "$WRITE_ONLY" &&
	test_status 200 &&
	mcp_legacy ping null --token "$WRITE_ONLY" &&
	test_status 200
'

test_expect_success 'a read token calls read tools' '
	tok=$(make_token alice read) &&
	tool_call list_repositories "{}" --token "$tok" &&
	test_status 200 &&
	test_jq ".result.isError != true"
'

test_expect_success 'no token text reaches the server log' '
	sleep 0.2 &&
	test_must_fail grep -F "$TOKEN" "$SERVER_LOG" &&
	test_must_fail grep -F "$WRITE_ONLY" "$SERVER_LOG"
'

test_expect_success 'A4: without authorization_server the metadata is 404' '
	mcp_post -X GET --no-auth --path /.well-known/oauth-protected-resource &&
	test_status 404 &&
	mcp_post -X GET --no-auth --path /.well-known/oauth-protected-resource/mcp &&
	test_status 404
'

test_expect_success 'A4: with authorization_server, both metadata URLs answer without auth' '
	config_set authorization_server https://auth.example.org &&
	restart_server &&
	for p in /.well-known/oauth-protected-resource /.well-known/oauth-protected-resource/mcp; do
		mcp_post -X GET --no-auth --path "$p" &&
		test_status 200 &&
		test_header Content-Type "^application/json" &&
		test_json .resource "\"$BASE_URL/mcp\"" &&
		test_json .authorization_servers "[\"https://auth.example.org\"]" &&
		test_jq ".scopes_supported | index(\"read\") and index(\"write\")" &&
		test_json .bearer_methods_supported "[\"header\"]" || return 1
	done
'

test_expect_success 'A1: with authorization_server the 401 challenge names the metadata' '
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	test_header WWW-Authenticate "resource_metadata=\"$BASE_URL/.well-known/oauth-protected-resource/mcp\"" &&
	test_header WWW-Authenticate "^Bearer "
'

test_expect_success 'A2: invalid_token challenges name it too' '
	mcp_legacy ping null --token nonsense-token-value &&
	test_status 401 &&
	test_header WWW-Authenticate "error=\"invalid_token\"" &&
	test_header WWW-Authenticate "resource_metadata=\"$BASE_URL/.well-known/oauth-protected-resource/mcp\""
'

test_expect_success 'A3: insufficient_scope challenges name it too' '
	tool_call list_repositories "{}" --token "$WRITE_ONLY" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\"" &&
	test_header WWW-Authenticate "resource_metadata=\"$BASE_URL/.well-known/oauth-protected-resource/mcp\""
'

test_expect_success 'the metadata is not served on POST to /mcp (the endpoint still needs a token)' '
	mcp_legacy ping null --no-auth &&
	test_status 401
'

test_done
