/* schema-t: unit tests for the tool argument schema compiler and validator. */
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "schema.h"
#include "tap.h"

/* Compiles text; returns NULL (and reports) on failure. */
static struct schema *
compile_ok(const char *text, const char *name)
{
	struct schema *s = NULL;
	struct err e;

	err_clear(&e);
	if (!ok(schema_compile(&s, text, &e) == 0, "compiles: %s", name))
		diag("error: %s", e.msg);
	return s;
}

/* Expects compilation to fail with a message containing want. */
static void
compile_bad(const char *text, const char *want, const char *name)
{
	struct schema *s = NULL;
	struct err e;
	int rc;

	err_clear(&e);
	rc = schema_compile(&s, text, &e);
	ok(rc == ERR_CONFIG && s == NULL, "refused: %s", name);
	if (!ok(strstr(e.msg, want) != NULL, "message for %s names the problem", name))
		diag("message: '%s', wanted it to contain '%s'", e.msg, want);
	schema_free(s);
}

/*
 * Validates instance text against a compiled schema; want NULL means valid,
 * otherwise the exact message expected.
 */
static void
check(const struct schema *s, const char *instance, const char *want)
{
	struct json_object *j;
	char msg[512];
	int rc;

	j = json_tokener_parse(instance);
	if (j == NULL && strcmp(instance, "null") != 0) {
		ok(0, "test instance parses: %s", instance);
		return;
	}
	memset(msg, 'x', sizeof(msg));
	rc = schema_validate(s, j, msg, sizeof(msg));
	if (want == NULL) {
		if (!ok(rc == 0, "valid: %s", instance))
			diag("message: %s", msg);
	} else {
		ok(rc == -1, "invalid: %s", instance);
		is_str(msg, want, "message for %s", instance);
	}
	json_object_put(j);
}

