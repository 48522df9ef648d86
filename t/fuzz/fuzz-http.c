/* fuzz-http: the HTTP gate: header value decoding, Origin and Host checks, the gate in core_handle, the MCP header checks. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "auth.h"
#include "conf.h"
#include "core.h"
#include "err.h"
#include "fuzz.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "tool.h"

/*
 * The input is a flags byte, then header values separated by '\n' in the
 * order of fuzz_vars; an empty value leaves that variable out.  Lines after
 * those go into the environment as they are ("NAME=value"), so a header can
 * repeat.  Flags: bits 0-2 pick the body mcp_handle answers (fuzz_bodies),
 * bit 3 the second configuration, bit 4 a body over the size cap.
 */
static const char *const fuzz_vars[] = {
	"REQUEST_METHOD",
	"REQUEST_URI",
	"HTTP_ORIGIN",
	"HTTP_HOST",
	"CONTENT_TYPE",
	"HTTP_AUTHORIZATION",
	"HTTP_MCP_PROTOCOL_VERSION",
	"HTTP_MCP_METHOD",
	"HTTP_MCP_NAME",
};
#define N_VARS		(sizeof(fuzz_vars) / sizeof(fuzz_vars[0]))
#define MAX_EXTRA	16
#define MODERN_META \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientCapabilities\":{}"

static const char *const fuzz_bodies[8] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_issue\","
	    "\"arguments\":{\"repo\":\"a/b\",\"number\":1}," MODERN_META "}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"caf\\u00e9 \\u2603\"," MODERN_META "}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":"
	    "\"file:///a b\"," MODERN_META ",\"io.modelcontextprotocol/logLevel\":\"debug\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}",
	"[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"},"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]",
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\"," MODERN_META
	    "}}}",
};

static char	fuzz_ep1[] = "/mcp", fuzz_ep2[] = "/api/mcp";
static char	fuzz_base1[] = "https://forge.example", fuzz_base2[] = "http://127.0.0.1:8080";
static char	fuzz_o1[] = "https://forge.example", fuzz_o2[] = "http://localhost:8080";
static char	fuzz_h1[] = "forge.example", fuzz_h2[] = "127.0.0.1:8080", fuzz_h3[] = "[::1]";
static char	fuzz_as[] = "https://auth.example";
static struct config	fuzz_cfg[2];
static struct json_object *fuzz_body_json[8];

static void
fuzz_init(void)
{
	struct err	e;
	size_t		i;

	log_set_quiet(1);
	err_clear(&e);
	if (tool_registry_init(&e) != 0) {
		fprintf(stderr, "fuzz-http: %s\n", e.msg);
		abort();
	}
	for (i = 0; i < 2; i++) {
		fuzz_cfg[i].max_body = 65536;
		fuzz_cfg[i].rate_limit = 120;
		fuzz_cfg[i].rate_window = 60;
		fuzz_cfg[i].rate_limit_anonymous = 30;
		fuzz_cfg[i].rate_limit_buckets = 4096;
	}
	fuzz_cfg[0].endpoint = fuzz_ep1;
	fuzz_cfg[0].base_url = fuzz_base1;
	fuzz_cfg[0].allowed_origins[0] = fuzz_o1;
	fuzz_cfg[0].allowed_origins[1] = fuzz_o2;
	fuzz_cfg[0].n_allowed_origins = 2;
	fuzz_cfg[0].public_hosts[0] = fuzz_h1;
	fuzz_cfg[0].public_hosts[1] = fuzz_h2;
	fuzz_cfg[0].public_hosts[2] = fuzz_h3;
	fuzz_cfg[0].n_public_hosts = 3;
	fuzz_cfg[1].endpoint = fuzz_ep2;
	fuzz_cfg[1].base_url = fuzz_base2;
	fuzz_cfg[1].authorization_server = fuzz_as;
	for (i = 0; i < 8; i++) {
		enum json_perr perr;

		fuzz_body_json[i] = json_parse_strict(fuzz_bodies[i], strlen(fuzz_bodies[i]), &perr);
		FUZZ_ASSERT(fuzz_body_json[i] != NULL);
	}
}

