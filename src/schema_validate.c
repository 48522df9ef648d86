/* schema_validate: validates tool arguments against a compiled schema. */
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
		v->msg[json_utf8_cut(v->msg, v->msglen - 1)] = '\0';
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
	for (i = 0; i < sizeof(schema_types) / sizeof(schema_types[0]); i++)
		if (types & schema_types[i].bit)
			n++;
	buf[0] = '\0';
	for (i = 0; i < sizeof(schema_types) / sizeof(schema_types[0]); i++) {
		if (!(types & schema_types[i].bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
		    schema_types[i].phrase);
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
		schema_num_get(&n, j);
		if (!schema_num_finite(&n))
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
			old = schema_path_push(&v->path, "[%zu]", i);
			rc = check_nul(v, json_object_array_get_idx(j, i));
			schema_path_pop(&v->path, old);
			if (rc < 0)
				return rc;
		}
		return 0;
	case json_type_object:
		it = json_object_iter_begin(j);
		end = json_object_iter_end(j);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			old = schema_path_push(&v->path, "%s%s", v->path.len ? "." : "",
			    json_object_iter_peek_name(&it));
			rc = check_nul(v, json_object_iter_peek_value(&it));
			schema_path_pop(&v->path, old);
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

	schema_num_get(&x, j);
	if (!schema_num_finite(&x))
		return fail_arg(v, "%s", "must be a finite number");
	if (n->bound[B_MIN] != NULL) {
		schema_num_get(&b, n->bound[B_MIN]);
		if (schema_num_cmp(&x, &b) < 0)
			return fail_arg(v, "must be at least %s", n->bound_text[B_MIN]);
	}
	if (n->bound[B_MAX] != NULL) {
		schema_num_get(&b, n->bound[B_MAX]);
		if (schema_num_cmp(&x, &b) > 0)
			return fail_arg(v, "must be at most %s", n->bound_text[B_MAX]);
	}
	if (n->bound[B_XMIN] != NULL) {
		schema_num_get(&b, n->bound[B_XMIN]);
		c = schema_num_cmp(&x, &b);
		if (c <= 0)
			return fail_arg(v, "must be greater than %s", n->bound_text[B_XMIN]);
	}
	if (n->bound[B_XMAX] != NULL) {
		schema_num_get(&b, n->bound[B_XMAX]);
		c = schema_num_cmp(&x, &b);
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
		h[i].h = schema_hash(json_object_array_get_idx(arr, i));
		h[i].idx = i;
	}
	qsort(h, len, sizeof(*h), hashed_cmp);
	for (i = 0; i < len; i++)
		for (k = i + 1; k < len && h[k].h == h[i].h; k++)
			if (h[k].idx < best && schema_eq(json_object_array_get_idx(arr, h[i].idx),
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
		old = schema_path_push(&v->path, "[%zu]", i);
		rc = validate_node(v, n->items, json_object_array_get_idx(j, i));
		schema_path_pop(&v->path, old);
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
		old = schema_path_push(&v->path, "%s%s", v->path.len ? "." : "", n->required[i]);
		rc = fail(v, "missing required argument '%s'", v->path.s);
		schema_path_pop(&v->path, old);
		return rc;
	}
	it = json_object_iter_begin(j);
	end = json_object_iter_end(j);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		name = json_object_iter_peek_name(&it);
		sub = find_prop(n, name);
		if (sub == NULL)
			sub = n->addl;
		old = schema_path_push(&v->path, "%s%s", v->path.len ? "." : "", name);
		if (sub != NULL)
			rc = validate_node(v, sub, json_object_iter_peek_value(&it));
		else if (n->addl_false)
			rc = fail(v, "unknown argument '%s'", v->path.s);
		else
			rc = 0;
		schema_path_pop(&v->path, old);
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
		each[json_utf8_cut(each, sizeof(each) - 1)] = '\0';
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
	if (n->has_const && !schema_eq(j, n->constv))
		return fail_arg(v, "must be %s", n->const_text);
	if (n->enumv != NULL) {
		for (i = 0; i < json_object_array_length(n->enumv); i++)
			if (schema_eq(j, json_object_array_get_idx(n->enumv, i)))
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
