#!/bin/bash
# t0200: forgemcp migrate, schema_migrations, and the version check at start-up.
. ./test-lib.sh

start_db

LATEST=$(ls "$SRC_DIR"/schema/[0-9][0-9][0-9]-*.sql | sed 's|.*/0*\([0-9][0-9]*\)-.*|\1|' | sort -n | tail -n 1)
COUNT=$(ls "$SRC_DIR"/schema/[0-9][0-9][0-9]-*.sql | wc -l)
say "latest migration: $LATEST ($COUNT files)"

test_expect_success 'the worker refuses to start on an empty database' '
	timeout 30 "$FORGEMCP" fcgi --listen "$TRASH/early.sock" --workers 1 >out 2>err </dev/null
	code=$?
	test $code != 0 && test $code != 124 &&
	test -s err
'

test_expect_success 'migrate --status on an empty database lists pending work' '
	fm migrate --status >out 2>err &&
	grep -w "$LATEST" out &&
	cp out status-before
'

test_expect_success 'migrate applies every migration' '
	fm migrate >out 2>err &&
	db_sql "select count(*), max(version) from schema_migrations" >actual &&
	printf "%s\t%s\n" "$COUNT" "$LATEST" >expect &&
	test_cmp expect actual
'

test_expect_success 'the documented tables exist with the documented columns' '
	db_sql "select id, login, name, email, created_at from users limit 0" &&
	db_sql "select id, token_hash, user_id, name, scopes, created_at, expires_at, revoked_at, last_used_at from tokens limit 0" &&
	db_sql "select id, owner_id, name, description, default_branch, private, next_number, created_at, updated_at from repositories limit 0" &&
	db_sql "select repo_id, user_id, role from collaborators limit 0" &&
	db_sql "select version, name, applied_at from schema_migrations limit 0"
'

test_expect_success 'each migration is recorded with its name' '
	db_sql "select name from schema_migrations where version = 1" >name &&
	grep init name
'

test_expect_success 'a second migrate is a no-op saying "nothing to do"' '
	db_sql "select version, applied_at from schema_migrations order by version" >before &&
	fm migrate >out 2>err &&
	grep -i "nothing to do" out &&
	db_sql "select version, applied_at from schema_migrations order by version" >after &&
	test_cmp before after
'

test_expect_success 'migrate --status reports the database as current' '
	fm migrate --status >out 2>err &&
	grep -w "$LATEST" out &&
	test_must_fail cmp -s status-before out
'

test_expect_success 'a database at 20 is brought to 21: the written locks of files and parts' '
	db_sql "alter table users drop column lock_count" &&
	db_sql "alter table tracker_commands drop column lock_count" &&
	db_sql "delete from schema_migrations where version = 21" &&
	fm migrate --status >out 2>err &&
	grep "schema at version 20," out &&
	fm migrate >out 2>err &&
	grep "applied 1 migration, schema at version 21" out &&
	db_sql "select name from schema_migrations where version = 21" >name &&
	grep account-command-locks name &&
	db_sql "select lock_count from users limit 0" &&
	db_sql "select lock_count from tracker_commands limit 0"
'

test_expect_success 'the worker starts on a current database' '
	start_fcgi_only 1 &&
	test -S "$FCGI_SOCK" &&
	stop_server &&
	test "$STOP_STATUS" = 0
'

test_expect_success 'a user and a token for the stdio check' '
	fm user add stdiouser >/dev/null &&
	make_token stdiouser read >token &&
	test -s token
'

test_expect_success 'a database newer than the binary is refused by migrate' '
	db_sql "insert into schema_migrations (version, name) values (999, '\''from-the-future'\'')" &&
	test_when_finished "db_sql \"delete from schema_migrations where version = 999\"" &&
	test_must_fail fm migrate >out 2>err &&
	test_one_line_failure err &&
	grep 999 err
'

test_expect_success 'a database newer than the binary is refused by the worker' '
	db_sql "insert into schema_migrations (version, name) values (999, '\''from-the-future'\'')" &&
	test_when_finished "db_sql \"delete from schema_migrations where version = 999\"" &&
	timeout 30 "$FORGEMCP" fcgi --listen "$TRASH/newer.sock" --workers 1 >out 2>err </dev/null
	code=$?
	test $code != 0 && test $code != 124 && test -s err
'

test_expect_success 'a database newer than the binary is refused by the stdio front' '
	db_sql "insert into schema_migrations (version, name) values (999, '\''from-the-future'\'')" &&
	test_when_finished "db_sql \"delete from schema_migrations where version = 999\"" &&
	token=$(cat token) &&
	echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" |
		FORGEMCP_TOKEN="$token" timeout 30 "$FORGEMCP" stdio >out 2>err
	code=$?
	test $code != 0 && test $code != 124 && test -s err
'

test_expect_success 'migrate against an unreachable database fails with one line' '
	test_must_fail env FORGEMCP_DB_SOCKET="$TRASH/nowhere.sock" "$FORGEMCP" migrate >out 2>err &&
	test_one_line_failure err
'

test_done
