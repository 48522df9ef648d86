/* fuzz-schema: the tool argument validator, fed each registered tool's input schema. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "err.h"
#include "fuzz.h"
#include "json.h"
#include "log.h"
#include "schema.h"
#include "tool.h"

/*
 * The input is a selector byte and JSON arguments.  The low seven bits
 * pick the schema: the registered tools in table order, then the schemas
 * below, which use the keywords no tool uses today (patterns, anyOf,
 * oneOf, const, enum of mixed values, uniqueItems, exclusive bounds).
 * The high bit validates into a small message buffer, to exercise cutting.
 */
static const char *const fuzz_extra[] = {
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
	"\"tags\":{\"type\":\"array\",\"uniqueItems\":true,\"minItems\":1,\"maxItems\":8,"
	    "\"items\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9-]*$\",\"maxLength\":20}},"
	"\"mode\":{\"enum\":[\"fast\",\"slow\",1,null,{\"a\":[1,2.5]}]},"
	"\"ver\":{\"const\":{\"major\":1,\"minor\":[0,1.5,\"x\"]}},"
	"\"n\":{\"type\":[\"integer\",\"null\"],\"exclusiveMinimum\":-5,"
	    "\"exclusiveMaximum\":9007199254740993},"
	"\"x\":{\"type\":\"number\",\"minimum\":-1.5e300,\"maximum\":18446744073709551615},"
	"\"any\":{\"anyOf\":[{\"type\":\"string\",\"minLength\":2},{\"type\":\"integer\",\"minimum\":0},"
	    "{\"type\":\"array\",\"items\":false}]},"
	"\"one\":{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\",\"maximum\":10},"
	    "{\"type\":\"boolean\"},{\"const\":\"\\u00e9t\\u00e9\"}]},"
	"\"meta\":{\"type\":\"object\",\"required\":[\"id\"],"
	    "\"properties\":{\"id\":{\"type\":\"string\",\"pattern\":\"^(a|aa)+$\"}},"
	    "\"additionalProperties\":{\"type\":[\"string\",\"boolean\"],\"maxLength\":3}}}}",
	"{\"type\":\"object\",\"required\":[\"filter\"],\"properties\":{"
	"\"filter\":{\"type\":\"object\",\"properties\":{\"labels\":{\"type\":\"array\",\"items\":"
	    "{\"type\":\"object\",\"required\":[\"name\"],\"additionalProperties\":false,"
	    "\"properties\":{\"name\":{\"type\":\"string\",\"pattern\":\"^\\\\p{L}[\\\\p{L} ]*$\"},"
	    "\"weight\":{\"type\":\"integer\",\"minimum\":-9223372036854775808,"
	    "\"maximum\":9223372036854775807}}}},"
	    "\"nested\":{\"anyOf\":[{\"type\":\"object\",\"additionalProperties\":"
	    "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"array\",\"items\":{\"type\":\"number\"}}]}},"
	    "{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}]}}}}}",
};
#define N_EXTRA		(sizeof(fuzz_extra) / sizeof(fuzz_extra[0]))
#define MSG_REAL	600	/* the buffer tool_call validates into */
#define MSG_SMALL	24

static struct schema	*fuzz_extra_s[N_EXTRA];

static void
fuzz_init(void)
{
	struct err	e;
	size_t		i;

	log_set_quiet(1);
	err_clear(&e);
	if (tool_registry_init(&e) != 0) {
		fprintf(stderr, "fuzz-schema: %s\n", e.msg);
		abort();
	}
	for (i = 0; i < N_EXTRA; i++)
		if (schema_compile(&fuzz_extra_s[i], fuzz_extra[i], &e) != 0) {
			fprintf(stderr, "fuzz-schema: extra schema %zu: %s\n", i, e.msg);
			abort();
		}
}

/* Whether s starts with as much of prefix as fits in it. */
static int
fuzz_starts(const char *s, const char *prefix)
{
	size_t	n = strlen(s) < strlen(prefix) ? strlen(s) : strlen(prefix);

	return strncmp(s, prefix, n) == 0;
}

/*
 * Checks an accepted instance against the root's required list and, when
 * additionalProperties is false, its property names: an independent reading
 * of the schema document.
 */
static void
fuzz_accepted(const struct schema *s, struct json_object *inst)
{
	struct json_object_iterator	 it, end;
	struct json_object		*doc = schema_json(s), *req, *props, *addl;
	size_t				 i;

	FUZZ_ASSERT(json_is_type(inst, json_type_object));
	req = json_get(doc, "required");
	for (i = 0; req != NULL && i < json_object_array_length(req); i++)
		FUZZ_ASSERT(json_get(inst, json_object_get_string(
		    json_object_array_get_idx(req, i))) != NULL);
	props = json_get(doc, "properties");
	addl = json_get(doc, "additionalProperties");
	if (!json_is_type(addl, json_type_boolean) || json_object_get_boolean(addl))
		return;
	it = json_object_iter_begin(inst);
	end = json_object_iter_end(inst);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
		FUZZ_ASSERT(json_get(props, json_object_iter_peek_name(&it)) != NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 ready;
	const struct schema	*s;
	struct json_object	*inst;
	enum json_perr		 perr;
	char			 msg[MSG_REAL], again[MSG_REAL];
	size_t			 idx, msglen, len;
	int			 rc, rc2;

	if (!ready) {
		fuzz_init();
		ready = 1;
	}
	if (size == 0)
		return 0;
	idx = (data[0] & 0x7f) % (tool_table_len + N_EXTRA);
	msglen = (data[0] & 0x80) ? MSG_SMALL : MSG_REAL;
	s = idx < tool_table_len ? tool_schema(idx) : fuzz_extra_s[idx - tool_table_len];
	FUZZ_ASSERT(s != NULL);
	inst = json_parse_strict((const char *)data + 1, size - 1, &perr);
	if (inst == NULL && perr != JSON_PERR_NONE)
		return 0;
	/* As in tool_call: arguments null or absent are the empty object. */
	if (inst == NULL && (inst = json_object_new_object()) == NULL)
		return 0;

	memset(msg, 'x', sizeof(msg));
	rc = schema_validate(s, inst, msg, msglen);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	len = strnlen(msg, msglen);
	FUZZ_ASSERT(len < msglen);
	FUZZ_ASSERT(json_utf8_valid(msg, len));
	if (rc == 0) {
		FUZZ_ASSERT(len == 0);
		fuzz_accepted(s, inst);
	} else {
		FUZZ_ASSERT(len > 0);
		FUZZ_ASSERT(fuzz_starts(msg, "argument") || fuzz_starts(msg, "missing required argument '") ||
		    fuzz_starts(msg, "unknown argument '"));
	}
	/* Validation is a pure function of schema and instance. */
	rc2 = schema_validate(s, inst, again, msglen);
	FUZZ_ASSERT(rc2 == rc && strcmp(again, msg) == 0);
	json_object_put(inst);
	return 0;
}
