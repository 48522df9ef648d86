#!/bin/bash
# t9220: doc/deployment.md's "Set up an instance", run as written.  The
# ```sh blocks of that section (up to the next "## " heading; ```sh-example
# blocks are illustrations and are skipped) run, in order, as one bash -e
# script as root, inside a private mount, network and pid namespace where
# /etc, /usr/local and /var are overlays whose changes land in the trash
# directory, /run is an empty tmpfs, and a throwaway mariadbd listens on
# /run/mysqld/mysqld.sock.  The system user forgemcp is removed from the
# overlay's /etc first, so the documented useradd runs.  The walkthrough
# must end with issue #1 closed by the merge of pull request #2, done by the
# merge worker, every call answered through nginx.  Then the workers are
# stopped the way step 7 says, and started again with its spawn-fcgi line.
#
# The only change made to the blocks: the build block (autoreconf, configure,
# make, make install) runs in the build under test, already configured
# (with the default prefix and sysconfdir it checks), so it runs `make` and
# `make install` there; nothing else is substituted.
# About 30 s on a busy 2-core machine, most of it waiting for MariaDB and
# the merge worker.
. ./test-lib.sh

# Its subject is doc/deployment.md's commands, as written: the plain pass
# runs them; under the sanitizers the same services and commands run in
# t1000-t6540 (workers, merge worker, the CLI).
if asan_build; then
	skip_all "doc/deployment.md's walkthrough: the plain pass runs it"
fi

is_root || skip_all "the walkthrough runs as root"
command -v unshare >/dev/null || skip_all "unshare (util-linux) is not installed"
for c in runuser setsid ip git curl jq useradd userdel make; do
	command -v "$c" >/dev/null || skip_all "$c is not installed"
done
mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
command -v mariadb >/dev/null || skip_all "the mariadb client is not installed"
nginx_bin >/dev/null || skip_all "nginx is not installed"
test -d /etc/nginx/sites-available || skip_all "nginx's Debian layout (/etc/nginx/sites-available) is missing"
getent group www-data >/dev/null || skip_all "there is no group www-data"
test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP"; exit 1; }
grep -qx 'prefix = /usr/local' "$FORGEMCP_BUILD/Makefile" &&
grep -qx 'sysconfdir = /etc' "$FORGEMCP_BUILD/Makefile" ||
	skip_all "the build under test is not configured with the default prefix and sysconfdir"
unshare --mount --net --pid --fork --mount-proc true 2>/dev/null ||
	skip_all "cannot make mount, network and pid namespaces here"

DOC=$SRC_DIR/doc/deployment.md
WALK=$TRASH/walk

# The ```sh blocks of the section, each introduced by a line "BLOCK=N".
awk '
	/^## / { insec = ($0 == "## Set up an instance"); next }
	!insec { next }
	/^```/ {
		if (!fence) { fence = 1; take = ($0 == "```sh"); if (take) print "BLOCK=" ++n }
		else fence = 0
		next
	}
	fence && take { print }
' "$DOC" >walkthrough.raw

# The build block as the doc has it, and how it runs here.
cat >build.expect <<'EOF'
BLOCK=1
autoreconf -fi
./configure
make
make install
EOF

test_expect_success 'the section has its blocks, the first one building and installing' '
	test "$(grep -c "^BLOCK=" walkthrough.raw)" -ge 8 &&
	head -n 5 walkthrough.raw >build.doc &&
	test_cmp build.expect build.doc &&
	grep -q "^runuser -u forgemcp -- forgemcp migrate$" walkthrough.raw &&
	grep -q "Closes #1" walkthrough.raw &&
	test_must_fail grep -q "^claude " walkthrough.raw
'

# The walkthrough script: an ERR trap names the block that failed.
{
	echo 'trap '\''echo "walkthrough: block $BLOCK failed (line $LINENO)" >&2'\'' ERR'
	echo 'BLOCK=1'
	printf 'cd %q\n' "$FORGEMCP_BUILD"
	echo 'make'
	echo 'make install'
	printf 'cd %q\n' "$SRC_DIR"
	tail -n +6 walkthrough.raw
} >walkthrough.sh

