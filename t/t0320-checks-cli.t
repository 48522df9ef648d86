#!/bin/bash
# t0320: the check administration commands: branch-rule set|list, check report.
. ./test-lib.sh

start_db
migrate_db

# fails_one_line CMD...: CMD fails with exactly one "forgemcp: ..." line.
fails_one_line () {
	test_must_fail "$@" >out 2>err &&
	test_one_line_failure err
}

# usage_error CMD...: CMD exits 2 (a usage error) with one line on stderr.
usage_error () {
	"$@" >out 2>err
	code=$?
	test "$code" = 2 || { echo "expected exit 2, got $code"; cat err; return 1; }
	test_one_line_failure err
}

# rules: every branch rule row of alice/fixture, as branch<TAB>check
rules () {
	db_sql "select b.branch, b.check_name from branch_rules b join repositories r on r.id = b.repo_id where r.name = 'fixture' order by b.branch, b.check_name"
}

# results: every check result row, as commit<TAB>name<TAB>status<TAB>details
results () {
	db_sql "select commit_id, name, status, coalesce(details, 'NULL') from check_results order by commit_id, name"
}

test_expect_success 'setup: alice with an imported repository' '
	make_user alice &&
	make_fixture_repo "$TRASH/fixture.git" &&
	fm repo import alice/fixture --from "$TRASH/fixture.git" >/dev/null &&
	fm repo create alice/empty --private >/dev/null
'

test_expect_success 'forgemcp --help lists both commands' '
	fm --help >help &&
	grep "^  branch-rule  " help &&
	grep "^  check  " help
'

test_expect_success 'each command has --help, without a configuration' '
	"$FORGEMCP" --config /nonexistent branch-rule --help >out &&
	grep -- "--require-check" out &&
	"$FORGEMCP" --config /nonexistent check report --help >out &&
	grep -- "--details" out && grep "cancelled" out
'

test_expect_success 'branch-rule set: two required checks' '
	fm branch-rule set alice/fixture main --require-check build --require-check "unit tests" >out &&
	grep "now requires: build unit tests" out &&
	printf "main\tbuild\nmain\tunit tests\n" >expect &&
	rules >actual &&
	test_cmp expect actual
'

test_expect_success 'branch-rule list prints branch and check, tab-separated' '
	fm branch-rule set alice/fixture release --require-check lint &&
	fm branch-rule list alice/fixture >actual &&
	printf "main\tbuild\nmain\tunit tests\nrelease\tlint\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'branch-rule set replaces the earlier set; a repeated name counts once' '
	fm branch-rule set alice/fixture main --require-check lint --require-check build --require-check lint &&
	printf "main\tbuild\nmain\tlint\nrelease\tlint\n" >expect &&
	rules >actual &&
	test_cmp expect actual
'

test_expect_success 'branch-rule set without checks clears the rule of that branch only' '
	fm branch-rule set alice/fixture release >out &&
	grep "requires no checks now" out &&
	printf "main\tbuild\nmain\tlint\n" >expect &&
	rules >actual &&
	test_cmp expect actual
'

test_expect_success 'branch-rule list of a repository without rules prints nothing' '
	fm branch-rule list alice/empty >out &&
	test_must_fail test -s out
'

test_expect_success 'branch-rule usage errors exit 2 and change nothing' '
	rules >before &&
	usage_error fm branch-rule &&
	usage_error fm branch-rule frob alice/fixture &&
	usage_error fm branch-rule set alice/fixture &&
	usage_error fm branch-rule set alice/fixture main extra &&
	usage_error fm branch-rule set alice-fixture main --require-check x &&
	usage_error fm branch-rule set alice/fixture main --require-check &&
	usage_error fm branch-rule set alice/fixture main --bogus &&
	usage_error fm branch-rule set alice/fixture main --require-check "" &&
	usage_error fm branch-rule set alice/fixture main --require-check " padded" &&
	usage_error fm branch-rule set alice/fixture main --require-check "$(printf "a\tb")" &&
	usage_error fm branch-rule set alice/fixture main --require-check "$(printf "%0101d" 0)" &&
	usage_error fm branch-rule set alice/fixture "a..b" --require-check x &&
	usage_error fm branch-rule list &&
	rules >after &&
	test_cmp before after
'

test_expect_success 'a rule on an unknown repository fails in one line' '
	fails_one_line fm branch-rule set alice/nothere main --require-check build &&
	grep "alice/nothere" err &&
	fails_one_line fm branch-rule list bob/nothere &&
	test "$(rules | wc -l)" = 2