static void
test_compile(void)
{
	struct schema *s;

	compile_bad(NULL, "missing", "NULL text");
	compile_bad("{\"type\":\"object\"", "not valid json", "truncated json");
	compile_bad("{\"type\":\"object\"} x", "json", "trailing bytes");
	compile_bad("{\"type\":\"object\"}{}", "json", "two values");
	compile_bad("{\"type\":\"object\",}", "not valid json", "trailing comma (strict)");
	compile_bad("[]", "root", "array root");
	compile_bad("{}", "root", "root without type");
	compile_bad("{\"type\":\"string\"}", "root", "string root");
	compile_bad("{\"type\":[\"object\",\"null\"]}", "root", "root with several types");

	/* Keywords the gate does not check are refused, naming the location. */
	compile_bad("{\"type\":\"object\",\"$ref\":\"#/x\"}", "schema keyword '$ref' at the root is not supported", "$ref");
	compile_bad("{\"type\":\"object\",\"allOf\":[{}]}", "'allOf'", "allOf");
	compile_bad("{\"type\":\"object\",\"not\":{}}", "'not'", "not");
	compile_bad("{\"type\":\"object\",\"patternProperties\":{}}", "'patternProperties'", "patternProperties");
	compile_bad("{\"type\":\"object\",\"minProperties\":1}", "'minProperties'", "minProperties");
	compile_bad("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"multipleOf\":2}}}",
	    "schema keyword 'multipleOf' at #/properties/n is not supported", "multipleOf nested");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"x-mcp-header\":\"A\"}}}}",
	    "'x-mcp-header' at #/properties/a/items", "x-mcp-header in items");
	compile_bad("{\"type\":\"object\",\"if\":{}}", "'if'", "if");
	compile_bad("{\"type\":\"object\",\"dependentRequired\":{}}", "'dependentRequired'", "dependentRequired");
	compile_bad("{\"type\":\"object\",\"anyOf\":[{\"type\":\"object\"},{\"contains\":{}}]}",
	    "'contains' at #/anyOf/1", "contains inside anyOf");

	/* Bad keyword values. */
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"int\"}}}", "unknown type 'int'", "unknown type");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[]}}}", "'type'", "empty type list");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"string\"]}}}", "repeats type", "repeated type");
	compile_bad("{\"type\":\"object\",\"properties\":[]}", "'properties' at the root must be an object", "properties not object");
	compile_bad("{\"type\":\"object\",\"required\":\"a\"}", "'required'", "required not array");
	compile_bad("{\"type\":\"object\",\"required\":[\"a\",\"a\"]}", "twice", "required repeated");
	compile_bad("{\"type\":\"object\",\"required\":[1]}", "'required'", "required with a number");
	compile_bad("{\"type\":\"object\",\"additionalProperties\":1}", "'additionalProperties'", "additionalProperties number");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"items\":[{}]}}}", "tuple", "items tuple form");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[]}}}", "'enum'", "empty enum");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"maximum\":\"1\"}}}", "'maximum'", "maximum string");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"exclusiveMinimum\":true}}}", "'exclusiveMinimum'", "draft-4 exclusiveMinimum");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"minLength\":-1}}}", "'minLength'", "negative minLength");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"maxItems\":1.5}}}", "'maxItems'", "fractional maxItems");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"pattern\":\"(\"}}}", "does not compile", "bad pattern");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"pattern\":1}}}", "'pattern'", "pattern number");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"uniqueItems\":1}}}", "'uniqueItems'", "uniqueItems number");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"anyOf\":[]}}}", "'anyOf'", "empty anyOf");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":{\"oneOf\":{}}}}", "'oneOf'", "oneOf object");
	compile_bad("{\"type\":\"object\",\"properties\":{\"a\":3}}", "must be an object or a boolean", "subschema number");

	/* Nesting deeper than the limit is refused, not recursed into. */
	{
		char deep[4096];
		size_t i, n = 0;

		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "{\"type\":\"object\",\"additionalProperties\":");
		for (i = 0; i < 40; i++)
			n += (size_t)snprintf(deep + n, sizeof(deep) - n, "{\"items\":");
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "{}");
		for (i = 0; i < 41; i++)
			n += (size_t)snprintf(deep + n, sizeof(deep) - n, "}");
		compile_bad(deep, "nested too deeply", "deep nesting");
	}

	/* Annotations are accepted. */
	s = compile_ok("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
	    "\"title\":\"t\",\"description\":\"d\",\"properties\":{\"a\":{\"type\":\"string\","
	    "\"format\":\"uri\",\"default\":\"x\",\"examples\":[\"y\"],\"description\":\"z\"}}}",
	    "annotations");
	if (s != NULL) {
		ok(json_object_is_type(schema_json(s), json_type_object), "schema_json is the document");
		is_str(json_object_get_string(json_object_object_get(schema_json(s), "title")), "t",
		    "schema_json keeps the title");
	} else
		skip(2, "no schema");
	schema_free(s);
	schema_free(NULL);
	ok(1, "schema_free(NULL) is harmless");
}

