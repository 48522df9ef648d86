/* schema: compiles tool input schemas (a JSON Schema subset) into a tree and validates arguments. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <json-c/json.h>

#include "err.h"
#include "schema.h"
#include "schema-int.h"

/* --- compiling --------------------------------------------------------- */

struct cctx {
	struct schema	*s;
	struct err	*e;
	struct path	 where;		/* "#/properties/x": where the subschema being compiled is */
};

static int compile_node(struct cctx *c, struct snode **out, struct json_object *j, int depth);

static void
node_free(struct snode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n_props; i++)
		node_free(n->props[i].node);
	free(n->props);
	free(n->required);
	node_free(n->addl);
	node_free(n->items);
	free(n->enum_text);
	free(n->const_text);
	for (i = 0; i < B__MAX; i++)
		free(n->bound_text[i]);
	pcre2_code_free(n->re);
	for (i = 0; i < n->n_any_of; i++)
		node_free(n->any_of[i]);
	free(n->any_of);
	for (i = 0; i < n->n_one_of; i++)
		node_free(n->one_of[i]);
	free(n->one_of);
	free(n);
}

static const char *
where(const struct cctx *c)
{
	return c->where.len > 1 ? c->where.s : "the root";
}

static int
bad_value(struct cctx *c, const char *kw, const char *what)
{
	return err_set(c->e, ERR_CONFIG, "schema keyword '%s' at %s must be %s", kw, where(c), what);
}

static int
nomem(struct cctx *c)
{
	return err_set(c->e, ERR_NOMEM, "out of memory compiling a schema");
}

/* JSON text of v without the "plain" spaces, copied. */
static int
dup_json_text(struct cctx *c, char **out, struct json_object *v)
{
	const char *t;

	t = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (t == NULL)
		return nomem(c);
	*out = strdup(t);
	if (*out == NULL)
		return nomem(c);
	return 0;
}

static int
kw_type(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	struct json_object *name;
	size_t i, k, len;
	const char *t;

	if (json_object_is_type(v, json_type_string))
		len = 1;
	else if (json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0)
		len = json_object_array_length(v);
	else
		return bad_value(c, kw, "a type name or a non-empty array of type names");
	for (i = 0; i < len; i++) {
		name = json_object_is_type(v, json_type_string) ? v : json_object_array_get_idx(v, i);
		if (!json_object_is_type(name, json_type_string))
			return bad_value(c, kw, "a type name or a non-empty array of type names");
		t = json_object_get_string(name);
		for (k = 0; k < sizeof(schema_types) / sizeof(schema_types[0]); k++)
			if (strcmp(t, schema_types[k].name) == 0)
				break;
		if (k == sizeof(schema_types) / sizeof(schema_types[0]))
			return err_set(c->e, ERR_CONFIG, "schema at %s names unknown type '%s'",
			    where(c), t);
		if (n->types & schema_types[k].bit)
			return err_set(c->e, ERR_CONFIG, "schema at %s repeats type '%s'", where(c), t);
		n->types |= schema_types[k].bit;
	}
	return 0;
}

static int
kw_properties(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	struct json_object_iterator it, end;
	size_t len, old;
	int rc;

	if (!json_object_is_type(v, json_type_object))
		return bad_value(c, kw, "an object");
	len = (size_t)json_object_object_length(v);
	if (len == 0)
		return 0;
	n->props = calloc(len, sizeof(n->props[0]));
	if (n->props == NULL)
		return nomem(c);
	it = json_object_iter_begin(v);
	end = json_object_iter_end(v);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		n->props[n->n_props].name = json_object_iter_peek_name(&it);
		old = schema_path_push(&c->where, "/properties/%s", n->props[n->n_props].name);
		rc = compile_node(c, &n->props[n->n_props].node, json_object_iter_peek_value(&it),
		    depth + 1);
		schema_path_pop(&c->where, old);
		if (rc < 0)
			return rc;
		n->n_props++;
	}
	return 0;
}