'

test_expect_success 'a check name of exactly 100 bytes is kept' '
	name=$(printf "%0100d" 7) &&
	fm branch-rule set alice/fixture wide --require-check "$name" &&
	test "$(db_sql "select check_name from branch_rules where branch = '\''wide'\''")" = "$name" &&
	fm branch-rule set alice/fixture wide
'

test_expect_success 'check report by full commit id' '
	fm check report alice/fixture "$FIXTURE_C2" build success --details "all green" >out &&
	grep "check '\''build'\'' of alice/fixture is success on commit $FIXTURE_C2" out &&
	printf "%s\tbuild\tsuccess\tall green\n" "$FIXTURE_C2" >expect &&
	results >actual &&
	test_cmp expect actual
'

test_expect_success 'check report by branch records the commit the branch points at' '
	fm check report alice/fixture main lint running >out &&
	grep "on commit $FIXTURE_C3" out &&
	test "$(db_sql "select commit_id, status, details is null from check_results where name = '\''lint'\''")" = "$(printf "%s\trunning\t1" "$FIXTURE_C3")"
'

test_expect_success 'an upper-case commit id is stored in lower case' '
	upper=$(printf "%s" "$FIXTURE_C3" | tr a-f A-F) &&
	fm check report alice/fixture "$upper" lint failure --details "2 warnings" &&
	test "$(db_sql "select commit_id, status, details from check_results where name = '\''lint'\''")" = "$(printf "%s\tfailure\t2 warnings" "$FIXTURE_C3")"
'

test_expect_success 'a second report replaces the first: one row, new status, details dropped' '
	fm check report alice/fixture "$FIXTURE_C2" build failure &&
	test "$(db_sql "select count(*), max(status), max(details) is null from check_results where name = '\''build'\''")" = "$(printf "1\tfailure\t1")"
'

for s in pending running success failure cancelled; do
	test_expect_success "status $s is accepted" "
		fm check report alice/fixture main every $s &&
		test \"\$(db_sql \"select status from check_results where name = 'every'\")\" = $s
	"
done

test_expect_success 'a bad status is a usage error and changes nothing' '
	results >before &&
	usage_error fm check report alice/fixture main build passed &&
	grep "unknown check status '\''passed'\''" err &&
	usage_error fm check report alice/fixture main build SUCCESS &&
	usage_error fm check report alice/fixture main build "" &&
	results >after &&
	test_cmp before after
'

test_expect_success 'check report usage errors exit 2 and change nothing' '
	results >before &&
	usage_error fm check &&
	usage_error fm check frob &&
	usage_error fm check report alice/fixture main build &&
	usage_error fm check report alice/fixture main build success extra &&
	usage_error fm check report alice/fixture main "" success &&
	usage_error fm check report alice/fixture main build success --details &&
	usage_error fm check report alice/fixture main build success --bogus x &&
	usage_error fm check report alice/fixture main build success --details "$(head -c 4097 /dev/zero | tr "\0" x)" &&
	usage_error fm check report alice/fixture main build success --details "$(printf "caf\351")" &&
	results >after &&
	test_cmp before after
'

test_expect_success 'unknown repository, branch and commit fail in one line and change nothing' '
	results >before &&
	fails_one_line fm check report alice/nothere main build success &&
	grep "alice/nothere" err &&
	fails_one_line fm check report alice/fixture nobranch build success &&
	grep "'\''nobranch'\'' is neither a branch of alice/fixture nor a full 40-digit commit id" err &&
	fails_one_line fm check report alice/fixture 0123456789012345678901234567890123456789 build success &&
	grep "commit 0123456789012345678901234567890123456789 not found in alice/fixture" err &&
	fails_one_line fm check report alice/fixture "${FIXTURE_C3%????}" build success &&
	fails_one_line fm check report alice/fixture v1.0 build success &&
	fails_one_line fm check report alice/fixture "a..b" build success &&
	fails_one_line fm check report alice/empty main build success &&
	results >after &&
	test_cmp before after
'

test_expect_success 'details of exactly 4096 bytes are kept' '
	d=$(head -c 4096 /dev/zero | tr "\0" y) &&
	fm check report alice/fixture main long success --details "$d" &&
	test "$(db_sql "select length(details) from check_results where name = '\''long'\''")" = 4096
'

test_done
