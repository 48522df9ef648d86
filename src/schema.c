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

#define SCHEMA_MAX_DEPTH	32	/* nesting of subschemas */
#define SCHEMA_JSON_DEPTH	64	/* nesting of the schema document */
#define SCHEMA_MATCH_LIMIT	100000	/* pcre2 backtracking steps per match */
#define SCHEMA_DEPTH_LIMIT	5000	/* pcre2 backtracking depth */
#define SCHEMA_HEAP_LIMIT	4096	/* pcre2 heap per match, KiB */
#define SCHEMA_PATH_MAX		256

enum stype {
	ST_INTEGER = 1 << 0,	/* integer */
	ST_NUMBER = 1 << 1,	/* number */
	ST_STRING = 1 << 2,	/* string */
	ST_BOOLEAN = 1 << 3,	/* boolean */
	ST_OBJECT = 1 << 4,	/* object */
	ST_ARRAY = 1 << 5,	/* array */
	ST_NULL = 1 << 6,	/* null */
};

static const struct {
	const char	*name;
	unsigned	 bit;
	const char	*phrase;
} stypes[] = {
	{ "integer", ST_INTEGER, "an integer" },	/* ST_INTEGER */
	{ "number", ST_NUMBER, "a number" },		/* ST_NUMBER */
	{ "string", ST_STRING, "a string" },		/* ST_STRING */
	{ "boolean", ST_BOOLEAN, "a boolean" },		/* ST_BOOLEAN */
	{ "object", ST_OBJECT, "an object" },		/* ST_OBJECT */
	{ "array", ST_ARRAY, "an array" },		/* ST_ARRAY */
	{ "null", ST_NULL, "null" },			/* ST_NULL */
};

struct snode;

struct sprop {
	const char	*name;		/* borrowed from the document */
	struct snode	*node;
};

/* One compiled (sub)schema; everything borrowed lives in schema->doc. */
struct snode {
	int		 never;		/* the schema `false` */
	unsigned	 types;		/* ST_* bits; 0 accepts any type */
	struct sprop	*props;
	size_t		 n_props;
	const char	**required;
	size_t		 n_required;
	int		 addl_false;	/* additionalProperties: false */
	struct snode	*addl;		/* additionalProperties: {schema} */
	struct snode	*items;
	struct json_object *enumv;	/* borrowed array */
	char		*enum_text;	/* "open, closed" */
	struct json_object *constv;	/* borrowed; meaningful when has_const */
	int		 has_const;
	char		*const_text;
	struct json_object *bound[4];	/* minimum, maximum, exclusiveMinimum, exclusiveMaximum */
	char		*bound_text[4];
	int64_t		 min_len, max_len, min_items, max_items;	/* -1: absent */
	int		 unique;
	pcre2_code	*re;
	const char	*pattern;	/* borrowed */
	struct snode	**any_of;
	size_t		 n_any_of;
	struct snode	**one_of;
	size_t		 n_one_of;
};

enum bound {
	B_MIN,		/* B_MIN: minimum */
	B_MAX,		/* B_MAX: maximum */
	B_XMIN,		/* B_XMIN: exclusiveMinimum */
	B_XMAX,		/* B_XMAX: exclusiveMaximum */
	B__MAX
};

struct schema {
	struct json_object	*doc;
	struct snode		*root;
	pcre2_match_context	*mctx;
};

/* A path being built ("filter.labels[2]" or "#/properties/x"), truncated on overflow. */
struct path {
	char	s[SCHEMA_PATH_MAX];
	size_t	len;
};

/* Cuts s (of length len) back so it does not end inside a UTF-8 sequence. */
static size_t
utf8_cut(const char *s, size_t len)
{
	size_t i = len, need;
	unsigned char c;

	while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80 && len - i < 3)
		i--;
	if (i == 0)
		return len;
	c = (unsigned char)s[i - 1];
	if (c < 0x80)
		return len;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return len - (i - 1) >= need ? len : i - 1;
}

