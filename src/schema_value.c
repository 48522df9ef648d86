/* schema_value: the schema module's value helpers: error paths, exact number comparison, JSON equality and hashing. */
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
#include "json.h"
#include "schema.h"
#include "schema-int.h"

/* ST_* bit by bit. */
const struct schema_type schema_types[7] = {
	{ "integer", ST_INTEGER, "an integer" },	/* ST_INTEGER */
	{ "number", ST_NUMBER, "a number" },		/* ST_NUMBER */
	{ "string", ST_STRING, "a string" },		/* ST_STRING */
	{ "boolean", ST_BOOLEAN, "a boolean" },		/* ST_BOOLEAN */
	{ "object", ST_OBJECT, "an object" },		/* ST_OBJECT */
	{ "array", ST_ARRAY, "an array" },		/* ST_ARRAY */
	{ "null", ST_NULL, "null" },			/* ST_NULL */
};

size_t __attribute__((format(printf, 2, 3)))
schema_path_push(struct path *p, const char *fmt, ...)
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
		p->len = json_utf8_cut(p->s, sizeof(p->s) - 1);
	else
		p->len += (size_t)n;
	p->s[p->len] = '\0';
	return old;
}

void
schema_path_pop(struct path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

/* --- numbers and equality --------------------------------------------- */


int
schema_is_number(struct json_object *j)
{
	return json_object_is_type(j, json_type_int) || json_object_is_type(j, json_type_double);
}

void
schema_num_get(struct num *out, struct json_object *j)
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
int
schema_num_cmp(const struct num *a, const struct num *b)
{
	if (a->kind == NUM_DOUBLE && b->kind == NUM_DOUBLE)
		return a->d < b->d ? -1 : a->d > b->d ? 1 : 0;
	if (a->kind == NUM_DOUBLE)
		return -schema_num_cmp(b, a);
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

int
schema_num_finite(const struct num *n)
{
	return n->kind != NUM_DOUBLE || isfinite(n->d);
}

int
schema_is_integral(struct json_object *j)
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
int
schema_eq(struct json_object *a, struct json_object *b)
{
	struct json_object_iterator it, end;
	struct json_object *bv;
	struct num na, nb;
	size_t i, n;

	if (schema_is_number(a) && schema_is_number(b)) {
		schema_num_get(&na, a);
		schema_num_get(&nb, b);
		if (!schema_num_finite(&na) || !schema_num_finite(&nb))
			return 0;
		return schema_num_cmp(&na, &nb) == 0;
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
			if (!schema_eq(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
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
			if (!schema_eq(json_object_iter_peek_value(&it), bv))
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

/* A hash consistent with schema_eq: equal values hash equally. */
uint64_t
schema_hash(struct json_object *j)
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
		schema_num_get(&n, j);
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
			h = mix64(h * 31 + schema_hash(json_object_array_get_idx(j, i)));
		return h;
	case json_type_object:
		h = 7;
		it = json_object_iter_begin(j);
		end = json_object_iter_end(j);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			k = json_object_iter_peek_name(&it);
			h += mix64(hash_bytes(k, strlen(k)) ^
			    (schema_hash(json_object_iter_peek_value(&it)) * 0x9e3779b97f4a7c15ULL));
		}
		return h;
	default:
		return 0;
	}
}