static void
test_object(void)
{
	struct schema *s;

	s = compile_ok("{\"type\":\"object\",\"properties\":{"
	    "\"repo\":{\"type\":\"string\",\"pattern\":\"^[a-z0-9-]+/[a-z0-9-]+$\"},"
	    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
	    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\"]},"
	    "\"type\":{\"type\":\"string\"}},"
	    "\"required\":[\"repo\"],\"additionalProperties\":false}", "object schema");
	if (s == NULL)
		bail_out("cannot go on without the object schema");
	check(s, "{\"repo\":\"a/b\"}", NULL);
	check(s, "{\"repo\":\"a/b\",\"limit\":100,\"state\":\"closed\",\"type\":\"x\"}", NULL);
	check(s, "{}", "missing required argument 'repo'");
	check(s, "{\"limit\":5}", "missing required argument 'repo'");
	check(s, "{\"repo\":\"a/b\",\"foo\":1}", "unknown argument 'foo'");
	check(s, "{\"repo\":\"a/b\",\"limit\":\"5\"}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":true}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":1.5}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":1.0}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":1e2}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":-0.0}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":101}", "argument 'limit' must be at most 100");
	check(s, "{\"repo\":\"a/b\",\"limit\":1e3}", "argument 'limit' must be an integer");
	check(s, "{\"repo\":\"a/b\",\"limit\":0}", "argument 'limit' must be at least 1");
	check(s, "{\"repo\":\"a/b\",\"limit\":-9223372036854775808}", "argument 'limit' must be at least 1");
	check(s, "{\"repo\":\"a/b\",\"limit\":9223372036854775807}", "argument 'limit' must be at most 100");
	check(s, "{\"repo\":\"a/b\",\"limit\":18446744073709551615}", "argument 'limit' must be at most 100");
	check(s, "{\"repo\":\"a/b\",\"state\":\"merged\"}", "argument 'state' must be one of: open, closed");
	check(s, "{\"repo\":\"a/b\",\"state\":1}", "argument 'state' must be a string");
	check(s, "{\"repo\":\"A/b\"}", "argument 'repo' must match pattern ^[a-z0-9-]+/[a-z0-9-]+$");
	check(s, "{\"repo\":\"a/b\\n\"}", "argument 'repo' must match pattern ^[a-z0-9-]+/[a-z0-9-]+$");
	check(s, "{\"repo\":\"a/b\\u0000x\"}", "argument 'repo' must not contain NUL bytes");
	check(s, "{\"repo\":\"a/b\",\"type\":null}", "argument 'type' must be a string");
	check(s, "[]", "arguments must be an object");
	check(s, "null", "arguments must be an object");
	check(s, "\"x\"", "arguments must be an object");
	schema_free(s);

	/* Unknown arguments are allowed unless additionalProperties says otherwise. */
	s = compile_ok("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}", "open object");
	check(s, "{\"a\":\"x\",\"b\":[1,{\"c\":null}]}", NULL);
	check(s, "{\"b\":{\"c\":\"\\u0000\"}}", "argument 'b.c' must not contain NUL bytes");
	check(s, "{\"b\":[\"ok\",\"n\\u0000\"]}", "argument 'b[1]' must not contain NUL bytes");
	schema_free(s);

	s = compile_ok("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}", "map of integers");
	check(s, "{\"x\":1,\"y\":2}", NULL);
	check(s, "{\"x\":1,\"y\":\"2\"}", "argument 'y' must be an integer");
	schema_free(s);

	s = compile_ok("{\"type\":\"object\",\"properties\":{\"filter\":{\"type\":\"object\","
	    "\"properties\":{\"state\":{\"enum\":[\"open\",\"closed\",null,3]},"
	    "\"labels\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1}}},"
	    "\"required\":[\"state\"],\"additionalProperties\":false}}}", "nested");
	check(s, "{\"filter\":{\"state\":\"open\",\"labels\":[\"a\",\"b\",\"c\"]}}", NULL);
	check(s, "{\"filter\":{\"state\":null}}", NULL);
	check(s, "{\"filter\":{\"state\":3.0}}", NULL);
	check(s, "{\"filter\":{}}", "missing required argument 'filter.state'");
	check(s, "{\"filter\":{\"state\":\"all\"}}", "argument 'filter.state' must be one of: open, closed, null, 3");
	check(s, "{\"filter\":{\"state\":\"open\",\"x\":1}}", "unknown argument 'filter.x'");
	check(s, "{\"filter\":{\"state\":\"open\",\"labels\":[\"a\",\"b\",2]}}", "argument 'filter.labels[2]' must be a string");
	check(s, "{\"filter\":{\"state\":\"open\",\"labels\":[\"a\",\"\"]}}",
	    "argument 'filter.labels[1]' must be at least 1 character long");
	check(s, "{\"filter\":{\"state\":\"open\",\"labels\":\"a\"}}", "argument 'filter.labels' must be an array");
	check(s, "{\"filter\":[]}", "argument 'filter' must be an object");
	schema_free(s);
}