# A copy of the template datadir, for the namespace's mariadbd.
ensure_template || { echo "Bail out! cannot build the MariaDB template datadir"; exit 1; }
cp -a "$TEMPLATE/data" "$TRASH/db" || exit 1
mkdir -p "$WALK/root-home" "$WALK/ov"
# the overlays keep what the walkthrough changed in /etc (shadow included)
chmod 700 "$WALK/ov"
chmod 700 "$WALK/root-home"
chmod 1777 "$TRASH/asan"
sha256sum /etc/passwd /etc/group >host-ids.before
ls -d /etc/forgemcp.conf /var/lib/forgemcp /usr/local/bin/forgemcp >host-files.before 2>/dev/null

# Inside the namespaces.
cat >inner.sh <<'EOF'
set -u
mount --make-rprivate / || exit 1
ip link set lo up || exit 1
for d in /etc /usr/local /var; do
	n=$(echo "$d" | tr / _)
	mkdir -p "$WALK/ov/$n/upper" "$WALK/ov/$n/work" &&
	mount -t overlay overlay \
		-o "lowerdir=$d,upperdir=$WALK/ov/$n/upper,workdir=$WALK/ov/$n/work" "$d" || exit 1
done
mount -t tmpfs -o mode=0755 tmpfs /run || exit 1
mkdir -p /run/mysqld
# a machine where forgemcp has never been installed
if id forgemcp >/dev/null 2>&1; then userdel forgemcp || exit 1; fi
if getent group forgemcp >/dev/null; then groupdel forgemcp || exit 1; fi
mkdir -p "$TRASH/db.tmp"
# shellcheck disable=SC2086
"$MARIADBD" --no-defaults --user=root --datadir="$TRASH/db" --tmpdir="$TRASH/db.tmp" \
	--socket=/run/mysqld/mysqld.sock --pid-file="$TRASH/db.pid" --log-error="$TRASH/db.log" \
	--skip-networking $DB_OPTS >>"$TRASH/db.log" 2>&1 &
i=0
until mariadb --no-defaults -S /run/mysqld/mysqld.sock -u root -e 'select 1' >/dev/null 2>&1; do
	i=$((i + 1))
	test $i -gt 600 && { echo "mariadbd did not start" >&2; exit 1; }
	sleep 0.1
done
# the template's database and account are the walkthrough's to make
mariadb --no-defaults -S /run/mysqld/mysqld.sock -u root \
	-e 'DROP DATABASE forgemcp; DROP USER forgemcp@localhost;' || exit 1

cd "$SRC_DIR" || exit 1
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME="$WALK/root-home" USER=root LOGNAME=root SHELL=/bin/bash LC_ALL=C \
	ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" LSAN_OPTIONS="$LSAN_OPTIONS" \
	bash -e "$TRASH/walkthrough.sh" >"$WALK/out" 2>"$WALK/err" </dev/null
echo $? >"$WALK/status"

# What the test looks at once the namespaces are gone.
sleep 0.5
ps -eo user:20=,args= >"$WALK/ps"
stat -c '%U:%G %a' /etc/forgemcp.conf >"$WALK/conf.stat" 2>&1
find /var/lib/forgemcp/repos ! -user forgemcp >"$WALK/not-forgemcp" 2>&1
runuser -u forgemcp -- git -C /var/lib/forgemcp/repos/alice/project.git \
	log -1 --format='%H%n%P%n%s%n%an <%ae>' main >"$WALK/main.log" 2>&1
runuser -u forgemcp -- git -C /var/lib/forgemcp/repos/alice/project.git \
	show main:README.md >"$WALK/main.README" 2>&1
runuser -u forgemcp -- git -C /var/lib/forgemcp/repos/alice/project.git \
	rev-parse fix-readme >"$WALK/fix-readme" 2>&1
cp /var/log/nginx/forgemcp.access.log "$WALK/access.log" 2>/dev/null
cp /var/log/nginx/forgemcp.error.log "$WALK/nginx-error.log" 2>/dev/null
# the way step 7 says to stop them
pkill -u forgemcp -x forgemcp
i=0
while pgrep -u forgemcp -x forgemcp >/dev/null; do
	i=$((i + 1))
	test $i -gt 150 && break
	sleep 0.1
