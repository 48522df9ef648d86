/* conf: defaults, the key = value file, then FORGEMCP_* environment overrides. */
#include <sys/stat.h>

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "log.h"

enum config_kind {
	CK_STR,		/* a string */
	CK_PORT,	/* 1..65535 */
	CK_SIZE,	/* a positive byte count */
	CK_LIST,	/* comma-separated strings */
	CK_ORIGINS,	/* comma-separated serialised origins: scheme://host[:port] */
	CK_LEVEL,	/* a log level name */
	CK_PATH,	/* an absolute URL path */
	CK_URL,		/* an http(s) URL without a trailing slash */
	CK_SECONDS,	/* a duration in whole seconds, 1..3600 */
	CK_COUNT,	/* a positive count, 1..1000000 */
	CK_LIMIT,	/* a request limit, 0..1000000; 0 turns the limit off */
	CK_CACHE,	/* a cache lifetime in whole seconds, 0..60; 0 turns the cache off */
	CK_BUCKETS,	/* a number of rate limit buckets, 16..65536 */
	CK_RLIMIT,	/* a resource limit: a count, K/M/G suffixed; 0 turns it off */
	CK_SANDBOX,	/* bwrap or none */
};

struct config_key {
	const char		*name;
	enum config_kind	 kind;
	size_t			 off;	/* offset of the field in struct config */
	size_t			 count_off;	/* CK_LIST: offset of the count */
};

#define F(f)	offsetof(struct config, f)
static const struct config_key config_keys[] = {
	{ "account_concurrency", CK_COUNT, F(account_concurrency), 0 },
	{ "allowed_origins", CK_ORIGINS, F(allowed_origins), F(n_allowed_origins) },
	{ "authorization_server", CK_URL, F(authorization_server), 0 },
	{ "base_url", CK_URL, F(base_url), 0 },
	{ "ci_waiting_runs", CK_COUNT, F(ci_waiting_runs), 0 },
	{ "brave_api_key", CK_STR, F(brave_api_key), 0 },
	{ "db_host", CK_STR, F(db_host), 0 },
	{ "db_name", CK_STR, F(db_name), 0 },
	{ "db_password", CK_STR, F(db_password), 0 },
	{ "db_port", CK_PORT, F(db_port), 0 },
	{ "db_socket", CK_STR, F(db_socket), 0 },
	{ "db_user", CK_STR, F(db_user), 0 },
	{ "db_write_host", CK_STR, F(db_write_host), 0 },
	{ "db_write_port", CK_PORT, F(db_write_port), 0 },
	{ "db_write_socket", CK_STR, F(db_write_socket), 0 },
	{ "endpoint", CK_PATH, F(endpoint), 0 },
	{ "hub_token", CK_STR, F(hub_token), 0 },
	{ "hub_url", CK_URL, F(hub_url), 0 },
	{ "jira_timeout", CK_SECONDS, F(jira_timeout), 0 },
	{ "jira_token_file", CK_STR, F(jira_token_file), 0 },
	{ "jira_url", CK_URL, F(jira_url), 0 },
	{ "jira_user", CK_STR, F(jira_user), 0 },
	{ "log_level", CK_LEVEL, F(log_level), 0 },
	{ "max_body", CK_SIZE, F(max_body), 0 },
	{ "public_hosts", CK_LIST, F(public_hosts), F(n_public_hosts) },
	{ "rate_limit", CK_LIMIT, F(rate_limit), 0 },
	{ "rate_limit_anonymous", CK_LIMIT, F(rate_limit_anonymous), 0 },
	{ "rate_limit_buckets", CK_BUCKETS, F(rate_limit_buckets), 0 },
	{ "rate_window", CK_SECONDS, F(rate_window), 0 },
	{ "repo_root", CK_STR, F(repo_root), 0 },
	{ "request_timeout", CK_SECONDS, F(request_timeout), 0 },
	{ "runner_bwrap", CK_STR, F(runner_bwrap), 0 },
	{ "runner_dir", CK_STR, F(runner_dir), 0 },
	{ "runner_limit_cpu", CK_RLIMIT, F(runner_limit_cpu), 0 },
	{ "runner_limit_file_size", CK_RLIMIT, F(runner_limit_file_size), 0 },
	{ "runner_limit_memory", CK_RLIMIT, F(runner_limit_memory), 0 },
	{ "runner_limit_processes", CK_RLIMIT, F(runner_limit_processes), 0 },
	{ "runner_sandbox", CK_SANDBOX, F(runner_sandbox_none), 0 },
	{ "runner_uid", CK_COUNT, F(runner_uid), 0 },
	{ "search_base_url", CK_URL, F(search_base_url), 0 },
	{ "search_hourly_limit", CK_COUNT, F(search_hourly_limit), 0 },
	{ "search_provider", CK_STR, F(search_provider), 0 },
	{ "search_timeout", CK_SECONDS, F(search_timeout), 0 },
	{ "token_cache_seconds", CK_CACHE, F(token_cache_seconds), 0 },
	{ "wiki_confluence_timeout", CK_SECONDS, F(wiki_confluence_timeout), 0 },
	{ "wiki_copies_mb", CK_COUNT, F(wiki_copies_mb), 0 },
	{ "tracker_copies_mb", CK_COUNT, F(tracker_copies_mb), 0 },
	{ "wiki_confluence_token_file", CK_STR, F(wiki_confluence_token_file), 0 },
	{ "wiki_confluence_url", CK_URL, F(wiki_confluence_url), 0 },
	{ "wiki_confluence_user", CK_STR, F(wiki_confluence_user), 0 },
};
#undef F

