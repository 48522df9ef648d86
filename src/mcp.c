/* mcp: both protocol eras on one endpoint: classification, header checks, methods. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "core_io.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "rpc.h"
#include "tool.h"

#define META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CAPS	"io.modelcontextprotocol/clientCapabilities"
#define META_LOGLEVEL	"io.modelcontextprotocol/logLevel"
#define META_SERVER	"io.modelcontextprotocol/serverInfo"

#define MCP_INSTRUCTIONS \
	"Tools for the git repositories, issues and pull requests of this forge. Start " \
	"with list_repositories to find a repository's owner/name; then read files " \
	"(get_file_contents, get_tree, search_code), history (list_commits, " \
	"list_branches, compare_refs), issues and pull requests. Reads are bounded; a " \
	"result that was cut says so and names the argument that fetches the rest. " \
	"The tools come in toolsets: repos, issues, pull_requests, notifications, users " \
	"and search. A client that needs fewer tools chooses them with the " \
	"X-MCP-Toolsets header (\"repos,issues\") or the path /mcp/x/repos,issues, " \
	"and only the read-only tools with X-MCP-Readonly: true or /mcp/readonly " \
	"(stdio: --toolsets, --read-only)."

static const char *const mcp_legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

enum mcp_era {
	ERA_LEGACY,	/* ERA_LEGACY: initialize handshake revisions */
	ERA_MODERN,	/* ERA_MODERN: 2026-07-28, per-request _meta */
	ERA__MAX
};

/* One message being answered. */
struct mcp_call {
	struct db			*db;
	struct repo_cache		*repos;
	const struct config		*cfg;
	const struct core_request	*req;
	const struct principal		*who;
	enum mcp_era			 era;
	int				 http;		/* HTTP header rules apply */
	const char			*version;	/* legacy: negotiated or assumed */
	struct rpc_msg			 msg;
	/* The answer: either result or error, plus the HTTP status. */
	int				 status;
	struct json_object		*reply;		/* full JSON-RPC response, or NULL */
	const char			*challenge;	/* WWW-Authenticate on 403 */
	char				 challenge_buf[160];
};

int
mcp_legacy_version_known(const char *v)
{
	size_t	i;

	for (i = 0; i < sizeof(mcp_legacy_versions) / sizeof(mcp_legacy_versions[0]); i++)
		if (strcmp(v, mcp_legacy_versions[i]) == 0)
			return 1;
	return 0;
}

static void
mcp_fail(struct mcp_call *k, int status, int code, const char *message, struct json_object *data)
{
	json_object_put(k->reply);
	k->status = status;
	k->reply = rpc_error(k->msg.id, code, message, data);
}