static size_t __attribute__((format(printf, 2, 3)))
path_push(struct path *p, const char *fmt, ...)
{
	size_t old = p->len, room = sizeof(p->s) - p->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->s + p->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		p->s[p->len] = '\0';
	else if ((size_t)n >= room)
		p->len = utf8_cut(p->s, sizeof(p->s) - 1);
	else
		p->len += (size_t)n;
	p->s[p->len] = '\0';
	return old;
}

static void
path_pop(struct path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

/* --- numbers and equality --------------------------------------------- */

enum num_kind {
	NUM_INT,	/* NUM_INT: fits int64_t */
	NUM_UINT,	/* NUM_UINT: above INT64_MAX */
	NUM_DOUBLE,	/* NUM_DOUBLE */
	NUM__MAX
};

struct num {
	enum num_kind	kind;
	int64_t		i;
	uint64_t	u;
	double		d;
};

static int
is_number(struct json_object *j)
{
	return json_object_is_type(j, json_type_int) || json_object_is_type(j, json_type_double);
}

static void
num_get(struct num *out, struct json_object *j)
{
	memset(out, 0, sizeof(*out));
	if (json_object_is_type(j, json_type_double)) {
		out->kind = NUM_DOUBLE;
		out->d = json_object_get_double(j);
		return;
	}
	out->kind = NUM_INT;
	out->i = json_object_get_int64(j);
	if (out->i == INT64_MAX) {
		out->u = json_object_get_uint64(j);
		if (out->u > (uint64_t)INT64_MAX)
			out->kind = NUM_UINT;
	}
}

static int
cmp_frac(double d, double t)
{
	/* The integer part is equal; the fractional part of d decides. */
	return d > t ? -1 : d < t ? 1 : 0;
}

/* Compares an integer with a finite double exactly. */
static int
cmp_int_double(int64_t i, double d)
{
	double t;
	int64_t ti;

	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	t = trunc(d);
	ti = (int64_t)t;
	if (i != ti)
		return i < ti ? -1 : 1;
	return cmp_frac(d, t);
}

static int
cmp_uint_double(uint64_t u, double d)
{
	double t;
	uint64_t tu;

	if (d >= 18446744073709551616.0)
		return -1;
	if (d < 9223372036854775808.0)
		return 1;
	t = trunc(d);
	tu = (uint64_t)t;
	if (u != tu)
		return u < tu ? -1 : 1;
	return cmp_frac(d, t);
}

/* Compares two finite numbers exactly: -1, 0 or 1. */
static int
num_cmp(const struct num *a, const struct num *b)
{
	if (a->kind == NUM_DOUBLE && b->kind == NUM_DOUBLE)
		return a->d < b->d ? -1 : a->d > b->d ? 1 : 0;
	if (a->kind == NUM_DOUBLE)
		return -num_cmp(b, a);
	if (b->kind == NUM_DOUBLE)
		return a->kind == NUM_INT ? cmp_int_double(a->i, b->d) : cmp_uint_double(a->u, b->d);
	if (a->kind == NUM_UINT && b->kind == NUM_UINT)
		return a->u < b->u ? -1 : a->u > b->u ? 1 : 0;
	if (a->kind == NUM_UINT)
		return 1;
	if (b->kind == NUM_UINT)
		return -1;
	return a->i < b->i ? -1 : a->i > b->i ? 1 : 0;
}

static int
num_finite(const struct num *n)
{
	return n->kind != NUM_DOUBLE || isfinite(n->d);
}

static int
is_integral(struct json_object *j)
{
	double d;

	if (json_object_is_type(j, json_type_int))
		return 1;
	if (!json_object_is_type(j, json_type_double))
		return 0;
	d = json_object_get_double(j);
	return isfinite(d) && d == trunc(d);
}

/* JSON equality: numbers by value (1 equals 1.0), objects regardless of member order. */
static int
json_eq(struct json_object *a, struct json_object *b)
{
	struct json_object_iterator it, end;
	struct json_object *bv;
	struct num na, nb;
	size_t i, n;

	if (is_number(a) && is_number(b)) {
		num_get(&na, a);
		num_get(&nb, b);
		if (!num_finite(&na) || !num_finite(&nb))
			return 0;
		return num_cmp(&na, &nb) == 0;
	}
	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	switch (json_object_get_type(a)) {
	case json_type_null:
		return 1;
	case json_type_boolean:
		return !json_object_get_boolean(a) == !json_object_get_boolean(b);
	case json_type_string:
		n = (size_t)json_object_get_string_len(a);
		return n == (size_t)json_object_get_string_len(b) &&
		    memcmp(json_object_get_string(a), json_object_get_string(b), n) == 0;
	case json_type_array:
		n = json_object_array_length(a);
		if (n != json_object_array_length(b))
			return 0;
		for (i = 0; i < n; i++)
			if (!json_eq(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	case json_type_object:
		if (json_object_object_length(a) != json_object_object_length(b))
			return 0;
		it = json_object_iter_begin(a);
		end = json_object_iter_end(a);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			if (!json_object_object_get_ex(b, json_object_iter_peek_name(&it), &bv))
				return 0;
			if (!json_eq(json_object_iter_peek_value(&it), bv))
				return 0;
		}
		return 1;
	default:
		return 0;
	}
}

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return mix64(h);
}

/* A hash consistent with json_eq: equal values hash equally. */
static uint64_t
json_hash(struct json_object *j)
{
	struct json_object_iterator it, end;
	struct num n;
	uint64_t h, bits;
	size_t i, len;
	const char *k;

	switch (json_object_get_type(j)) {
	case json_type_null:
		return 1;
	case json_type_boolean:
		return json_object_get_boolean(j) ? 3 : 2;
	case json_type_int:
	case json_type_double:
		num_get(&n, j);
		if (n.kind == NUM_DOUBLE && n.d == trunc(n.d) && n.d >= -9223372036854775808.0 &&
		    n.d < 9223372036854775808.0) {
			n.kind = NUM_INT;
			n.i = (int64_t)n.d;
		} else if (n.kind == NUM_DOUBLE && n.d == trunc(n.d) && n.d >= 9223372036854775808.0 &&
		    n.d < 18446744073709551616.0) {
			n.kind = NUM_UINT;
			n.u = (uint64_t)n.d;
		}
		if (n.kind == NUM_INT)
			return mix64((uint64_t)n.i ^ 0x4e554d);
		if (n.kind == NUM_UINT)
			return mix64(n.u ^ 0x4e554d);
		memcpy(&bits, &n.d, sizeof(bits));
		return mix64(bits ^ 0x444f55);
	case json_type_string:
		return hash_bytes(json_object_get_string(j), (size_t)json_object_get_string_len(j));
	case json_type_array:
		h = 5;
		len = json_object_array_length(j);
		for (i = 0; i < len; i++)
			h = mix64(h * 31 + json_hash(json_object_array_get_idx(j, i)));
		return h;
	case json_type_object:
		h = 7;
		it = json_object_iter_begin(j);
		end = json_object_iter_end(j);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			k = json_object_iter_peek_name(&it);
			h += mix64(hash_bytes(k, strlen(k)) ^
			    (json_hash(json_object_iter_peek_value(&it)) * 0x9e3779b97f4a7c15ULL));
		}
		return h;
	default:
		return 0;
	}
}

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
		for (k = 0; k < sizeof(stypes) / sizeof(stypes[0]); k++)
			if (strcmp(t, stypes[k].name) == 0)
				break;
		if (k == sizeof(stypes) / sizeof(stypes[0]))
			return err_set(c->e, ERR_CONFIG, "schema at %s names unknown type '%s'",
			    where(c), t);
		if (n->types & stypes[k].bit)
			return err_set(c->e, ERR_CONFIG, "schema at %s repeats type '%s'", where(c), t);
		n->types |= stypes[k].bit;
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
		old = path_push(&c->where, "/properties/%s", n->props[n->n_props].name);
		rc = compile_node(c, &n->props[n->n_props].node, json_object_iter_peek_value(&it),
		    depth + 1);
		path_pop(&c->where, old);
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
	old = path_push(&c->where, "/%s", kw);
	rc = compile_node(c, &n->addl, v, depth + 1);
	path_pop(&c->where, old);
	return rc;
}