/* Other environment names a key is read from (the siGit spec's); FORGEMCP_<KEY> wins. */
static const struct {
	const char	*key;
	const char	*env;
} config_aliases[] = {
	{ "brave_api_key", "BRAVE_SEARCH_API_KEY" },
	{ "hub_token", "FORGEMCP_TOKEN" },
	{ "search_provider", "SEARCH_PROVIDER" },
};

static const char *
config_alias(const char *key)
{
	size_t	i;

	for (i = 0; i < sizeof(config_aliases) / sizeof(config_aliases[0]); i++)
		if (strcmp(config_aliases[i].key, key) == 0)
			return config_aliases[i].env;
	return NULL;
}

static void
config_list_clear(char **v, size_t *n)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		free(v[i]);
		v[i] = NULL;
	}
	*n = 0;
}

static char *
config_trim(char *s)
{
	char	*end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' ||
	    end[-1] == '\n'))
		*--end = '\0';
	return s;
}

/* Whether s is a serialised origin: http(s)://host[:port] with nothing after. */
static int
config_origin_ok(const char *s)
{
	const char	*h;

	if (strncmp(s, "http://", 7) == 0)
		h = s + 7;
	else if (strncmp(s, "https://", 8) == 0)
		h = s + 8;
	else
		return 0;
	if (*h == '\0')
		return 0;
	for (; *h != '\0'; h++)
		if (*h == '/' || *h == '?' || *h == '#' || *h == '@' || *h == ' ' ||
		    (unsigned char)*h < 0x21 || (unsigned char)*h > 0x7e)
			return 0;
	return 1;
}

/* The smallest value a numeric key of this kind takes. */
static unsigned long
config_min(enum config_kind kind)
{
	switch (kind) {
	case CK_LIMIT:
	case CK_CACHE:
		return 0UL;
	case CK_BUCKETS:
		return 16UL;
	default:
		return 1UL;
	}
}

/* The largest value a numeric key of this kind takes. */
static unsigned long
config_max(enum config_kind kind)
{
	switch (kind) {
	case CK_SECONDS:
		return 3600UL;
	case CK_CACHE:
		return 60UL;
	case CK_BUCKETS:
		return 65536UL;
	default:
		return 1000000UL;
	}
}

/* A resource limit: digits with an optional K, M or G (times 1024 each); 0 is none. */
static int
config_rlimit(struct config *c, const struct config_key *k, const char *value,
    const char *where, struct err *e)
{
	unsigned long long	 v;
	char			*end;
	int			 shift = 0;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift != 0)
		end++;
	if (errno || end == value || *end != '\0' || value[0] == '-' || v > (1ULL << 40))
		return err_set(e, ERR_CONFIG, "%s: %s must be a whole number (K, M or G "
		    "suffix allowed; 0 for no limit), not '%s'", where, k->name, value);
	*(unsigned long long *)(void *)((char *)c + k->off) = v << shift;
	return 0;
}

