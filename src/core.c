/* core: the request path from the HTTP gate through auth and parsing to the MCP layer. */
#include <sys/random.h>

#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "auth.h"
#include "budget.h"
#include "conf.h"
#include "core-int.h"
#include "core.h"
#include "err.h"
#include "fair.h"
#include "gz.h"
#include "http.h"
#include "hub/hub.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "rpc.h"
#include "service/runs.h"
#include "store/db.h"
#include "store/repo.h"
#include "tool.h"
#include "toolset.h"

int
core_init(struct core *out, const struct config *cfg, struct err *e)
{
	int	rc;

	memset(out, 0, sizeof(*out));
	out->cfg = cfg;
	/* search_code's threads share the main heap: a worker stays one heap to trim */
	mallopt(M_ARENA_MAX, 1);
	if ((rc = tool_registry_init(e)) != 0)
		goto fail;
	run_set_waiting_max(cfg->ci_waiting_runs);
	if ((rc = db_new(&out->db, cfg, e)) != 0)
		goto fail;
	if ((rc = repo_cache_new(&out->repos, cfg->repo_root != NULL ? cfg->repo_root : "", e)) != 0)
		goto fail;
	if ((out->admit = admit_new(cfg)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	return 0;
fail:
	core_release(out);
	return rc;
}

int
core_check_ready(struct core *c, struct err *e)
{
	return db_schema_check(c->db, e);
}

int
core_db_refused(const struct core *c)
{
	return db_login_refused(c->db);
}

int
core_git_ready(void)
{
	return repo_global_wait();
}

void
core_release(struct core *c)
{
	admit_free(c->admit);
	repo_cache_free(c->repos);
	db_free(c->db);
	memset(c, 0, sizeof(*c));
}

/*
 * A request id for the log: a random 64-bit prefix drawn once per process
 * (workers draw their own, after the fork) and a counter.
 */
static void
core_request_id(char out[33])
{
	static uint64_t	 prefix, seq;
	static int	 seeded;

	if (!seeded) {
		if (getrandom(&prefix, sizeof(prefix), 0) != (ssize_t)sizeof(prefix))
			prefix = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		seeded = 1;
	}
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)prefix,
	    (unsigned long long)++seq);
}

/* The request path without its query string (caller frees). */
static char *
core_path(const struct core_request *req)
{
	const char	*uri = http_env(req, "REQUEST_URI", NULL);
	const char	*sn, *pi;
	char		*p;
	size_t		 n;

	if (uri != NULL && uri[0] == '/') {
		n = strcspn(uri, "?#");
		if ((p = malloc(n + 1)) == NULL)
			return NULL;
		memcpy(p, uri, n);
		p[n] = '\0';
		return p;
	}
	sn = http_env(req, "SCRIPT_NAME", NULL);
	pi = http_env(req, "PATH_INFO", NULL);
	if (asprintf(&p, "%s%s", sn ? sn : "", pi ? pi : "") < 0)
		return NULL;
	return p;
}

/*
 * What follows the endpoint in path when path is the endpoint, or the
 * endpoint with a client's choice of tools after it ("/x/<toolsets>",
 * "/readonly", or both in that order): the suffix ("" for the endpoint
 * itself), or NULL for any other path.
 */
static const char *
core_endpoint_suffix(const char *path, const char *endpoint)
{
	size_t		 n = strlen(endpoint);
	const char	*p, *sets;

	if (strncmp(path, endpoint, n) != 0)
		return NULL;
	p = path + n;
	if (strncmp(p, "/x/", 3) == 0) {
		sets = p + 3;
		if (*sets == '\0' || *sets == '/')
			return NULL;
		p = sets + strcspn(sets, "/");
	}
	if (strcmp(p, "/readonly") == 0)
		p += strlen("/readonly");
	return *p == '\0' ? path + n : NULL;
}

/*
 * The client's choice of tools: the path's suffix (core_endpoint_suffix)
 * and the X-MCP-Toolsets and X-MCP-Readonly headers, as GitHub's MCP
 * server reads them.  0, or -1 with the refusal (a 400) in msg.
 */
