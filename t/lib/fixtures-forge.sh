# fixtures-forge.sh: fixtures for the issue and pull request tests (t5xxx).
# Sourced after test-lib.sh; uses its make_user, make_token, fm, test_tick.
#
# Licensed under the ISC license, see LICENSE.

# make_project_repo DIR.git: a deterministic bare repository with branches:
#   main:    P1 (README.md, src/app.c, docs/notes.txt) -> P2 (README.md changed)
#   feature: from P1: src/app.c changed, src/new.c added; then docs/notes.txt changed
#   huge:    from P2: big.txt of about 180 kB (a diff past the 100 kB cap)
#   doomed:  from P2: doomed.txt added (the tests delete this branch)
#   other:   from P2: other.txt added
#   latin:   from P2: latin1.txt added, not UTF-8 ("caf\351")
# Sets PROJECT_P1, PROJECT_P2, PROJECT_FEATURE (commit ids).  Built once per
# run and copied after that (fixture_cached_ in lib-mcp.sh).
make_project_repo () {
	fixture_cached_ project "$1" make_project_repo_build_ PROJECT_P1 PROJECT_P2 PROJECT_FEATURE
}

make_project_repo_build_ () {
	bare=$1
	work=$TRASH/project-work.$$
	rm -rf "$work" "$bare"
	git -c init.defaultBranch=main init -q "$work" || return 1
	(
		cd "$work" &&
		git config user.useConfigOnly false &&
		printf '# project\n\nThe project for pull request tests.\n' >README.md &&
		mkdir -p src docs &&
		printf '#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs("hello");\n\treturn 0;\n}\n' >src/app.c &&
		printf 'notes\n=====\n\none\ntwo\nthree\n' >docs/notes.txt &&
		git add . && test_tick && git commit -q -m 'project: first commit' &&
		git branch feature &&
		printf '# project\n\nThe project for pull request tests.\nMain moved on.\n' >README.md &&
		git add . && test_tick && git commit -q -m 'main: readme' &&
		git checkout -q feature &&
		printf '#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs("hello, world");\n\treturn 0;\n}\n' >src/app.c &&
		printf 'int helper(void) { return 42; }\n' >src/new.c &&
		git add . && test_tick && git commit -q -m 'feature: greet the world' &&
		printf 'notes\n=====\n\none\ntwo and a half\nthree\n' >docs/notes.txt &&
		git add . && test_tick && git commit -q -m 'feature: notes' &&
		git checkout -q -b huge main &&
		perl -e 'for my $i (0..2999) { printf "huge line %05d: %s\n", $i, "y" x 44 }' >big.txt &&
		git add . && test_tick && git commit -q -m 'huge: a big file' &&
		git checkout -q -b doomed main &&
		printf 'short-lived\n' >doomed.txt &&
		git add . && test_tick && git commit -q -m 'doomed: a file' &&
		git checkout -q -b other main &&
		printf 'other\n' >other.txt &&
		git add . && test_tick && git commit -q -m 'other: a file' &&
		git checkout -q -b latin main &&
		printf 'caf\351 in Latin-1\n' >latin1.txt &&
		git add . && test_tick && git commit -q -m 'latin: a Latin-1 text file' &&
		git checkout -q main
	) || return 1
	PROJECT_P1=$(git -C "$work" rev-parse main~1)
	PROJECT_P2=$(git -C "$work" rev-parse main)
	PROJECT_FEATURE=$(git -C "$work" rev-parse feature)
	git clone -q --bare "$work" "$bare" || return 1
	# a bare clone keeps only the checked-out branch as a local branch
	for b in feature huge doomed other latin; do
		git --git-dir="$bare" update-ref "refs/heads/$b" "$(git -C "$work" rev-parse "$b")" || return 1
	done
	rm -rf "$work"
}

# setup_forge_fixtures: setup_fixtures (alice, bob, carol and their
# repositories) plus
#   alice/project: public, imported from make_project_repo
#   dave:  writer on alice/project     (DAVE_TOKEN, read,write)
#   erin:  reader on alice/project     (ERIN_TOKEN, read,write)
#   frank: no role anywhere            (FRANK_TOKEN, read,write)
#   carol: reader on bob/hidden        (CAROL_RW_TOKEN, read,write)
# PROJECT_GIT is the bare repository the server reads.
setup_forge_fixtures () {
	setup_fixtures &&
	make_user dave &&
	make_user erin &&
	make_user frank &&
	make_project_repo "$TRASH/project.git" &&
	FM_FIXTURE=1 fm repo import alice/project --from "$TRASH/project.git" --description 'pull requests' >/dev/null &&
	FM_FIXTURE=1 fm collaborator add alice/project dave writer >/dev/null &&
	FM_FIXTURE=1 fm collaborator add alice/project erin reader >/dev/null &&
	DAVE_TOKEN=$(make_token dave read,write) &&
	ERIN_TOKEN=$(make_token erin read,write) &&
	FRANK_TOKEN=$(make_token frank read,write) &&
	CAROL_RW_TOKEN=$(make_token carol read,write) &&
	PROJECT_GIT=$TRASH/repos/alice/project.git &&
	test "$(git --git-dir="$PROJECT_GIT" rev-parse feature)" = "$PROJECT_FEATURE"
}

