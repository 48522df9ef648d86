#!/bin/bash
# t0510: the documentation cannot drift from what it describes: doc/tools.md
# is what t/lib/tools-doc.pl makes from the tools/list snapshot and the
# scopes in src/tools; etc/forgemcp.conf.sample shows exactly the keys of
# src/conf.c (t0500 holds forgemcp.conf(5) to the same table); README.md
# and doc/ leave the keys and the command line to the manual pages, show the
# command CI runs, and hold no broken link.  Needs no database.
. ./test-lib.sh

# Its subject is the documents: the plain pass checks them.
if asan_build; then
	skip_all "the documents' text: the plain pass checks it"
fi

DOC=$SRC_DIR/doc
SAMPLE=$SRC_DIR/etc/forgemcp.conf.sample

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

# The keys of the config_keys[] table: lines like { "db_host", CK_STR, ... }
# (the same reading as t0500).
sed -n '/config_keys\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z_]*\)", CK_.*/\1/p' \
	"$SRC_DIR/src/conf.c" >"$TRASH/keys"
# The keys the sample sets or shows commented out: "key = value", "#key = value".
sed -n 's/^#\{0,1\}\([a-z_][a-z_]*\) =.*/\1/p' "$SAMPLE" >"$TRASH/sample-keys"

test_expect_success 'the key table of src/conf.c and the keys of the sample were found' '
	test "$(wc -l <keys)" -ge 15 &&
	grep -qx db_socket keys && grep -qx max_body keys &&
	test "$(wc -l <sample-keys)" -ge 15
'

test_expect_success 'etc/forgemcp.conf.sample shows every key of src/conf.c' '
	missing=$(grep -vxF -f sample-keys keys) || missing= &&
	if test -n "$missing"; then
		echo "not in etc/forgemcp.conf.sample:" $missing
		false
	fi
'

test_expect_success 'etc/forgemcp.conf.sample names no key src/conf.c does not know' '
	extra=$(grep -vxF -f keys sample-keys) || extra= &&
	if test -n "$extra"; then
		echo "in etc/forgemcp.conf.sample but not in src/conf.c:" $extra
		false
	fi &&
	dups=$(sort sample-keys | uniq -d) &&
	if test -n "$dups"; then
		echo "shown twice in etc/forgemcp.conf.sample:" $dups
		false
	fi
'

# forgemcp reads a configuration, then fails to reach the database (a socket
# that does not exist): a key or value it refuses fails first, naming the file.
read_config () {
	FORGEMCP_DB_SOCKET=$TRASH/no-database.sock "$FORGEMCP" --config "$1" migrate --status >out 2>err
}

test_expect_success 'forgemcp accepts the sample with every key uncommented' '
	sed "s/^#\([a-z_][a-z_]* =\)/\1/" "$SAMPLE" >sample.conf &&
	test "$(grep -c "^[a-z_]* =" sample.conf)" = "$(wc -l <keys)" &&
	test_must_fail read_config sample.conf &&
	cat err &&
	test_must_fail grep "sample.conf" err &&
	grep -F "forgemcp: cannot connect to the database through db_socket $TRASH/no-database.sock: " err
'

test_expect_success 'forgemcp refuses a key it does not know (so the check above can fail)' '
	{ cat sample.conf && echo "no_such_key = 1"; } >unknown.conf &&
	test_must_fail read_config unknown.conf &&
	grep "unknown.conf:[0-9]*: unknown key .no_such_key." err
'

test_expect_success 'README.md and doc/ leave the key table to forgemcp.conf(5)' '
	found= &&
	while read -r key; do
		if hits=$(grep -l "^| *\`$key\`" "$SRC_DIR/README.md" "$DOC"/*.md); then
			found="$found $key(${hits//$SRC_DIR\//})"
		fi
	done <keys &&
	if test -n "$found"; then
		echo "a key table row outside forgemcp.conf(5):$found"
		false
	fi &&
	grep -q "](man/forgemcp.conf.5)" "$SRC_DIR/README.md" &&
	grep -q "](../man/forgemcp.conf.5)" "$DOC/deployment.md"
'

test_expect_success 'README.md and doc/ leave the command synopsis to forgemcp(1)' '
	forgemcp_commands >commands &&
	test "$(wc -l <commands)" -ge 7 &&
	for cmd in $(cat commands); do
		"$FORGEMCP" $cmd --help || return 1
	done >usage &&
	# the lines in synopsis notation: with a [option] or a PLACEHOLDER
	sed -n "s/^usage: //p; s/^ *\(forgemcp [a-z]\)/\1/p" usage | grep "[][A-Z]" | sort -u >synopsis &&
	test "$(wc -l <synopsis)" -ge 12 &&
	copied=$(grep -hxF -f synopsis "$SRC_DIR/README.md" "$DOC"/*.md) || copied= &&
	if test -n "$copied"; then
		echo "usage lines copied from forgemcp --help:"
		echo "$copied"
		false
	fi &&
	grep -q "](man/forgemcp.1)" "$SRC_DIR/README.md"
'

if test -f "$SRC_DIR/.ci/run"; then
	test_expect_success 'README.md shows the command CI runs' '
		cmd=$(sed -n "s/^exec bash //p" "$SRC_DIR/.ci/run") &&
		test -n "$cmd" && test -f "$SRC_DIR/$cmd" &&
		grep -Eq "^$cmd( |\$)" "$SRC_DIR/README.md"
	'
fi

test_expect_success 'the links of README.md and doc/ lead to files and headings that exist' '
	perl "$TEST_DIRECTORY/lib/md-links.pl" "$SRC_DIR/README.md" "$DOC"/*.md
'

test_done
