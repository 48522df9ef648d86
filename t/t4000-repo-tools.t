#!/bin/bash
# t4000: the repository tools: list_repositories and get_file_contents.
. ./test-lib.sh

start_all
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# names: the sorted full names in the list_repositories text
names () {
	tool_text | jq -r ".[].full_name" | sort | tr "\n" " "
}

# file ARGS_JSON [token]: get_file_contents; the parsed text goes to file.json
file () {
	tool_call get_file_contents "$1" --token "${2:-$ALICE_TOKEN}" &&
	test_status 200 &&
	tool_text >file.json
}

# tool_error TEXT_REGEX: the last response is an in-band tool error
tool_error () {
	test_status 200 &&
	test_json .result.isError true &&
	test_json .result.resultType "\"complete\"" &&
	test_jq "has(\"error\") | not" &&
	tool_text >errtext &&
	grep -E -- "$1" errtext || { echo "error text: $(cat errtext)"; return 1; }
}

test_expect_success 'list_repositories as alice: public, her own, not bob private' '
	tool_call list_repositories "{}" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	test "$(names)" = "alice/fixture alice/secret bob/tools "
'

test_expect_success 'list_repositories entries have the documented fields' '
	tool_text >list.json &&
	jq -e "all(.[]; has(\"full_name\") and has(\"description\") and has(\"default_branch\") and has(\"private\") and (.url | type == \"string\"))" list.json &&
	jq -e ".[] | select(.full_name == \"alice/fixture\") | .description == \"the fixture\" and .default_branch == \"main\" and .private == false" list.json &&
	jq -e ".[] | select(.full_name == \"alice/secret\") | .private == true" list.json
'

test_expect_success 'list_repositories as bob: his private one, not alice private' '
	tool_call list_repositories "{}" --token "$BOB_TOKEN" &&
	test "$(names)" = "alice/fixture bob/hidden bob/tools "
'

test_expect_success 'list_repositories as carol: the collaborator sees bob/hidden' '
	tool_call list_repositories "{}" --token "$CAROL_TOKEN" &&
	test "$(names)" = "alice/fixture bob/hidden bob/tools "
'

test_expect_success 'list_repositories query filters' '
	tool_call list_repositories "{\"query\":\"fixture\"}" &&
	test "$(names)" = "alice/fixture " &&
	tool_call list_repositories "{\"query\":\"zzz-nothing\"}" &&
	test_text_jq ". == []"
'

test_expect_success 'list_repositories query never reveals invisible repositories' '
	tool_call list_repositories "{\"query\":\"hidden\"}" &&
	test_text_jq ". == []"
'

test_expect_success 'list_repositories query is data, not a pattern' '
	tool_call list_repositories "{\"query\":\"%\"}" &&
	test_text_jq ". == []" &&
	tool_call list_repositories "{\"query\":\"_\"}" &&
	test_text_jq ". == []" &&
	tool_call list_repositories "{\"query\":\"'\'' OR 1=1 -- \"}" &&
	test_text_jq ". == []"
'

test_expect_success 'list_repositories limit' '
	tool_call list_repositories "{\"limit\":1}" &&
	test_text_jq "length == 1" &&
	tool_call list_repositories "{\"limit\":100}" &&
	test_text_jq "length == 3"
'

test_expect_success 'list_repositories limit out of range is clamped to 1..100, not refused' '
	make_user dave &&
	DAVE_TOKEN=$(make_token dave read) &&
	# one through the CLI; the other 104 as it leaves one: a copy of its
	# bare repository and a row made by the same statement, not a CLI run
	# each (some 50 ms of CPU, 250 under the sanitizers)
	fm repo create dave/r001 --private >/dev/null &&
	for i in $(seq -w 2 105); do
		cp -a "$TRASH/repos/dave/r001.git" "$TRASH/repos/dave/r$i.git" || return 1
	done &&
	db_sql "INSERT INTO repositories (owner_id, name, description, default_branch, private,
			created_at, updated_at)
		SELECT u.id, CONCAT('"'r'"', LPAD(s.seq, 3, '"'0'"')), NULL, '"'main'"', 1,
			UTC_TIMESTAMP(), UTC_TIMESTAMP()
		FROM users u JOIN seq_2_to_105 s WHERE u.login = '"'dave'"'" &&
	test "$(fm repo list | grep -c "^dave/r[0-9]")" = 105 &&
	tool_call list_repositories "{\"limit\":1000}" --token "$DAVE_TOKEN" &&
	test_jq ".result | has(\"isError\") | not" &&
	test_text_jq "length == 100" &&
	tool_call list_repositories "{}" --token "$DAVE_TOKEN" &&
	test_text_jq "length == 30" &&
	tool_call list_repositories "{\"limit\":0}" --token "$DAVE_TOKEN" &&
	test_jq ".result | has(\"isError\") | not" &&
	test_text_jq "length == 1" &&
	tool_call list_repositories "{\"limit\":-5}" --token "$DAVE_TOKEN" &&
	test_text_jq "length == 1" &&
	tool_call list_repositories "{\"limit\":-5}" &&
	test_text_jq "length == 1"
