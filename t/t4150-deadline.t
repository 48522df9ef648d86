#!/bin/bash
# t4150: bounded work per request: search_code's budget and request_timeout, the deadline of git walks.
. ./test-lib.sh

start_db
config_set request_timeout 30
start_server
start_nginx
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

DEPTH=2000
DEEP=$(perl -e "print 'd/' x $DEPTH, 'keep.txt'")

# make_deadline_repo DIR.git: built with git fast-import (fixed author and clock):
#   commit 1: text/f000.txt .. text/f199.txt, each the same 1000 lines that all
#             hold "value 42" and digits (200,000 matching lines in all), and
#             keep.txt at the bottom of a chain of $DEPTH directories d/d/.../d
#   then 20,000 commits that change nothing: a path-limited log of keep.txt
#   walks all of them and looks the path up, $DEPTH levels, in each.
make_deadline_repo () {
	local bare=$1
	rm -rf "$bare"
	git init -q --bare "$bare" &&
	perl -e '
		my ($depth, $n) = @ARGV;
		my $text = join "", map { sprintf "line %04d: value 42 alpha beta gamma %d\n", $_, $_ * 7 } 1 .. 1000;
		my $who = "A U Thor <author\@example.com>";
		my $t = 1700000000;
		print "blob\nmark :1\ndata ", length($text), "\n$text\n";
		print "blob\nmark :2\ndata 5\nkeep\n\n";
		print "commit refs/heads/main\nmark :3\nauthor $who $t +0000\ncommitter $who $t +0000\n";
		print "data 6\nfirst\n";
		printf "M 100644 :1 text/f%03d.txt\n", $_ for 0 .. 199;
		print "M 100644 :2 ", "d/" x $depth, "keep.txt\n\n";
		for my $i (1 .. $n) {
			$t += 60;
			my $msg = "empty $i";
			print "commit refs/heads/main\nauthor $who $t +0000\ncommitter $who $t +0000\n";
			print "data ", length($msg), "\n$msg\n\n";
		}
	' "$DEPTH" 20000 | git --git-dir="$bare" fast-import --quiet &&
	git --git-dir="$bare" symbolic-ref HEAD refs/heads/main
}

make_deadline_repo "$TRASH/deadline.git" &&
fm repo import alice/deadline --from "$TRASH/deadline.git" --description 'deadline' >/dev/null ||
	{ echo "Bail out! the deadline repository"; exit 1; }

R='"repo":"alice/deadline"'
ATTACK='(?=(.*){2}\\d)'

# timed CMD...: runs CMD and leaves its wall time in whole seconds in $ELAPSED
timed () {
	local t0 t1 rc
	t0=$(date +%s)
	"$@"
	rc=$?
	t1=$(date +%s)
	ELAPSED=$((t1 - t0))
	return $rc
}

test_expect_success 'a small page is answered in full, not stopped' '
	tool_ok search_code "{$R,\"query\":\"value 42\"}" &&
	jq -e ".results | length == 20" out.json &&
	jq -e ".truncated == true and .next_offset == 20 and (has(\"stopped\") | not)" out.json
'

test_expect_success 'an offset that skips 100,000 matches runs out of the budget' '
	timed tool_ok search_code "{$R,\"query\":\"value 42\",\"offset\":100000}" &&
	jq -e ".truncated == true and .stopped == \"budget\" and .results == []" out.json &&
	jq -e "has(\"next_offset\") | not" out.json &&
	jq -e ".note | test(\"budget\") and test(\"offset\") and test(\"path glob\")" out.json
'

test_expect_success 'a regex that skips 100,000 matches runs out of the budget too' '
	tool_ok search_code "{$R,\"query\":\"value [0-9]+\",\"regex\":true,\"offset\":100000}" &&
	jq -e ".truncated == true and .stopped == \"budget\" and .results == []" out.json
'

test_expect_success 'the matches found before the budget ran out are returned, in order' '
	tool_ok search_code "{$R,\"query\":\"value 42\",\"offset\":99000,\"limit\":100}" &&
	jq -e ".truncated == true" out.json &&
	if jq -e ".stopped == \"budget\"" out.json
	then
		jq -e ".results | length < 100" out.json
	else
		jq -e ".results | length == 100" out.json
	fi &&
	jq -e "[.results[] | [.path, .line]] | . == sort" out.json
