# t/lib/npm-clients.sh: installs the pinned npm packages of t/lib/clients
# (the MCP SDK clients, the conformance suite, Node 22) for t9500 and t9600.
# Sourced after test-lib.sh.
#
# The packages go to t/lib/clients/node_modules (gitignored), or to
# $FORGEMCP_TRASH/clients when t/lib/clients is not writable.  They are
# installed once with `npm ci` and reused while package.json and
# package-lock.json are unchanged (a stamp file records their checksum).
# When npm or the registry is unreachable the calling script is skipped,
# naming the reason.  Sets CLIENTS (the folder) and NODE22 (Node 22 binary).

CLIENTS_SRC=$SRC_DIR/t/lib/clients

clients_stamp_ () {
	cat "$CLIENTS_SRC/package.json" "$CLIENTS_SRC/package-lock.json" | sha256sum | cut -d' ' -f1
}

clients_installed_ () {
	test -f "$CLIENTS/node_modules/.forgemcp-stamp" &&
	test "$(cat "$CLIENTS/node_modules/.forgemcp-stamp")" = "$(clients_stamp_)"
}

# install_clients: ensures the pinned packages are installed; skips the script otherwise.
install_clients () {
	local i=0 log
	command -v npm >/dev/null 2>&1 || skip_all "npm is not installed (apt-get install npm)"
	command -v node >/dev/null 2>&1 || skip_all "node is not installed"
	if test -w "$CLIENTS_SRC"; then
		CLIENTS=$CLIENTS_SRC
	else
		CLIENTS=$FORGEMCP_TRASH/clients
		mkdir -p "$CLIENTS" &&
		cp "$CLIENTS_SRC"/package.json "$CLIENTS_SRC"/package-lock.json \
			"$CLIENTS_SRC"/*.mjs "$CLIENTS" || skip_all "cannot copy t/lib/clients to $CLIENTS"
	fi
	# t9500 and t9600 may run in parallel: one installs, the other waits.
	until mkdir "$FORGEMCP_TRASH/.clients-install.lock" 2>/dev/null; do
		i=$((i + 1))
		test $i -gt 6000 && skip_all "stale lock $FORGEMCP_TRASH/.clients-install.lock"
		sleep 0.1
	done
	if ! clients_installed_; then
		log=$TRASH/npm-install.log
		# npm's cache outlives the trash directory of a single script.
		export npm_config_cache=$FORGEMCP_TRASH/.npm-cache
		export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
		if ! (cd "$CLIENTS" && timeout 60 npm ping) >"$log" 2>&1; then
			rmdir "$FORGEMCP_TRASH/.clients-install.lock"
			skip_all "the npm registry is unreachable: npm ping failed ($( { grep -m 1 -i 'error' "$log" || tail -n 1 "$log"; } | tr -d '\r'))"
		fi
		if ! (cd "$CLIENTS" && timeout 600 npm ci --no-audit --no-fund) >>"$log" 2>&1; then
			rmdir "$FORGEMCP_TRASH/.clients-install.lock"
			if grep -qiE 'ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|network' "$log"; then
				skip_all "npm cannot reach the registry (see $log)"
			fi
			echo "Bail out! npm ci failed in $CLIENTS:"
			tail -n 20 "$log" | sed 's/^/# /'
			exit 1
		fi
		clients_stamp_ >"$CLIENTS/node_modules/.forgemcp-stamp"
	fi
	rmdir "$FORGEMCP_TRASH/.clients-install.lock"
	NODE22=$CLIENTS/node_modules/.bin/node
}

# node22_ok: the npm package node@22 gave a working Node 22.
node22_ok () {
	case $("$NODE22" --version 2>/dev/null) in
	v22.*) return 0 ;;
	*) return 1 ;;
	esac
}
