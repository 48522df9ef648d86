/* conf: the one configuration file (key = value), overridden by FORGEMCP_* variables. */
#ifndef FM_CONF_H
#define FM_CONF_H
#include <stddef.h>
#include "err.h"

/* configure --sysconfdir (default /etc) sets FORGEMCP_SYSCONFDIR. */
#ifndef FORGEMCP_SYSCONFDIR
#define FORGEMCP_SYSCONFDIR	"/etc"
#endif
#define CONFIG_DEFAULT_PATH	FORGEMCP_SYSCONFDIR "/forgemcp.conf"
#define CONFIG_MAX_LIST		16
/* What repo_root must be, in each message about it: "set repo_root in FILE " ... */
#define CONFIG_REPO_ROOT_FIX	"to a directory owned by the user forgemcp runs as"

struct config {
	char	*file;			/* the configuration file read, or looked for (config_load) */
	/* database: db_socket, or db_host + db_port */
	char	*db_socket;		/* db_socket */
	char	*db_host;		/* db_host (default localhost) */
	unsigned db_port;		/* db_port (default 3306) */
	char	*db_user;		/* db_user (default forgemcp) */
	char	*db_password;		/* db_password (default empty) */
	char	*db_name;		/* db_name (default forgemcp) */
	/* the node writes go to on a cluster: db_write_socket, or db_write_host + db_write_port */
	char	*db_write_socket;	/* db_write_socket (default unset: writes go where reads do) */
	char	*db_write_host;		/* db_write_host (default unset) */
	unsigned db_write_port;		/* db_write_port (default 3306) */
	char	*repo_root;		/* repo_root: bare repositories live at <root>/<owner>/<name>.git */
	char	*runner_dir;		/* runner_dir: CI job workspaces (default: "runner" beside repo_root) */
	int	 runner_sandbox_none;	/* runner_sandbox: bwrap (0, the default) or none (1) */
	char	*runner_bwrap;		/* runner_bwrap: the bwrap program (default /usr/bin/bwrap) */
	unsigned runner_uid;		/* runner_uid: the uid (and gid) steps run as under a root runner (default 65534) */
	/* a CI step's rlimits; 0 is no limit */
	unsigned long long runner_limit_cpu;	/* runner_limit_cpu: CPU seconds a process (default 3600) */
	unsigned long long runner_limit_memory;	/* runner_limit_memory: address space bytes (default 8G) */
	unsigned long long runner_limit_processes;	/* runner_limit_processes: processes of the step's user (default 1024) */
	unsigned long long runner_limit_file_size;	/* runner_limit_file_size: bytes a file may grow to (default 4G) */
	char	*endpoint;		/* endpoint: the MCP path (default /mcp) */
	char	*base_url;		/* base_url: public URL prefix used in links (default http://localhost) */
	char	*allowed_origins[CONFIG_MAX_LIST];	/* allowed_origins: comma-separated exact origins */
	size_t	 n_allowed_origins;
	char	*public_hosts[CONFIG_MAX_LIST];		/* public_hosts: comma-separated Host values */
	size_t	 n_public_hosts;
	char	*authorization_server;	/* authorization_server: OAuth issuer URL; enables PRM */
	size_t	 max_body;		/* max_body: request body cap in bytes (default 65536) */
	/* admission control: a fixed window per account, or per network without a token */
	unsigned rate_limit;		/* rate_limit: requests per account per window (default 120) */
	unsigned rate_window;		/* rate_window: the window in seconds (default 60) */
	unsigned rate_limit_anonymous;	/* rate_limit_anonymous: unauthenticated requests per network per window (default 30) */
	unsigned account_concurrency;	/* account_concurrency: a host's workers one account may hold (default half) */
	unsigned ci_waiting_runs;	/* ci_waiting_runs: CI runs a repository may have waiting (default 100) */
	unsigned rate_limit_buckets;	/* rate_limit_buckets: the counts kept at once (default 4096) */
	unsigned token_cache_seconds;	/* token_cache_seconds: how long a worker trusts a token it checked (default 1) */
	unsigned request_timeout;	/* request_timeout: seconds a request may take before it is stopped (default 10) */
	/* the sdlc module servers (forgemcp mcp): the hub API they call */
	char	*hub_url;		/* hub_url: the hub API's base URL (default <base_url>/hub) */
	char	*hub_token;		/* hub_token: their bearer token (secret; also FORGEMCP_TOKEN) */
	int	 log_level;		/* log_level: error|warn|info|debug (default info) */
	/* web_search (also read from SEARCH_PROVIDER and BRAVE_SEARCH_API_KEY) */
	char	*search_provider;	/* search_provider: adapter name (default brave) */
	char	*brave_api_key;		/* brave_api_key: Brave Search subscription token (secret) */
	char	*search_base_url;	/* search_base_url: the provider's search endpoint */
	unsigned search_timeout;	/* search_timeout: seconds per search (default 10) */
	unsigned search_hourly_limit;	/* search_hourly_limit: searches per user per hour (default 60) */
	/* the wiki agent's Confluence backend (forgemcp agent --module wiki --backend confluence) */
	char	*jira_url;		/* jira_url: the Jira server's base URL, before /rest */
	char	*jira_user;		/* jira_user: the login for basic authentication; none: a bearer token */
	char	*jira_token_file;	/* jira_token_file: the file holding its API token or password */
	unsigned jira_timeout;		/* jira_timeout: seconds per request to it (default 30) */
	char	*wiki_confluence_url;	/* wiki_confluence_url: the server's base URL, before /rest/api */
	char	*wiki_confluence_user;	/* wiki_confluence_user: the login for basic authentication; none: a bearer token */
	char	*wiki_confluence_token_file; /* wiki_confluence_token_file: the file holding its API token or password */
	unsigned wiki_confluence_timeout; /* wiki_confluence_timeout: seconds per request to it (default 30) */
	unsigned wiki_copies_mb;	/* wiki_copies_mb: MiB of attachment copies the hub keeps a project (default 256) */
	unsigned tracker_copies_mb;	/* tracker_copies_mb: MiB of tracker attachment copies the hub keeps (default 1024) */
};

/*
 * Loads configuration: defaults, then the file at path (NULL means
 * $FORGEMCP_CONFIG or CONFIG_DEFAULT_PATH; a missing default file is not an
 * error, a missing named one is), then FORGEMCP_<KEY> environment variables.
 * With CONFIG_CLIENT, a default file this user may not read is skipped too:
 * a client (forgemcp mcp) of a machine whose /etc/forgemcp.conf holds the
 * database password takes its keys from the environment.
 * On failure returns ERR_CONFIG with a message naming the key (or file and line).
 */
#define CONFIG_CLIENT	0x1
int	config_load(struct config *out, const char *path, int flags, struct err *e);
void	config_release(struct config *c);
/* Only the built-in defaults (for --help, which must work without a configuration). */
int	config_defaults(struct config *out, struct err *e);
/* Checks what a server needs (config_check_repo_root, ...). */
int	config_check_server(const struct config *c, struct err *e);
/*
 * Checks that repo_root is set and names a directory.  ERR_CONFIG with the
 * message a user sees: the key, the path, the system's reason and the fix
 * (set repo_root in the configuration file CONFIG_REPO_ROOT_FIX).
 */
int	config_check_repo_root(const struct config *c, struct err *e);

#endif