# add_branches REPO.git PREFIX COUNT: COUNT branches PREFIX001.. at main.
add_branches () {
	local i=1 at
	at=$(git --git-dir="$1" rev-parse main) || return 1
	while test $i -le "$3"; do
		git --git-dir="$1" update-ref "refs/heads/$2$(printf %03d $i)" "$at" || return 1
		i=$((i + 1))
	done
}

# forge_error REGEX: the last response is an in-band tool error whose text matches.
forge_error () {
	test_status 200 &&
	result_text_ error errtext &&
	grep -E -- "$1" errtext || { echo "error text: $(cat errtext)"; return 1; }
}

# forge_ok: the last response is a tool success; its text goes to out.json.
forge_ok () {
	test_status 200 &&
	result_text_ ok out.json
}

# fast_tool NAME ARGS_JSON TOKEN OUTFILE: one modern tools/call with curl
# alone (no jq), for loops and parallel clients; the body goes to OUTFILE
# (and is appended to $RESPONSES_LOG) and the HTTP status is printed.
fast_tool () {
	curl -sS -o "$4" -w '%{http_code}' "$BASE_URL/mcp" \
		-H "Authorization: Bearer $3" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' -H 'Expect:' \
		-H "MCP-Protocol-Version: $MODERN_VERSION" -H 'Mcp-Method: tools/call' \
		-H "Mcp-Name: $1" \
		--data-binary "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$MODERN_VERSION\",\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"$1\",\"arguments\":$2}}"
	local code=$?
	cat "$4" >>"$RESPONSES_LOG" 2>/dev/null
	return $code
}

# tool_stream TOKEN LIST: the modern tools/call of each line of the file
# LIST (NAME, ARGS_JSON and OUTFILE, tab-separated) in order, one after the
# other on one keep-alive connection of t/lib/http-client.pl: fast_tool's
# request, without a curl process each, for a client of a parallel load
# (run it in the background).  Each body goes to its OUTFILE (and to
# $RESPONSES_LOG); prints "STATUS OUTFILE" for each, STATUS 000 when there
# was no answer.  A line "@wait FIFO" holds the requests after it until a
# writer of the named pipe FIFO closes it: a start line for clients that
# race, all let go at once.
tool_stream () {
	local tok=$1 list=$2 name args out body status len
	while IFS=$'\t' read -r name args out; do
		if test "$name" = @wait; then
			cat "$args" >/dev/null
			continue
		fi
		body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$MODERN_VERSION\",\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"$name\",\"arguments\":$args}}"
		printf '=%d\tAuthorization: Bearer %s\tContent-Type: application/json\tAccept: application/json, text/event-stream\tMCP-Protocol-Version: %s\tMcp-Method: tools/call\tMcp-Name: %s\n%s' \
			"${#body}" "$tok" "$MODERN_VERSION" "$name" "$body"
	done <"$list" |
	perl "$TEST_DIRECTORY/lib/http-client.pl" 127.0.0.1 "$HTTP_PORT" /mcp 2>>"$TRASH/http-client.stderr" |
	while IFS=$'\t' read -r name args out <&3; do
		test "$name" = @wait && continue
		status=000 len=0 body=
		read -r status len || :
		if test "${len:-0}" -gt 0; then
			IFS= read -r -N "$len" body || status=000
		fi
		printf '%s' "$body" >"$out"
		printf '%s\n' "$body" >>"$RESPONSES_LOG"
		echo "$status $out"
	done 3<"$list"
}

# repo_put GITDIR BRANCH PATH CONTENT [PATH CONTENT]...: a commit on BRANCH of
# the bare repository GITDIR writing each file (CONTENT "-" removes it), made
# with plain git plumbing and test_tick's clock, as a push would leave it.
repo_put () {
	local git=$1 branch=$2 idx=$TRASH/put-index.$$ blob tree commit
	shift 2
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git --git-dir="$git" read-tree "$branch" || return 1
	while test $# -gt 1; do
		if test "$2" = -; then
			printf "0 %040d\t%s\n" 0 "$1" |
			GIT_INDEX_FILE=$idx git --git-dir="$git" update-index --index-info || return 1
		else
			blob=$(printf '%s' "$2" | git --git-dir="$git" hash-object -w --stdin) &&
			GIT_INDEX_FILE=$idx git --git-dir="$git" update-index --add \
				--cacheinfo "100644,$blob,$1" || return 1
		fi
		shift 2
	done
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$git" write-tree) &&
	test_tick &&
	commit=$(git --git-dir="$git" commit-tree -p "$branch" -m "repo_put" "$tree") &&
	git --git-dir="$git" update-ref "refs/heads/$branch" "$commit" &&
	rm -f "$idx"
}