'

for args in '{"limit":"5"}' '{"limit":1.5}' '{"limit":null}' '{"query":5}'; do
	test_expect_success "list_repositories $args is an in-band error naming the argument" "
		tool_call list_repositories '$args' &&
		tool_error '$(printf '%s' "$args" | jq -r 'keys[0]')'
	"
done

test_expect_success 'list_repositories with an unknown argument names it' '
	tool_call list_repositories "{\"colour\":\"blue\"}" &&
	tool_error colour
'

test_expect_success 'get_file_contents: a text file at the default branch' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"README.md\"}" &&
	jq -e ".repo == \"alice/fixture\" and .path == \"README.md\" and .encoding == \"utf-8\"" file.json &&
	jq -e ".content == \"# fixture\n\nA repository for tests.\nVersion two.\n\"" file.json &&
	jq -e ".size == $(git --git-dir="$TRASH/fixture.git" cat-file -s main:README.md)" file.json &&
	jq -e ".commit == \"$FIXTURE_C3\"" file.json &&
	jq -e ".ref | type == \"string\"" file.json &&
	jq -e "(.truncated // false) == false" file.json
'

test_expect_success 'get_file_contents: structuredContent, when present, equals the text' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\"}" &&
	test_jq "(.result.structuredContent == null) or (.result.structuredContent == (.result.content[0].text | fromjson))"
'

test_expect_success 'get_file_contents: UTF-8 content is returned intact' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"docs/guide.md\"}" &&
	jq -j .content file.json >got &&
	git --git-dir="$TRASH/fixture.git" cat-file -p main:docs/guide.md >expect &&
	test_cmp expect got &&
	jq -e ".encoding == \"utf-8\"" file.json
'

test_expect_success 'get_file_contents: a nested path' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"src/lib/deep/nested.txt\"}" &&
	jq -e ".content == \"deep inside\n\"" file.json
'

test_expect_success 'get_file_contents: a binary file comes base64-encoded' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"logo.bin\"}" &&
	jq -e ".encoding == \"base64\"" file.json &&
	jq -r .content file.json | base64 -d >got &&
	git --git-dir="$TRASH/fixture.git" cat-file -p main:logo.bin >expect &&
	cmp expect got &&
	jq -e ".size == $(wc -c <expect)" file.json
'

test_expect_success 'get_file_contents: a 10 KB file' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"big.txt\"}" &&
	jq -e ".size == 10240" file.json &&
	if jq -e ".truncated == true" file.json >/dev/null; then
		jq -j .content file.json | wc -c >n && test "$(cat n)" -lt 10240
	else
		jq -j .content file.json >got &&
		git --git-dir="$TRASH/fixture.git" cat-file -p main:big.txt >expect &&
		test_cmp expect got
	fi
'

test_expect_success 'get_file_contents at a tag' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"v1.0\"}" &&
	jq -e ".content == \"# fixture\n\nA repository for tests.\n\"" file.json &&
	jq -e ".commit == \"$FIXTURE_C2\"" file.json &&
	jq -e ".ref == \"v1.0\"" file.json
'

test_expect_success 'get_file_contents at a full commit id' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"$FIXTURE_C1\"}" &&
	jq -e ".commit == \"$FIXTURE_C1\"" file.json &&
	jq -e ".content == \"# fixture\n\nA repository for tests.\n\"" file.json
'

test_expect_success 'get_file_contents at a branch name' '
	file "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"main\"}" &&
	jq -e ".commit == \"$FIXTURE_C3\"" file.json
'

