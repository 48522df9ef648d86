/*
 * schema-int: what the schema compiler (schema.c), its validator
 * (schema_validate.c) and the value helpers (schema_value.c) share; not for
 * use outside them.
 */
#ifndef FM_SCHEMA_INT_H
#define FM_SCHEMA_INT_H
#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <json-c/json.h>

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

struct schema_type {
	const char	*name;
	unsigned	 bit;
	const char	*phrase;
};
/* Type names, bits and phrases, one row per ST_* bit. */
extern const struct schema_type schema_types[7];

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

/* Appends to p; returns the old length, for schema_path_pop. */
size_t	schema_path_push(struct path *p, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Cuts p back to length old. */
void	schema_path_pop(struct path *p, size_t old);
/* Whether j is a JSON number (integer or double). */
int	schema_is_number(struct json_object *j);
/* j (a number) as a struct num. */
void	schema_num_get(struct num *out, struct json_object *j);
/* Compares two finite numbers exactly: -1, 0 or 1. */
int	schema_num_cmp(const struct num *a, const struct num *b);
/* Whether n is finite (integers always are). */
int	schema_num_finite(const struct num *n);
/* Whether j is an integer, or a double with no fractional part. */
int	schema_is_integral(struct json_object *j);
/* JSON equality: numbers by value (1 equals 1.0), objects regardless of member order. */
int	schema_eq(struct json_object *a, struct json_object *b);
/* A hash consistent with schema_eq: equal values hash equally. */
uint64_t	schema_hash(struct json_object *j);

#endif