static int
kw_required(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	struct json_object *name;
	size_t i, k, len;

	if (!json_object_is_type(v, json_type_array))
		return bad_value(c, kw, "an array of property names");
	len = json_object_array_length(v);
	if (len == 0)
		return 0;
	n->required = calloc(len, sizeof(n->required[0]));
	if (n->required == NULL)
		return nomem(c);
	for (i = 0; i < len; i++) {
		name = json_object_array_get_idx(v, i);
		if (!json_object_is_type(name, json_type_string))
			return bad_value(c, kw, "an array of property names");
		n->required[i] = json_object_get_string(name);
		for (k = 0; k < i; k++)
			if (strcmp(n->required[k], n->required[i]) == 0)
				return err_set(c->e, ERR_CONFIG, "schema at %s requires '%s' twice",
				    where(c), n->required[i]);
		n->n_required++;
	}
	return 0;
}

static int
kw_additional(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	size_t old;
	int rc;

	if (json_object_is_type(v, json_type_boolean)) {
		n->addl_false = !json_object_get_boolean(v);
		return 0;
	}
	if (!json_object_is_type(v, json_type_object))
		return bad_value(c, kw, "a boolean or a schema");
	old = schema_path_push(&c->where, "/%s", kw);
	rc = compile_node(c, &n->addl, v, depth + 1);
	schema_path_pop(&c->where, old);
	return rc;
}

static int
kw_items(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	size_t old;
	int rc;

	if (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_boolean))
		return bad_value(c, kw, "a schema (the tuple form is not supported)");
	old = schema_path_push(&c->where, "/%s", kw);
	rc = compile_node(c, &n->items, v, depth + 1);
	schema_path_pop(&c->where, old);
	return rc;
}

static int
kw_enum(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	struct json_object *x;
	size_t i, len, tlen = 0, need;
	const char *t;
	char *p;

	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
		return bad_value(c, kw, "a non-empty array");
	len = json_object_array_length(v);
	for (i = 0; i < len; i++) {
		x = json_object_array_get_idx(v, i);
		t = json_object_is_type(x, json_type_string) ? json_object_get_string(x) :
		    json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (t == NULL)
			return nomem(c);
		need = tlen + strlen(t) + 3;
		p = realloc(n->enum_text, need);
		if (p == NULL)
			return nomem(c);
		n->enum_text = p;
		if (i > 0) {
			memcpy(p + tlen, ", ", 2);
			tlen += 2;
		}
		memcpy(p + tlen, t, strlen(t) + 1);
		tlen += strlen(t);
	}
	n->enumv = v;
	return 0;
}

static int
kw_const(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	n->constv = v;
	n->has_const = 1;
	return dup_json_text(c, &n->const_text, v);
}

static int
kw_bound(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	static const char *const names[B__MAX] = {
		"minimum",		/* B_MIN */
		"maximum",		/* B_MAX */
		"exclusiveMinimum",	/* B_XMIN */
		"exclusiveMaximum",	/* B_XMAX */
	};
	struct num x;
	size_t b;

	for (b = 0; b < B__MAX; b++)
		if (strcmp(kw, names[b]) == 0)
			break;
	if (b == B__MAX)
		return err_set(c->e, ERR_INTERNAL, "schema bound '%s' has no slot", kw);
	if (!schema_is_number(v))
		return bad_value(c, kw, "a number");
	schema_num_get(&x, v);
	if (!schema_num_finite(&x))
		return bad_value(c, kw, "a finite number");
	n->bound[b] = v;
	return dup_json_text(c, &n->bound_text[b], v);
}

