# lib-galera.sh: a three-node MariaDB Galera cluster on loopback ports, and
# forgemcp "hosts" (FastCGI workers and nginx each) in front of its nodes.
#
#   . "$TEST_DIRECTORY/lib/lib-galera.sh"
#   galera_start                  three nodes, the schema migrated, all Synced
#   galera_sql N 'SQL'            SQL on node N (1-3), tab-separated, no headers, UTF-8
#   galera_host_start H N [W]     host H (1, 2, ...), W workers (2): its own forgemcp.conf (db_socket
#                                 of node N, the shared repo_root), workers, nginx;
#                                 HOST_URL[H] its base URL, HOST_PORT[H] its port
#   on H CMD...                   CMD against host H (BASE_URL, HTTP_PORT)
#   galera_runner_start H [ARGS]  forgemcp runner of host H (its config, so its node)
#   galera_agent_start H TOKEN [ARGS]  forgemcp agent --module jira --backend local
#                                 of host H, a client of host H's hub
#   galera_cut N / galera_mend    node N cut off from the others' network and
#                                 back (an nftables rule on its cgroup; needs the
#                                 prerequisite NETCUT)
#   galera_workers_stop           the runners and agents (a script that goes on
#                                 without them)
#   galera_stop                   the runners and agents, the hosts, then the nodes
#                                 (also at the script's end)
#
# The nodes run as the mysql user (as root, rsync's state transfer cannot
# write the joiner's datadir), each with its own datadir, socket, and
# client, group (gcomm), IST and state-transfer ports from free_port.
# Node 1 starts from the migrated template datadir and bootstraps the
# cluster; nodes 2 and 3 join with empty datadirs and get it by rsync.
# Every node reads with wsrep_sync_wait = 1, as doc/galera.md asks: a read
# through one node sees what another node committed before it.  Each node
# logs the transactions it aborts for a conflict (wsrep_log_conflicts) in
# its err.log, the evidence when a script finds a collision mishandled.
# Licensed under the ISC license, see LICENSE.

