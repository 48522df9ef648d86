/* json: strict parsing of untrusted JSON and small json-c helpers. */
#ifndef FM_JSON_H
#define FM_JSON_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define JSON_MAX_DEPTH	64

enum json_perr {
	JSON_PERR_NONE,		/* JSON_PERR_NONE */
	JSON_PERR_SYNTAX,	/* JSON_PERR_SYNTAX: not JSON, truncated, trailing bytes */
	JSON_PERR_DEPTH,	/* JSON_PERR_DEPTH: nested deeper than JSON_MAX_DEPTH */
	JSON_PERR_UTF8,		/* JSON_PERR_UTF8: invalid UTF-8 or a lone surrogate escape */
	JSON_PERR_NOMEM,	/* JSON_PERR_NOMEM */
	JSON_PERR_DUPKEY,	/* JSON_PERR_DUPKEY: a key repeated within one object */
	JSON_PERR_KEYNUL,	/* JSON_PERR_KEYNUL: an object key holding U+0000 */
	JSON_PERR__MAX
};

/*
 * Parses exactly one JSON value from buf[0..len): UTF-8 validated, depth at
 * most JSON_MAX_DEPTH, nothing but whitespace after it, no raw NUL bytes, no
 * key repeated within an object (readers that keep the first and readers
 * that keep the last would see different requests) and no key holding
 * U+0000 (string values may; the tool gate refuses them with a message).
 * Returns the value (caller puts it) or NULL with *perr set; the JSON
 * literal null is also NULL, with *perr JSON_PERR_NONE.
 */
struct json_object *json_parse_strict(const char *buf, size_t len, enum json_perr *perr);
const char	*json_perr_text(enum json_perr e);

/* Typed getters: return NULL/0 unless the member exists with that exact type. */
struct json_object *json_get(struct json_object *o, const char *key);
const char	*json_get_str(struct json_object *o, const char *key);
int		 json_is_type(struct json_object *o, enum json_type t);
/* Whether a string value contains an embedded NUL. */
int		 json_str_has_nul(struct json_object *s);
/* Compact serialisation without escaping '/'; owned by the object. */
const char	*json_dump(struct json_object *o, size_t *lenp);
/*
 * A JSON string of text, with any byte that is not valid UTF-8 replaced by
 * U+FFFD (for git content a model reads); NULL on allocation failure.
 */
struct json_object *json_new_string_repaired(const char *text, size_t len);
/*
 * A string value (len bytes, valid UTF-8) whose serialisation, when it is
 * long, escapes 16 bytes at a time; the bytes written are json-c's.
 */
struct json_object *json_new_string_long(const char *text, size_t len);
/*
 * The byte length of the valid UTF-8 sequence at buf (n bytes left; no
 * overlongs, no surrogates, <= U+10FFFF), 0 when it is not one.
 */
size_t		 json_utf8_len(const char *buf, size_t n);
/* Whether buf is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
int		 json_utf8_valid(const char *buf, size_t len);
/*
 * The bytes of the first max characters of s (len bytes; a byte that is
 * not valid UTF-8 counts as one); *chars (may be NULL) the characters taken.
 */
size_t		 json_utf8_take(const char *s, size_t len, size_t max, size_t *chars);
/*
 * The length s (len bytes) keeps when cut back so that it does not end
 * inside a UTF-8 sequence: for a text snprintf truncated.
 */
size_t		 json_utf8_cut(const char *s, size_t len);

#endif
