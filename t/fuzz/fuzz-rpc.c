/* fuzz-rpc: the strict JSON parser, the JSON-RPC envelope and the MCP era classification. */
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
#include "rpc.h"
#include "tool.h"

/*
 * The input is a flags byte and a request body.  Flags: bit 0 the stdio
 * transport instead of HTTP; bits 1-3 the MCP headers sent along (index
 * into fuzz_headers; sets 1 and 2 copy the body's own version, method and
 * name so a modern request gets past the header checks).
 */
#define HDR_MIRROR	1	/* headers copied from the body */
#define HDR_MIRROR_B64	2	/* the same, Mcp-Name in the base64 sentinel form */

static const char *const fuzz_headers[8][4] = {
	{ NULL },
	{ NULL },
	{ NULL },
	{ "HTTP_MCP_PROTOCOL_VERSION=2025-06-18", NULL },
	{ "HTTP_MCP_PROTOCOL_VERSION=2025-03-26", NULL },
	{ "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", "HTTP_MCP_METHOD=resources/read",
	    "HTTP_MCP_NAME= =?base64?ZmlsZTovLy94?=", NULL },
	{ "HTTP_MCP_PROTOCOL_VERSION=1999-01-01", NULL },
	{ "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", "HTTP_MCP_METHOD=tools/call",
	    "HTTP_MCP_NAME=get_issue", NULL },
};

static char		fuzz_ep[] = "/mcp", fuzz_base[] = "https://forge.example";
static struct config	fuzz_cfg;

static void
fuzz_init(void)
{
	struct err	e;

	log_set_quiet(1);
	err_clear(&e);
	if (tool_registry_init(&e) != 0) {
		fprintf(stderr, "fuzz-rpc: %s\n", e.msg);
		abort();
	}
	fuzz_cfg.endpoint = fuzz_ep;
	fuzz_cfg.base_url = fuzz_base;
	fuzz_cfg.max_body = 65536;
}

/* An RFC 8259 recogniser of its own, for json_parse_strict to agree with. */
struct ref {
	const unsigned char	*s;
	size_t			 len;
	size_t			 i;
	int			 depth;
};

static int ref_value(struct ref *r);

static int
ref_digit(const struct ref *r)
{
	return r->i < r->len && r->s[r->i] >= '0' && r->s[r->i] <= '9';
}

static void
ref_ws(struct ref *r)
{
	while (r->i < r->len && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' ||
	    r->s[r->i] == '\r'))
		r->i++;
}

static int
ref_hex4(struct ref *r, unsigned *u)
{
	size_t	k;
	int	c;

	*u = 0;
	if (r->len - r->i < 4)
		return 0;
	for (k = 0; k < 4; k++) {
		c = r->s[r->i++];
		if (c >= '0' && c <= '9')
			*u = *u << 4 | (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*u = *u << 4 | (unsigned)((c | 0x20) - 'a' + 10);
		else
			return 0;
	}
	return 1;
}

/* One UTF-8 sequence, by the well-formed byte ranges of Unicode table 3-7. */
static int
ref_utf8(struct ref *r)
{
	unsigned char	c = r->s[r->i], lo = 0x80, hi = 0xbf;
	size_t		n, k;

	if (c < 0x80) {
		r->i++;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 1;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (r->len - r->i <= n)
		return 0;
	for (k = 1; k <= n; k++) {
		c = r->s[r->i + k];
		if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xbf))
			return 0;
	}
	r->i += n + 1;
	return 1;
}

static int
ref_string(struct ref *r)
{
	unsigned	u;
	int		c;

	r->i++;
	while (r->i < r->len) {
		c = r->s[r->i];
		if (c == '"') {
			r->i++;
			return 1;
		}
		if (c < 0x20)
			return 0;
		if (c != '\\') {
			if (!ref_utf8(r))
				return 0;
			continue;
		}
		if (++r->i == r->len)
			return 0;
		c = r->s[r->i++];
		if (c != '\0' && strchr("\"\\/bfnrt", c) != NULL)
			continue;
		if (c != 'u' || !ref_hex4(r, &u) || (u >= 0xdc00 && u <= 0xdfff))
			return 0;
		if (u >= 0xd800 && u <= 0xdbff) {
			if (r->len - r->i < 2 || r->s[r->i] != '\\' || r->s[r->i + 1] != 'u')
				return 0;
			r->i += 2;
			if (!ref_hex4(r, &u) || u < 0xdc00 || u > 0xdfff)
				return 0;
		}
	}
	return 0;
}

