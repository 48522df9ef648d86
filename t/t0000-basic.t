#!/bin/bash
# t0000: the binary runs, says what it is, and every subcommand has --help.
. ./test-lib.sh

test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP (set FORGEMCP_BUILD)"; exit 1; }

test_expect_success 'forgemcp --version prints the name and a version' '
	fm --version >out 2>err &&
	grep -E "^forgemcp [0-9]+\.[0-9]+" out &&
	test_must_fail test -s err
'

# The test scripts skip the tests of the fault hooks on a "no" (see DEBUG_HOOKS in
# test-lib.sh): the answer must be what configure decided.
test_expect_success 'forgemcp --version says whether the build has the debug hooks' '
	fm --version >out &&
	grep -Ex "debug hooks: (yes|no)" out &&
	if ! test -f "$FORGEMCP_BUILD/Makefile"; then
		return 0
	elif grep -q -- "-DFM_DEBUG_HOOKS=1" "$FORGEMCP_BUILD/Makefile"; then
		grep -x "debug hooks: yes" out
	else
		grep -x "debug hooks: no" out
	fi
'

test_expect_success 'forgemcp --help succeeds and lists the subcommands' '
	fm --help >out 2>err &&
	for c in migrate user token repo collaborator stdio fcgi; do
		grep -w "$c" out || { echo "--help does not mention $c"; return 1; }
	done
'

for sub in migrate user token repo collaborator stdio fcgi \
	"user add" "user list" "token create" "token list" "token revoke" \
	"repo create" "repo import" "repo list" "collaborator add" \
	"collaborator remove" "collaborator list"; do
	test_expect_success "forgemcp $sub --help exits 0 and prints usage" "
		fm $sub --help >out 2>err &&
		test -s out &&
		grep -i 'usage' out
	"
done

test_expect_success '--help needs neither a configuration nor a database' '
	FORGEMCP_CONFIG=/nonexistent/forgemcp.conf fm token create --help >out &&
	test -s out
'

test_expect_success 'an unknown subcommand fails with one line on stderr' '
	test_must_fail fm frobnicate >out 2>err &&
	test_one_line_failure err &&
	grep frobnicate err &&
	test_must_fail test -s out
'

test_expect_success 'an unknown global option fails with one line' '
	test_must_fail fm --no-such-option 2>err &&
	test_one_line_failure err
'

test_expect_success 'without arguments, outside CGI and FastCGI, it fails' '
	test_must_fail fm </dev/null >out 2>err &&
	test_must_fail test -s out &&
	test -s err
'

test_done
