#!/bin/bash
# t6565: an account's uploaded files cap (POST /hub/files: 1,000 files,
# 256 MiB no batch took) holds when many creates of the account arrive at
# once on several workers: the count and the insert are one transaction
# under the account's users row (schema/021-account-command-locks.sql).
. ./test-lib.sh

start_all 8
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
UID_ANN=$(db_sql "SELECT id FROM users WHERE login = 'ann'")

# burst N SIZE: N creates of a file of SIZE bytes, sent at once by one curl
# over N connections; each status a line of codes
burst () {
	local i
	for i in $(seq 1 "$1"); do
		test "$i" = 1 || echo next
		printf 'header = "Authorization: Bearer %s"\n' "$ANN_TOKEN"
		printf 'header = "Content-Type: application/json"\n'
		printf 'url = "%s/hub/files"\noutput = "burst.%d.json"\n' "$BASE_URL" "$i"
		printf 'data-binary = "{\\"name\\":\\"b%d\\",\\"size\\":%d}"\n' "$i" "$2"
		printf 'write-out = "%%{http_code}\\n"\n'
	done >burst.cfg &&
	rm -f burst.*.json &&
	curl -sS -Z --parallel-immediate --parallel-max "$1" -K burst.cfg >codes
}
held () { db_sql "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM tracker_files WHERE user_id = $UID_ANN"; }

test_expect_success 'a burst with room for all: each created' '
	burst 16 10 && test "$(grep -c "^201$" codes)" = 16 &&
	printf "16\t160\n" >expect && held >actual && test_cmp expect actual
'

test_expect_success 'the last file of 1000: 24 creates at once, one taken, the rest refused, five times' '
	for round in 1 2 3 4 5; do
		db_sql "DELETE FROM tracker_files WHERE user_id = $UID_ANN" &&
		db_sql "INSERT INTO tracker_files (user_id, filename, size, created_at) SELECT $UID_ANN, \"f\", 0, UTC_TIMESTAMP(3) FROM seq_1_to_999" &&
		burst 24 0 &&
		say "round $round: $(sort codes | uniq -c | tr -s " \n" " ")" &&
		test "$(grep -c "^201$" codes)" = 1 &&
		test "$(grep -c "^413$" codes)" = 23 &&
		test "$(held | cut -f1)" = 1000 || return 1
	done
'

test_expect_success 'the last bytes of 256 MiB: 24 creates of 1 MiB at once with room for one' '
	for round in 1 2 3; do
		db_sql "DELETE FROM tracker_files WHERE user_id = $UID_ANN" &&
		db_sql "INSERT INTO tracker_files (user_id, filename, size, created_at) VALUES ($UID_ANN, \"big\", $(((256 - 1) * 1048576)), UTC_TIMESTAMP(3))" &&
		burst 24 1048576 &&
		say "round $round: $(sort codes | uniq -c | tr -s " \n" " ")" &&
		test "$(grep -c "^201$" codes)" = 1 &&
		test "$(held | cut -f2)" = 268435456 || return 1
	done &&
	grep -h "256 МБ" burst.*.json | head -n 1 | grep "поставьте пакеты"
'

test_expect_success 'each create wrote the account lock row' '
	test "$(db_sql "SELECT lock_count FROM users WHERE id = $UID_ANN")" -ge 16
'

test_done