static void
test_scalars(void)
{
	struct schema *s;
	char msg[512];

	s = compile_ok("{\"type\":\"object\",\"properties\":{"
	    "\"n\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":2.5},"
	    "\"m\":{\"type\":\"number\",\"maximum\":2.5,\"minimum\":-1},"
	    "\"b\":{\"type\":\"boolean\"},"
	    "\"z\":{\"type\":\"null\"},"
	    "\"o\":{\"type\":\"object\"},"
	    "\"sn\":{\"type\":[\"string\",\"null\"]},"
	    "\"multi\":{\"type\":[\"null\",\"boolean\",\"integer\"]},"
	    "\"big\":{\"type\":\"integer\",\"maximum\":1e30},"
	    "\"k\":{\"const\":\"issue\"},"
	    "\"kobj\":{\"const\":{\"a\":[1,2]}},"
	    "\"s\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":3},"
	    "\"no\":false,\"any\":true}}", "scalar schema");
	if (s == NULL)
		bail_out("cannot go on without the scalar schema");
	check(s, "{\"n\":1}", NULL);
	check(s, "{\"n\":2.4999}", NULL);
	check(s, "{\"n\":0}", "argument 'n' must be greater than 0");
	check(s, "{\"n\":-0.5}", "argument 'n' must be greater than 0");
	check(s, "{\"n\":2.5}", "argument 'n' must be less than 2.5");
	check(s, "{\"n\":3}", "argument 'n' must be less than 2.5");
	check(s, "{\"n\":\"1\"}", "argument 'n' must be a number");
	check(s, "{\"m\":2.5}", NULL);
	check(s, "{\"m\":-1}", NULL);
	check(s, "{\"m\":2.5000001}", "argument 'm' must be at most 2.5");
	check(s, "{\"m\":3}", "argument 'm' must be at most 2.5");
	check(s, "{\"m\":-1.5}", "argument 'm' must be at least -1");
	check(s, "{\"b\":false}", NULL);
	check(s, "{\"b\":0}", "argument 'b' must be a boolean");
	check(s, "{\"b\":\"true\"}", "argument 'b' must be a boolean");
	check(s, "{\"z\":null}", NULL);
	check(s, "{\"z\":0}", "argument 'z' must be null");
	check(s, "{\"o\":{}}", NULL);
	check(s, "{\"o\":[]}", "argument 'o' must be an object");
	check(s, "{\"sn\":null}", NULL);
	check(s, "{\"sn\":\"x\"}", NULL);
	check(s, "{\"sn\":1}", "argument 'sn' must be a string or null");
	check(s, "{\"multi\":2}", NULL);
	check(s, "{\"multi\":\"2\"}", "argument 'multi' must be an integer, a boolean or null");
	check(s, "{\"big\":18446744073709551615}", NULL);
	check(s, "{\"big\":-9223372036854775808}", NULL);
	check(s, "{\"big\":1e31}", "argument 'big' must be an integer");
	check(s, "{\"k\":\"issue\"}", NULL);
	check(s, "{\"k\":\"pr\"}", "argument 'k' must be \"issue\"");
	check(s, "{\"kobj\":{\"a\":[1.0,2]}}", NULL);
	check(s, "{\"kobj\":{\"a\":[2,1]}}", "argument 'kobj' must be {\"a\":[1,2]}");
	check(s, "{\"s\":\"ab\"}", NULL);
	check(s, "{\"s\":\"a\"}", "argument 's' must be at least 2 characters long");
	check(s, "{\"s\":\"abcd\"}", "argument 's' must be at most 3 characters long");
	/* Lengths count code points, not bytes. */
	check(s, "{\"s\":\"\\u65e5\\u672c\\u8a9e\"}", NULL);
	check(s, "{\"s\":\"\\ud83d\\ude00\\ud83d\\ude00\"}", NULL);
	check(s, "{\"s\":\"\\u00e9\"}", "argument 's' must be at least 2 characters long");
	check(s, "{\"s\":\"\\u00e9\\u00e9\\u00e9\\u00e9\"}", "argument 's' must be at most 3 characters long");
	check(s, "{\"no\":1}", "argument 'no' is not allowed");
	check(s, "{\"any\":[1,\"x\",null]}", NULL);

	/* A short message buffer is cut at a character boundary and stays terminated. */
	{
		struct json_object *j = json_tokener_parse("{\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\":1}");
		struct schema *t = compile_ok("{\"type\":\"object\",\"additionalProperties\":false}", "closed");

		if (t != NULL && j != NULL) {
			/* "unknown argument '" is 18 bytes; then two-byte characters. */
			memset(msg, 'x', sizeof(msg));
			ok(schema_validate(t, j, msg, 22) == -1, "short buffer: still refused");
			ok(strlen(msg) == 20 && json_utf8_valid(msg, strlen(msg)),
			    "short buffer: message cut before a split character (%zu bytes)", strlen(msg));
			ok(schema_validate(t, j, NULL, 0) == -1, "no buffer: still refused");
		} else
			skip(3, "no schema");
		json_object_put(j);
		schema_free(t);
	}
	schema_free(s);
}