static int
core_toolsets(struct toolset_sel *out, const struct core_request *req, const char *suffix,
    char *msg, size_t len)
{
	const char	*hs = http_env(req, "HTTP_X_MCP_TOOLSETS", NULL);
	const char	*hr = http_env(req, "HTTP_X_MCP_READONLY", NULL);
	const char	*ps = NULL;
	char		 why[240];
	size_t		 plen = 0, slen;
	int		 ro;

	out->sets = TOOLSET_DEFAULT;
	out->read_only = 0;
	if (strncmp(suffix, "/x/", 3) == 0) {
		ps = suffix + 3;
		plen = strcspn(ps, "/");
	}
	if (ps != NULL && hs != NULL) {
		snprintf(msg, len, "Bad Request: choose the toolsets in the path or in the "
		    "X-MCP-Toolsets header, not both");
		return -1;
	}
	if ((ps != NULL && toolset_parse(out, ps, plen, why, sizeof why) != 0) ||
	    (hs != NULL && toolset_parse(out, hs, strlen(hs), why, sizeof why) != 0)) {
		snprintf(msg, len, "Bad Request: %s", why);
		return -1;
	}
	if (hr != NULL && (ro = toolset_flag(hr)) < 0) {
		snprintf(msg, len, "Bad Request: X-MCP-Readonly takes true or false");
		return -1;
	}
	slen = strlen(suffix);
	out->read_only = (hr != NULL && ro == 1) ||
	    (slen >= 9 && strcmp(suffix + slen - 9, "/readonly") == 0);
	return 0;
}

/* Whether a Content-Type names application/json (parameters allowed). */
int
core_is_json(const char *ct)
{
	size_t	n = strlen("application/json");

	if (ct == NULL)
		return 0;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	if (strncasecmp(ct, "application/json", n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return *ct == '\0' || *ct == ';';
}

int
core_host_ok(const struct config *cfg, const char *host)
{
	size_t	i, hlen;

	if (cfg->n_public_hosts == 0)
		return 1;
	if (host == NULL)
		return 0;
	/* "host:port" matches an entry naming the host alone, or host and port. */
	hlen = strcspn(host, ":");
	if (host[0] == '[')
		hlen = strcspn(host, "]") + 1;
	for (i = 0; i < cfg->n_public_hosts; i++) {
		if (strcasecmp(cfg->public_hosts[i], host) == 0)
			return 1;
		if (strchr(cfg->public_hosts[i], ':') == NULL &&
		    strlen(cfg->public_hosts[i]) == hlen &&
		    strncasecmp(cfg->public_hosts[i], host, hlen) == 0)
			return 1;
	}
	return 0;
}

/* The RFC 9728 protected-resource document; only with an authorization server. */
static void
core_prm(struct core *c, const struct core_request *req, struct core_response *resp)
{
	struct json_object	*o, *a, *s;
	const char		*method = http_env(req, "REQUEST_METHOD", NULL);
	char			*res = NULL;

	if (c->cfg->authorization_server == NULL) {
		core_refuse(resp, NULL, NULL, REFUSAL_PRM_NONE);
		return;
	}
	if (method == NULL || (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)) {
		core_response_header(resp, "Allow", "GET, HEAD");
		core_refuse(resp, NULL, NULL, REFUSAL_PRM_METHOD);
		return;
	}
	if (asprintf(&res, "%s%s", c->cfg->base_url, c->cfg->endpoint) < 0) {
		core_refuse(resp, NULL, NULL, REFUSAL_INTERNAL);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "resource", json_object_new_string(res));
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string(c->cfg->authorization_server));
	json_object_object_add(o, "authorization_servers", a);
	s = json_object_new_array();
	json_object_array_add(s, json_object_new_string("read"));
	json_object_array_add(s, json_object_new_string("write"));
	json_object_array_add(s, json_object_new_string("execute"));
	json_object_array_add(s, json_object_new_string("merge"));
	json_object_object_add(o, "scopes_supported", s);
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("header"));
	json_object_object_add(o, "bearer_methods_supported", a);
	json_object_object_add(o, "resource_name", json_object_new_string("forgemcp"));
	core_response_header(resp, "Access-Control-Allow-Origin", "*");
	core_response_json(resp, 200, o);
	free(res);
}

