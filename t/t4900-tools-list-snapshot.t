#!/bin/bash
# t4900: tools/list is pinned by a snapshot: a change to any tool's name, title,
# description, schema or annotations fails here until t/tools-list.json is
# updated in the same commit (TEST_UPDATE_SNAPSHOT=1 rewrites it, and
# doc/tools.md, which t/lib/tools-doc.pl makes from it; t0510 checks that).
. ./test-lib.sh

SNAPSHOT=$TEST_DIRECTORY/tools-list.json

start_all
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

test_expect_success 'tools/list (legacy) answers with the tools' '
	mcp_legacy tools/list &&
	test_status 200 &&
	jq -S ".result.tools" "$RESP.body" >legacy.json &&
	test "$(jq length legacy.json)" -gt 0
'

test_expect_success 'tools/list (2026-07-28) lists the same tools in the same order' '
	mcp_modern tools/list &&
	test_status 200 &&
	jq -S ".result.tools" "$RESP.body" >modern.json &&
	test_cmp legacy.json modern.json
'

test_expect_success 'tools/list is the same on every call' '
	mcp_legacy tools/list &&
	jq -S ".result.tools" "$RESP.body" >again.json &&
	test_cmp legacy.json again.json
'

test_expect_success 'tools are sorted by name, each with a title and an object schema' '
	jq -e "[.[].name] == ([.[].name] | sort)" legacy.json &&
	jq -e "all(.[]; (.title | length) > 0 and (.description | length) > 0 and .inputSchema.type == \"object\" and (.annotations | has(\"readOnlyHint\")))" legacy.json
'

if test -n "${TEST_UPDATE_SNAPSHOT:-}"; then
	(cd "$TRASH" && cp legacy.json "$SNAPSHOT")
	say "# snapshot rewritten: $SNAPSHOT"
	perl "$TEST_DIRECTORY/lib/tools-doc.pl" "$SNAPSHOT" "$SRC_DIR/src/tools" \
		>"$TRASH/tools.md" && cp "$TRASH/tools.md" "$SRC_DIR/doc/tools.md" &&
		say "# doc/tools.md rewritten from it"
fi

test_expect_success 'tools/list matches the committed snapshot t/tools-list.json' '
	test -f "$SNAPSHOT" || { echo "no snapshot: run with TEST_UPDATE_SNAPSHOT=1"; return 1; }
	test_cmp "$SNAPSHOT" legacy.json || {
		echo "tools/list changed; if that is intended, rerun with TEST_UPDATE_SNAPSHOT=1 and commit t/tools-list.json and doc/tools.md"
		return 1
	}
'

test_done