static void
test_arrays(void)
{
	struct schema *s;

	s = compile_ok("{\"type\":\"object\",\"properties\":{"
	    "\"labels\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":3,\"uniqueItems\":true,"
	    "\"items\":{\"type\":\"string\"}},"
	    "\"one\":{\"type\":\"array\",\"maxItems\":1},"
	    "\"u\":{\"type\":\"array\",\"uniqueItems\":true}}}", "array schema");
	if (s == NULL)
		bail_out("cannot go on without the array schema");
	check(s, "{\"labels\":[\"a\"]}", NULL);
	check(s, "{\"labels\":[\"a\",\"b\",\"c\"]}", NULL);
	check(s, "{\"labels\":[]}", "argument 'labels' must have at least 1 item");
	check(s, "{\"labels\":[\"a\",\"b\",\"c\",\"d\"]}", "argument 'labels' must have at most 3 items");
	check(s, "{\"one\":[1,2]}", "argument 'one' must have at most 1 item");
	check(s, "{\"labels\":[\"a\",\"b\",\"a\"]}",
	    "argument 'labels' must not contain duplicate items (item 2 repeats item 0)");
	check(s, "{\"u\":[1,2,3,\"1\",[1],{\"a\":1},null,true,false]}", NULL);
	check(s, "{\"u\":[1,2,1.0]}", "argument 'u' must not contain duplicate items (item 2 repeats item 0)");
	check(s, "{\"u\":[{\"a\":1,\"b\":[2]},{\"b\":[2.0],\"a\":1}]}",
	    "argument 'u' must not contain duplicate items (item 1 repeats item 0)");
	check(s, "{\"u\":[[1,2],[2,1]]}", NULL);
	check(s, "{\"u\":[null,0,false,\"\",[],{}]}", NULL);
	check(s, "{\"u\":[5,null,7,null,5]}", "argument 'u' must not contain duplicate items (item 3 repeats item 1)");
	schema_free(s);

	/* Many distinct items are checked quickly (no quadratic comparison). */
	{
		struct json_object *j = json_object_new_object(), *arr = json_object_new_array();
		struct schema *t = compile_ok("{\"type\":\"object\",\"properties\":{\"u\":"
		    "{\"type\":\"array\",\"uniqueItems\":true}}}", "unique schema");
		char msg[256];
		clock_t t0;
		int i;

		for (i = 0; i < 30000; i++)
			json_object_array_add(arr, json_object_new_int(i));
		json_object_object_add(j, "u", arr);
		t0 = clock();
		ok(t != NULL && schema_validate(t, j, msg, sizeof(msg)) == 0, "30000 distinct items pass");
		ok((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0, "and quickly");
		json_object_put(j);
		schema_free(t);
	}
}

static void
test_pattern(void)
{
	struct schema *s;
	char evil[64], inst[128];
	clock_t t0;

	s = compile_ok("{\"type\":\"object\",\"properties\":{"
	    "\"ref\":{\"type\":\"string\",\"pattern\":\"^[^\\\\u0000-\\\\u001f]+$\"},"
	    "\"sub\":{\"type\":\"string\",\"pattern\":\"b\"},"
	    "\"evil\":{\"type\":\"string\",\"pattern\":\"^(a+)+$\"},"
	    "\"uni\":{\"type\":\"string\",\"pattern\":\"^.{2}$\"},"
	    "\"num\":{\"pattern\":\"^x\"}}}", "pattern schema");
	if (s == NULL)
		bail_out("cannot go on without the pattern schema");
	check(s, "{\"ref\":\"main\"}", NULL);
	check(s, "{\"ref\":\"ma\\tin\"}", "argument 'ref' must match pattern ^[^\\u0000-\\u001f]+$");
	check(s, "{\"sub\":\"abc\"}", NULL);	/* unanchored, as in JSON Schema */
	check(s, "{\"sub\":\"acd\"}", "argument 'sub' must match pattern b");
	check(s, "{\"uni\":\"\\u00e9\\u00e9\"}", NULL);	/* . matches a code point */
	check(s, "{\"uni\":\"abc\"}", "argument 'uni' must match pattern ^.{2}$");
	check(s, "{\"num\":5}", NULL);	/* pattern applies to strings only */
	check(s, "{\"evil\":\"aaaa\"}", NULL);
	memset(evil, 'a', 40);
	evil[40] = 'b';
	evil[41] = '\0';
	snprintf(inst, sizeof(inst), "{\"evil\":\"%s\"}", evil);
	t0 = clock();
	check(s, inst, "argument 'evil' is too complex to check against pattern ^(a+)+$");
	ok((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "catastrophic backtracking is cut short");
	schema_free(s);
}

static void
test_alternatives(void)
{
	struct schema *s;

	s = compile_ok("{\"type\":\"object\",\"properties\":{"
	    "\"id\":{\"anyOf\":[{\"type\":\"integer\",\"minimum\":1},{\"type\":\"string\",\"maxLength\":3}]},"
	    "\"ref\":{\"anyOf\":[{\"type\":\"string\",\"const\":\"HEAD\"},{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{40}$\"}]},"
	    "\"one\":{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\",\"maximum\":10}]},"
	    "\"two\":{\"oneOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"required\":[\"x\"]}]}}}",
	    "anyOf/oneOf schema");
	if (s == NULL)
		bail_out("cannot go on without the alternatives schema");
	check(s, "{\"id\":5}", NULL);
	check(s, "{\"id\":\"abc\"}", NULL);
	check(s, "{\"id\":true}", "argument 'id' must be an integer or a string");
	check(s, "{\"id\":\"abcd\"}", "argument 'id' must be at most 3 characters long");
	check(s, "{\"id\":0}", "argument 'id' must be at least 1");
	check(s, "{\"ref\":\"HEAD\"}", NULL);
	check(s, "{\"ref\":\"head\"}", "argument 'ref' matches none of the allowed forms: "
	    "argument 'ref' must be \"HEAD\"; or argument 'ref' must match pattern ^[0-9a-f]{40}$");
	check(s, "{\"one\":11}", NULL);
	check(s, "{\"one\":2.5}", NULL);
	check(s, "{\"one\":3}", "argument 'one' must match exactly one allowed form, but matches forms 1 and 2");
	check(s, "{\"one\":\"x\"}", "argument 'one' must be a number");
	check(s, "{\"two\":null}", NULL);
	check(s, "{\"two\":{\"x\":1}}", NULL);
	check(s, "{\"two\":{}}", "missing required argument 'two.x'");
	check(s, "{\"two\":3}", "argument 'two' must be an object or null");
	schema_free(s);
}

int
main(void)
{
	test_compile();
	test_object();
	test_scalars();
	test_arrays();
	test_pattern();
	test_alternatives();
	return done_testing();
}