static struct json_object *
mcp_server_info(void)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(PACKAGE_NAME));
	json_object_object_add(o, "title", json_object_new_string("forgemcp"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	return o;
}

/* Finishes a result for the caller's era and makes it the reply. */
static void
mcp_ok(struct mcp_call *k, struct json_object *result, int cacheable)
{
	struct json_object	*meta;

	if (result == NULL) {
		mcp_fail(k, 500, RPC_INTERNAL_ERROR, "Internal error", NULL);
		return;
	}
	if (k->era == ERA_MODERN) {
		json_object_object_add(result, "resultType", json_object_new_string("complete"));
		if (cacheable) {
			json_object_object_add(result, "ttlMs", json_object_new_int(0));
			json_object_object_add(result, "cacheScope", json_object_new_string("private"));
		}
		if ((meta = json_get(result, "_meta")) == NULL) {
			meta = json_object_new_object();
			json_object_object_add(result, "_meta", meta);
		}
		json_object_object_add(meta, META_SERVER, mcp_server_info());
	}
	json_object_put(k->reply);
	k->status = 200;
	k->reply = rpc_result(k->msg.id, result);
}

static struct json_object *
mcp_capabilities(void)
{
	struct json_object	*caps = json_object_new_object(), *tools;

	tools = json_object_new_object();
	json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
	json_object_object_add(caps, "tools", tools);
	json_object_object_add(caps, "resources", json_object_new_object());
	json_object_object_add(caps, "prompts", json_object_new_object());
	return caps;
}

/* ---- methods ---------------------------------------------------------- */

static void
m_discover(struct mcp_call *k)
{
	struct json_object	*r = json_object_new_object(), *v = json_object_new_array();

	json_object_array_add(v, json_object_new_string(MCP_MODERN_VERSION));
	json_object_object_add(r, "supportedVersions", v);
	json_object_object_add(r, "capabilities", mcp_capabilities());
	json_object_object_add(r, "instructions", json_object_new_string(MCP_INSTRUCTIONS));
	mcp_ok(k, r, 1);
}

static void
m_initialize(struct mcp_call *k)
{
	struct json_object	*r = json_object_new_object();
	const char		*want = json_get_str(k->msg.params, "protocolVersion");
	const char		*v = MCP_NEWEST_LEGACY;

	if (want != NULL && mcp_legacy_version_known(want))
		v = want;
	json_object_object_add(r, "protocolVersion", json_object_new_string(v));
	json_object_object_add(r, "capabilities", mcp_capabilities());
	json_object_object_add(r, "serverInfo", mcp_server_info());
	json_object_object_add(r, "instructions", json_object_new_string(MCP_INSTRUCTIONS));
	mcp_ok(k, r, 0);
}

static void
m_ping(struct mcp_call *k)
{
	mcp_ok(k, json_object_new_object(), 0);
}

/*
 * Every list fits one page today; a cursor is only valid when we issued
 * it, and we issue none, so any cursor is refused rather than ignored.
 */
static int
mcp_check_cursor(struct mcp_call *k)
{
	if (json_get(k->msg.params, "cursor") != NULL) {
		mcp_fail(k, 200, RPC_INVALID_PARAMS, "Invalid params: unknown cursor", NULL);
		return -1;
	}
	return 0;
}

static void
m_tools_list(struct mcp_call *k)
{
	struct json_object	*r;

	if (mcp_check_cursor(k) != 0)
		return;
	r = json_object_new_object();
	json_object_object_add(r, "tools", tool_list_json(k->req->toolsets));
	mcp_ok(k, r, 1);
}

static void
m_empty_list(struct mcp_call *k, const char *key)
{
	struct json_object	*r;

	if (mcp_check_cursor(k) != 0)
		return;
	r = json_object_new_object();
	json_object_object_add(r, key, json_object_new_array());
	mcp_ok(k, r, 1);
}

static void
m_resources_list(struct mcp_call *k)
{
	m_empty_list(k, "resources");
}

static void
m_templates_list(struct mcp_call *k)
{
	m_empty_list(k, "resourceTemplates");
}

static void
m_prompts_list(struct mcp_call *k)
{
	m_empty_list(k, "prompts");
}

static void
m_resources_read(struct mcp_call *k)
{
	struct json_object	*uri = json_get(k->msg.params, "uri"), *data = NULL;

	if (!json_is_type(uri, json_type_string)) {
		mcp_fail(k, 200, RPC_INVALID_PARAMS, "Invalid params: \"uri\" must be a string", NULL);
		return;
	}
	data = json_object_new_object();
	json_object_object_add(data, "uri", json_object_get(uri));
	/* 2026-07-28 moved "resource not found" from -32002 to -32602. */
	mcp_fail(k, 200, k->era == ERA_MODERN ? RPC_INVALID_PARAMS : RPC_RESOURCE_NOT_FOUND,
	    "Resource not found", data);
}

static void
m_prompts_get(struct mcp_call *k)
{
	mcp_fail(k, 200, RPC_INVALID_PARAMS, "Invalid params: unknown prompt", NULL);
}

static void
m_tools_call(struct mcp_call *k)
{
	const char		*name = json_get_str(k->msg.params, "name");
	struct json_object	*args = json_get(k->msg.params, "arguments"), *r;
	const struct tool	*t;
	char			 msg[300];
	int			 idx, unavailable;

	if (name == NULL || json_str_has_nul(json_get(k->msg.params, "name"))) {
		/* A NUL would cut the name: "create_issue\u0000x" must not run create_issue. */
		mcp_fail(k, 200, RPC_INVALID_PARAMS,
		    "Invalid params: \"name\" must be a string without NUL characters", NULL);
		return;
	}
	/* A tool outside the client's choice is as unknown as one that does not exist. */
	if ((idx = tool_find(name)) < 0 || !tool_chosen((size_t)idx, k->req->toolsets)) {
		snprintf(msg, sizeof(msg), "Unknown tool: %.200s", name);
		mcp_fail(k, 200, RPC_INVALID_PARAMS, msg, NULL);
		return;
	}
	t = tool_table[idx];
	if (!auth_has_scope(k->who->scopes, t->scope)) {
		char need[64];

		auth_format_scopes(need, sizeof(need), t->scope);
		snprintf(msg, sizeof(msg), "Forbidden: tool '%s' needs the token scope '%s'",
		    t->name, need);
		core_challenge(k->challenge_buf, sizeof(k->challenge_buf), k->cfg,
		    "insufficient_scope", need);
		k->challenge = k->challenge_buf;
		mcp_fail(k, 403, RPC_UNAUTHORIZED, msg, NULL);
		return;
	}
	if (args != NULL && json_is_type(args, json_type_null))
		args = NULL;
	if (args != NULL && !json_is_type(args, json_type_object)) {
		mcp_ok(k, tool_error_result("\"arguments\" must be an object"), 0);
		return;
	}
	r = tool_call(k->db, k->repos, k->cfg, (size_t)idx, k->who, args, k->era == ERA_MODERN,
	    &unavailable);
	if (unavailable) {
		/* In a batch this stays the element's error; alone it is the 503 answer. */
		mcp_fail(k, CORE_UNAVAILABLE_STATUS, RPC_INTERNAL_ERROR, CORE_UNAVAILABLE_MESSAGE,
		    NULL);
		return;
	}
	mcp_ok(k, r, 0);
}

struct mcp_method {
	const char	*name;
	void		(*fn)(struct mcp_call *);
	unsigned	 eras;	/* bit per enum mcp_era */
};

#define B_LEGACY	(1u << ERA_LEGACY)
#define B_MODERN	(1u << ERA_MODERN)
static const struct mcp_method mcp_methods[] = {
	{ "initialize", m_initialize, B_LEGACY },
	{ "ping", m_ping, B_LEGACY },
	{ "prompts/get", m_prompts_get, B_LEGACY | B_MODERN },
	{ "prompts/list", m_prompts_list, B_LEGACY | B_MODERN },
	{ "resources/list", m_resources_list, B_LEGACY | B_MODERN },
	{ "resources/read", m_resources_read, B_LEGACY | B_MODERN },
	{ "resources/templates/list", m_templates_list, B_LEGACY | B_MODERN },
	{ "server/discover", m_discover, B_MODERN },
	{ "tools/call", m_tools_call, B_LEGACY | B_MODERN },
	{ "tools/list", m_tools_list, B_LEGACY | B_MODERN },
};

static const struct mcp_method *
mcp_method_find(const char *name, enum mcp_era era)
{
	size_t	i;

	for (i = 0; i < sizeof(mcp_methods) / sizeof(mcp_methods[0]); i++)
		if (strcmp(mcp_methods[i].name, name) == 0)
			return (mcp_methods[i].eras & (1u << era)) ? &mcp_methods[i] : NULL;
	return NULL;
}

/* ---- headers ------------------------------------------------------------ */

/* A trimmed header value (caller frees), or NULL when absent. */
static char *
mcp_header(const struct mcp_call *k, const char *cgi_name)
{
	const char	*v;

	if (!k->http || (v = http_env(k->req, cgi_name, NULL)) == NULL)
		return NULL;
	return http_trim(v);
}

static int
mcp_modern_version(const char *v)
{
	/* Date-shaped revisions compare as strings; 2026-07-28 opened the modern era. */
	return v != NULL && strlen(v) == 10 && v[4] == '-' && v[7] == '-' &&
	    strcmp(v, MCP_MODERN_VERSION) >= 0;
}

static int
mcp_has_claim(struct json_object *params)
{
	struct json_object	*meta = json_get(params, "_meta");

	return json_is_type(meta, json_type_object) && json_get(meta, META_VERSION) != NULL;
}

static const char *const mcp_log_levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

/* The 2026-07-28 pipeline, mcp-wire.md section 1 step 8; returns 0 to dispatch. */
static int
mcp_modern_checks(struct mcp_call *k)
{
	struct json_object	*meta = json_get(k->msg.params, "_meta");
	struct json_object	*pv = json_get(meta, META_VERSION);
	struct json_object	*caps = json_get(meta, META_CAPS);
	struct json_object	*lv = json_get(meta, META_LOGLEVEL), *data, *sup;
	struct json_object	*body_name;
	const char		*version, *need_name = NULL;
	char			*h_version = NULL, *h_method = NULL, *h_name = NULL;
	char			*dec = NULL, msg[300];
	size_t			 i, declen;
	int			 rc = -1, ok;

	if (!json_is_type(pv, json_type_string) || json_str_has_nul(pv)) {
		mcp_fail(k, 400, RPC_INVALID_PARAMS,
		    "Invalid params: _meta \"" META_VERSION "\" must be a string", NULL);
		goto done;
	}
	if (!json_is_type(caps, json_type_object)) {
		mcp_fail(k, 400, RPC_INVALID_PARAMS,
		    "Invalid params: _meta \"" META_CAPS "\" is required and must be an object", NULL);
		goto done;
	}
	if (lv != NULL) {
		ok = 0;
		if (json_is_type(lv, json_type_string))
			for (i = 0; i < sizeof(mcp_log_levels) / sizeof(mcp_log_levels[0]); i++)
				if (strcmp(json_object_get_string(lv), mcp_log_levels[i]) == 0)
					ok = 1;
		if (!ok) {
			mcp_fail(k, 400, RPC_INVALID_PARAMS,
			    "Invalid params: _meta \"" META_LOGLEVEL "\" is not a log level", NULL);
			goto done;
		}
	}
	version = json_object_get_string(pv);
	h_version = mcp_header(k, "HTTP_MCP_PROTOCOL_VERSION");
	h_method = mcp_header(k, "HTTP_MCP_METHOD");
	if (h_version != NULL && strcmp(h_version, version) != 0) {
		mcp_fail(k, 400, RPC_HEADER_MISMATCH,
		    "Header mismatch: MCP-Protocol-Version differs from the body's protocolVersion",
		    NULL);
		goto done;
	}
	if (h_method != NULL && strcmp(h_method, k->msg.method) != 0) {
		mcp_fail(k, 400, RPC_HEADER_MISMATCH,
		    "Header mismatch: Mcp-Method differs from the body's method", NULL);
		goto done;
	}
	if (strcmp(version, MCP_MODERN_VERSION) != 0) {
		data = json_object_new_object();
		sup = json_object_new_array();
		json_object_array_add(sup, json_object_new_string(MCP_MODERN_VERSION));
		json_object_object_add(data, "supported", sup);
		json_object_object_add(data, "requested", json_object_new_string(version));
		mcp_fail(k, 400, RPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
		goto done;
	}
	if (k->http) {
		if (h_version == NULL) {
			mcp_fail(k, 400, RPC_HEADER_MISMATCH,
			    "Header mismatch: the MCP-Protocol-Version header is required", NULL);
			goto done;
		}
		if (h_method == NULL) {
			mcp_fail(k, 400, RPC_HEADER_MISMATCH,
			    "Header mismatch: the Mcp-Method header is required", NULL);
			goto done;
		}
		if (strcmp(k->msg.method, "tools/call") == 0 ||
		    strcmp(k->msg.method, "prompts/get") == 0)
			need_name = "name";
		else if (strcmp(k->msg.method, "resources/read") == 0)
			need_name = "uri";
		if (need_name != NULL) {
			const char *raw = http_env(k->req, "HTTP_MCP_NAME", NULL);
			if (raw == NULL) {
				snprintf(msg, sizeof(msg),
				    "Header mismatch: the Mcp-Name header is required for %s",
				    k->msg.method);
				mcp_fail(k, 400, RPC_HEADER_MISMATCH, msg, NULL);
				goto done;
			}
			if (http_decode_value(&dec, &declen, raw) == HTTP_SENT_BAD || dec == NULL) {
				mcp_fail(k, 400, RPC_HEADER_MISMATCH,
				    "Header mismatch: the Mcp-Name header is not a valid value", NULL);
				goto done;
			}
			body_name = json_get(k->msg.params, need_name);
			if (json_is_type(body_name, json_type_string) &&
			    ((size_t)json_object_get_string_len(body_name) != declen ||
			    memcmp(json_object_get_string(body_name), dec, declen) != 0)) {
				snprintf(msg, sizeof(msg),
				    "Header mismatch: Mcp-Name differs from the body's %s", need_name);
				mcp_fail(k, 400, RPC_HEADER_MISMATCH, msg, NULL);
				goto done;
			}
		}
	}
	rc = 0;
done:
	free(h_version);
	free(h_method);
	free(h_name);
	free(dec);
	return rc;
}

/* Answers one classified, non-batch message. */
static void
mcp_one(struct mcp_call *k)
{
	const struct mcp_method	*m;
	char			*h_version = NULL, msg[200];

	switch (k->msg.kind) {
	case RPC_RESPONSE:
	case RPC_NOTIFICATION:
		k->status = 202;
		return;
	case RPC_INVALID:
		mcp_fail(k, 400, RPC_INVALID_REQUEST, k->msg.why, NULL);
		return;
	default:
		break;
	}
	h_version = mcp_header(k, "HTTP_MCP_PROTOCOL_VERSION");
	if (mcp_has_claim(k->msg.params)) {
		k->era = ERA_MODERN;
		if (mcp_modern_checks(k) != 0)
			goto done;
	} else {
		k->era = ERA_LEGACY;
		if (strcmp(k->msg.method, "initialize") == 0) {
			if (h_version != NULL && mcp_modern_version(h_version)) {
				mcp_fail(k, 400, RPC_HEADER_MISMATCH,
				    "Header mismatch: initialize is a legacy request but "
				    "MCP-Protocol-Version names " MCP_MODERN_VERSION, NULL);
				goto done;
			}
		} else if (h_version != NULL && mcp_modern_version(h_version)) {
			mcp_fail(k, 400, RPC_INVALID_PARAMS,
			    "Invalid params: a " MCP_MODERN_VERSION " request needs params._meta "
			    "with \"" META_VERSION "\" and \"" META_CAPS "\"", NULL);
			goto done;
		} else if (h_version != NULL && !mcp_legacy_version_known(h_version)) {
			snprintf(msg, sizeof(msg),
			    "Bad Request: unsupported MCP-Protocol-Version '%.40s'", h_version);
			mcp_fail(k, 400, RPC_INVALID_REQUEST, msg, NULL);
			goto done;
		}
		if (k->msg.params != NULL && !json_is_type(k->msg.params, json_type_object)) {
			mcp_fail(k, 200, RPC_INVALID_PARAMS, "Invalid params: \"params\" must be an object",
			    NULL);
			goto done;
		}
	}
	if ((m = mcp_method_find(k->msg.method, k->era)) == NULL) {
		snprintf(msg, sizeof(msg), "Method not found: %.120s", k->msg.method);
		mcp_fail(k, k->era == ERA_MODERN ? 404 : 200, RPC_METHOD_NOT_FOUND, msg, NULL);
		goto done;
	}
	m->fn(k);
done:
	free(h_version);
}

static void
mcp_call_init(struct mcp_call *k, struct db *db, struct repo_cache *repos,
    const struct config *cfg, const struct core_request *req, const struct principal *who)
{
	memset(k, 0, sizeof(*k));
	k->db = db;
	k->repos = repos;
	k->cfg = cfg;
	k->req = req;
	k->who = who;
	k->http = req->transport == CORE_HTTP;
}

static void
mcp_finish(struct core_response *resp, struct mcp_call *k)
{
	if (k->challenge != NULL)
		core_response_header(resp, "WWW-Authenticate", k->challenge);
	if (k->status == CORE_UNAVAILABLE_STATUS)
		core_response_header(resp, "Retry-After", CORE_UNAVAILABLE_RETRY_AFTER);
	core_response_json(resp, k->status, k->reply);
	k->reply = NULL;
}

/* A 2025-03-26 batch: legacy only, never with initialize, one reply per request. */
static void
mcp_batch(struct db *db, struct repo_cache *repos, const struct config *cfg,
    const struct core_request *req, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct mcp_call		 k;
	struct json_object	*out = NULL, *el;
	char			*h_version = NULL;
	size_t			 i, n = json_object_array_length(body);

	mcp_call_init(&k, db, repos, cfg, req, who);
	h_version = mcp_header(&k, "HTTP_MCP_PROTOCOL_VERSION");
	if (n == 0) {
		mcp_fail(&k, 400, RPC_INVALID_REQUEST, "Invalid Request: empty batch", NULL);
		goto done;
	}
	if (h_version != NULL && strcmp(h_version, "2025-03-26") != 0) {
		mcp_fail(&k, 400, RPC_INVALID_REQUEST,
		    "Invalid Request: JSON-RPC batches exist only in protocol version 2025-03-26",
		    NULL);
		goto done;
	}
	for (i = 0; i < n; i++) {
		struct json_object *params;
		el = json_object_array_get_idx(body, i);
		params = json_get(el, "params");
		if (mcp_has_claim(params)) {
			mcp_fail(&k, 400, RPC_INVALID_REQUEST,
			    "Invalid Request: " MCP_MODERN_VERSION " messages cannot be batched", NULL);
			goto done;
		}
		if (json_get_str(el, "method") != NULL &&
		    strcmp(json_get_str(el, "method"), "initialize") == 0) {
			mcp_fail(&k, 400, RPC_INVALID_REQUEST,
			    "Invalid Request: initialize must not be part of a batch", NULL);
			goto done;
		}
	}
	out = json_object_new_array();
	for (i = 0; i < n; i++) {
		struct mcp_call one;
		mcp_call_init(&one, db, repos, cfg, req, who);
		rpc_classify(&one.msg, json_object_array_get_idx(body, i));
		mcp_one(&one);
		if (one.status == 403) {
			/* A scope refusal is an HTTP answer: it cannot hide inside a batch. */
			json_object_put(out);
			out = NULL;
			mcp_finish(resp, &one);
			goto done;
		}
		if (one.reply != NULL)
			json_object_array_add(out, one.reply);
	}
	if (json_object_array_length(out) == 0) {
		json_object_put(out);
		core_response_json(resp, 202, NULL);
	} else
		core_response_json(resp, 200, out);
	out = NULL;
done:
	if (k.reply != NULL)
		mcp_finish(resp, &k);
	free(h_version);
}

void
mcp_handle(struct db *db, struct repo_cache *repos, const struct config *cfg,
    const struct core_request *req, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct mcp_call	k;

	if (json_is_type(body, json_type_array)) {
		snprintf(resp->rpc_method, sizeof(resp->rpc_method), "batch");
		mcp_batch(db, repos, cfg, req, who, body, resp);
		return;
	}
	mcp_call_init(&k, db, repos, cfg, req, who);
	rpc_classify(&k.msg, body);
	if (k.msg.method != NULL) {
		snprintf(resp->rpc_method, sizeof(resp->rpc_method), "%s", k.msg.method);
		if (strcmp(k.msg.method, "tools/call") == 0 && json_get_str(k.msg.params, "name"))
			snprintf(resp->tool, sizeof(resp->tool), "%s",
			    json_get_str(k.msg.params, "name"));
	}
	mcp_one(&k);
	mcp_finish(resp, &k);
}