static int
fuzz_is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Canonical padded base64 of in[0..len) into out (room for len / 3 * 4 + 5). */
static void
fuzz_b64_encode(char *out, const unsigned char *in, size_t len)
{
	static const char	 abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t			 i;
	unsigned		 v;

	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
		*out++ = abc[v >> 18];
		*out++ = abc[(v >> 12) & 63];
		*out++ = abc[(v >> 6) & 63];
		*out++ = abc[v & 63];
	}
	if (len - i == 1) {
		v = (unsigned)in[i] << 16;
		*out++ = abc[v >> 18];
		*out++ = abc[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	} else if (len - i == 2) {
		v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;
		*out++ = abc[v >> 18];
		*out++ = abc[(v >> 12) & 63];
		*out++ = abc[(v >> 6) & 63];
		*out++ = '=';
	}
	*out = '\0';
}

/* One header value through every decoder, each against what its contract promises. */
static void
fuzz_value(const struct config *cfg, const char *v)
{
	enum http_sentinel	 r;
	unsigned char		*raw = NULL;
	const char		*tok;
	char			*out = NULL, *t = NULL, *enc = NULL;
	size_t			 len, vlen = strlen(v), room, i;

	t = http_trim(v);
	FUZZ_ASSERT(t != NULL);
	len = strlen(t);
	FUZZ_ASSERT(len == 0 || (!fuzz_is_ows(t[0]) && !fuzz_is_ows(t[len - 1])));
	FUZZ_ASSERT(strstr(v, t) != NULL);

	r = http_decode_value(&out, &len, v);
	FUZZ_ASSERT(r < HTTP_SENT__MAX);
	if (r == HTTP_SENT_BAD) {
		FUZZ_ASSERT(out == NULL && len == 0);
	} else {
		FUZZ_ASSERT(out != NULL && out[len] == '\0' && strlen(out) == len);
		FUZZ_ASSERT(json_utf8_valid(out, len));
		if (r == HTTP_SENT_LITERAL) {
			FUZZ_ASSERT(strcmp(out, t) == 0);
			for (i = 0; i < len; i++)
				FUZZ_ASSERT((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
		} else {
			FUZZ_ASSERT(strncmp(t, "=?base64?", 9) == 0);
			FUZZ_ASSERT(strlen(t) >= 11 && strcmp(t + strlen(t) - 2, "?=") == 0);
		}
	}
	free(out);

	/* The output buffer is exactly as large as the contract says suffices. */
	room = vlen / 4 * 3;
	raw = malloc(room > 0 ? room : 1);
	FUZZ_ASSERT(raw != NULL);
	if (http_b64_decode(raw, &room, v, vlen) == 0) {
		enc = malloc(room / 3 * 4 + 5);
		FUZZ_ASSERT(enc != NULL);
		fuzz_b64_encode(enc, raw, room);
		FUZZ_ASSERT(strcmp(enc, v) == 0);
	} else
		FUZZ_ASSERT(room == 0);

	if (http_origin_ok(cfg, v))
		FUZZ_ASSERT(strcmp(v, fuzz_o1) == 0 || strcmp(v, fuzz_o2) == 0);

	if (auth_parse_bearer(v, &tok, &len) == AUTH_OK)
		FUZZ_ASSERT(len > 0 && tok >= v && tok + len <= v + vlen);
	free(raw);
	free(enc);
	free(t);
}

/* What every response must be: a JSON body when it has one, and clean header values. */
static void
fuzz_response_ok(const struct core_response *resp)
{
	struct json_object	*j;
	enum json_perr		 perr;
	size_t			 i;

	FUZZ_ASSERT(resp->n_headers <= CORE_MAX_HEADERS);
	for (i = 0; i < resp->n_headers; i++) {
		FUZZ_ASSERT(resp->headers[i].name != NULL && resp->headers[i].value != NULL);
		FUZZ_ASSERT(strpbrk(resp->headers[i].value, "\r\n") == NULL);
	}
	if (resp->body == NULL)
		return;
	FUZZ_ASSERT(resp->content_type != NULL);
	j = json_parse_strict(resp->body, resp->body_len, &perr);
	FUZZ_ASSERT(j != NULL);
	json_object_put(j);
}

static const char *
fuzz_header(const struct core_response *resp, const char *name)
{
	size_t	i;

	for (i = 0; i < resp->n_headers; i++)
		if (strcmp(resp->headers[i].name, name) == 0)
			return resp->headers[i].value;
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 ready;
	char			*env[N_VARS + MAX_EXTRA + 1];
	const char		*p, *end, *nl, *origin, *allow;
	const struct config	*cfg;
	struct core		 core;
	struct core_request	 req;
	struct core_response	 resp;
	struct principal	 who;
	size_t			 n_env = 0, field = 0, i, len;
	unsigned		 flags;
	int			 n_origin;

	if (!ready) {
		fuzz_init();
		ready = 1;
	}
	if (size == 0)
		return 0;
	flags = data[0];
	cfg = &fuzz_cfg[(flags >> 3) & 1];
	p = (const char *)data + 1;
	end = (const char *)data + size;
	while (p <= end && n_env < N_VARS + MAX_EXTRA) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		if (field < N_VARS) {
			if (len > 0) {
				env[n_env] = malloc(strlen(fuzz_vars[field]) + len + 2);
				FUZZ_ASSERT(env[n_env] != NULL);
				strcpy(env[n_env], fuzz_vars[field]);
				strcat(env[n_env], "=");
				memcpy(env[n_env] + strlen(fuzz_vars[field]) + 1, p, len);
				env[n_env][strlen(fuzz_vars[field]) + 1 + len] = '\0';
				n_env++;
			}
		} else {
			env[n_env] = malloc(len + 1);
			FUZZ_ASSERT(env[n_env] != NULL);
			memcpy(env[n_env], p, len);
			env[n_env][len] = '\0';
			n_env++;
		}
		field++;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	env[n_env] = NULL;

	for (i = 0; i < n_env; i++) {
		const char *eq = strchr(env[i], '=');

		fuzz_value(cfg, eq != NULL ? eq + 1 : env[i]);
	}

	memset(&core, 0, sizeof(core));
	core.cfg = cfg;
	memset(&req, 0, sizeof(req));
	req.transport = CORE_HTTP;
	req.env = env;
	req.body = fuzz_bodies[flags & 7];
	req.body_len = strlen(req.body);
	req.body_unread = (flags >> 4) & 1;
	/* A short body stops the gate before authentication, which needs the database. */
	req.body_short = 1;
	core_handle(&core, &req, &resp);
	fuzz_response_ok(&resp);
	FUZZ_ASSERT(resp.status == 200 || resp.status == 400 || resp.status == 403 ||
	    resp.status == 404 || resp.status == 405 || resp.status == 413 || resp.status == 415);
	allow = fuzz_header(&resp, "Allow");
	if (resp.status == 405)
		FUZZ_ASSERT(allow != NULL);
	if (resp.status == 400 || resp.status == 413 || resp.status == 415 ||
	    (resp.status == 405 && strcmp(allow, "POST") == 0)) {
		/* Past the endpoint's Origin check (the metadata document has none). */
		origin = http_env(&req, "HTTP_ORIGIN", &n_origin);
		FUZZ_ASSERT(n_origin <= 1 && (origin == NULL || http_origin_ok(cfg, origin)));
	}
	core_response_release(&resp);

	/* The MCP header checks, for an authenticated caller without scopes (no tool runs). */
	memset(&who, 0, sizeof(who));
	who.user_id = 1;
	core_response_init(&resp);
	mcp_handle(core.db, core.repos, core.cfg, &req, &who, fuzz_body_json[flags & 7], &resp);
	fuzz_response_ok(&resp);
	FUZZ_ASSERT(resp.status == 200 || resp.status == 202 || resp.status == 400 ||
	    resp.status == 403 || resp.status == 404);
	if (resp.status == 403)
		FUZZ_ASSERT(fuzz_header(&resp, "WWW-Authenticate") != NULL);
	core_response_release(&resp);

	for (i = 0; i < n_env; i++)
		free(env[i]);
	return 0;
}