done
pgrep -a -u forgemcp -x forgemcp >"$WALK/left"
for f in /var/log/forgemcp/*.log; do
	test -f "$f" && cp "$f" "$TRASH/$(basename "$f" .log).stderr"
done

# step 7's other way: the workers under spawn-fcgi, as the doc writes it
if test -n "$SPAWN_LINE" && command -v spawn-fcgi >/dev/null; then
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="$WALK/root-home" LC_ALL=C bash -c "$SPAWN_LINE" \
		>"$WALK/spawn.out" 2>>"$TRASH/spawn.stderr" </dev/null
	i=0
	until test -S /run/forgemcp/fcgi.sock || test $i -gt 100; do i=$((i + 1)); sleep 0.1; done
	stat -c '%U:%G %a' /run/forgemcp/fcgi.sock >"$WALK/spawn.stat" 2>&1
	curl -s http://127.0.0.1/mcp -H @"$WALK/root-home/alice.header" \
		-H 'Content-Type: application/json' \
		-d '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_issue",
		     "arguments":{"repo":"alice/project","number":1}}}' >"$WALK/spawn.answer" 2>&1
	ps -eo user:20=,args= >"$WALK/spawn.ps"
fi
exit 0
EOF

# Step 7's spawn-fcgi line, and the same in "Ways to run it".
SPAWN_LINE=$(sed -n '/^## Set up an instance$/,/^## Configuration$/p' "$DOC" |
	grep -o '`spawn-fcgi -s [^`]*`' | tr -d '`')
test_expect_success 'step 7 names one spawn-fcgi line, the one "Ways to run it" shows' '
	test "$(printf "%s\n" "$SPAWN_LINE" | wc -l)" = 1 &&
	case $SPAWN_LINE in *" -u forgemcp -g forgemcp "*) ;; *) false ;; esac &&
	grep -F "| FastCGI under spawn-fcgi | \`$SPAWN_LINE\`" "$DOC"
'
command -v spawn-fcgi >/dev/null || SPAWN_LINE=

export WALK TRASH SRC_DIR DB_OPTS MARIADBD SPAWN_LINE
MARIADBD=$(mariadbd_bin)
timeout -k 5 150 unshare --mount --net --pid --fork --mount-proc --kill-child \
	bash "$TRASH/inner.sh" >inner.out 2>&1
inner=$?
for h in "$WALK"/root-home/*.header; do
	test -f "$h" && test_record_token "$(sed -n 's/^Authorization: Bearer //p' "$h")"
done

# answer ID: the walkthrough's JSON-RPC answer with that id (nothing when
# there was none: a test on it checks that it is not empty).
answer () {
	grep '^{' "$WALK/out" | jq -c "select(.id == $1)"
}

test_expect_success 'the walkthrough runs as written, as root, without an error' '
	cat inner.out &&
	test "$inner" = 0 &&
	test "$(cat "$WALK/status")" = 0 || {
		echo "--- its stderr:"; tail -n 40 "$WALK/err"
		echo "--- its stdout:"; tail -n 20 "$WALK/out"
		false
	}
'

test_expect_success 'useradd made the system user forgemcp, which owns the repositories' '
	grep -x "forgemcp:x:[0-9]*:[0-9]*::/var/lib/forgemcp:/usr/sbin/nologin" "$WALK/ov/_etc/upper/passwd" &&
	test -s "$WALK/ps" &&
	test_must_fail grep -q . "$WALK/not-forgemcp" &&
	test "$(cat "$WALK/conf.stat")" = "root:forgemcp 640"
'

test_expect_success 'the FastCGI workers and the merge worker run as forgemcp' '
	grep -E "^forgemcp +forgemcp fcgi --listen /run/forgemcp/fcgi.sock" "$WALK/ps" >fcgi.ps &&
	test "$(wc -l <fcgi.ps)" = 5 &&
	grep -E "^forgemcp +forgemcp worker" "$WALK/ps"
'

test_expect_success 'the branch was pushed the documented way' '
	test "$(wc -c <"$WALK/fix-readme")" = 41
'

test_expect_success 'create_issue (2026-07-28) opened issue #1' '
	answer 1 >a1 && cat a1 && test -s a1 &&
	jq -e ".result.isError != true and .result.structuredContent.number == 1" a1
'

test_expect_success 'create_pull_request (legacy) opened pull request #2' '
	answer 2 >a2 && cat a2 && test -s a2 &&
	jq -e ".result.isError != true and .result.structuredContent.number == 2" a2
'

test_expect_success 'get_pull_request: version 1, edit_version 1, closing issue #1' '
	answer 3 >a3 && cat a3 && test -s a3 &&
	jq -e ".result.structuredContent | .version == 1 and .edit_version == 1
		and .closing_issue_numbers == [1]" a3
'

test_expect_success 'merge_pull_request with bob'"'"'s merge token queued the merge' '
	answer 4 >a4 && cat a4 && test -s a4 &&
	jq -e ".result.isError != true and .result.structuredContent.queued == true" a4
'

test_expect_success 'the merge worker merged fix-readme into main' '
	cat "$WALK/main.log" &&
	sed -n 2p "$WALK/main.log" >parents &&
	test "$(wc -w <parents)" = 2 &&
	grep -q " $(cat "$WALK/fix-readme")\$" parents &&
	sed -n 3p "$WALK/main.log" | grep -q "^Merge pull request #2 from fix-readme" &&
	sed -n 4p "$WALK/main.log" | grep -qx "Bob Example <bob@forge.example.org>" &&
	grep -qx "A first project on forgemcp." "$WALK/main.README" &&
	grep " info: merge 1: alice/project#2 merged as $(sed -n 1p "$WALK/main.log")\$" "$TRASH/worker.stderr"
'

test_expect_success 'get_issue (legacy): issue #1 is closed by the merge of #2' '
	answer 6 >a6 && cat a6 && test -s a6 &&
	jq -e ".result.structuredContent | .state == \"closed\" and
		any(.activity.entries[]; .type == \"closed\" and .cause == \"merge\" and .source_number == 2)" a6
'

test_expect_success 'every call went through nginx' '
	cat "$WALK/access.log" &&
	test "$(grep -c "\"POST /mcp HTTP/1.1\" 200 " "$WALK/access.log")" -ge 6 &&
	test_must_fail grep -v "\"POST /mcp HTTP/1.1\" 200 " "$WALK/access.log"
'

test_expect_success 'the wait for the merge stopped once get_pull_request said merged' '
	test "$(grep -c "\"POST /mcp HTTP/1.1\" 200 " "$WALK/access.log")" -le 15
'

test_expect_success 'pkill -u forgemcp -x forgemcp stopped the workers and the merge worker' '
	test -f "$WALK/left" &&
	test_must_fail grep . "$WALK/left" &&
	tail -n 1 "$TRASH/fcgi.stderr" | grep " info: stopped\$" &&
	tail -n 1 "$TRASH/worker.stderr" | grep " info: worker .* stopped\$"
'

if test -n "$SPAWN_LINE"; then
	test_expect_success 'spawn-fcgi as step 7 says: the socket is www-data'"'"'s, forgemcp runs as forgemcp' '
		cat "$WALK/spawn.out" &&
		test "$(cat "$WALK/spawn.stat")" = "www-data:www-data 660" &&
		grep -E "^forgemcp +/usr/local/bin/forgemcp\$" "$WALK/spawn.ps" >spawn.ps &&
		test "$(wc -l <spawn.ps)" = 4 &&
		test_must_fail grep -E "^root +/usr/local/bin/forgemcp" "$WALK/spawn.ps" &&
		cat "$WALK/spawn.answer" &&
		jq -e ".id == 7 and .result.structuredContent.state == \"closed\"" "$WALK/spawn.answer"
	'
else
	say "skipping spawn-fcgi: not installed"
fi

test_expect_success 'the machine'"'"'s own users and groups were not touched' '
	sha256sum /etc/passwd /etc/group >host-ids.after &&
	test_cmp host-ids.before host-ids.after &&
	{ ls -d /etc/forgemcp.conf /var/lib/forgemcp /usr/local/bin/forgemcp >host-files.after 2>/dev/null || :; } &&
	test_cmp host-files.before host-files.after
'

test_done