static int
kw_items(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	size_t old;
	int rc;

	if (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_boolean))
		return bad_value(c, kw, "a schema (the tuple form is not supported)");
	old = path_push(&c->where, "/%s", kw);
	rc = compile_node(c, &n->items, v, depth + 1);
	path_pop(&c->where, old);
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
	if (!is_number(v))
		return bad_value(c, kw, "a number");
	num_get(&x, v);
	if (!num_finite(&x))
		return bad_value(c, kw, "a finite number");
	n->bound[b] = v;
	return dup_json_text(c, &n->bound_text[b], v);
}

static int
kw_count(struct cctx *c, struct snode *n, const char *kw, struct json_object *v, int depth)
{
	int64_t x;

	if (!is_integral(v))
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
		old = path_push(&c->where, "/%s/%zu", kw, i);
		rc = compile_node(c, &(*list)[i], json_object_array_get_idx(v, i), depth + 1);
		path_pop(&c->where, old);
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
	path_push(&c.where, "%s", "#");
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

/* --- validating -------------------------------------------------------- */

struct vctx {
	const struct schema	*s;
	struct path		 path;		/* "filter.labels[2]"; empty at the root */
	char			*msg;
	size_t			 msglen;
	int			 type_fail;	/* the failure was a type mismatch ... */
	size_t			 fail_plen;	/* ... at a path this long */
	unsigned		 want;		/* ... wanting these ST_* bits */
};

static int __attribute__((format(printf, 2, 3)))
fail(struct vctx *v, const char *fmt, ...)
{
	va_list ap;
	int n;

	v->type_fail = 0;
	v->fail_plen = v->path.len;
	if (v->msg == NULL || v->msglen == 0)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(v->msg, v->msglen, fmt, ap);
	va_end(ap);
	if (n < 0)
		v->msg[0] = '\0';
	else if ((size_t)n >= v->msglen)
		v->msg[utf8_cut(v->msg, v->msglen - 1)] = '\0';
	return -1;
}

/* "argument 'x' <what>", or "arguments <what>" at the root. */
#define fail_arg(v, fmt, ...)							\
	((v)->path.len > 0 ?							\
	    fail((v), "argument '%s' " fmt, (v)->path.s, __VA_ARGS__) :		\
	    fail((v), "arguments " fmt, __VA_ARGS__))

static void
type_phrase(char *buf, size_t len, unsigned types)
{
	size_t i, n = 0, k = 0, used = 0;
	int w;

	if (types & ST_NUMBER)
		types &= ~(unsigned)ST_INTEGER;
	for (i = 0; i < sizeof(stypes) / sizeof(stypes[0]); i++)
		if (types & stypes[i].bit)
			n++;
	buf[0] = '\0';
	for (i = 0; i < sizeof(stypes) / sizeof(stypes[0]); i++) {
		if (!(types & stypes[i].bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
		    stypes[i].phrase);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
		k++;
	}
}

static int
type_ok(unsigned types, struct json_object *j)
{
	struct num n;

	switch (json_object_get_type(j)) {
	case json_type_null:
		return types & ST_NULL;
	case json_type_boolean:
		return types & ST_BOOLEAN;
	case json_type_string:
		return types & ST_STRING;
	case json_type_object:
		return types & ST_OBJECT;
	case json_type_array:
		return types & ST_ARRAY;
	case json_type_int:
	case json_type_double:
		num_get(&n, j);
		if (!num_finite(&n))
			return 0;
		if (types & ST_NUMBER)
			return 1;
		/*
		 * An integer is an integer token: 1.0 and 1e2 are refused, so no
		 * argument passes through a rounding.  json-c keeps integer tokens
		 * as json_type_int (saturated past 64 bits) and the others as doubles.
		 */
		return (types & ST_INTEGER) && json_object_is_type(j, json_type_int);
	default:
		return 0;
	}
}

static int validate_node(struct vctx *v, const struct snode *n, struct json_object *j);

/* Refuses strings with embedded NUL anywhere in the instance. */
static int
check_nul(struct vctx *v, struct json_object *j)
{
	struct json_object_iterator it, end;
	size_t i, len, old;
	int rc;

	switch (json_object_get_type(j)) {
	case json_type_string:
		if (strlen(json_object_get_string(j)) != (size_t)json_object_get_string_len(j))
			return fail_arg(v, "%s", "must not contain NUL bytes");
		return 0;
	case json_type_array:
		len = json_object_array_length(j);
		for (i = 0; i < len; i++) {
			old = path_push(&v->path, "[%zu]", i);
			rc = check_nul(v, json_object_array_get_idx(j, i));
			path_pop(&v->path, old);
			if (rc < 0)
				return rc;
		}
		return 0;
	case json_type_object:
		it = json_object_iter_begin(j);
		end = json_object_iter_end(j);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			old = path_push(&v->path, "%s%s", v->path.len ? "." : "",
			    json_object_iter_peek_name(&it));
			rc = check_nul(v, json_object_iter_peek_value(&it));
			path_pop(&v->path, old);
			if (rc < 0)
				return rc;
		}
		return 0;
	default:
		return 0;
	}
}

static int
check_number(struct vctx *v, const struct snode *n, struct json_object *j)
{
	struct num x, b;
	int c;

	num_get(&x, j);
	if (!num_finite(&x))
		return fail_arg(v, "%s", "must be a finite number");
	if (n->bound[B_MIN] != NULL) {
		num_get(&b, n->bound[B_MIN]);
		if (num_cmp(&x, &b) < 0)
			return fail_arg(v, "must be at least %s", n->bound_text[B_MIN]);
	}
	if (n->bound[B_MAX] != NULL) {
		num_get(&b, n->bound[B_MAX]);
		if (num_cmp(&x, &b) > 0)
			return fail_arg(v, "must be at most %s", n->bound_text[B_MAX]);
	}
	if (n->bound[B_XMIN] != NULL) {
		num_get(&b, n->bound[B_XMIN]);
		c = num_cmp(&x, &b);
		if (c <= 0)
			return fail_arg(v, "must be greater than %s", n->bound_text[B_XMIN]);
	}
	if (n->bound[B_XMAX] != NULL) {
		num_get(&b, n->bound[B_XMAX]);
		c = num_cmp(&x, &b);
		if (c >= 0)
			return fail_arg(v, "must be less than %s", n->bound_text[B_XMAX]);
	}
	return 0;
}

static int
check_string(struct vctx *v, const struct snode *n, struct json_object *j)
{
	pcre2_match_data *md = NULL;
	const char *s = json_object_get_string(j);
	size_t len = (size_t)json_object_get_string_len(j), cps = 0, i;
	int rc;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			cps++;
	if (n->min_len >= 0 && cps < (uint64_t)n->min_len) {
		rc = fail_arg(v, "must be at least %lld character%s long", (long long)n->min_len,
		    n->min_len == 1 ? "" : "s");
		goto done;
	}
	if (n->max_len >= 0 && cps > (uint64_t)n->max_len) {
		rc = fail_arg(v, "must be at most %lld character%s long", (long long)n->max_len,
		    n->max_len == 1 ? "" : "s");
		goto done;
	}
	rc = 0;
	if (n->re == NULL)
		goto done;
	md = pcre2_match_data_create(1, NULL);
	if (md == NULL) {
		rc = fail_arg(v, "%s", "could not be checked (out of memory)");
		goto done;
	}
	rc = pcre2_match(n->re, (PCRE2_SPTR)s, len, 0, 0, md, v->s->mctx);
	if (rc >= 0)
		rc = 0;
	else if (rc == PCRE2_ERROR_NOMATCH)
		rc = fail_arg(v, "must match pattern %s", n->pattern);
	else if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
		rc = fail_arg(v, "%s", "must be valid UTF-8");
	else
		rc = fail_arg(v, "is too complex to check against pattern %s", n->pattern);
done:
	pcre2_match_data_free(md);
	return rc;
}

struct hashed {
	uint64_t	h;
	size_t		idx;
};

static int
hashed_cmp(const void *a, const void *b)
{
	const struct hashed *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Finds the first pair of equal items in O(n log n); *dup_of < *dup when found. */
static int
find_duplicate(struct json_object *arr, size_t *dup, size_t *dup_of)
{
	struct hashed *h = NULL;
	size_t len = json_object_array_length(arr), i, k, best = SIZE_MAX, best_of = 0;
	int rc;

	if (len < 2) {
		rc = 0;
		goto done;
	}
	h = calloc(len, sizeof(*h));
	if (h == NULL) {
		rc = -1;
		goto done;
	}
	for (i = 0; i < len; i++) {
		h[i].h = json_hash(json_object_array_get_idx(arr, i));
		h[i].idx = i;
	}
	qsort(h, len, sizeof(*h), hashed_cmp);
	for (i = 0; i < len; i++)
		for (k = i + 1; k < len && h[k].h == h[i].h; k++)
			if (h[k].idx < best && json_eq(json_object_array_get_idx(arr, h[i].idx),
			    json_object_array_get_idx(arr, h[k].idx))) {
				best = h[k].idx;
				best_of = h[i].idx;
				break;
			}
	if (best != SIZE_MAX) {
		*dup = best;
		*dup_of = best_of;
		rc = 1;
	} else
		rc = 0;
done:
	free(h);
	return rc;
}

static int
check_array(struct vctx *v, const struct snode *n, struct json_object *j)
{
	size_t len = json_object_array_length(j), i, old, dup = 0, dup_of = 0;
	int rc;

	if (n->min_items >= 0 && len < (uint64_t)n->min_items)
		return fail_arg(v, "must have at least %lld item%s", (long long)n->min_items,
		    n->min_items == 1 ? "" : "s");
	if (n->max_items >= 0 && len > (uint64_t)n->max_items)
		return fail_arg(v, "must have at most %lld item%s", (long long)n->max_items,
		    n->max_items == 1 ? "" : "s");
	if (n->unique) {
		rc = find_duplicate(j, &dup, &dup_of);
		if (rc < 0)
			return fail_arg(v, "%s", "could not be checked (out of memory)");
		if (rc > 0)
			return fail_arg(v, "must not contain duplicate items (item %zu repeats item %zu)",
			    dup, dup_of);
	}
	if (n->items == NULL)
		return 0;
	for (i = 0; i < len; i++) {
		old = path_push(&v->path, "[%zu]", i);
		rc = validate_node(v, n->items, json_object_array_get_idx(j, i));
		path_pop(&v->path, old);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static const struct snode *
find_prop(const struct snode *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->n_props; i++)
		if (strcmp(n->props[i].name, name) == 0)
			return n->props[i].node;
	return NULL;
}

static int
check_object(struct vctx *v, const struct snode *n, struct json_object *j)
{
	struct json_object_iterator it, end;
	const struct snode *sub;
	const char *name;
	size_t i, old;
	int rc;

	for (i = 0; i < n->n_required; i++) {
		if (json_object_object_get_ex(j, n->required[i], NULL))
			continue;
		old = path_push(&v->path, "%s%s", v->path.len ? "." : "", n->required[i]);
		rc = fail(v, "missing required argument '%s'", v->path.s);
		path_pop(&v->path, old);
		return rc;
	}
	it = json_object_iter_begin(j);
	end = json_object_iter_end(j);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		name = json_object_iter_peek_name(&it);
		sub = find_prop(n, name);
		if (sub == NULL)
			sub = n->addl;
		old = path_push(&v->path, "%s%s", v->path.len ? "." : "", name);
		if (sub != NULL)
			rc = validate_node(v, sub, json_object_iter_peek_value(&it));
		else if (n->addl_false)
			rc = fail(v, "unknown argument '%s'", v->path.s);
		else
			rc = 0;
		path_pop(&v->path, old);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Reports why no alternative matched: a combined type list when every
 * alternative wanted another type, the one alternative of the right type
 * when there is exactly one, or each message in turn.
 */
static int
fail_alternatives(struct vctx *v, struct snode *const *alt, size_t nalt, struct json_object *j)
{
	char each[1024], one[512], types[128];
	struct vctx sub;
	size_t i, used = 0, typed = 0, last = 0;
	unsigned want = 0;
	int w, rc;

	each[0] = '\0';
	for (i = 0; i < nalt; i++) {
		sub = *v;
		sub.msg = one;
		sub.msglen = sizeof(one);
		sub.type_fail = 0;
		if (validate_node(&sub, alt[i], j) == 0)
			continue;	/* cannot happen: the caller saw all fail */
		if (sub.type_fail && sub.fail_plen == v->path.len)
			want |= sub.want;
		else {
			typed++;
			last = i;
		}
		if (used < sizeof(each)) {
			w = snprintf(each + used, sizeof(each) - used, "%s%s", i ? "; or " : "", one);
			if (w > 0)
				used += (size_t)w;
		}
	}
	if (typed == 0) {
		type_phrase(types, sizeof(types), want);
		rc = fail_arg(v, "must be %s", types);
		v->type_fail = 1;
		v->want = want;
		return rc;
	}
	if (typed == 1)
		return validate_node(v, alt[last], j);
	if (used >= sizeof(each))
		each[utf8_cut(each, sizeof(each) - 1)] = '\0';
	return fail_arg(v, "matches none of the allowed forms: %s", each);
}

static int
validate_node(struct vctx *v, const struct snode *n, struct json_object *j)
{
	char types[128];
	size_t i, matched = 0, first = 0;
	struct vctx quiet;
	int rc;

	if (n->never)
		return fail_arg(v, "%s", "is not allowed");
	if (n->types != 0 && !type_ok(n->types, j)) {
		type_phrase(types, sizeof(types), n->types);
		rc = fail_arg(v, "must be %s", types);
		v->type_fail = 1;
		v->want = n->types;
		return rc;
	}
	if (n->has_const && !json_eq(j, n->constv))
		return fail_arg(v, "must be %s", n->const_text);
	if (n->enumv != NULL) {
		for (i = 0; i < json_object_array_length(n->enumv); i++)
			if (json_eq(j, json_object_array_get_idx(n->enumv, i)))
				break;
		if (i == json_object_array_length(n->enumv))
			return fail_arg(v, "must be one of: %s", n->enum_text);
	}
	switch (json_object_get_type(j)) {
	case json_type_int:
	case json_type_double:
		rc = check_number(v, n, j);
		break;
	case json_type_string:
		rc = check_string(v, n, j);
		break;
	case json_type_array:
		rc = check_array(v, n, j);
		break;
	case json_type_object:
		rc = check_object(v, n, j);
		break;
	default:
		rc = 0;
		break;
	}
	if (rc < 0)
		return rc;
	if (n->n_any_of > 0) {
		for (i = 0; i < n->n_any_of; i++) {
			quiet = *v;
			quiet.msg = NULL;
			quiet.msglen = 0;
			if (validate_node(&quiet, n->any_of[i], j) == 0)
				break;
		}
		if (i == n->n_any_of)
			return fail_alternatives(v, n->any_of, n->n_any_of, j);
	}
	if (n->n_one_of > 0) {
		for (i = 0; i < n->n_one_of; i++) {
			quiet = *v;
			quiet.msg = NULL;
			quiet.msglen = 0;
			if (validate_node(&quiet, n->one_of[i], j) != 0)
				continue;
			if (matched++ == 0)
				first = i;
			else
				return fail_arg(v, "must match exactly one allowed form, "
				    "but matches forms %zu and %zu", first + 1, i + 1);
		}
		if (matched == 0)
			return fail_alternatives(v, n->one_of, n->n_one_of, j);
	}
	return 0;
}

/*
 * Validates instance against s.  Returns 0, or -1 with a message naming
 * the argument path ("filter.labels[2]") written into msg (UTF-8, cut at a
 * character boundary to fit msglen).  Does no parsing and no writes to s.
 */
int
schema_validate(const struct schema *s, struct json_object *instance, char *msg, size_t msglen)
{
	struct vctx v;

	memset(&v, 0, sizeof(v));
	v.s = s;
	v.msg = msg;
	v.msglen = msglen;
	if (msg != NULL && msglen > 0)
		msg[0] = '\0';
	if (check_nul(&v, instance) < 0)
		return -1;
	return validate_node(&v, s->root, instance) < 0 ? -1 : 0;
}