static int
ref_number(struct ref *r)
{
	if (r->s[r->i] == '-')
		r->i++;
	if (!ref_digit(r))
		return 0;
	if (r->s[r->i++] != '0')
		while (ref_digit(r))
			r->i++;
	if (r->i < r->len && r->s[r->i] == '.') {
		r->i++;
		if (!ref_digit(r))
			return 0;
		while (ref_digit(r))
			r->i++;
	}
	if (r->i < r->len && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->len && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (!ref_digit(r))
			return 0;
		while (ref_digit(r))
			r->i++;
	}
	return 1;
}

static int
ref_word(struct ref *r, const char *w)
{
	size_t	n = strlen(w);

	if (r->len - r->i < n || memcmp(r->s + r->i, w, n) != 0)
		return 0;
	r->i += n;
	return 1;
}

/* An array or object; c is its opening byte. */
static int
ref_container(struct ref *r, int c)
{
	int	close = c == '[' ? ']' : '}';

	if (++r->depth > JSON_MAX_DEPTH)
		return 0;
	r->i++;
	ref_ws(r);
	if (r->i < r->len && r->s[r->i] == close) {
		r->i++;
		r->depth--;
		return 1;
	}
	for (;;) {
		if (c == '{') {
			if (r->i >= r->len || r->s[r->i] != '"' || !ref_string(r))
				return 0;
			ref_ws(r);
			if (r->i >= r->len || r->s[r->i++] != ':')
				return 0;
		}
		if (!ref_value(r))
			return 0;
		if (r->i >= r->len)
			return 0;
		if (r->s[r->i] == close) {
			r->i++;
			r->depth--;
			return 1;
		}
		if (r->s[r->i++] != ',')
			return 0;
		ref_ws(r);
	}
}

/* A value with the whitespace around it. */
static int
ref_value(struct ref *r)
{
	int	c, ok;

	ref_ws(r);
	if (r->i >= r->len)
		return 0;
	c = r->s[r->i];
	if (c == '[' || c == '{')
		ok = ref_container(r, c);
	else if (c == '"')
		ok = ref_string(r);
	else if (c == '-' || (c >= '0' && c <= '9'))
		ok = ref_number(r);
	else
		ok = ref_word(r, "true") || ref_word(r, "false") || ref_word(r, "null");
	ref_ws(r);
	return ok;
}

static int
ref_valid(const char *buf, size_t len)
{
	struct ref	r = { (const unsigned char *)buf, len, 0, 0 };

	return ref_value(&r) && r.i == len;
}

/* Container nesting depth of v (a scalar is 0). */
static size_t
fuzz_depth(struct json_object *v)
{
	struct json_object_iterator	it, end;
	size_t				d = 0, x, i, n;

	if (json_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		for (i = 0; i < n; i++)
			if ((x = fuzz_depth(json_object_array_get_idx(v, i))) > d)
				d = x;
		return d + 1;
	}
	if (json_is_type(v, json_type_object)) {
		it = json_object_iter_begin(v);
		end = json_object_iter_end(v);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
			if ((x = fuzz_depth(json_object_iter_peek_value(&it))) > d)
				d = x;
		return d + 1;
	}
	return 0;
}

/* Serialises v and checks that the text is strict JSON (what a client must be able to read). */
static void
fuzz_reparses(struct json_object *v)
{
	struct json_object	*back;
	enum json_perr		 perr;
	const char		*text;
	size_t			 len;

	text = json_dump(v, &len);
	FUZZ_ASSERT(text != NULL);
	back = json_parse_strict(text, len, &perr);
	FUZZ_ASSERT(back != NULL || (perr == JSON_PERR_NONE && strcmp(text, "null") == 0));
	json_object_put(back);
}