/* The id of a body that parsed, when it is a readable valid id; else NULL. */
static struct json_object *
core_body_id(struct json_object *body)
{
	struct json_object	*id;

	if (json_is_type(body, json_type_object) && (id = json_get(body, "id")) != NULL &&
	    rpc_id_valid(id))
		return id;
	return NULL;
}

void
core_unauthorized(struct core *c, struct core_response *resp, struct json_object *body,
    int presented)
{
	char	ch[512];

	core_challenge(ch, sizeof(ch), c->cfg, presented ? "invalid_token" : NULL, NULL);
	core_response_header(resp, "WWW-Authenticate", ch);
	core_refuse(resp, core_body_id(body), NULL, REFUSAL_UNAUTHORIZED);
}

/*
 * The 503 for a database that cannot be used: "retry shortly" with
 * Retry-After for an outage; for a refused login (a configuration error)
 * neither, since no retry mends it.
 */
void
core_unavailable(struct core *c, struct core_response *resp, struct json_object *body)
{
	if (core_db_refused(c)) {
		core_refuse(resp, core_body_id(body), NULL, REFUSAL_MISCONFIGURED);
		return;
	}
	core_response_header(resp, "Retry-After", CORE_UNAVAILABLE_RETRY_AFTER);
	core_refuse(resp, core_body_id(body), NULL, REFUSAL_UNAVAILABLE);
}

/*
 * Counts a request without a valid token against its client's network
 * (admit_network); returns 1 with resp set to the refusal when it is over
 * the limit or cannot be counted (429 without a free bucket, 503 when the
 * database fails), else 0.
 */
int
core_admit_address(struct core *c, struct core_response *resp, struct json_object *body,
    const char *addr)
{
	struct admit_verdict	 v;
	struct err		 e;
	char			 net[HTTP_NETWORK_MAX];

	err_clear(&e);
	http_client_network(net, sizeof(net), addr);
	if (admit_network(c->admit, c->db, net, &v, &e) != 0) {
		log_error("rate limit not kept (request refused): %s", e.msg);
		core_unavailable(c, resp, body);
		return 1;
	}
	if (!v.over)
		return 0;
	core_over_limit(resp, core_body_id(body), 'a', v.full, c->cfg->rate_limit_anonymous, v.start, v.length);
	return 1;
}

/* No body object: bad JSON (-32700), or the JSON literal null (-32600). */
static void
core_parse_failed(struct core_response *resp, enum json_perr perr)
{
	if (perr == JSON_PERR_NONE)
		core_refuse(resp, NULL, NULL, REFUSAL_NOT_OBJECT);
	else
		core_refuse(resp, NULL, NULL, REFUSAL_PARSE, json_perr_text(perr));
}

/*
 * A tools/list answer (about 48 KiB) to a client that accepts gzip, as the
 * SDKs' HTTP clients do, goes out compressed to about a fifth: the tools
 * array was deflated once at start-up (tool_list_gz), and the answer was
 * serialised with a NUL byte in its place (tool_list_mark), so this costs a
 * few small copies, not a compression, nor even the 48 KiB of text.  Only
 * answers that hold the array come here (tool_list_mark counts the NULs).
 */
static void
core_compress(struct core_response *resp)
{
	char	*z = NULL;
	size_t	 zlen = 0;
	int	 rc;

	if (resp->body == NULL)
		return;
	if (resp->status == 200 && resp->content_type != NULL &&
	    strcmp(resp->content_type, "application/json") == 0) {
		if ((rc = gz_splice(tool_list_gz(), resp->body, resp->body_len, &z, &zlen)) == 0) {
			core_response_header(resp, "Content-Encoding", "gzip");
			core_response_header(resp, "Vary", "Accept-Encoding");
		}
	} else
		rc = gz_expand(tool_list_gz(), resp->body, resp->body_len, &z, &zlen);
	if (rc != 0) {
		core_refuse(resp, NULL, NULL, REFUSAL_NO_MEMORY);
		return;
	}
	free(resp->body);
	resp->body = z;
	resp->body_len = zlen;
}

