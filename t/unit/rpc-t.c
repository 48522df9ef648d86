/* rpc-t: unit tests for the JSON-RPC envelope and the id rule. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "rpc.h"
#include "tap.h"

static struct json_object *
parse(const char *s)
{
	enum json_perr	e;

	return json_parse_strict(s, strlen(s), &e);
}

static enum rpc_kind
kind_of(const char *s, int *id_valid)
{
	struct json_object	*v = parse(s);
	struct rpc_msg		 m;
	enum rpc_kind		 k;

	if (v == NULL)
		return RPC__MAX;
	rpc_classify(&m, v);
	k = m.kind;
	if (id_valid != NULL)
		*id_valid = m.id_valid;
	json_object_put(v);
	return k;
}

static int
id_ok(const char *id_text)
{
	char	buf[256];
	int	valid = 0;

	snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", id_text);
	return kind_of(buf, &valid) == RPC_REQUEST && valid;
}

int
main(void)
{
	struct json_object	*r, *id;
	const char		*s;

	/* The id rule, judged on the original token. */
	ok(id_ok("1"), "integer id");
	ok(id_ok("0"), "zero id");
	ok(id_ok("-5"), "negative id");
	ok(id_ok("\"abc\""), "string id");
	ok(id_ok("\"\""), "empty string id");
	ok(id_ok("9007199254740991"), "2^53-1 is a valid id");
	ok(id_ok("-9007199254740991"), "-(2^53-1) is a valid id");
	ok(!id_ok("9007199254740992"), "2^53 is not a valid id");
	ok(!id_ok("-9007199254740992"), "-2^53 is not a valid id");
	ok(!id_ok("18446744073709551615"), "2^64-1 is not a valid id");
	ok(!id_ok("1.0"), "1.0 is not a valid id");
	ok(!id_ok("1e3"), "1e3 is not a valid id");
	ok(!id_ok("1.5"), "1.5 is not a valid id");
	ok(!id_ok("null"), "null is not a valid id");
	ok(!id_ok("true"), "true is not a valid id");
	ok(!id_ok("{}"), "an object is not a valid id");
	ok(!id_ok("[1]"), "an array is not a valid id");
	ok(!id_ok("\"a\\u0000b\""), "a string id with NUL is refused");

	/* Message kinds. */
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL),
	    RPC_NOTIFICATION, "no id: notification");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", NULL), RPC_RESPONSE,
	    "result without method: response");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"x\"}}", NULL),
	    RPC_RESPONSE, "error without method: response");
	is_int(kind_of("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", NULL), RPC_INVALID,
	    "jsonrpc 1.0 is invalid");
	is_int(kind_of("{\"id\":1,\"method\":\"ping\"}", NULL), RPC_INVALID, "missing jsonrpc");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", NULL), RPC_INVALID,
	    "numeric method");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", NULL), RPC_INVALID,
	    "empty method");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":5}", NULL),
	    RPC_INVALID, "scalar params");
	is_int(kind_of("[1]", NULL), RPC_INVALID, "array is not a single message");
	is_int(kind_of("\"x\"", NULL), RPC_INVALID, "string is not a message");
	is_int(kind_of("{\"jsonrpc\":\"2.0\",\"result\":{}}", NULL), RPC_INVALID,
	    "response without id");

	{
		int valid = 1;
		is_int(kind_of("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}", &valid), RPC_INVALID,
		    "invalid message with a valid id");
		ok(valid, "its id is still readable for the error");
	}

	/* Response bodies. */
	id = json_object_new_int(7);
	r = rpc_error(id, RPC_INVALID_PARAMS, "bad", NULL);
	s = json_dump(r, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"bad\"}}",
	    "error echoes the id");
	json_object_put(r);
	r = rpc_error(NULL, RPC_PARSE_ERROR, "Parse error", NULL);
	s = json_dump(r, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}",
	    "unreadable id gives id null");
	json_object_put(r);
	/* A message quoting request bytes that are not UTF-8 (found by t/fuzz/fuzz-http.c). */
	r = rpc_error(NULL, RPC_INVALID_REQUEST, "version '\xd0\tx' and '\xc3", NULL);
	s = json_dump(r, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
	    "\"version '\xef\xbf\xbd\\tx' and '\xef\xbf\xbd\"}}",
	    "bytes that are not UTF-8 in a message become U+FFFD");
	ok(s != NULL && json_utf8_valid(s, strlen(s)), "so the error body is UTF-8");
	json_object_put(r);
	r = rpc_result(id, json_object_new_object());
	s = json_dump(r, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", "result envelope");
	json_object_put(r);
	json_object_put(id);
	return done_testing();
}