'

config_set request_timeout 2
restart_server

test_expect_success 'the costly regex with a large offset answers truncated with the reason, not an error' '
	timed tool_ok search_code "{$R,\"query\":\"$ATTACK\",\"regex\":true,\"offset\":100000}" &&
	jq -e ".truncated == true and (.stopped == \"time\" or .stopped == \"budget\")" out.json &&
	jq -e ".note | test(\"request_timeout|budget\") and test(\"path glob\")" out.json &&
	echo "answered in $ELAPSED s" &&
	test "$ELAPSED" -lt 30
'

test_expect_success 'the same regex from the start returns what it found' '
	tool_ok search_code "{$R,\"query\":\"$ATTACK\",\"regex\":true,\"path\":\"f000.txt\"}" &&
	jq -e ".results | length == 20" out.json &&
	jq -e ".results[0].path == \"text/f000.txt\" and .results[0].line == 1" out.json
'

config_set request_timeout 1
restart_server

test_expect_success 'a deep path-limited log answers the deadline error' '
	timed tool_call list_commits "{$R,\"path\":\"$DEEP\",\"limit\":5}" &&
	tool_error "took longer than request_timeout \\(1 s\\)" &&
	grep -F "reading the history" errtext &&
	grep -F "ref nearer" errtext &&
	echo "answered in $ELAPSED s" &&
	test "$ELAPSED" -lt 30
'

test_expect_success 'the server answers the next request as usual' '
	tool_ok list_commits "{$R,\"limit\":2}" &&
	jq -e ".commits | length == 2" out.json
'

# One worker, and a deadline far off: a walk the client gave up on would
# hold the only worker for request_timeout unless the worker notices that
# nginx hung up on it (fastcgi_ignore_client_abort is off).
config_set request_timeout 30
restart_server 1

# gone_lines: how many times the server logged a client that went away
gone_lines () {
	grep -c "the client went away" "$SERVER_LOG" || :
}

test_expect_success 'a client that hangs up stops its walk: the only worker answers the next request soon' '
	before=$(gone_lines) &&
	legacy_body tools/call "{\"name\":\"list_commits\",\"arguments\":{$R,\"path\":\"$DEEP\",\"limit\":5}}" >walk.json &&
	{
		curl -sS --max-time 1 -o walk.out -H "Authorization: Bearer $TOKEN" \
			-H "Content-Type: application/json" \
			-H "Accept: application/json, text/event-stream" \
			--data-binary @walk.json "$BASE_URL/mcp" 2>walk.err
		echo $? >walk.rc
	} &&
	echo "curl exit status $(cat walk.rc)" &&
	test "$(cat walk.rc)" = 28 &&
	timed tool_ok list_commits "{$R,\"limit\":2}" &&
	jq -e ".commits | length == 2" out.json &&
	echo "the next request answered in $ELAPSED s" &&
	test "$ELAPSED" -lt 10 &&
	wait_for 10 eval "test \$(gone_lines) -gt $before"
'

test_expect_success 'the worker logged that the client went away, and the walk took far less than request_timeout' '
	grep "the client went away" "$SERVER_LOG" | tail -n 1 >gone.line &&
	cat gone.line &&
	rid=$(sed -n "s/.* rid=\([0-9a-f]*\): .*/\1/p" gone.line) &&
	test -n "$rid" &&
	grep -F "rid=$rid: POST status=" "$SERVER_LOG" >request.line &&
	cat request.line &&
	ms=$(sed -n "s/.* time=\([0-9]*\)\.[0-9]*ms\$/\1/p" request.line) &&
	test -n "$ms" &&
	test "$ms" -lt 5000 &&
	grep -F "tool=list_commits" request.line
'

test_expect_success 'a bad request_timeout stops start-up naming the key' '
	FORGEMCP_REQUEST_TIMEOUT=0 test_must_fail fm migrate --status 2>err &&
	grep -F request_timeout err &&
	FORGEMCP_REQUEST_TIMEOUT=3601 test_must_fail fm migrate --status 2>err &&
	grep -F request_timeout err
'

test_done
