# lib-server.sh: the FastCGI server under test, nginx in front of it, and requests that bypass nginx (a FastCGI socket, a CGI run).
#
# Sourced by t/test-lib.sh; not meant to be run or sourced on its own.
# Licensed under the ISC license, see LICENSE.

# ---------------------------------------------------------------------------
# The FastCGI server

FCGI_SOCK=$TRASH/fcgi.sock
SERVER_PID=

migrate_db () {
	fm migrate >>"$TRASH/migrate.out" 2>>"$TRASH/migrate.stderr" || {
		echo "Bail out! forgemcp migrate failed:"
		cat "$TRASH/migrate.stderr"
		exit 1
	}
}

# start_server [WORKERS]: migrate, then forgemcp fcgi --listen on a unix socket.
start_server () {
	test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP"; exit 1; }
	test -n "$DB_PID" || start_db --migrated
	test -f "$TRASH/migrate.out" || migrate_db
	start_fcgi_only "${1:-2}"
}

start_fcgi_only () {
	local vg=()
	rm -f "$FCGI_SOCK"
	if test "$TEST_VALGRIND" = 1; then
		command -v valgrind >/dev/null ||
			{ echo "Bail out! FORGEMCP_VALGRIND=1 but valgrind is not installed"; exit 1; }
		# one log per process (the master and each forked worker); a
		# definite leak counts as an error, reachable memory does not
		vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
			--show-leak-kinds=definite --errors-for-leak-kinds=definite
			--track-origins=yes "--suppressions=$TEST_DIRECTORY/lib/valgrind.supp"
			"--log-file=$TRASH/valgrind.%p.log")
	fi
	"${vg[@]}" "$FORGEMCP" fcgi --listen "$FCGI_SOCK" --workers "${1:-2}" 2>>"$SERVER_LOG" </dev/null &
	SERVER_PID=$!
	if ! wait_for 20 test -S "$FCGI_SOCK"; then
		echo "Bail out! forgemcp fcgi did not create $FCGI_SOCK"
		tail -n 20 "$SERVER_LOG" | sed 's/^/# /'
		exit 1
	fi
	# give the pre-forked workers a moment to connect to the database
	sleep 0.3
	if test "$TEST_VALGRIND" = 1; then sleep 2; fi
}

# stop_server: SIGTERM to the master; workers it leaves behind are killed so
# no process outlives the script.  SERVER_STOP_STATUS is the master's exit
# status (137 when it had to be killed).
stop_server () {
	local workers p
	test -n "$SERVER_PID" || return 0
	workers=$(pgrep -P "$SERVER_PID" 2>/dev/null)
	stop_pid "$SERVER_PID" 15
	SERVER_STOP_STATUS=$STOP_STATUS
	test "$SERVER_STOP_STATUS" = 0 ||
		say_err "forgemcp fcgi exited with status $SERVER_STOP_STATUS after SIGTERM"
	for p in $workers; do
		if proc_alive "$p"; then
			say_err "forgemcp worker $p outlived its master; killing it"
			kill -KILL "$p" 2>/dev/null
		fi
	done
	SERVER_PID=
	STOP_STATUS=$SERVER_STOP_STATUS
}

restart_server () {
	stop_server
	start_fcgi_only "${1:-2}"
}

# ---------------------------------------------------------------------------
# nginx, rendered from etc/nginx-forgemcp.conf.sample

NGINX_PID=
NGINX_DIR=$TRASH/nginx

# render_nginx_sample SOCKET OUTFILE: fills in the sample's placeholders.
render_nginx_sample () {
	sed -e "s|@PORT@|$HTTP_PORT|g" \
	    -e "s|@SOCKET@|$1|g" \
	    -e "s|@FORGEMCP@|$FORGEMCP|g" \
	    -e "s|@TRASH@|$TRASH|g" \
	    -e "s|@ACCESS_LOG@|$NGINX_DIR/logs/access.log|g" \
	    -e "s|@ERROR_LOG@|$NGINX_DIR/logs/error.log|g" \
	    -e "s|@SERVER_NAME@|127.0.0.1 localhost|g" \
	    "$SRC_DIR/etc/nginx-forgemcp.conf.sample" >"$2"
}

# write_nginx_conf [SOCKET]: the main nginx.conf around the rendered sample.
write_nginx_conf () {
	test -n "$HTTP_PORT" || HTTP_PORT=$(free_port)
	mkdir -p "$NGINX_DIR/tmp" "$NGINX_DIR/logs"
	cp /etc/nginx/fastcgi_params "$NGINX_DIR/fastcgi_params" 2>/dev/null ||
		cp "$SRC_DIR/t/lib/fastcgi_params" "$NGINX_DIR/fastcgi_params"
	render_nginx_sample "${1:-$FCGI_SOCK}" "$NGINX_DIR/forgemcp-site.conf"
	{
		if is_root; then echo "user root;"; fi
		cat <<-EOF
		worker_processes 1;
		daemon off;
		pid $NGINX_DIR/nginx.pid;
		error_log $NGINX_DIR/logs/error.log info;
		events { worker_connections 128; }
		http {
			client_body_temp_path $NGINX_DIR/tmp/body;
			fastcgi_temp_path $NGINX_DIR/tmp/fastcgi;
			proxy_temp_path $NGINX_DIR/tmp/proxy;
			uwsgi_temp_path $NGINX_DIR/tmp/uwsgi;
			scgi_temp_path $NGINX_DIR/tmp/scgi;
			access_log $NGINX_DIR/logs/access.log;
			default_type application/octet-stream;
			include $NGINX_DIR/forgemcp-site.conf;
		}
		EOF
	} >"$NGINX_DIR/nginx.conf"
}

