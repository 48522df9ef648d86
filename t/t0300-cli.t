#!/bin/bash
# t0300: the administration commands: users, tokens, repositories, collaborators.
. ./test-lib.sh

start_db
migrate_db

# fails_one_line CMD...: CMD fails with exactly one "forgemcp: ..." line.
fails_one_line () {
	test_must_fail "$@" >out 2>err &&
	test_one_line_failure err
}

test_expect_success 'user add creates users' '
	fm user add alice --name "Alice Liddell" --email alice@example.com &&
	fm user add bob &&
	db_sql "select login, name, email from users where login = '\''alice'\''" >actual &&
	printf "alice\tAlice Liddell\talice@example.com\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'user list shows them' '
	fm user list >out &&
	grep -w alice out &&
	grep -w bob out
'

test_expect_success 'a duplicate login fails' '
	fails_one_line fm user add alice &&
	grep alice err
'

for bad in '' 'has space' 'a/b' '../x' 'x;drop'; do
	test_expect_success "an invalid login '$bad' is refused" "
		fails_one_line fm user add '$bad' &&
		test \"\$(db_sql 'select count(*) from users')\" = 2
	"
done

test_expect_success 'user add without a login is a usage error' '
	fails_one_line fm user add
'

test_expect_success 'token create prints only the token, stores only its hash' '
	fm token create --user alice --scopes read,write --name laptop >out 2>err &&
	test "$(wc -l <out)" = 1 &&
	tok=$(cat out) &&
	test ${#tok} -ge 20 &&
	! printf "%s" "$tok" | grep -q "[[:space:]]" &&
	hash=$(sha256_hex "$tok") &&
	db_sql "select u.login, t.name, t.scopes, t.expires_at is null, t.revoked_at is null from tokens t join users u on u.id = t.user_id where t.token_hash = '\''$hash'\''" >actual &&
	printf "alice\tlaptop\tread,write\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(db_sql "select count(*) from tokens where token_hash like '\''%$tok%'\''")" = 0 &&
	echo "$tok" >alice.token
'

test_expect_success 'two tokens are different' '
	a=$(make_token bob read) && b=$(make_token bob read) &&
	test "$a" != "$b"
'

test_expect_success 'token create --expires 30d and 12h and never' '
	fm token create --user bob --scopes read --expires 30d --name t30d >/dev/null &&
	fm token create --user bob --scopes read --expires 12h --name t12h >/dev/null &&
	fm token create --user bob --scopes read --expires never --name tnever >/dev/null &&
	d=$(db_sql "select timestampdiff(hour, utc_timestamp(), expires_at) from tokens where name = '\''t30d'\''") &&
	test "$d" -ge 719 && test "$d" -le 720 &&
	h=$(db_sql "select timestampdiff(minute, utc_timestamp(), expires_at) from tokens where name = '\''t12h'\''") &&
	test "$h" -ge 715 && test "$h" -le 720 &&
	test "$(db_sql "select expires_at is null from tokens where name = '\''tnever'\''")" = 1
'

test_expect_success 'all four scopes can be granted' '
	fm token create --user bob --scopes read,write,execute,merge --name all >/dev/null &&
	test "$(db_sql "select scopes from tokens where name = '\''all'\''")" = read,write,execute,merge
'

test_expect_success 'token create failures' '
	fails_one_line fm token create --user nobody --scopes read &&
	fails_one_line fm token create --user alice --scopes admin &&
	fails_one_line fm token create --user alice --scopes "" &&
	fails_one_line fm token create --user alice --scopes read --expires 5x &&
	fails_one_line fm token create --user alice --scopes read --expires -3d &&
	fails_one_line fm token create --scopes read &&
	fails_one_line fm token create --user alice
'

test_expect_success 'a failed token create prints no token' '
	test_must_fail fm token create --user alice --scopes bogus >out 2>err &&
	test_must_fail test -s out
'

test_expect_success 'token list shows tokens but never a token or its hash' '
	fm token list >out &&
	grep laptop out &&
	tok=$(cat alice.token) &&
	test_must_fail grep -F "$tok" out &&
	test_must_fail grep -F "$(sha256_hex "$tok")" out
'

test_expect_success 'token list --user filters' '
	fm token list --user alice >out &&
	grep laptop out &&
	test_must_fail grep t30d out
'

test_expect_success 'token revoke sets revoked_at' '
	id=$(db_sql "select id from tokens where name = '\''t12h'\''") &&
	fm token revoke "$id" &&
	test "$(db_sql "select revoked_at is not null from tokens where id = $id")" = 1
'

test_expect_success 'token revoke of an unknown or malformed id fails' '
	fails_one_line fm token revoke 999999 &&
	fails_one_line fm token revoke abc &&
	fails_one_line fm token revoke
'

test_expect_success 'repo create makes a bare repository and a row' '
	fm repo create alice/proj --description "a project" &&
	test -f "$TRASH/repos/alice/proj.git/HEAD" &&
	test "$(git --git-dir="$TRASH/repos/alice/proj.git" rev-parse --is-bare-repository)" = true &&
	db_sql "select r.name, r.description, r.default_branch, r.private from repositories r join users u on u.id = r.owner_id where u.login = '\''alice'\''" >actual &&
	printf "proj\ta project\tmain\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'repo create --private --default-branch' '
	fm repo create bob/closed --private --default-branch develop &&
	db_sql "select default_branch, private from repositories where name = '\''closed'\''" >actual &&
	printf "develop\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(git --git-dir="$TRASH/repos/bob/closed.git" symbolic-ref HEAD)" = refs/heads/develop
'

test_expect_success 'repo create of an existing repository fails and keeps it' '
	fails_one_line fm repo create alice/proj &&
	test "$(db_sql "select description from repositories where name = '\''proj'\''")" = "a project"
'

test_expect_success 'repo create for an unknown owner fails' '
	fails_one_line fm repo create nobody/x &&
	test_must_fail test -e "$TRASH/repos/nobody"
'

for bad in 'noslash' 'alice/' '/x' 'alice/../escape' 'alice/.hidden' 'alice/a b' 'alice/x/y' '../alice/x'; do
	test_expect_success "repo create refuses the name '$bad'" "
		fails_one_line fm repo create '$bad' &&
		test_must_fail test -e '$TRASH/escape.git' &&
		test_must_fail test -e '$TRASH/repos/escape.git'
	"
done

test_expect_success 'repo import copies history from a bare repository' '
	make_fixture_repo "$TRASH/fixture.git" &&
	fm repo import alice/imported --from "$TRASH/fixture.git" &&
	git --git-dir="$TRASH/repos/alice/imported.git" rev-parse refs/heads/main >actual &&
	echo "$FIXTURE_C3" >expect &&
	test_cmp expect actual &&
	git --git-dir="$TRASH/repos/alice/imported.git" rev-parse "v1.0^{commit}" >actual &&
	echo "$FIXTURE_C2" >expect &&
	test_cmp expect actual &&
	test "$(db_sql "select private from repositories where name = '\''imported'\''")" = 0
'

test_expect_success 'repo import --private' '
	fm repo import bob/imported --from "$TRASH/fixture.git" --private &&
	test "$(db_sql "select r.private from repositories r join users u on u.id = r.owner_id where u.login = '\''bob'\'' and r.name = '\''imported'\''")" = 1
'

test_expect_success 'repo import failures' '
	fails_one_line fm repo import alice/none --from "$TRASH/does-not-exist" &&
	mkdir -p "$TRASH/not-a-repo" &&
	fails_one_line fm repo import alice/none --from "$TRASH/not-a-repo" &&
	fails_one_line fm repo import alice/none &&
	fails_one_line fm repo import alice/imported --from "$TRASH/fixture.git" &&
	test "$(db_sql "select count(*) from repositories where name = '\''none'\''")" = 0
'

test_expect_success 'repo list shows every repository by full name' '
	fm repo list >out &&
	grep alice/proj out &&
	grep bob/closed out &&
	grep alice/imported out &&
	grep bob/imported out
'

test_expect_success 'collaborator add records the role' '
	fm collaborator add bob/closed alice reader &&
	fm collaborator add alice/proj bob writer &&
	db_sql "select u.login, c.role from collaborators c join users u on u.id = c.user_id join repositories r on r.id = c.repo_id where r.name = '\''proj'\''" >actual &&
	printf "bob\twriter\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'collaborator add can change a role' '
	fm collaborator add alice/proj bob manager &&
	test "$(db_sql "select role from collaborators c join repositories r on r.id = c.repo_id where r.name = '\''proj'\''")" = manager
'

test_expect_success 'collaborator add failures' '
	fails_one_line fm collaborator add alice/proj bob owner &&
	fails_one_line fm collaborator add alice/proj nobody reader &&
	fails_one_line fm collaborator add alice/nothing bob reader &&
	fails_one_line fm collaborator add alice/proj bob
'

test_expect_success 'subcommand failures: unknown verbs and options' '
	fails_one_line fm user frob &&
	fails_one_line fm token frob &&
	fails_one_line fm repo frob &&
	fails_one_line fm user add carol --bogus-option &&
	fails_one_line fm user &&
	test "$(db_sql "select count(*) from users where login = '\''carol'\''")" = 0
'

# Every command that needs the database says, at the default log level, why
# it could not have it and which keys to check.
DB_COMMANDS="migrate|migrate --status|user list|user add dora|token list|token revoke 1|repo list|repo create alice/dbless|collaborator list alice/proj"

# each_db_command VAR=VALUE... -- LINE: every command of DB_COMMANDS, run
# with the variables, fails with exactly LINE (exit 1).
each_db_command () {
	local vars=() cmd
	while test "$1" != --; do vars+=("$1"); shift; done
	printf "%s\n" "$2" >expect &&
	IFS="|" read -r -a cmds <<<"$DB_COMMANDS" &&
	for cmd in "${cmds[@]}"; do
		exits_1 env "${vars[@]}" "$FORGEMCP" $cmd &&
		test_cmp expect err || { echo "in forgemcp $cmd"; return 1; }
	done
}

test_expect_success 'a refused password: the reason and db_user, db_password' '
	each_db_command FORGEMCP_DB_USER=nosuch FORGEMCP_DB_PASSWORD=wrong -- \
		"forgemcp: cannot connect to the database through db_socket $DB_SOCK: Access denied for user '\''nosuch'\''@'\''localhost'\'' (using password: YES) (check db_user and db_password)"
'

test_expect_success 'a refused login without a password: the unix_socket account is named' '
	each_db_command FORGEMCP_DB_USER=nosuch FORGEMCP_DB_PASSWORD= -- \
		"forgemcp: cannot connect to the database through db_socket $DB_SOCK: Access denied for user '\''nosuch'\''@'\''localhost'\'' (using password: NO) (check db_user, and that the system user running forgemcp is the one the database account is IDENTIFIED VIA unix_socket for)"
'

test_expect_success 'a database the account may not use, or that does not exist: db_name' '
	each_db_command FORGEMCP_DB_NAME=nodb -- \
		"forgemcp: cannot connect to the database through db_socket $DB_SOCK: Access denied for user '\''$DB_USER'\''@'\''localhost'\'' to database '\''nodb'\'' (check db_name, and that db_user was granted it)" &&
	if is_root; then
		each_db_command FORGEMCP_DB_USER=root FORGEMCP_DB_PASSWORD= FORGEMCP_DB_NAME=nodb -- \
			"forgemcp: cannot connect to the database through db_socket $DB_SOCK: Unknown database '\''nodb'\'' (check db_name, or create the database)"
	fi
'

test_expect_success 'a socket that is not there: its path and db_socket' '
	each_db_command FORGEMCP_DB_SOCKET=$TRASH/gone.sock -- \
		"forgemcp: cannot connect to the database through db_socket $TRASH/gone.sock: Can'\''t connect to local server through socket '\''$TRASH/gone.sock'\'' (2) (check db_socket, and that MariaDB is running)"
'

test_expect_success 'nothing was written by the commands that could not connect' '
	test "$(db_sql "select count(*) from users where login = '\''dora'\''")" = 0 &&
	test "$(db_sql "select count(*) from repositories where name = '\''dbless'\''")" = 0
'

test_expect_success 'repo create and import without repo_root: one message, the key, the file, the fix' '
	echo "forgemcp: repo_root is not set: set repo_root in $CONFIG to a directory owned by the user forgemcp runs as" >expect &&
	exits_1 env FORGEMCP_REPO_ROOT= "$FORGEMCP" repo import alice/x --from "$TRASH/fixture.git" &&
	test_cmp expect err &&
	exits_1 env FORGEMCP_REPO_ROOT= "$FORGEMCP" repo create alice/x &&
	test_cmp expect err &&
	exits_1 env FORGEMCP_REPO_ROOT= "$FORGEMCP" check report alice/proj main build success &&
	test_cmp expect err
'

test_expect_success 'a repo_root that is not there: its path and the system error' '
	echo "forgemcp: repo_root $TRASH/no-root cannot be used: No such file or directory: set repo_root in $CONFIG to a directory owned by the user forgemcp runs as" >expect &&
	exits_1 env FORGEMCP_REPO_ROOT=$TRASH/no-root "$FORGEMCP" repo import alice/x --from "$TRASH/fixture.git" &&
	test_cmp expect err &&
	: >"$TRASH/a-file" &&
	exits_1 env FORGEMCP_REPO_ROOT=$TRASH/a-file "$FORGEMCP" repo create alice/x &&
	grep -F "forgemcp: repo_root $TRASH/a-file cannot be used: Not a directory: set repo_root in" err
'

test_expect_success 'an owner directory the command cannot create: its path, the error, what to do' '
	mkdir -p "$TRASH/ro-root" &&
	chmod 0555 "$TRASH/ro-root" &&
	if is_root; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		as_user=()
	fi &&
	exits_1 env FORGEMCP_REPO_ROOT=$TRASH/ro-root "${as_user[@]}" "$FORGEMCP" repo import alice/x --from "$TRASH/fixture.git" &&
	echo "forgemcp: cannot create the owner'\''s directory $TRASH/ro-root/alice: Permission denied (repo_root $TRASH/ro-root must be a directory owned by the user forgemcp runs as, and this command run as that user)" >expect &&
	test_cmp expect err &&
	test "$(db_sql "select count(*) from repositories where name = '\''x'\''")" = 0
'

test_expect_success 'no command writes anything to stdout on failure' '
	test_must_fail fm repo create nobody/x >out 2>/dev/null &&
	test_must_fail test -s out
'

test_done