GALERA_PROVIDER=/usr/lib/galera/libgalera_smm.so
GALERA_DIR=$TRASH/galera
# Each node runs in a cgroup of its own (of the cgroup v2 hierarchy, where
# there is one), named fm-SCRIPT-PID-nN, so that a firewall rule can match
# its sockets and no other process's: galera_cut.
GALERA_CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
GALERA_NFT=fm_${TEST_NAME//-/_}_$$
# a script that ends early stops the cluster too (its rule, its cgroups)
TEST_STOP_HOOKS="${TEST_STOP_HOOKS:-} galera_stop"
declare -a GALERA_PID HOST_URL HOST_PORT HOST_FCGI_PID HOST_NGINX_PID HOST_RUNNER_PID HOST_AGENT_PID

# skip the script where the cluster cannot run (etc/check installs galera-4)
galera_check_ () {
	test -f "$GALERA_PROVIDER" || skip_all "galera-4 is not installed ($GALERA_PROVIDER)"
	command -v rsync >/dev/null || skip_all "rsync is not installed (the state transfer)"
	id mysql >/dev/null 2>&1 || skip_all "there is no mysql user to run the nodes as"
	is_root || skip_all "the nodes are started as the mysql user: run as root"
}

galera_sock () { echo "$GALERA_DIR/n$1/s"; }

galera_sql () {
	"$MARIADB_CLIENT_" --no-defaults --default-character-set=utf8mb4 -S "$(galera_sock "$1")" \
		-u root -N -B "$DB_NAME" -e "$2"
}

# galera_state N: wsrep_local_state_comment of node N (Synced, Joining, ...)
galera_state () {
	"$MARIADB_CLIENT_" --no-defaults -S "$(galera_sock "$1")" -u root -N -B \
		-e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2
}
galera_synced () { test "$(galera_state "$1")" = Synced; }

# galera_node_start_ N [--wsrep-new-cluster]: node N in the background, as a
# child of this shell (never inside $(...))
galera_node_start_ () {
	local d=$GALERA_DIR/n$1 cg bin
	cg=$(galera_cgroup_ "$1") bin=$(mariadbd_bin)
	# the node enters its cgroup before it opens a socket (a socket belongs to
	# the cgroup its opener was in)
	(test -z "$cg" || echo "$BASHPID" >"$cg/cgroup.procs"
	 exec "$bin" --defaults-file="$d/my.cnf" --user=mysql ${2:+"$2"}) >>"$d/err.log" 2>&1 &
	GALERA_PID[$1]=$!
	test_register_pid "${GALERA_PID[$1]}"
}

# galera_cgroup_ N: the directory of node N's cgroup, made when first asked
# for; nothing where there is no cgroup v2 hierarchy to make it in
galera_cgroup_ () {
	local cg=$GALERA_CG_ROOT/fm-$TEST_NAME-$$-n$1
	test -n "$GALERA_CG_ROOT" && { test -d "$cg" || mkdir "$cg" 2>/dev/null; } && echo "$cg"
	return 0
}

# The partition's prerequisite: nft, a cgroup per node, and a kernel that
# takes a table (a container may refuse it).
test_prereq_NETCUT_ () {
	command -v nft >/dev/null && test -n "$(galera_cgroup_ 1)" &&
	nft add table inet "$GALERA_NFT" 2>/dev/null && nft delete table inet "$GALERA_NFT"
}
TEST_PREREQ_WHY_NETCUT="nft (package nftables), a writable cgroup v2 hierarchy and nf_tables in the kernel"

# galera_cut N: drops every IP packet sent or received by a socket of node N
# (the nodes talk over loopback TCP: group, IST and state transfer alike);
# its clients' unix socket still reaches it.  galera_mend: the rule gone
# (if there is one).
galera_cut () {
	local path=${GALERA_CG_ROOT#/sys/fs/cgroup}/fm-$TEST_NAME-$$-n$1
	path=${path#/}
	nft -f - <<-EOF
	table inet $GALERA_NFT {
		chain out { type filter hook output priority 0; socket cgroupv2 level 1 "$path" drop; }
		chain in { type filter hook input priority 0; socket cgroupv2 level 1 "$path" drop; }
	}
	EOF
}
galera_mend () {
	! nft list table inet "$GALERA_NFT" >/dev/null 2>&1 || nft delete table inet "$GALERA_NFT"
}

# galera_node_wait_ N: until node N is Synced (a joiner copies the datadir
# first).  When it is not, the script bails out, and the message and the
# end of the node's log also go to stderr and to the failures file that
# etc/check prints at the end: inside a test, whose output is kept apart,
# nothing else would say why the script stopped.
galera_node_wait_ () {
	wait_for 120 galera_synced "$1" || {
		{
			echo "Bail out! Galera node $1 did not reach Synced (see $GALERA_DIR/n$1/err.log)"
			tail -n 30 "$GALERA_DIR/n$1/err.log" | sed 's/^/# /'
		} | { mkdir -p "$FAILURES_DIR" 2>/dev/null
		    tee -a "$FAILURES_DIR/$TEST_NAME@$(basename "$FORGEMCP_BUILD")" >&2 2>/dev/null; }
		echo "Bail out! Galera node $1 did not reach Synced"
		exit 1
	}
}

galera_start () {
	local i d gcomm= cluster
	local -a g ist sst port
	galera_check_
	mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
	# node 1's datadir: the migrated template, as start_db leaves it
	start_db --migrated >/dev/null && stop_db
	for i in 1 2 3; do
		g[$i]=$(free_port) && ist[$i]=$(free_port) && sst[$i]=$(free_port) &&
		port[$i]=$(free_port) || { echo "Bail out! no free port"; exit 1; }
		gcomm=$gcomm${gcomm:+,}127.0.0.1:${g[$i]}
	done
	cluster=fm-$TEST_NAME-$$
	for i in 1 2 3; do
		d=$GALERA_DIR/n$i
		mkdir -p "$d/data" "$d/tmp"
		cat >"$d/my.cnf" <<-EOF
		[mariadbd]
		datadir = $d/data
		tmpdir = $d/tmp
		socket = $d/s
		pid-file = $d/pid
		log-error = $d/err.log
		bind-address = 127.0.0.1
		port = ${port[$i]}
		innodb_buffer_pool_size = 32M
		innodb_log_file_size = 8M
		innodb_autoextend_increment = 8
		innodb_flush_log_at_trx_commit = 2
		innodb_autoinc_lock_mode = 2
		character_set_server = utf8mb4
		collation_server = utf8mb4_unicode_ci
		default_time_zone = +00:00
		performance_schema = OFF
		skip_name_resolve
		binlog_format = ROW
		wsrep_on = ON
		wsrep_provider = $GALERA_PROVIDER
		wsrep_cluster_name = $cluster
		wsrep_cluster_address = gcomm://$gcomm
		wsrep_node_name = n$i
		wsrep_node_address = 127.0.0.1:${g[$i]}
		wsrep_provider_options = "gmcast.listen_addr=tcp://127.0.0.1:${g[$i]};ist.recv_addr=127.0.0.1:${ist[$i]};gcache.size=32M"
		wsrep_sst_method = rsync
		wsrep_sst_receive_address = 127.0.0.1:${sst[$i]}
		wsrep_sync_wait = 1
		wsrep_log_conflicts = ON
		EOF
	done
	rm -rf "$GALERA_DIR/n1/data" && cp -a "$TRASH/db" "$GALERA_DIR/n1/data" || exit 1
	chown -R mysql:mysql "$GALERA_DIR"
	galera_node_start_ 1 --wsrep-new-cluster
	galera_node_wait_ 1
	for i in 2 3; do
		galera_node_start_ "$i"
		galera_node_wait_ "$i"
	done
	# what the usual helpers (db_sql, fm, make_user) reach: node 1
	DB_SOCK=$(galera_sock 1)
	config_set db_socket "$DB_SOCK"
}

# galera_node_kill N: SIGKILL to node N (a crash); galera_node_restart N
galera_node_kill () {
	kill -KILL "${GALERA_PID[$1]}" 2>/dev/null
	wait_for 30 eval "! proc_alive ${GALERA_PID[$1]}"
}
galera_node_restart () {
	galera_node_start_ "$1"
	galera_node_wait_ "$1"
}

# galera_host_start H N [WORKERS [W]]: a forgemcp host on node N (2 workers
# by default), sharing the repositories; with W, writing through node W
# (db_write_socket)
galera_host_start () {
	local h=$1 n=$2 workers=${3:-2} dir=$TRASH/host$1 save_dir=$NGINX_DIR save_port=$HTTP_PORT
	mkdir -p "$dir"
	sed -e "s|^db_socket *=.*|db_socket = $(galera_sock "$n")|" "$CONFIG" >"$dir/forgemcp.conf"
	if test -n "${4:-}"; then
		echo "db_write_socket = $(galera_sock "$4")" >>"$dir/forgemcp.conf"
	fi
	FORGEMCP_CONFIG=$dir/forgemcp.conf "$FORGEMCP" fcgi --listen "$dir/fcgi.sock" --workers "$workers" \
		2>>"$dir/server.log" </dev/null &
	HOST_FCGI_PID[$h]=$!
	test_register_pid "${HOST_FCGI_PID[$h]}"
	wait_for 20 test -S "$dir/fcgi.sock" || {
		echo "Bail out! host $h: forgemcp fcgi did not start"
		tail -n 20 "$dir/server.log" | sed 's/^/# /'
		exit 1
	}
	NGINX_DIR=$dir/nginx HTTP_PORT=$(free_port)
	start_nginx "$dir/fcgi.sock"
	HOST_NGINX_PID[$h]=$NGINX_PID
	HOST_URL[$h]=$BASE_URL
	HOST_PORT[$h]=$HTTP_PORT
	test_register_pid "$NGINX_PID"
	NGINX_PID= NGINX_DIR=$save_dir HTTP_PORT=$save_port
	BASE_URL=${HOST_URL[1]}
}

# on H CMD...: CMD with host H as the one the usual helpers (tool_call,
# tool_stream, ...) reach
on () {
	local h=$1 save_url=$BASE_URL save_port=$HTTP_PORT rc=0
	shift
	BASE_URL=${HOST_URL[$h]} HTTP_PORT=${HOST_PORT[$h]}
	"$@" || rc=$?
	BASE_URL=$save_url HTTP_PORT=$save_port
	return $rc
}

# galera_runner_start H [ARGS...]: `forgemcp runner --interval 0.1 ARGS` of
# host H in the background, as a child of this shell: host H's
# forgemcp.conf (its node), runner_dir $TRASH/hostH/runner, its messages
# in $TRASH/hostH/runner.log; its pid in HOST_RUNNER_PID[H]
galera_runner_start () {
	local h=$1 dir=$TRASH/host$1
	shift
	mkdir -p "$dir/runner" || return 1
	FORGEMCP_CONFIG=$dir/forgemcp.conf FORGEMCP_RUNNER_DIR=$dir/runner \
		"$FORGEMCP" runner --interval 0.1 "$@" >>"$dir/runner.log" 2>&1 </dev/null &
	HOST_RUNNER_PID[$h]=$!
	test_register_pid "${HOST_RUNNER_PID[$h]}"
}

# galera_agent_start H TOKEN [ARGS...]: `forgemcp agent --module jira
# --backend local --interval 0.1 ARGS` of host H in the background, as a
# child of this shell: host H's forgemcp.conf, the hub of host H
# (HOST_URL[H]/hub) with TOKEN, its messages in $TRASH/hostH/agent.log;
# its pid in HOST_AGENT_PID[H]
galera_agent_start () {
	local h=$1 tok=$2 dir=$TRASH/host$1
	shift 2
	FORGEMCP_CONFIG=$dir/forgemcp.conf FORGEMCP_HUB_URL=${HOST_URL[$h]}/hub \
	FORGEMCP_HUB_TOKEN=$tok "$FORGEMCP" agent --module jira --backend local --interval 0.1 "$@" \
		>>"$dir/agent.log" 2>&1 </dev/null &
	HOST_AGENT_PID[$h]=$!
	test_register_pid "${HOST_AGENT_PID[$h]}"
}

# galera_workers_stop: the runners and agents started, stopped and
# forgotten (their pids are not asked about again, when they may be reused)
galera_workers_stop () {
	local i
	for i in "${!HOST_RUNNER_PID[@]}"; do stop_pid "${HOST_RUNNER_PID[$i]}" 40; done
	for i in "${!HOST_AGENT_PID[@]}"; do stop_pid "${HOST_AGENT_PID[$i]}" 10; done
	HOST_RUNNER_PID=() HOST_AGENT_PID=()
}

galera_stop () {
	local i
	galera_workers_stop
	for i in "${!HOST_FCGI_PID[@]}"; do stop_pid "${HOST_FCGI_PID[$i]}" 15; done
	for i in "${!HOST_NGINX_PID[@]}"; do stop_pid "${HOST_NGINX_PID[$i]}" 10; done
	HOST_FCGI_PID=() HOST_NGINX_PID=()
	# a clean shutdown is slow and the datadirs are thrown away
	for i in "${!GALERA_PID[@]}"; do
		kill -KILL "${GALERA_PID[$i]}" 2>/dev/null
	done
	galera_mend
	for i in "${!GALERA_PID[@]}"; do
		wait_for 10 eval "! proc_alive ${GALERA_PID[$i]}"
		rmdir "$GALERA_CG_ROOT/fm-$TEST_NAME-$$-n$i" 2>/dev/null
	done
	GALERA_PID=()
}