nginx_bin () {
	command -v nginx 2>/dev/null || { test -x /usr/sbin/nginx && echo /usr/sbin/nginx; }
}

# start_nginx [SOCKET]: nginx on 127.0.0.1:$HTTP_PORT forwarding /mcp to SOCKET.
start_nginx () {
	nginx=$(nginx_bin) || skip_all "nginx is not installed"
	write_nginx_conf "$@"
	"$nginx" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/logs/error.log" -t \
		>"$NGINX_DIR/t.out" 2>&1 || {
		echo "Bail out! nginx rejects the rendered configuration"
		sed 's/^/# /' "$NGINX_DIR/t.out"
		exit 1
	}
	"$nginx" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/logs/error.log" \
		</dev/null >>"$NGINX_DIR/logs/stdout.log" 2>&1 &
	NGINX_PID=$!
	# the answer must come from this nginx, not from another on the port
	if ! wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/" ||
	   ! wait_for 10 port_owned_by "$HTTP_PORT" "$NGINX_PID"; then
		echo "Bail out! nginx did not start on port $HTTP_PORT"
		sed 's/^/# /' "$NGINX_DIR/logs/error.log"
		exit 1
	fi
	BASE_URL=http://127.0.0.1:$HTTP_PORT
}

stop_nginx () {
	test -n "$NGINX_PID" || return 0
	stop_pid "$NGINX_PID" 10
	NGINX_PID=
}

# start_all: the usual stack for wire tests.
start_all () {
	start_db --migrated
	start_server "$@"
	start_nginx
}

# ---------------------------------------------------------------------------
# Requests without nginx: straight to a FastCGI socket, or a CGI run

# parse_cgi_output_ RAWFILE: splits CGI/FastCGI output into $RESP.*
parse_cgi_output_ () {
	perl -e '
		local $/; open my $f, "<", $ARGV[0] or die; binmode $f; my $raw = <$f>;
		my ($h, $b) = split /\r?\n\r?\n/, $raw, 2;
		$b = "" unless defined $b; $h = "" unless defined $h;
		my $status = 200;
		$status = $1 if $h =~ /^Status:\s*(\d{3})/mi;
		open my $s, ">", "$ARGV[1].status"; print $s $status;
		open my $hh, ">", "$ARGV[1].headers"; (my $hc = $h) =~ s/\r//g; print $hh "$hc\n";
		open my $bb, ">", "$ARGV[1].body"; binmode $bb; print $bb $b;
	' "$1" "$RESP"
}

# cgi_env_ BODYFILE: the CGI meta-variables of a POST to /mcp (one per line).
cgi_env_ () {
	printf '%s\n' "PATH=$PATH" "REQUEST_METHOD=POST" "CONTENT_TYPE=application/json" \
		"CONTENT_LENGTH=${BODY_LEN:-$(wc -c <"$1")}" "SCRIPT_NAME=/mcp" "REQUEST_URI=/mcp" \
		"DOCUMENT_URI=/mcp" "SERVER_NAME=127.0.0.1" "SERVER_PORT=${HTTP_PORT:-80}" \
		"SERVER_PROTOCOL=HTTP/1.1" "GATEWAY_INTERFACE=CGI/1.1" \
		"REMOTE_ADDR=127.0.0.1" "HTTP_HOST=127.0.0.1:${HTTP_PORT:-80}" \
		"HTTP_ACCEPT=application/json, text/event-stream"
	if test -n "$TOKEN"; then echo "HTTP_AUTHORIZATION=Bearer $TOKEN"; fi
}

# fcgi_request SOCKET BODYFILE [NAME=VALUE...]: one request with cgi-fcgi.
fcgi_request () {
	local sock=$1 file=$2
	shift 2
	mapfile -t cgienv < <(cgi_env_ "$file")
	env -i "${cgienv[@]}" "$@" cgi-fcgi -bind -connect "$sock" <"$file" >"$RESP.raw" 2>"$RESP.err" || {
		echo "cgi-fcgi failed:"; cat "$RESP.err"; return 1; }
	{ echo '### fastcgi'; cat "$RESP.raw"; echo; } >>"$RESPONSES_LOG"
	parse_cgi_output_ "$RESP.raw"
}

# cgi_request BODYFILE [NAME=VALUE...]: runs forgemcp itself as a CGI program.
cgi_request () {
	local file=$1
	shift
	mapfile -t cgienv < <(cgi_env_ "$file")
	env -i "${cgienv[@]}" "FORGEMCP_CONFIG=$CONFIG" "ASAN_OPTIONS=$ASAN_OPTIONS" \
		"UBSAN_OPTIONS=$UBSAN_OPTIONS" "$@" \
		"$FORGEMCP" <"$file" >"$RESP.raw" 2>>"$TRASH/cgi.stderr"
	CGI_EXIT=$?
	{ echo '### cgi'; cat "$RESP.raw"; echo; } >>"$RESPONSES_LOG"
	parse_cgi_output_ "$RESP.raw"
}

# restart_db: stops and starts the same mariadbd datadir (no template copy).
stop_db_only () {
	stop_db
}
start_db_again () {
	db_start_in "$TRASH/db" "$DB_SOCK" "$TRASH/db.pid" "$TRASH/db.log"
	DB_PID=$DB_STARTED
	db_wait_ready_ "$DB_SOCK" 60
}
