#!/bin/bash
# t8020: repositories whose storage is broken on disk: unreadable (the
# objects directory replaced by a file; mode 000 when not root), gone, or a
# corrupt pack (all objects, or one tree).  Every git tool answers in band
# -- a tool error naming the repository and what could not be read, HTTP
# 200 -- the worker survives, and other repositories read normally in the
# same worker right after.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/faults.sh"

# One worker: the read of a healthy repository after each failure is
# served by the very process that met the damage.
start_all 1
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# A fresh copy of the fixture for each kind of damage.
for n in objfile gone nopack badtree unreadable; do
	fm repo import alice/$n --from "$TRASH/fixture.git" >/dev/null ||
		{ echo "Bail out! import alice/$n"; exit 1; }
done
REPOS=$TRASH/repos/alice

# the six git tools and their arguments (the repository is added)
cat >calls <<'EOF'
get_file_contents {"path":"README.md"}
list_commits {}
search_code {"query":"line"}
get_tree {}
compare_refs {"base":"v1.0","head":"main"}
list_branches {}
EOF

# call_on REPO TOOL ARGS: tools/call with "repo" added to ARGS (an object
# without one), after its other members.
call_on () {
	local a=$3
	if [[ $a =~ ^\{[[:space:]]*\}$ ]]; then
		a="{\"repo\":\"$1\"}"
	else
		a="${a%\}},\"repo\":\"$1\"}"
	fi
	tool_call "$2" "$a"
}

# healthy_read: alice/fixture answers with its README.
healthy_read () {
	call_on alice/fixture get_file_contents '{"path":"README.md"}' &&
	test_status 200 &&
	test_text_jq '.content == "# fixture\n\nA repository for tests.\nVersion two.\n"'
}

# broken_in_band REPO TOOL ARGS WHAT: an in-band tool error that names the
# repository and says WHAT could not be read; then a healthy read.
broken_in_band () {
	local p
	json_str p "repository '$1' could not be read ($4): "
	call_on "$1" "$2" "$3" &&
	test_status 200 &&
	test_jq '.result.isError == true and (has("error") | not)' \
		".result.content[0].text | startswith($p)" \
		'.result.content[0].text | test("storage on the server is unreadable or damaged")' ||
		{ echo "expected a message naming '$1' and '$4'"; return 1; }
	test_must_fail grep -F "$TRASH" "$RESP.body" &&
	healthy_read
}

# what the git adapter says could not be read
NO_REPO="repository storage is not readable"
NO_COMMIT="cannot read the commit the ref points at"
NO_BRANCH="cannot read a branch's commit"
NO_TREE="cannot read the commit's tree"
NO_HEAD_TREE="cannot read the head commit's tree"

# all_tools_broken REPO WHAT [TOOL-TO-SKIP]: broken_in_band for each tool.
all_tools_broken () {
	while read -r tool args; do
		test "$tool" = "${3:-}" && continue
		broken_in_band "$1" "$tool" "$args" "$2" || { echo "failed: $tool"; return 1; }
	done <calls
}

test_expect_success 'set-up: the copies read like the fixture before the damage' '
	for n in objfile gone nopack badtree unreadable; do
		call_on alice/$n list_branches "{}" && test_status 200 &&
		test_text_jq ".branches == [{name: \"main\", commit: \"$FIXTURE_C3\", default: true}]" || return 1
	done
'

# The worker caches open repositories: restart it so that every damaged
# repository is opened afresh.
restart_server 1

test_expect_success 'damage: objects/ a file, a repository gone, packs rewritten' '
	rm -rf "$REPOS/objfile.git/objects" &&
	echo "not a directory" >"$REPOS/objfile.git/objects" &&
	rm -rf "$REPOS/gone.git" &&
	pack=$(ls "$REPOS"/nopack.git/objects/pack/*.pack) &&
	size=$(wc -c <"$pack") &&
	chmod u+w "$pack" &&
	# every object: all bytes between the 12-byte header and the trailer
	perl -e "open my \$f, \"+<\", \$ARGV[0] or die; seek \$f, 12, 0;
		print \$f \"\\xff\" x (\$ARGV[1] - 32)" "$pack" "$size" &&
	test "$(wc -c <"$pack")" = "$size" &&
	pack=$(ls "$REPOS"/badtree.git/objects/pack/*.pack) &&
	chmod u+w "$pack" &&
	# 64 zero bytes in the middle: the trees, not the newest commit
	perl -e "open my \$f, \"+<\", \$ARGV[0] or die; seek \$f, int(\$ARGV[1] / 2), 0;
		print \$f \"\\0\" x 64" "$pack" "$(wc -c <"$pack")" &&
	test_must_fail git --git-dir="$REPOS/nopack.git" fsck 2>/dev/null &&
	test_must_fail git --git-dir="$REPOS/badtree.git" fsck 2>/dev/null
'

test_expect_success 'objects/ is a file: every git tool answers in band' '
	all_tools_broken alice/objfile "$NO_REPO"
'

test_expect_success 'the repository directory is gone: every git tool answers in band' '
	all_tools_broken alice/gone "$NO_REPO"
'

test_expect_success 'a pack with no readable object: every git tool answers in band' '
	all_tools_broken alice/nopack "$NO_COMMIT" list_branches &&
	broken_in_band alice/nopack list_branches "{}" "$NO_BRANCH"
'

test_expect_success 'a pack with a damaged tree: the tools that need the tree answer in band' '
	broken_in_band alice/badtree get_file_contents "{\"path\":\"README.md\"}" "$NO_TREE" &&
	broken_in_band alice/badtree search_code "{\"query\":\"line\"}" "$NO_TREE" &&
	broken_in_band alice/badtree get_tree "{}" "$NO_TREE" &&
	broken_in_band alice/badtree compare_refs "{\"base\":\"v1.0\",\"head\":\"main\"}" "$NO_HEAD_TREE"
'

test_expect_success 'a pack with a damaged tree: refs and commits still read' '
	call_on alice/badtree list_branches "{}" && test_status 200 &&
	test_text_jq ".branches[0].commit == \"$FIXTURE_C3\"" &&
	call_on alice/badtree list_commits "{\"limit\":1}" && test_status 200 &&
	test_text_jq ".commits[0].id == \"$FIXTURE_C3\""
'

if is_root; then
	say "skipped: a repository of mode 000 -- root reads it anyway; the unreadable case is 'objects/ is a file' above"
else
	test_expect_success 'a repository of mode 000: every git tool answers in band' '
		chmod 000 "$REPOS/unreadable.git" &&
		test_when_finished "chmod 755 \"$REPOS/unreadable.git\"" &&
		all_tools_broken alice/unreadable "$NO_REPO"
	'
fi

test_expect_success 'an empty repository lists no branch (no crash on an empty list)' '
	call_on bob/tools list_branches "{}" &&
	test_status 200 &&
	test_text_jq ".branches == []" &&
	healthy_read
'

test_expect_success 'one worker served it all: never replaced, no 5xx' '
	test "$(grep -c "starting another" "$SERVER_LOG")" = 0 &&
	grep -E "status=5[0-9]{2}" "$SERVER_LOG" >bad5xx
	test_cmp /dev/null bad5xx
'

test_expect_success 'the log has the detail the client did not get' '
	grep "git .* failed: " "$SERVER_LOG" >detail &&
	grep -F "$TRASH" detail >/dev/null
'

test_done
