#!/bin/bash
# t0500: the man pages lint cleanly and cannot drift from the code: every
# configuration key in src/conf.c is in forgemcp.conf(5), every command in
# 'forgemcp --help' is in forgemcp(1), every fcgi option in forgemcp-fcgi(8).
. ./test-lib.sh

# Its subject is the pages: the plain pass checks them; the sanitizers have
# nothing to find in three --help texts.
if asan_build; then
	skip_all "the man pages' text: the plain pass checks it"
fi

MAN=$SRC_DIR/man
PAGES="forgemcp.1 forgemcp-fcgi.8 forgemcp.conf.5"

if command -v mandoc >/dev/null 2>&1; then
	LINTER=mandoc
elif command -v groff >/dev/null 2>&1; then
	LINTER=groff
else
	skip_all "neither mandoc nor groff is installed (apt-get install mandoc)"
fi
say "linting with $LINTER"

# man_lint PAGE: mandoc -Tlint at warning level, or groff -ww; any message fails.
man_lint () {
	if test "$LINTER" = mandoc; then
		mandoc -Tlint -W warning "$1" >lint.out 2>&1
		rc=$?
	else
		groff -ww -z -mandoc -t "$1" >lint.out 2>&1
		rc=$?
	fi
	if test $rc != 0 || test -s lint.out; then
		echo "$LINTER complains about $1 (exit $rc):"
		cat lint.out
		return 1
	fi
}

for page in $PAGES; do
	test_expect_success "$page exists and lints cleanly" '
		test -f "$MAN/$page" &&
		man_lint "$MAN/$page"
	'
done

test_expect_success 'each page names itself in its .Dt line' '
	grep -q "^\.Dt FORGEMCP 1\$" "$MAN/forgemcp.1" &&
	grep -q "^\.Dt FORGEMCP-FCGI 8\$" "$MAN/forgemcp-fcgi.8" &&
	grep -q "^\.Dt FORGEMCP.CONF 5\$" "$MAN/forgemcp.conf.5"
'

# The keys of the config_keys[] table: lines like { "db_host", CK_STR, ... }.
sed -n '/config_keys\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z_]*\)", CK_.*/\1/p' \
	"$SRC_DIR/src/conf.c" >"$TRASH/keys"

test_expect_success 'the key table of src/conf.c was found' '
	test "$(wc -l <"$TRASH/keys")" -ge 15 &&
	grep -qx db_socket "$TRASH/keys" && grep -qx max_body "$TRASH/keys"
'

test_expect_success 'forgemcp.conf(5) documents every key and its environment variable' '
	missing= &&
	while read -r key; do
		env=FORGEMCP_$(printf "%s" "$key" | tr a-z A-Z) &&
		grep -q "^\.It Cm $key " "$MAN/forgemcp.conf.5" ||
			missing="$missing $key(entry)"
		grep -q "^\.Ev $env\( \|$\)" "$MAN/forgemcp.conf.5" ||
			missing="$missing $key($env)"
	done <"$TRASH/keys" &&
	if test -n "$missing"; then
		echo "not documented in man/forgemcp.conf.5:$missing"
		false
	fi
'

test_expect_success 'forgemcp.conf(5) has no key the code does not know' '
	sed -n "s/^\.It Cm \([a-z_]*\) No = .*/\1/p" "$MAN/forgemcp.conf.5" >documented &&
	test -s documented &&
	extra=$(grep -vxF -f "$TRASH/keys" documented) || extra= &&
	if test -n "$extra"; then
		echo "documented but not in src/conf.c:" $extra
		false
	fi
'

test_expect_success 'forgemcp.conf(5) documents the SEARCH_PROVIDER and BRAVE_SEARCH_API_KEY aliases' '
	grep -q "^\.Ev SEARCH_PROVIDER" "$MAN/forgemcp.conf.5" &&
	grep -q "^\.Ev BRAVE_SEARCH_API_KEY" "$MAN/forgemcp.conf.5"
'

test_expect_success 'forgemcp(1) documents every command of forgemcp --help' '
	forgemcp_commands >commands &&
	test "$(wc -l <commands)" -ge 7 &&
	missing= &&
	while read -r cmd; do
		grep -q "^\.It Cm $cmd\( \|\$\)" "$MAN/forgemcp.1" ||
			missing="$missing $cmd"
	done <commands &&
	if test -n "$missing"; then
		echo "commands missing from man/forgemcp.1:$missing"
		false
	fi
'

test_expect_success 'forgemcp(1) documents every option of each command'"'"'s --help' '
	missing= &&
	for cmd in $(cat commands); do
		"$FORGEMCP" $cmd --help >cmdhelp || return 1
		for opt in $(grep -o -- "--[a-z][a-z-]*" cmdhelp | sort -u); do
			test "$opt" = --help && continue
			grep -q "Fl -${opt#--}" "$MAN/forgemcp.1" ||
				missing="$missing $cmd:$opt"
		done
	done &&
	if test -n "$missing"; then
		echo "options missing from man/forgemcp.1:$missing"
		false
	fi
'

test_expect_success 'forgemcp-fcgi(8) documents every option of forgemcp fcgi --help' '
	"$FORGEMCP" fcgi --help >fcgihelp &&
	missing= &&
	for opt in $(grep -o -- "--[a-z][a-z-]*" fcgihelp | sort -u); do
		grep -q "^\.It Fl -${opt#--}\( \|\$\)" "$MAN/forgemcp-fcgi.8" ||
			missing="$missing $opt"
	done &&
	if test -n "$missing"; then
		echo "options missing from man/forgemcp-fcgi.8:$missing"
		false
	fi
'

test_expect_success 'make install installs the three pages (dist_man_MANS)' '
	for page in $PAGES; do
		sed -n "/^dist_man_MANS *=/,/[^\\\\]\$/p" "$SRC_DIR/Makefile.am" |
			grep -q "man/$page" || { echo "man/$page is not in dist_man_MANS"; return 1; }
	done
'

test_done
