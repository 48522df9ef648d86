/* core_io: building a response (headers, a JSON body, a JSON-RPC error) and the Bearer challenge. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "core_io.h"
#include "err.h"
#include "json.h"
#include "rpc.h"

void
core_response_init(struct core_response *r)
{
	memset(r, 0, sizeof(*r));
}

void
core_response_release(struct core_response *r)
{
	size_t	i;

	for (i = 0; i < r->n_headers; i++)
		free(r->headers[i].value);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

int
core_response_header(struct core_response *r, const char *name, const char *value)
{
	char	*v;

	if (r->n_headers == CORE_MAX_HEADERS)
		return ERR_TOOBIG;
	if ((v = strdup(value)) == NULL)
		return ERR_NOMEM;
	r->headers[r->n_headers].name = name;
	r->headers[r->n_headers].value = v;
	r->n_headers++;
	return 0;
}

void
core_response_json(struct core_response *r, int status, struct json_object *body)
{
	const char	*text;
	size_t		 len;

	r->status = status;
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
	r->content_type = NULL;
	if (body == NULL)
		return;
	text = json_dump(body, &len);
	if (text != NULL && (r->body = malloc(len + 2)) != NULL) {
		memcpy(r->body, text, len);
		r->body[len] = '\n';
		r->body[len + 1] = '\0';
		r->body_len = len + 1;
		r->content_type = "application/json";
	} else
		r->status = 500;
	json_object_put(body);
}

/* Sets status and a JSON-RPC error body (id may be NULL: "id": null). */
static void
core_response_error(struct core_response *r, int status, struct json_object *id, int code,
    const char *message, struct json_object *data)
{
	core_response_json(r, status, rpc_error(id, code, message, data));
}

void
core_refuse(struct core_response *r, struct json_object *id, struct json_object *data,
    enum refusal why, ...)
{
	const struct refusal_row	*row = refusal_row(why);
	char				 msg[400];
	va_list				 ap;

	va_start(ap, why);
	refusal_vformat(msg, sizeof(msg), why, ap);
	va_end(ap);
	core_response_error(r, row->status, id, row->code, msg, data);
}

void
core_challenge(char *buf, size_t len, const struct config *cfg, const char *error,
    const char *scope)
{
	int	n;

	n = snprintf(buf, len, "Bearer realm=\"forgemcp\"");
	if (error != NULL && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", error=\"%s\"", error);
	if (scope != NULL && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", scope=\"%s\"", scope);
	if (cfg->authorization_server != NULL && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", resource_metadata=\"%s" CORE_PRM_PATH "%s\"",
		    cfg->base_url, cfg->endpoint);
}
