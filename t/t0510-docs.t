#!/bin/bash
# t0510: the documentation cannot drift from what it describes: doc/tools.md
# is what t/lib/tools-doc.pl makes from the tools/list snapshot and the
# scopes in src/tools.  Needs no database.
. ./test-lib.sh

DOC=$SRC_DIR/doc

test_expect_success 'doc/tools.md is what t/lib/tools-doc.pl makes from t/tools-list.json' '
	perl "$TEST_DIRECTORY/lib/tools-doc.pl" "$TEST_DIRECTORY/tools-list.json" \
		"$SRC_DIR/src/tools" >tools.md &&
	test_cmp "$DOC/tools.md" tools.md || {
		echo "doc/tools.md is out of date: run perl t/lib/tools-doc.pl >doc/tools.md and commit it"
		return 1
	}
'

test_expect_success 'doc/tools.md has a section and a scope for every tool of the snapshot' '
	jq -r ".[].name" "$TEST_DIRECTORY/tools-list.json" >names &&
	test "$(wc -l <names)" -ge 30 &&
	while read -r t; do
		grep -qx "## \`$t\`" "$DOC/tools.md" &&
		grep -Eq "^\| \`$t\` \| (read|write|execute|merge) \|" "$DOC/tools.md" ||
			{ echo "doc/tools.md: no section or scope for $t"; return 1; }
	done <names
'

test_expect_success 'the generator refuses a tool whose scope it cannot find' '
	mkdir -p tools &&
	printf "const struct tool t = {\n\t.name = \"get_user\",\n};\n" >tools/get_user.c &&
	test_must_fail perl "$TEST_DIRECTORY/lib/tools-doc.pl" \
		"$TEST_DIRECTORY/tools-list.json" tools >out 2>err &&
	grep "no \`.scope = AUTH_SCOPE_...\` for add_issue_comment" err
'

test_done
