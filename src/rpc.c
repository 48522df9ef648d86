/* rpc: JSON-RPC 2.0 message classification, the id rule and response bodies. */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "rpc.h"

#define RPC_MAX_SAFE_INT	INT64_C(9007199254740991)	/* 2^53 - 1 */
#define RPC_MAX_ID_LEN		256

int
rpc_id_valid(struct json_object *id)
{
	int64_t	v;

	if (id == NULL)
		return 0;
	switch (json_object_get_type(id)) {
	case json_type_string:
		return json_object_get_string_len(id) <= RPC_MAX_ID_LEN && !json_str_has_nul(id);
	case json_type_int:
		/* json-c keeps 1.0 and 1e3 as doubles: only integer tokens get here. */
		v = json_object_get_int64(id);
		if (v == INT64_MAX && json_object_get_uint64(id) != (uint64_t)INT64_MAX)
			return 0;
		return v >= -RPC_MAX_SAFE_INT && v <= RPC_MAX_SAFE_INT;
	default:
		return 0;
	}
}

void
rpc_classify(struct rpc_msg *out, struct json_object *v)
{
	struct json_object	*jv, *id = NULL, *m;
	int			 has_id;

	memset(out, 0, sizeof(*out));
	out->kind = RPC_INVALID;
	if (!json_is_type(v, json_type_object)) {
		out->why = "Invalid Request: a message must be a JSON object";
		return;
	}
	has_id = json_object_object_get_ex(v, "id", &id);
	if (has_id && rpc_id_valid(id)) {
		out->id = id;
		out->id_valid = 1;
	}
	jv = json_get(v, "jsonrpc");
	if (!json_is_type(jv, json_type_string) || json_object_get_string_len(jv) != 3 ||
	    strcmp(json_object_get_string(jv), "2.0") != 0) {
		out->why = "Invalid Request: \"jsonrpc\" must be \"2.0\"";
		return;
	}
	m = json_get(v, "method");
	if (m == NULL) {
		if (json_get(v, "result") != NULL || json_get(v, "error") != NULL) {
			if (!has_id) {
				out->why = "Invalid Request: a response must carry an id";
				return;
			}
			out->kind = RPC_RESPONSE;
			return;
		}
		out->why = "Invalid Request: \"method\" is missing";
		return;
	}
	if (!json_is_type(m, json_type_string) || json_str_has_nul(m) ||
	    json_object_get_string_len(m) == 0) {
		out->why = "Invalid Request: \"method\" must be a non-empty string";
		return;
	}
	out->method = json_object_get_string(m);
	out->params = json_get(v, "params");
	if (out->params != NULL && !json_is_type(out->params, json_type_object) &&
	    !json_is_type(out->params, json_type_array)) {
		out->why = "Invalid Request: \"params\" must be an object";
		return;
	}
	if (has_id && !out->id_valid) {
		out->why = "Invalid Request: \"id\" must be a string or an integer within +-(2^53-1)";
		return;
	}
	out->kind = has_id ? RPC_REQUEST : RPC_NOTIFICATION;
}

static struct json_object *
rpc_envelope(struct json_object *id)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(o, "id", id != NULL ? json_object_get(id) : NULL);
	return o;
}

struct json_object *
rpc_result(struct json_object *id, struct json_object *result)
{
	struct json_object	*o;

	if ((o = rpc_envelope(id)) == NULL) {
		json_object_put(result);
		return NULL;
	}
	json_object_object_add(o, "result", result);
	return o;
}

struct json_object *
rpc_error(struct json_object *id, int code, const char *message, struct json_object *data)
{
	struct json_object	*o, *e;

	if ((o = rpc_envelope(id)) == NULL || (e = json_object_new_object()) == NULL) {
		json_object_put(o);
		json_object_put(data);
		return NULL;
	}
	json_object_object_add(e, "code", json_object_new_int(code));
	/* Messages may quote request bytes (a header, a cut name): keep the body UTF-8. */
	json_object_object_add(e, "message", json_new_string_repaired(message, strlen(message)));
	if (data != NULL)
		json_object_object_add(e, "data", data);
	json_object_object_add(o, "error", e);
	return o;
}