static void
core_http(struct core *c, const struct core_request *req, struct core_response *resp)
{
	const struct config	*cfg = c->cfg;
	struct json_object	*body = NULL;
	struct principal	 who;
	struct admit_verdict	 verdict;
	enum fair_verdict	 fv;
	struct err		 e;
	enum json_perr		 perr = JSON_PERR_NONE;
	enum auth_result	 ar;
	const char		*method, *origin, *authz, *addr, *ae, *suffix;
	struct core_request	 chosen;
	struct toolset_sel	 sel;
	char			*path = NULL, msg[400];
	int			 n_origin = 0;

	err_clear(&e);
	method = http_env(req, "REQUEST_METHOD", NULL);
	if ((path = core_path(req)) == NULL) {
		core_refuse(resp, NULL, NULL, REFUSAL_INTERNAL);
		goto done;
	}
	if (strcmp(path, CORE_PRM_PATH) == 0 ||
	    (strncmp(path, CORE_PRM_PATH, strlen(CORE_PRM_PATH)) == 0 &&
	    strcmp(path + strlen(CORE_PRM_PATH), cfg->endpoint) == 0)) {
		core_prm(c, req, resp);
		goto done;
	}
	if (strncmp(path, HUB_PATH, strlen(HUB_PATH)) == 0) {
		core_hub(c, req, resp, path + strlen(HUB_PATH));
		goto done;
	}
	if ((suffix = core_endpoint_suffix(path, cfg->endpoint)) == NULL) {
		core_refuse(resp, NULL, NULL, REFUSAL_NOT_ENDPOINT, cfg->endpoint);
		goto done;
	}
	/* Cheapest checks first: Origin and Host (DNS rebinding), method, size, type. */
	origin = http_env(req, "HTTP_ORIGIN", &n_origin);
	if (n_origin > 1 || (origin != NULL && !http_origin_ok(cfg, origin))) {
		log_info("refused origin '%s'", origin != NULL ? origin : "");
		core_refuse(resp, NULL, NULL, REFUSAL_ORIGIN);
		goto done;
	}
	if (!core_host_ok(cfg, http_env(req, "HTTP_HOST", NULL))) {
		core_refuse(resp, NULL, NULL, REFUSAL_HOST);
		goto done;
	}
	if (method == NULL || strcmp(method, "POST") != 0) {
		core_response_header(resp, "Allow", "POST");
		core_refuse(resp, NULL, NULL, REFUSAL_POST_ONLY);
		goto done;
	}
	if (req->body_unread || req->body_len > cfg->max_body) {
		core_refuse(resp, NULL, NULL, REFUSAL_TOO_LARGE, cfg->max_body);
		goto done;
	}
	if (!core_is_json(http_env(req, "CONTENT_TYPE", NULL))) {
		core_refuse(resp, NULL, NULL, REFUSAL_MEDIA_TYPE);
		goto done;
	}
	if (http_repeated(req, msg, sizeof(msg))) {
		core_refuse(resp, NULL, NULL, REFUSAL_BAD_REQUEST, msg);
		goto done;
	}
	if (req->body_short) {
		core_refuse(resp, NULL, NULL, REFUSAL_BODY_SHORT);
		goto done;
	}
	body = json_parse_strict(req->body, req->body_len, &perr);
	authz = http_env(req, "HTTP_AUTHORIZATION", NULL);
	ar = admit_check(c->admit, &who, c->db, authz, mcp_cost(body), &verdict, &e);
	if (ar == AUTH_MISSING || ar == AUTH_INVALID) {
		addr = http_env(req, "REMOTE_ADDR", NULL);
		if (!core_admit_address(c, resp, body, addr))
			core_unauthorized(c, resp, body, ar == AUTH_INVALID);
		goto done;
	}
	if (ar != AUTH_OK) {
		log_error("token check failed: %s", e.msg);
		core_unavailable(c, resp, body);
		goto done;
	}
	resp->user_id = who.user_id;
	if (verdict.over) {
		core_over_limit(resp, core_body_id(body), 'u', verdict.full, cfg->rate_limit, verdict.start,
		    verdict.length);
		goto done;
	}
	if (body == NULL) {
		core_parse_failed(resp, perr);
		goto done;
	}
	if ((fv = fair_enter(c->fair, c->slot, who.user_id)) != FAIR_OK) {
		core_busy(resp, core_body_id(body), fair_limit(c->fair), fv == FAIR_LAST);
		goto done;
	}
	core_debug_pause(body);
	if (core_toolsets(&sel, req, suffix, msg, sizeof msg) != 0) {
		core_refuse(resp, core_body_id(body), NULL, REFUSAL_BAD_REQUEST, msg);
		goto done;
	}
	chosen = *req;
	chosen.toolsets = &sel;
	/* the tools/list array goes in as a NUL byte, for core_compress to replace */
	ae = http_env(req, "HTTP_ACCEPT_ENCODING", NULL);
	if (ae != NULL && gz_accepted(ae)) {
		tool_list_mark(1);
		mcp_handle(c->db, c->repos, c->cfg, &chosen, &who, body, resp);
		if (tool_list_mark(0) > 0)
			core_compress(resp);
	} else
		mcp_handle(c->db, c->repos, c->cfg, &chosen, &who, body, resp);
done:
	fair_leave(c->fair, c->slot);
	json_object_put(body);
	free(path);
}

