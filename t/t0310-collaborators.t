#!/bin/bash
# t0310: forgemcp collaborator add, remove and list.
. ./test-lib.sh

start_db
migrate_db

# fails_one_line CMD...: CMD fails with exactly one "forgemcp: ..." line and no output.
fails_one_line () {
	test_must_fail "$@" >out 2>err &&
	test_one_line_failure err &&
	test_must_fail test -s out
}

# exits CODE CMD...: CMD exits with status CODE.
exits () {
	local want=$1 code
	shift
	"$@" >out 2>err
	code=$?
	test "$code" = "$want" || { echo "exit status $code, expected $want: $*"; cat err; return 1; }
}

# roles REPO: the collaborators rows of REPO (login, role), by login
roles () {
	db_sql "select u.login, c.role from collaborators c join users u on u.id = c.user_id
		join repositories r on r.id = c.repo_id join users o on o.id = r.owner_id
		where concat(o.login, '/', r.name) = '$1' order by u.login"
}

test_expect_success 'setup: users and repositories' '
	for u in alice bob carol dave erin; do fm user add $u >/dev/null || return 1; done &&
	fm repo create alice/proj >/dev/null &&
	fm repo create alice/vault --private >/dev/null
'

test_expect_success 'list on a repository without collaborators shows the owner alone' '
	fm collaborator list alice/proj >out 2>err &&
	printf "alice\towner\n" >expect &&
	test_cmp expect out &&
	test_must_fail test -s err
'

test_expect_success 'list: the owner first, then the collaborators by login, tab-separated' '
	fm collaborator add alice/proj dave manager >/dev/null &&
	fm collaborator add alice/proj bob writer >/dev/null &&
	fm collaborator add alice/proj carol reader >/dev/null &&
	fm collaborator list alice/proj >out &&
	printf "alice\towner\nbob\twriter\ncarol\treader\ndave\tmanager\n" >expect &&
	test_cmp expect out
'

test_expect_success 'list shows a changed role, and only that repository' '
	fm collaborator add alice/proj bob manager >/dev/null &&
	fm collaborator add alice/vault erin reader >/dev/null &&
	fm collaborator list alice/proj >out &&
	printf "alice\towner\nbob\tmanager\ncarol\treader\ndave\tmanager\n" >expect &&
	test_cmp expect out &&
	fm collaborator list alice/vault >out &&
	printf "alice\towner\nerin\treader\n" >expect &&
	test_cmp expect out
'

test_expect_success 'the owner is listed once, as owner, even with a role row of their own' '
	fm collaborator add alice/proj alice reader >/dev/null &&
	fm collaborator list alice/proj >out &&
	test "$(grep -c "^alice	" out)" = 1 &&
	head -n 1 out >first &&
	printf "alice\towner\n" >expect &&
	test_cmp expect first
'

test_expect_success 'remove takes the role away and says so (exit 0)' '
	exits 0 fm collaborator remove alice/proj bob &&
	grep "^.bob. no longer has a role on alice/proj$" out &&
	test_must_fail test -s err &&
	roles alice/proj >actual &&
	printf "alice\treader\ncarol\treader\ndave\tmanager\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'remove of a user without a role says so, changes nothing and exits 0' '
	roles alice/proj >before &&
	exits 0 fm collaborator remove alice/proj bob &&
	grep "^.bob. had no role on alice/proj; nothing changed$" out &&
	test_must_fail test -s err &&
	exits 0 fm collaborator remove alice/proj erin &&
	grep "erin. had no role" out &&
	roles alice/proj >after &&
	test_cmp before after &&
	test "$(roles alice/vault)" = "$(printf "erin\treader")"
'

test_expect_success 'the owner role cannot be removed (exit 1, one line)' '
	roles alice/proj >before &&
	fails_one_line fm collaborator remove alice/proj alice &&
	grep "owns alice/proj" err &&
	roles alice/proj >after &&
	test_cmp before after &&
	fm collaborator list alice/proj >out &&
	head -n 1 out | grep "^alice	owner$"
'

test_expect_success 'remove: a missing user or repository fails with one line, exit 1' '
	exits 1 fm collaborator remove alice/proj nobody &&
	test_one_line_failure err && grep "nobody" err &&
	exits 1 fm collaborator remove alice/nothing carol &&
	test_one_line_failure err && grep "alice/nothing" err &&
	test "$(roles alice/proj | wc -l)" = 3
'

test_expect_success 'list: a missing repository fails with one line, exit 1' '
	exits 1 fm collaborator list alice/nothing &&
	test_one_line_failure err &&
	test_must_fail test -s out
'

test_expect_success 'usage errors exit 2 with one line' '
	exits 2 fm collaborator remove alice/proj && test_one_line_failure err &&
	exits 2 fm collaborator remove alice/proj carol extra && test_one_line_failure err &&
	exits 2 fm collaborator remove alice carol && test_one_line_failure err &&
	exits 2 fm collaborator list && test_one_line_failure err &&
	exits 2 fm collaborator list alice/proj extra && test_one_line_failure err &&
	exits 2 fm collaborator list alice && test_one_line_failure err &&
	exits 2 fm collaborator && test_one_line_failure err &&
	exits 2 fm collaborator frob alice/proj && test_one_line_failure err &&
	grep frob err &&
	test "$(roles alice/proj | wc -l)" = 3
'

test_expect_success 'collaborator --help shows the three subcommands and the remove rule' '
	fm collaborator --help >out &&
	grep "collaborator add OWNER/NAME USER" out &&
	grep "collaborator remove OWNER/NAME USER" out &&
	grep "collaborator list OWNER/NAME" out &&
	grep "exit 0" out &&
	fm collaborator remove --help >out2 &&
	test_cmp out out2 &&
	fm collaborator list --help >out2 &&
	test_cmp out out2
'

test_expect_success 'a removed role no longer counts: re-adding gives it back' '
	exits 0 fm collaborator remove alice/proj dave &&
	test_must_fail grep -q dave <(fm collaborator list alice/proj) &&
	fm collaborator add alice/proj dave writer >/dev/null &&
	fm collaborator list alice/proj | grep "^dave	writer$"
'

test_done