static int
config_set(struct config *c, const struct config_key *k, const char *value, const char *where,
    struct err *e)
{
	char		**sp = (char **)(void *)((char *)c + k->off);
	char		 *dup = NULL, *p, *tok, *save = NULL;
	unsigned long	  ul;
	char		 *end;
	size_t		 *np;
	int		  rc;

	switch (k->kind) {
	case CK_STR:
	case CK_PATH:
	case CK_URL:
		if (k->kind == CK_PATH && (value[0] != '/' || strpbrk(value, " ?#") != NULL))
			return err_set(e, ERR_CONFIG, "%s: %s must be an absolute path such as /mcp",
			    where, k->name);
		if (k->kind == CK_URL && (strncmp(value, "http://", 7) != 0 &&
		    strncmp(value, "https://", 8) != 0))
			return err_set(e, ERR_CONFIG, "%s: %s must be an http:// or https:// URL",
			    where, k->name);
		if ((dup = strdup(value)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (k->kind == CK_URL) {
			size_t l = strlen(dup);
			while (l > 0 && dup[l - 1] == '/')
				dup[--l] = '\0';
		}
		free(*sp);
		*sp = dup;
		return 0;
	case CK_PORT:
		errno = 0;
		ul = strtoul(value, &end, 10);
		if (errno || end == value || *end != '\0' || ul == 0 || ul > 65535)
			return err_set(e, ERR_CONFIG, "%s: %s must be a port number (1-65535), not '%s'",
			    where, k->name, value);
		*(unsigned *)(void *)((char *)c + k->off) = (unsigned)ul;
		return 0;
	case CK_SIZE:
		errno = 0;
		ul = strtoul(value, &end, 10);
		if (errno || end == value || *end != '\0' || ul < 1024 || ul > 64UL * 1024 * 1024)
			return err_set(e, ERR_CONFIG,
			    "%s: %s must be a byte count between 1024 and 67108864, not '%s'",
			    where, k->name, value);
		*(size_t *)(void *)((char *)c + k->off) = ul;
		return 0;
	case CK_SECONDS:
	case CK_COUNT:
	case CK_LIMIT:
	case CK_CACHE:
	case CK_BUCKETS:
		errno = 0;
		ul = strtoul(value, &end, 10);
		if (errno || end == value || *end != '\0' || value[0] == '-' ||
		    ul < config_min(k->kind) || ul > config_max(k->kind))
			return err_set(e, ERR_CONFIG, "%s: %s must be a whole number from %lu to %lu, not '%s'",
			    where, k->name, config_min(k->kind), config_max(k->kind), value);
		*(unsigned *)(void *)((char *)c + k->off) = (unsigned)ul;
		return 0;
	case CK_RLIMIT:
		return config_rlimit(c, k, value, where, e);
	case CK_SANDBOX:
		if (strcmp(value, "bwrap") != 0 && strcmp(value, "none") != 0)
			return err_set(e, ERR_CONFIG, "%s: %s must be bwrap or none, not '%s'",
			    where, k->name, value);
		*(int *)(void *)((char *)c + k->off) = strcmp(value, "none") == 0;
		return 0;
	case CK_LEVEL:
		if (strcmp(value, "error") == 0)
			c->log_level = LOG_ERROR;
		else if (strcmp(value, "warn") == 0)
			c->log_level = LOG_WARN;
		else if (strcmp(value, "info") == 0)
			c->log_level = LOG_INFO;
		else if (strcmp(value, "debug") == 0)
			c->log_level = LOG_DEBUG;
		else
			return err_set(e, ERR_CONFIG,
			    "%s: log_level must be error, warn, info or debug, not '%s'", where, value);
		return 0;
	case CK_LIST:
	case CK_ORIGINS:
		np = (size_t *)(void *)((char *)c + k->count_off);
		config_list_clear(sp, np);
		if ((dup = strdup(value)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		for (tok = strtok_r(dup, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
			p = config_trim(tok);
			if (*p == '\0')
				continue;
			if (*np == CONFIG_MAX_LIST) {
				free(dup);
				return err_set(e, ERR_CONFIG, "%s: %s has more than %d entries",
				    where, k->name, CONFIG_MAX_LIST);
			}
			if (k->kind == CK_ORIGINS && !config_origin_ok(p)) {
				rc = err_set(e, ERR_CONFIG, "%s: %s entry '%s' is not an origin "
				    "(scheme://host[:port], no path), e.g. https://forge.example.org",
				    where, k->name, p);
				free(dup);
				return rc;
			}
			if ((sp[*np] = strdup(p)) == NULL) {
				free(dup);
				return err_set(e, ERR_NOMEM, "out of memory");
			}
			(*np)++;
		}
		free(dup);
		return 0;
	}
	return err_set(e, ERR_INTERNAL, "unhandled configuration kind");
}

static const struct config_key *
config_key_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
		if (strcmp(config_keys[i].name, name) == 0)
			return &config_keys[i];
	return NULL;
}

int
config_defaults(struct config *c, struct err *e)
{
	memset(c, 0, sizeof(*c));
	c->db_port = 3306;
	c->db_write_port = 3306;
	c->max_body = 65536;
	c->log_level = LOG_INFO;
	c->search_timeout = 10;
	c->wiki_confluence_timeout = 30;
	c->jira_timeout = 30;
	c->wiki_copies_mb = 256;
	c->tracker_copies_mb = 1024;
	c->request_timeout = 10;
	c->search_hourly_limit = 60;
	c->rate_limit = 120;
	c->rate_window = 60;
	c->ci_waiting_runs = 100;
	c->rate_limit_anonymous = 30;
	c->rate_limit_buckets = 4096;
	c->token_cache_seconds = 1;
	c->runner_limit_cpu = 3600;
	c->runner_limit_memory = 8ULL << 30;
	c->runner_limit_processes = 1024;
	c->runner_uid = 65534;
	c->runner_limit_file_size = 4ULL << 30;
	if ((c->search_provider = strdup("brave")) == NULL ||
	    (c->search_base_url = strdup("https://api.search.brave.com/res/v1/web/search")) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((c->db_host = strdup("localhost")) == NULL ||
	    (c->db_user = strdup("forgemcp")) == NULL ||
	    (c->db_password = strdup("")) == NULL ||
	    (c->db_name = strdup("forgemcp")) == NULL ||
	    (c->endpoint = strdup("/mcp")) == NULL ||
	    (c->base_url = strdup("http://localhost")) == NULL ||
	    (c->runner_bwrap = strdup("/usr/bin/bwrap")) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* Which failures to open a configuration file are errors. */
enum config_need {
	CONFIG_MUST,		/* every one: a file named by --config or FORGEMCP_CONFIG */
	CONFIG_EXISTING,	/* all but a missing file: the default one */
	CONFIG_READABLE		/* all but a missing or unreadable file: a client's default one */
};

static int
config_file(struct config *c, const char *path, enum config_need need, struct err *e)
{
	FILE			*f = NULL;
	char			 line[4096], where[600], *p, *eq, *key, *val;
	const struct config_key	*k;
	unsigned		 lineno = 0;
	int			 rc = 0;

	if ((f = fopen(path, "r")) == NULL) {
		if ((need != CONFIG_MUST && errno == ENOENT) ||
		    (need == CONFIG_READABLE && errno == EACCES))
			return 0;
		return err_set(e, ERR_CONFIG, "cannot read configuration file %s: %s", path,
		    strerror(errno));
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (strchr(line, '\n') == NULL && !feof(f)) {
			rc = err_set(e, ERR_CONFIG, "%s: line too long", where);
			goto done;
		}
		p = config_trim(line);
		if (*p == '\0' || *p == '#' || *p == ';')
			continue;
		if ((eq = strchr(p, '=')) == NULL) {
			rc = err_set(e, ERR_CONFIG, "%s: expected 'key = value'", where);
			goto done;
		}
		*eq = '\0';
		key = config_trim(p);
		val = config_trim(eq + 1);
		if ((k = config_key_find(key)) == NULL) {
			rc = err_set(e, ERR_CONFIG, "%s: unknown key '%s'", where, key);
			goto done;
		}
		if ((rc = config_set(c, k, val, where, e)) != 0)
			goto done;
	}
done:
	fclose(f);
	return rc;
}

static int
config_env(struct config *c, struct err *e)
{
	char		 name[64], where[96];
	const char	*v, *alias;
	size_t		 i, j;
	int		 rc;

	for (i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++) {
		snprintf(name, sizeof(name), "FORGEMCP_%s", config_keys[i].name);
		for (j = 9; name[j] != '\0'; j++)
			name[j] = (char)toupper((unsigned char)name[j]);
		if ((v = getenv(name)) == NULL && (alias = config_alias(config_keys[i].name)) != NULL &&
		    (v = getenv(alias)) != NULL)
			snprintf(name, sizeof(name), "%s", alias);
		if (v == NULL)
			continue;
		snprintf(where, sizeof(where), "environment %s", name);
		if ((rc = config_set(c, &config_keys[i], v, where, e)) != 0)
			return rc;
	}
	return 0;
}

int
config_load(struct config *out, const char *path, int flags, struct err *e)
{
	const char	*env;
	enum config_need need = CONFIG_MUST;
	int		 rc;

	if ((rc = config_defaults(out, e)) != 0)
		goto fail;
	if (path == NULL) {
		env = getenv("FORGEMCP_CONFIG");
		if (env != NULL && *env != '\0')
			path = env;
		else {
			path = CONFIG_DEFAULT_PATH;
			need = (flags & CONFIG_CLIENT) ? CONFIG_READABLE : CONFIG_EXISTING;
		}
	}
	if ((out->file = strdup(path)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = config_file(out, path, need, e)) != 0)
		goto fail;
	if ((rc = config_env(out, e)) != 0)
		goto fail;
	return 0;
fail:
	config_release(out);
	return rc;
}

int
config_check_repo_root(const struct config *c, struct err *e)
{
	const char	*file = c->file != NULL ? c->file : CONFIG_DEFAULT_PATH;
	struct stat	 st;

	if (c->repo_root == NULL || c->repo_root[0] == '\0')
		return err_set(e, ERR_CONFIG, "repo_root is not set: set repo_root in %s "
		    CONFIG_REPO_ROOT_FIX, file);
	if (stat(c->repo_root, &st) != 0)
		return err_set(e, ERR_CONFIG, "repo_root %s cannot be used: %s: set repo_root in %s "
		    CONFIG_REPO_ROOT_FIX, c->repo_root, strerror(errno), file);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, ERR_CONFIG, "repo_root %s cannot be used: %s: set repo_root in %s "
		    CONFIG_REPO_ROOT_FIX, c->repo_root, strerror(ENOTDIR), file);
	return 0;
}

int
config_check_server(const struct config *c, struct err *e)
{
	return config_check_repo_root(c, e);
}

void
config_release(struct config *c)
{
	free(c->file);
	free(c->db_socket);
	free(c->db_host);
	free(c->db_user);
	free(c->db_password);
	free(c->db_name);
	free(c->db_write_socket);
	free(c->db_write_host);
	free(c->repo_root);
	free(c->runner_dir);
	free(c->runner_bwrap);
	free(c->endpoint);
	free(c->base_url);
	free(c->authorization_server);
	free(c->search_provider);
	free(c->brave_api_key);
	free(c->hub_url);
	if (c->hub_token != NULL)
		explicit_bzero(c->hub_token, strlen(c->hub_token));
	free(c->hub_token);
	free(c->search_base_url);
	free(c->jira_url);
	free(c->jira_user);
	free(c->jira_token_file);
	free(c->wiki_confluence_url);
	free(c->wiki_confluence_user);
	free(c->wiki_confluence_token_file);
	config_list_clear(c->allowed_origins, &c->n_allowed_origins);
	config_list_clear(c->public_hosts, &c->n_public_hosts);
	memset(c, 0, sizeof(*c));
}
