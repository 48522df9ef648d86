/* mcp: both protocol eras on one endpoint: classification, header checks, dispatch (the methods are in mcp_methods.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "core_io.h"
#include "gz.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "mcp-int.h"
#include "refusal.h"
#include "rpc.h"
#include "tool.h"

static const char *const mcp_legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
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

/* Makes an error the reply, with its HTTP status (data taken, may be NULL). */
static void
mcp_fail(struct mcp_call *k, int status, int code, const char *message, struct json_object *data)
{
	json_object_put(k->reply);
	k->status = status;
	k->reply = rpc_error(k->msg.id, code, message, data);
}

void
mcp_refuse(struct mcp_call *k, struct json_object *data, enum refusal why, ...)
{
	const struct refusal_row	*row = refusal_row(why);
	char				 msg[300];
	va_list				 ap;

	va_start(ap, why);
	refusal_vformat(msg, sizeof(msg), why, ap);
	va_end(ap);
	mcp_fail(k, row->status, row->code, msg, data);
}

struct json_object *
mcp_server_info(void)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(PACKAGE_NAME));
	json_object_object_add(o, "title", json_object_new_string("forgemcp"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	return o;
}

void
mcp_ok(struct mcp_call *k, struct json_object *result, int cacheable)
{
	struct json_object	*meta;

	if (result == NULL) {
		mcp_refuse(k, NULL, REFUSAL_INTERNAL);
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
	char			*dec = NULL;
	size_t			 i, declen;
	int			 rc = -1, ok;

	if (!json_is_type(pv, json_type_string) || json_str_has_nul(pv)) {
		mcp_refuse(k, NULL, REFUSAL_META_VERSION);
		goto done;
	}
	if (!json_is_type(caps, json_type_object)) {
		mcp_refuse(k, NULL, REFUSAL_META_CAPS);
		goto done;
	}
	if (lv != NULL) {
		ok = 0;
		if (json_is_type(lv, json_type_string))
			for (i = 0; i < sizeof(mcp_log_levels) / sizeof(mcp_log_levels[0]); i++)
				if (strcmp(json_object_get_string(lv), mcp_log_levels[i]) == 0)
					ok = 1;
		if (!ok) {
			mcp_refuse(k, NULL, REFUSAL_META_LOGLEVEL);
			goto done;
		}
	}
	version = json_object_get_string(pv);
	h_version = mcp_header(k, "HTTP_MCP_PROTOCOL_VERSION");
	h_method = mcp_header(k, "HTTP_MCP_METHOD");
	if (h_version != NULL && strcmp(h_version, version) != 0) {
		mcp_refuse(k, NULL, REFUSAL_VERSION_DIFFERS);
		goto done;
	}
	if (h_method != NULL && strcmp(h_method, k->msg.method) != 0) {
		mcp_refuse(k, NULL, REFUSAL_METHOD_DIFFERS);
		goto done;
	}
	if (strcmp(version, MCP_MODERN_VERSION) != 0) {
		data = json_object_new_object();
		sup = json_object_new_array();
		json_object_array_add(sup, json_object_new_string(MCP_MODERN_VERSION));
		json_object_object_add(data, "supported", sup);
		json_object_object_add(data, "requested", json_object_new_string(version));
		mcp_refuse(k, data, REFUSAL_VERSION_UNSUPPORTED);
		goto done;
	}
	if (k->http) {
		if (h_version == NULL) {
			mcp_refuse(k, NULL, REFUSAL_VERSION_HEADER);
			goto done;
		}
		if (h_method == NULL) {
			mcp_refuse(k, NULL, REFUSAL_METHOD_HEADER);
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
				mcp_refuse(k, NULL, REFUSAL_NAME_HEADER, k->msg.method);
				goto done;
			}
			if (http_decode_value(&dec, &declen, raw) == HTTP_SENT_BAD || dec == NULL) {
				mcp_refuse(k, NULL, REFUSAL_NAME_HEADER_BAD);
				goto done;
			}
			body_name = json_get(k->msg.params, need_name);
			if (json_is_type(body_name, json_type_string) &&
			    ((size_t)json_object_get_string_len(body_name) != declen ||
			    memcmp(json_object_get_string(body_name), dec, declen) != 0)) {
				mcp_refuse(k, NULL, REFUSAL_NAME_DIFFERS, need_name);
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
	char			*h_version = NULL;

	switch (k->msg.kind) {
	case RPC_RESPONSE:
	case RPC_NOTIFICATION:
		k->status = 202;
		return;
	case RPC_INVALID:
		mcp_refuse(k, NULL, REFUSAL_INVALID, k->msg.why);
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
				mcp_refuse(k, NULL, REFUSAL_INITIALIZE_MODERN);
				goto done;
			}
		} else if (h_version != NULL && mcp_modern_version(h_version)) {
			mcp_refuse(k, NULL, REFUSAL_META_MISSING);
			goto done;
		} else if (h_version != NULL && !mcp_legacy_version_known(h_version)) {
			mcp_refuse(k, NULL, REFUSAL_LEGACY_VERSION, h_version);
			goto done;
		}
		if (k->msg.params != NULL && !json_is_type(k->msg.params, json_type_object)) {
			mcp_refuse(k, NULL, REFUSAL_PARAMS);
			goto done;
		}
	}
	if ((m = mcp_method_find(k->msg.method, k->era)) == NULL) {
		mcp_refuse(k, NULL, k->era == ERA_MODERN ? REFUSAL_METHOD_NOT_FOUND :
		    REFUSAL_METHOD_NOT_FOUND_LEGACY, k->msg.method);
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

unsigned
mcp_cost(struct json_object *body)
{
	size_t	n;

	if (!json_is_type(body, json_type_array))
		return 1;
	n = json_object_array_length(body);
	return n >= 1 && n <= MCP_BATCH_MAX ? (unsigned)n : 1;
}

/* The bytes reply adds to an answer, a tools/list array counted in full (tool_list_mark). */
static size_t
mcp_reply_size(struct json_object *reply)
{
	const char	*text;
	size_t		 len = 0, i, size;

	if ((text = json_dump(reply, &len)) == NULL)
		return MCP_BATCH_ANSWER_MAX;
	size = len + 1;
	for (i = 0; i < len; i++)
		if (text[i] == '\0')
			size += tool_list_gz()->len - 1;
	return size;
}

/*
 * A 2025-03-26 batch: legacy only, never with initialize, at most
 * MCP_BATCH_MAX calls, one reply per request.  A call its token's scopes
 * do not cover refuses the whole batch before any call runs, and calls
 * that begin after the answer passed MCP_BATCH_ANSWER_MAX are not run.
 */
static void
mcp_batch(struct db *db, struct repo_cache *repos, const struct config *cfg,
    const struct core_request *req, const struct principal *who, struct json_object *body,
    struct core_response *resp)
{
	struct mcp_call		 k, one;
	struct json_object	*out = NULL, *el;
	char			*h_version = NULL;
	size_t			 i, idx, n = json_object_array_length(body), size = 0;

	mcp_call_init(&k, db, repos, cfg, req, who);
	h_version = mcp_header(&k, "HTTP_MCP_PROTOCOL_VERSION");
	if (n == 0) {
		mcp_refuse(&k, NULL, REFUSAL_BATCH_EMPTY);
		goto done;
	}
	if (n > MCP_BATCH_MAX) {
		mcp_refuse(&k, NULL, REFUSAL_BATCH_TOO_LARGE, MCP_BATCH_MAX);
		goto done;
	}
	if (h_version != NULL && strcmp(h_version, "2025-03-26") != 0) {
		mcp_refuse(&k, NULL, REFUSAL_BATCH_VERSION);
		goto done;
	}
	for (i = 0; i < n; i++) {
		struct json_object *params;
		el = json_object_array_get_idx(body, i);
		params = json_get(el, "params");
		if (mcp_has_claim(params)) {
			mcp_refuse(&k, NULL, REFUSAL_BATCH_MODERN);
			goto done;
		}
		if (json_get_str(el, "method") != NULL &&
		    strcmp(json_get_str(el, "method"), "initialize") == 0) {
			mcp_refuse(&k, NULL, REFUSAL_BATCH_INITIALIZE);
			goto done;
		}
	}
	/* A scope refusal is an HTTP answer: it cannot hide inside a batch, nor follow a write. */
	for (i = 0; i < n; i++) {
		mcp_call_init(&one, db, repos, cfg, req, who);
		rpc_classify(&one.msg, json_object_array_get_idx(body, i));
		if (one.msg.kind != RPC_REQUEST || strcmp(one.msg.method, "tools/call") != 0 ||
		    !json_is_type(one.msg.params, json_type_object) ||
		    mcp_tool_gate(&one, &idx) == 0)
			continue;
		if (one.status == 403) {
			mcp_finish(resp, &one);
			goto done;
		}
		json_object_put(one.reply);
	}
	out = json_object_new_array();
	for (i = 0; i < n; i++) {
		mcp_call_init(&one, db, repos, cfg, req, who);
		rpc_classify(&one.msg, json_object_array_get_idx(body, i));
		if (size <= MCP_BATCH_ANSWER_MAX || one.msg.kind == RPC_INVALID)
			mcp_one(&one);
		else if (one.msg.kind == RPC_REQUEST)
			mcp_refuse(&one, NULL, REFUSAL_BATCH_ANSWER, MCP_BATCH_ANSWER_MAX >> 20);
		if (one.reply != NULL) {
			size += mcp_reply_size(one.reply);
			json_object_array_add(out, one.reply);
		}
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