static void
fuzz_classified(const struct rpc_msg *m, struct json_object *v)
{
	struct json_object	*err;

	FUZZ_ASSERT(m->kind < RPC__MAX);
	FUZZ_ASSERT((m->kind == RPC_INVALID) == (m->why != NULL));
	FUZZ_ASSERT(m->id == NULL || rpc_id_valid(m->id));
	FUZZ_ASSERT(m->id_valid == (m->id != NULL));
	if (m->kind == RPC_REQUEST || m->kind == RPC_NOTIFICATION) {
		FUZZ_ASSERT(m->method != NULL && m->method[0] != '\0');
		FUZZ_ASSERT(m->params == NULL || json_is_type(m->params, json_type_object) ||
		    json_is_type(m->params, json_type_array));
	}
	if (m->kind == RPC_REQUEST)
		FUZZ_ASSERT(m->id != NULL);
	if (m->kind == RPC_NOTIFICATION)
		FUZZ_ASSERT(json_get(v, "id") == NULL && m->id == NULL);
	/* Every error body echoes the id and must itself be strict JSON. */
	err = rpc_error(m->id, RPC_INVALID_REQUEST, m->why != NULL ? m->why : "x", NULL);
	FUZZ_ASSERT(err != NULL);
	fuzz_reparses(err);
	json_object_put(err);
}

static void
fuzz_response_ok(const struct core_response *resp)
{
	struct json_object	*j;
	enum json_perr		 perr;

	if (resp->body == NULL)
		return;
	j = json_parse_strict(resp->body, resp->body_len, &perr);
	FUZZ_ASSERT(j != NULL);
	json_object_put(j);
}