static int
kw_count(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	int64_t x;

	if (!schema_is_integral(v))
		return bad_value(c, kw, "a non-negative integer");
	if (json_object_is_type(v, json_type_double)) {
		if (json_object_get_double(v) < 0 || json_object_get_double(v) > 1e15)
			return bad_value(c, kw, "a non-negative integer");
		x = (int64_t)json_object_get_double(v);
	} else
		x = json_object_get_int64(v);
	if (x < 0)
		return bad_value(c, kw, "a non-negative integer");
	if (strcmp(kw, "minLength") == 0)
		n->min_len = x;
	else if (strcmp(kw, "maxLength") == 0)
		n->max_len = x;
	else if (strcmp(kw, "minItems") == 0)
		n->min_items = x;
	else
		n->max_items = x;
	return 0;
}

static int
kw_pattern(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	PCRE2_UCHAR msg[120];
	PCRE2_SIZE off;
	int code;

	if (!json_object_is_type(v, json_type_string))
		return bad_value(c, kw, "a string");
	n->pattern = json_object_get_string(v);
	/* ECMA-262 semantics where they differ: $ only at the very end, \uXXXX escapes. */
	n->re = pcre2_compile((PCRE2_SPTR)n->pattern, (PCRE2_SIZE)json_object_get_string_len(v),
	    PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX | PCRE2_NEVER_BACKSLASH_C, &code, &off,
	    NULL);
	if (n->re == NULL) {
		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			strcpy((char *)msg, "unknown error");
		return err_set(c->e, ERR_CONFIG, "schema pattern at %s does not compile: %s at offset %zu",
		    where(c), (const char *)msg, (size_t)off);
	}
	return 0;
}

static int
kw_unique(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	if (!json_object_is_type(v, json_type_boolean))
		return bad_value(c, kw, "a boolean");
	n->unique = json_object_get_boolean(v);
	return 0;
}

static int
kw_of(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	struct snode ***list;
	size_t *count, i, len, old;
	int rc;

	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
		return bad_value(c, kw, "a non-empty array of schemas");
	if (strcmp(kw, "anyOf") == 0) {
		list = &n->any_of;
		count = &n->n_any_of;
	} else {
		list = &n->one_of;
		count = &n->n_one_of;
	}
	len = json_object_array_length(v);
	*list = calloc(len, sizeof(**list));
	if (*list == NULL)
		return nomem(c);
	for (i = 0; i < len; i++) {
		old = schema_path_push(&c->where, "/%s/%zu", kw, i);
		rc = compile_node(c, &(*list)[i], json_object_array_get_idx(v, i), depth + 1);
		schema_path_pop(&c->where, old);
		if (rc < 0)
			return rc;
		(*count)++;
	}
	return 0;
}

typedef int (*kw_fn)(struct cctx *, struct snode *, const char *, struct json_object *, int);

/* Every keyword a schema may use; NULL marks an annotation (accepted, not checked). */
static const struct {
	const char	*name;
	kw_fn		 fn;
} keywords[] = {
	{ "$schema", NULL },
	{ "additionalProperties", kw_additional },
	{ "anyOf", kw_of },
	{ "const", kw_const },
	{ "default", NULL },
	{ "description", NULL },
	{ "enum", kw_enum },
	{ "examples", NULL },
	{ "exclusiveMaximum", kw_bound },
	{ "exclusiveMinimum", kw_bound },
	{ "format", NULL },
	{ "items", kw_items },
	{ "maxItems", kw_count },
	{ "maxLength", kw_count },
	{ "maximum", kw_bound },
	{ "minItems", kw_count },
	{ "minLength", kw_count },
	{ "minimum", kw_bound },
	{ "oneOf", kw_of },
	{ "pattern", kw_pattern },
	{ "properties", kw_properties },
	{ "required", kw_required },
	{ "title", NULL },
	{ "type", kw_type },
	{ "uniqueItems", kw_unique },
};

