/* server: the stdio MCP server of a hub module (sdlc.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "buf.h"
#include "err.h"
#include "hub/texts.h"
#include "json.h"
#include "log.h"
#include "mcp.h"
#include "protocol.h"
#include "rpc.h"
#include "schema.h"
#include "sdlc/sdlc.h"

/* The compiled schemas of the module's tools, in table order. */
static struct schema	**sdlc_schemas;
static const char	 *sdlc_data_dir;	/* sdlc_serve's, for each call's ctx */

void
sdlc_say(struct buf *out, enum hub_text t, ...)
{
	va_list	ap;

	va_start(ap, t);
	buf_vprintf(out, hub_text(t), ap);
	va_end(ap);
}

/* What sdlc_hub makes of the answer r (status, v) of a hub request. */
static int
sdlc_answer(struct sdlc_ctx *ctx, enum hub_result r, long status, struct json_object *v,
    struct json_object **out)
{
	struct json_object	*err;

	*out = NULL;
	if (r == HUB_DOWN)
		return SDLC_DOWN;
	if (r == HUB_ANSWERED && status >= 200 && status < 300) {
		*out = v;
		return 0;
	}
	/* the hub's text, or a JSON-RPC refusal's (401, 429) message */
	if (r == HUB_ANSWERED && json_object_object_get_ex(v, "error", &err) &&
	    (json_object_is_type(err, json_type_string) ||
	    json_object_object_get_ex(err, "message", &err)))
		buf_puts(ctx->out, json_object_get_string(err));
	else
		sdlc_say(ctx->out, HT_HUB_ANSWER, status);
	json_object_put(v);
	return 1;
}

int
sdlc_hub(struct sdlc_ctx *ctx, const char *method, const char *path, struct json_object *body,
    struct json_object **out)
{
	struct json_object	*v;
	enum hub_result		 r;
	long			 status;

	r = hub_request(ctx->hub, method, path, body, &status, &v);
	return sdlc_answer(ctx, r, status, v, out);
}

/*
 * Whether the session's project is one the hub knows (GET /projects/<label>
 * with the module's query, one row whatever the mirror's size): 0 yes
 * (ctx->proj is its object), else what to answer.  A label no project can
 * have (labels are [A-Z][A-Z0-9_]*) is not asked about.
 */