static void
core_stdio(struct core *c, const struct core_request *req, struct core_response *resp)
{
	struct json_object	*body = NULL;
	struct principal	 who;
	struct err		 e;
	enum json_perr		 perr;
	enum auth_result	 ar;

	err_clear(&e);
	body = json_parse_strict(req->body, req->body_len, &perr);
	if (body == NULL) {
		core_parse_failed(resp, perr);
		goto done;
	}
	ar = auth_check_token(&who, c->db, req->stdio_token, &e);
	if (ar == AUTH_MISSING || ar == AUTH_INVALID) {
		core_refuse(resp, core_body_id(body), NULL,
		    ar == AUTH_MISSING ? REFUSAL_NO_TOKEN : REFUSAL_BAD_TOKEN);
		goto done;
	}
	if (ar != AUTH_OK) {
		log_error("token check failed: %s", e.msg);
		core_unavailable(c, resp, body);
		goto done;
	}
	resp->user_id = who.user_id;
	mcp_handle(c->db, c->repos, c->cfg, req, &who, body, resp);
done:
	json_object_put(body);
}

void
core_handle(struct core *c, const struct core_request *req, struct core_response *resp)
{
	struct timespec	 t0, t1;
	const char	*method;
	long		 us;
	struct core_request r = *req;	/* the same, with the budget it may spend */
	struct budget	 budget;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	budget_start(&budget, c->cfg->request_timeout, req->client_gone, req->client_arg);
	r.budget = &budget;
	req = &r;
	core_response_init(resp);
	core_request_id(resp->request_id);
	log_set_request(resp->request_id);
	if (req->transport == CORE_STDIO)
		core_stdio(c, req, resp);
	else {
		core_response_header(resp, "Cache-Control", "no-store");
		core_response_header(resp, "X-Request-Id", resp->request_id);
		core_http(c, req, resp);
	}
	method = req->transport == CORE_HTTP ? http_env(req, "REQUEST_METHOD", NULL) : "LINE";
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = (long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	core_served(us);
	if (budget_gone(&budget)) {
		resp->client_gone = 1;
		log_info("the client went away: the work was stopped after %ld.%03ldms and "
		    "its answer is dropped", us / 1000, us % 1000);
	}
	/* One line per request: who, what, outcome, time; never the token. */
	log_info("%s status=%d user=%llu rpc=%s tool=%s in=%zu out=%zu time=%ld.%03ldms",
	    method != NULL ? method : "-", resp->status, resp->user_id,
	    resp->rpc_method[0] ? resp->rpc_method : "-", resp->tool[0] ? resp->tool : "-",
	    req->body_len, resp->body_len, us / 1000, us % 1000);
	log_set_request(NULL);
}