static int
compile_node(struct cctx *c, struct snode **out, struct json_object *j, int depth)
{
	struct json_object_iterator it, end;
	struct snode *n = NULL;
	const char *kw;
	size_t k;
	int rc;

	if (depth > SCHEMA_MAX_DEPTH) {
		rc = err_set(c->e, ERR_CONFIG, "schema at %s is nested too deeply", where(c));
		goto done;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		rc = nomem(c);
		goto done;
	}
	n->min_len = n->max_len = n->min_items = n->max_items = -1;
	if (json_object_is_type(j, json_type_boolean)) {
		n->never = !json_object_get_boolean(j);
		*out = n;
		n = NULL;
		rc = 0;
		goto done;
	}
	if (!json_object_is_type(j, json_type_object)) {
		rc = err_set(c->e, ERR_CONFIG, "schema at %s must be an object or a boolean", where(c));
		goto done;
	}
	it = json_object_iter_begin(j);
	end = json_object_iter_end(j);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		kw = json_object_iter_peek_name(&it);
		for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			if (strcmp(kw, keywords[k].name) == 0)
				break;
		if (k == sizeof(keywords) / sizeof(keywords[0])) {
			rc = err_set(c->e, ERR_CONFIG, "schema keyword '%s' at %s is not supported",
			    kw, where(c));
			goto done;
		}
		if (keywords[k].fn == NULL)
			continue;
		rc = keywords[k].fn(c, n, kw, json_object_iter_peek_value(&it), depth);
		if (rc < 0)
			goto done;
	}
	*out = n;
	n = NULL;
	rc = 0;
done:
	node_free(n);
	return rc;
}

/*
 * Compiles schema text into a tree (patterns compiled once, with match
 * limits).  On success *out owns the tree and the parsed document.
 * Returns 0, ERR_CONFIG (message names the keyword and its location) or
 * ERR_NOMEM.
 */
int
schema_compile(struct schema **out, const char *text, struct err *e)
{
	struct json_tokener *tok = NULL;
	struct schema *s = NULL;
	struct cctx c;
	size_t len, end;
	int rc;

	*out = NULL;
	if (text == NULL) {
		rc = err_set(e, ERR_CONFIG, "schema text is missing");
		goto done;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory compiling a schema");
		goto done;
	}
	tok = json_tokener_new_ex(SCHEMA_JSON_DEPTH);
	if (tok == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory compiling a schema");
		goto done;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	len = strlen(text);
	s->doc = json_tokener_parse_ex(tok, text, (int)len);
	if (s->doc == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		rc = err_set(e, ERR_CONFIG, "schema is not valid json: %s",
		    json_tokener_error_desc(json_tokener_get_error(tok)));
		goto done;
	}
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (strchr(" \t\r\n", text[end]) == NULL) {
			rc = err_set(e, ERR_CONFIG, "schema has trailing bytes after the json value");
			goto done;
		}
	if (!json_object_is_type(s->doc, json_type_object) ||
	    !json_object_is_type(json_object_object_get(s->doc, "type"), json_type_string) ||
	    strcmp(json_object_get_string(json_object_object_get(s->doc, "type")), "object") != 0) {
		rc = err_set(e, ERR_CONFIG, "schema root must have \"type\": \"object\"");
		goto done;
	}
	s->mctx = pcre2_match_context_create(NULL);
	if (s->mctx == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory compiling a schema");
		goto done;
	}
	pcre2_set_match_limit(s->mctx, SCHEMA_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, SCHEMA_DEPTH_LIMIT);
	pcre2_set_heap_limit(s->mctx, SCHEMA_HEAP_LIMIT);
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.e = e;
	schema_path_push(&c.where, "%s", "#");
	rc = compile_node(&c, &s->root, s->doc, 0);
	if (rc < 0)
		goto done;
	*out = s;
	s = NULL;
done:
	if (tok != NULL)
		json_tokener_free(tok);
	schema_free(s);
	return rc;
}

/* Frees a compiled schema; NULL is accepted. */
void
schema_free(struct schema *s)
{
	if (s == NULL)
		return;
	node_free(s->root);
	pcre2_match_context_free(s->mctx);
	json_object_put(s->doc);
	free(s);
}

/* The schema document as parsed (borrowed; lives as long as s). */
struct json_object *
schema_json(const struct schema *s)
{
	return s->doc;
}