/* Adds "NAME=" text to env (a mirrored header); NULL text adds nothing. */
static void
fuzz_env_add(char **env, size_t *n, const char *name, const char *text, int b64)
{
	static const char	 abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char	*s = (const unsigned char *)text;
	size_t			 len, i, o;
	unsigned		 v;
	char			*e;

	if (text == NULL)
		return;
	len = strlen(text);
	e = malloc(strlen(name) + 1 + 9 + len / 3 * 4 + 4 + 2 + 1);
	FUZZ_ASSERT(e != NULL);
	o = (size_t)sprintf(e, "%s=", name);
	if (!b64) {
		strcpy(e + o, text);
		env[(*n)++] = e;
		return;
	}
	o += (size_t)sprintf(e + o, "=?base64?");
	for (i = 0; i < len; i += 3) {
		v = (unsigned)s[i] << 16 | (i + 1 < len ? (unsigned)s[i + 1] << 8 : 0) |
		    (i + 2 < len ? s[i + 2] : 0);
		e[o++] = abc[v >> 18];
		e[o++] = abc[(v >> 12) & 63];
		e[o++] = i + 1 < len ? abc[(v >> 6) & 63] : '=';
		e[o++] = i + 2 < len ? abc[v & 63] : '=';
	}
	strcpy(e + o, "?=");
	env[(*n)++] = e;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 ready;
	struct json_object	*v = NULL, *s = NULL, *params, *meta;
	enum json_perr		 perr;
	struct rpc_msg		 m;
	struct core		 core;
	struct core_request	 req;
	struct core_response	 resp;
	struct principal	 who;
	const char		*body, *text;
	char			*env[8];
	size_t			 len, i, n_env = 0;
	unsigned		 flags, set;

	if (!ready) {
		fuzz_init();
		ready = 1;
	}
	if (size == 0)
		return 0;
	flags = data[0];
	set = (flags >> 1) & 7;
	body = (const char *)data + 1;
	len = size - 1;

	/* Repairing arbitrary bytes always gives a string a client can read back. */
	s = json_new_string_repaired(body, len);
	FUZZ_ASSERT(s != NULL);
	text = json_object_get_string(s);
	FUZZ_ASSERT(json_utf8_valid(text, (size_t)json_object_get_string_len(s)));
	FUZZ_ASSERT(!json_utf8_valid(body, len) || ((size_t)json_object_get_string_len(s) == len &&
	    memcmp(text, body, len) == 0));
	fuzz_reparses(s);
	json_object_put(s);

	v = json_parse_strict(body, len, &perr);
	FUZZ_ASSERT(perr < JSON_PERR__MAX);
	/* Never takes what is not JSON; refuses JSON only for its own limits (after NOMEM). */
	if (ref_valid(body, len))
		FUZZ_ASSERT(v != NULL || perr == JSON_PERR_NONE || perr >= JSON_PERR_NOMEM);
	else
		FUZZ_ASSERT(v == NULL && perr != JSON_PERR_NONE);
	if (v != NULL) {
		FUZZ_ASSERT(perr == JSON_PERR_NONE);
		FUZZ_ASSERT(memchr(body, '\0', len) == NULL && json_utf8_valid(body, len));
		FUZZ_ASSERT(fuzz_depth(v) <= JSON_MAX_DEPTH);
	} else if (perr == JSON_PERR_NONE) {
		/* Only the literal null parses to no value without an error. */
		for (i = 0; i < len && strchr(" \t\r\n", body[i]) != NULL && body[i] != '\0'; i++)
			;
		FUZZ_ASSERT(len - i >= 4 && memcmp(body + i, "null", 4) == 0);
	}
	FUZZ_ASSERT(json_perr_text(perr) != NULL);

	rpc_classify(&m, v);
	fuzz_classified(&m, v);
	if (json_is_type(v, json_type_array))
		for (i = 0; i < json_object_array_length(v) && i < 64; i++) {
			rpc_classify(&m, json_object_array_get_idx(v, i));
			fuzz_classified(&m, json_object_array_get_idx(v, i));
		}

	/* The stdio path without a token stops at 401 before the database. */
	memset(&core, 0, sizeof(core));
	core.cfg = &fuzz_cfg;
	memset(&req, 0, sizeof(req));
	req.transport = CORE_STDIO;
	req.body = body;
	req.body_len = len;
	core_handle(&core, &req, &resp);
	FUZZ_ASSERT(resp.status == (v != NULL ? 401 : 400));
	fuzz_response_ok(&resp);
	core_response_release(&resp);
	if (v == NULL)
		return 0;

	/* The MCP layer, for a caller without scopes (so no tool handler runs). */
	if (set == HDR_MIRROR || set == HDR_MIRROR_B64) {
		rpc_classify(&m, v);
		params = json_get(v, "params");
		meta = json_get(params, "_meta");
		fuzz_env_add(env, &n_env, "HTTP_MCP_PROTOCOL_VERSION",
		    json_get_str(meta, "io.modelcontextprotocol/protocolVersion"), 0);
		fuzz_env_add(env, &n_env, "HTTP_MCP_METHOD", m.method, 0);
		fuzz_env_add(env, &n_env, "HTTP_MCP_NAME",
		    json_get_str(params, "name") != NULL ? json_get_str(params, "name") :
		    json_get_str(params, "uri"), set == HDR_MIRROR_B64);
	} else
		for (i = 0; fuzz_headers[set][i] != NULL; i++) {
			env[n_env] = strdup(fuzz_headers[set][i]);
			FUZZ_ASSERT(env[n_env] != NULL);
			n_env++;
		}
	env[n_env] = NULL;
	req.transport = (flags & 1) ? CORE_STDIO : CORE_HTTP;
	req.env = env;
	memset(&who, 0, sizeof(who));
	who.user_id = 1;
	core_response_init(&resp);
	mcp_handle(core.db, core.repos, core.cfg, &req, &who, v, &resp);
	fuzz_response_ok(&resp);
	FUZZ_ASSERT(resp.status == 200 || resp.status == 202 || resp.status == 400 ||
	    resp.status == 403 || resp.status == 404);
	FUZZ_ASSERT((resp.status == 202) == (resp.body == NULL));
	core_response_release(&resp);
	for (i = 0; i < n_env; i++)
		free(env[i]);
	json_object_put(v);
	return 0;
}