static int
sdlc_bound(struct sdlc_ctx *ctx, const char *query)
{
	struct json_object	*v, *o;
	enum hub_result		 r;
	char			 path[128];
	long			 status;
	int			 rc;

	if (strlen(ctx->project) > 64 || strspn(ctx->project,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(ctx->project)) {
		sdlc_say(ctx->out, HT_NO_PROJECT, ctx->project);
		return 1;
	}
	snprintf(path, sizeof path, "/projects/%s%s%s", ctx->project, query != NULL ? "?" : "",
	    query != NULL ? query : "");
	r = hub_request(ctx->hub, "GET", path, NULL, &status, &v);
	if (r == HUB_ANSWERED && status == 404) {
		json_object_put(v);
		sdlc_say(ctx->out, HT_NO_PROJECT, ctx->project);
		return 1;
	}
	if ((rc = sdlc_answer(ctx, r, status, v, &o)) == 0) {
		ctx->proj = json_object_get(json_object_object_get(o, "project"));
		json_object_put(o);
	}
	return rc;
}

static struct json_object *
sdlc_text_result(const char *text, int is_error)
{
	struct json_object	*r = json_object_new_object(), *c = json_object_new_array(),
				*t = json_object_new_object();

	json_object_object_add(t, "type", json_object_new_string("text"));
	json_object_object_add(t, "text", json_object_new_string(text));
	json_object_array_add(c, t);
	json_object_object_add(r, "content", c);
	json_object_object_add(r, "isError", json_object_new_boolean(is_error));
	return r;
}

static struct json_object *
sdlc_list(const struct sdlc_module *m)
{
	struct json_object	*r = json_object_new_object(), *a = json_object_new_array(), *t, *h;
	struct buf		 d;
	size_t			 i;

	for (i = 0; i < m->n_tools; i++) {
		t = json_object_new_object();
		json_object_object_add(t, "name", json_object_new_string(m->tools[i].name));
		json_object_object_add(t, "title", json_object_new_string(m->tools[i].title));
		if (m->tools[i].describe != NULL) {
			buf_init(&d);
			m->tools[i].describe(&d);
			json_object_object_add(t, "description",
			    json_object_new_string(d.data != NULL ? d.data : ""));
			buf_release(&d);
		} else
			json_object_object_add(t, "description",
			    json_object_new_string(m->tools[i].description));
		json_object_object_add(t, "inputSchema",
		    json_object_get(schema_json(sdlc_schemas[i])));
		h = json_object_new_object();
		json_object_object_add(h, "readOnlyHint",
		    json_object_new_boolean((m->tools[i].flags & SDLC_READ) != 0));
		json_object_object_add(h, "openWorldHint", json_object_new_boolean(0));
		json_object_object_add(t, "annotations", h);
		json_object_array_add(a, t);
	}
	json_object_object_add(r, "tools", a);
	return r;
}

/* tools/call: a result, or NULL with *code and msg set for a protocol error. */
static struct json_object *
sdlc_call(const struct sdlc_module *m, const struct hub_client *hub, const char *project,
    struct json_object *params, int *code, char *msg, size_t len)
{
	struct json_object	*args = NULL, *r;
	struct sdlc_ctx		 ctx;
	struct buf		 out;
	const char		*name = json_get_str(params, "name");
	size_t			 i;
	int			 rc;

	for (i = 0; name != NULL && i < m->n_tools; i++)
		if (strcmp(m->tools[i].name, name) == 0)
			break;
	if (name == NULL || i == m->n_tools) {
		*code = RPC_INVALID_PARAMS;
		hub_say(msg, len, "Unknown tool: %s", name != NULL ? name : "(no name)");
		return NULL;
	}
	if (!json_object_object_get_ex(params, "arguments", &args) || args == NULL)
		args = NULL;
	if (args != NULL && !json_object_is_type(args, json_type_object)) {
		*code = RPC_INVALID_PARAMS;
		snprintf(msg, len, "arguments must be an object");
		return NULL;
	}
	buf_init(&out);
	if (args == NULL)
		args = json_object_new_object();
	else
		json_object_get(args);
	if (schema_validate(sdlc_schemas[i], args, msg, len) != 0) {
		r = sdlc_text_result(msg, 1);
		goto done;
	}
	ctx.hub = hub;
	ctx.project = project;
	ctx.module = m->name;
	ctx.out = &out;
	ctx.proj = NULL;
	ctx.data_dir = sdlc_data_dir;
	if ((m->tools[i].flags & SDLC_BOUND) && project == NULL) {
		sdlc_say(&out, HT_UNBOUND);
		rc = 1;
	} else if (project != NULL && !(m->tools[i].flags & SDLC_ANY) &&
	    (rc = sdlc_bound(&ctx, m->projects)) != 0)
		;
	else if ((m->tools[i].flags & SDLC_ROOT) &&
	    sdlc_str(ctx.proj, "wiki_root", NULL) == NULL) {
		sdlc_say(&out, HT_WIKI_NO_ROOT, project);
		rc = 1;
	} else if ((m->tools[i].flags & SDLC_SYNCED) &&
	    sdlc_str(ctx.proj, "wiki_synced", NULL) == NULL) {
		sdlc_say(&out, HT_WIKI_NOT_SYNCED);
		rc = 1;
	} else
		rc = m->tools[i].fn(&ctx, args);
	json_object_put(ctx.proj);
	if (rc == SDLC_DOWN) {
		out.len = 0;
		if (out.data != NULL)
			out.data[0] = '\0';
		sdlc_say(&out, HT_HUB_DOWN);
	}
	r = sdlc_text_result(out.oom ? "out of memory" : out.data != NULL ? out.data : "",
	    rc != 0);
done:
	json_object_put(args);
	buf_release(&out);
	return r;
}

static struct json_object *
sdlc_initialize(const struct sdlc_module *m, struct json_object *params)
{
	struct json_object	*r = json_object_new_object(), *caps = json_object_new_object(),
				*tools = json_object_new_object(), *info = json_object_new_object();
	const char		*want = json_get_str(params, "protocolVersion");

	json_object_object_add(r, "protocolVersion", json_object_new_string(
	    want != NULL && mcp_legacy_version_known(want) ? want : MCP_NEWEST_LEGACY));
	json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
	json_object_object_add(caps, "tools", tools);
	json_object_object_add(r, "capabilities", caps);
	json_object_object_add(info, "name", json_object_new_string(m->server));
	json_object_object_add(info, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(r, "serverInfo", info);
	json_object_object_add(r, "instructions", json_object_new_string(m->instructions));
	return r;
}

/* One line in; the answer to print, or NULL for none (a notification or a response). */
static struct json_object *
sdlc_line(const struct sdlc_module *m, const struct hub_client *hub, const char *project,
    const char *line, size_t n)
{
	struct json_object	*v, *res = NULL, *ans = NULL;
	struct rpc_msg		 msg;
	enum json_perr		 perr;
	char			 why[400];
	int			 code = RPC_METHOD_NOT_FOUND;

	if ((v = json_parse_strict(line, n, &perr)) == NULL && perr != JSON_PERR_NONE)
		return rpc_error(NULL, RPC_PARSE_ERROR, json_perr_text(perr), NULL);
	rpc_classify(&msg, v);
	if (msg.kind == RPC_INVALID) {
		ans = rpc_error(msg.id, RPC_INVALID_REQUEST, msg.why, NULL);
		goto done;
	}
	if (msg.kind != RPC_REQUEST)
		goto done;
	hub_say(why, sizeof why, "Method not found: %s", msg.method);
	if (strcmp(msg.method, "initialize") == 0)
		res = sdlc_initialize(m, msg.params);
	else if (strcmp(msg.method, "ping") == 0)
		res = json_object_new_object();
	else if (strcmp(msg.method, "tools/list") == 0)
		res = sdlc_list(m);
	else if (strcmp(msg.method, "tools/call") == 0) {
		if (msg.params == NULL || !json_object_is_type(msg.params, json_type_object)) {
			code = RPC_INVALID_PARAMS;
			snprintf(why, sizeof why, "tools/call needs params with a name");
		} else
			res = sdlc_call(m, hub, project, msg.params, &code, why, sizeof why);
	}
	ans = res != NULL ? rpc_result(msg.id, res) : rpc_error(msg.id, code, why, NULL);
done:
	json_object_put(v);
	return ans;
}

int
sdlc_serve(const struct sdlc_module *m, const struct hub_client *hub, const char *project,
    const char *data_dir)
{
	struct json_object	*ans;
	struct err		 e;
	char			*line = NULL;
	size_t			 cap = 0, i;
	ssize_t			 n;

	sdlc_data_dir = data_dir;
	if ((sdlc_schemas = calloc(m->n_tools, sizeof *sdlc_schemas)) == NULL)
		return 1;
	for (i = 0; i < m->n_tools; i++) {
		err_clear(&e);
		if (schema_compile(&sdlc_schemas[i], m->tools[i].schema, &e) != 0) {
			log_error("%s: the schema of %s: %s", m->server, m->tools[i].name, e.msg);
			return 1;
		}
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if ((ans = sdlc_line(m, hub, project, line, (size_t)n)) == NULL)
			continue;
		fputs(json_object_to_json_string_ext(ans, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
		fputc('\n', stdout);
		fflush(stdout);
		json_object_put(ans);
	}
	free(line);
	for (i = 0; i < m->n_tools; i++)
		schema_free(sdlc_schemas[i]);
	free(sdlc_schemas);
	return 0;
}