test_expect_success 'a file that does not exist at that commit' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"big.txt\",\"ref\":\"$FIXTURE_C1\"}" &&
	tool_error "^File not found: big.txt@$FIXTURE_C1"
'

test_expect_success 'a missing file' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"nope.txt\"}" &&
	tool_error "^File not found: nope.txt@"
'

test_expect_success 'a missing ref' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"no-such-branch\"}" &&
	tool_error "."
'

test_expect_success 'a directory is not a file' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"src\"}" &&
	tool_error "."
'

test_expect_success 'a missing repository' '
	tool_call get_file_contents "{\"repo\":\"alice/nothing\",\"path\":\"README.md\"}" &&
	tool_error "^Repository not found or not accessible"
'

test_expect_success 'a private repository of another user looks exactly like a missing one' '
	tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" &&
	tool_error "^Repository not found or not accessible" &&
	cp errtext hidden.txt &&
	tool_call get_file_contents "{\"repo\":\"bob/nothing\",\"path\":\"README.md\"}" &&
	tool_text | sed "s/nothing/hidden/g" >missing.txt &&
	test_cmp missing.txt hidden.txt
'

test_expect_success 'the owner reads his private repository' '
	file "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" "$BOB_TOKEN" &&
	jq -e ".commit == \"$FIXTURE_C3\"" file.json
'

test_expect_success 'a reader collaborator reads the private repository' '
	file "{\"repo\":\"bob/hidden\",\"path\":\"big.txt\",\"ref\":\"v1.0\"}" "$CAROL_TOKEN" &&
	jq -e ".size == 10240" file.json
'

test_expect_success 'an empty repository has no files' '
	tool_call get_file_contents "{\"repo\":\"alice/secret\",\"path\":\"README.md\"}" &&
	tool_error "." &&
	test_must_fail grep "^Repository not found" errtext
'

for ref in 'main..v1.0' '../../etc' 'main^{tree}' '--upload-pack=x' 'refs/heads/../../x' 'HEAD@{1}' 'a b' 'main:README.md'; do
	test_expect_success "ref '$ref' is refused in band" "
		tool_call get_file_contents '{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"$ref\"}' &&
		test_status 200 &&
		test_json .result.isError true &&
		test_must_fail grep -q 'Version two' \"\$RESP.body\"
	"
done

for path in '../../../../etc/passwd' '/etc/passwd' 'src/../../README.md' '..' 'src/lib/../../README.md' "$(printf 'README.md\\u0000x')"; do
	test_expect_success "path '$path' is refused in band" "
		tool_call get_file_contents '{\"repo\":\"alice/fixture\",\"path\":\"$path\"}' &&
		test_status 200 &&
		test_json .result.isError true &&
		test_must_fail grep -q 'root:' \"\$RESP.body\" &&
		test_must_fail grep -q 'Version two' \"\$RESP.body\"
	"
done

for repo in '../alice/fixture' 'alice/../bob/hidden' 'alice' 'alice/fixture/extra' 'alice/fixture.git' '/alice/fixture'; do
	test_expect_success "repo '$repo' is refused in band" "
		tool_call get_file_contents '{\"repo\":\"$repo\",\"path\":\"README.md\"}' &&
		test_status 200 &&
		test_json .result.isError true &&
		test_must_fail grep -q 'Version two' \"\$RESP.body\"
	"
done

test_expect_success 'get_file_contents without repo names the argument' '
	tool_call get_file_contents "{\"path\":\"README.md\"}" &&
	tool_error repo
'

test_expect_success 'get_file_contents without path names the argument' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\"}" &&
	tool_error path
'

test_expect_success 'get_file_contents with an unknown argument names it' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"branch\":\"main\"}" &&
	tool_error branch
'

test_expect_success 'get_file_contents with a wrong type names the argument' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":5}" &&
	tool_error path
'

test_expect_success 'arguments that are not an object are refused' '
	tool_call get_file_contents "[1]" &&
	test_status 200 &&
	test_jq ".result.isError == true or .error.code == -32602"
'

test_expect_success 'the repositories on disk were not touched by the requests' '
	git --git-dir="$TRASH/repos/alice/fixture.git" fsck --no-progress 2>&1 &&
	test "$(git --git-dir="$TRASH/repos/alice/fixture.git" rev-parse main)" = "$FIXTURE_C3"
'

test_done
