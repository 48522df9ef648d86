/* json: strict parsing of request bodies and typed json-c accessors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <json-c/printbuf.h>

#include "json.h"

size_t
json_utf8_len(const char *buf, size_t n)
{
	const unsigned char	*p = (const unsigned char *)buf;
	size_t			 len, i;
	uint32_t		 cp;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

size_t
json_utf8_take(const char *s, size_t len, size_t max, size_t *chars)
{
	size_t	at = 0, k, n = 0;

	for (; at < len && n < max; at += k, n++)
		if ((k = json_utf8_len(s + at, len - at)) == 0)
			k = 1;
	if (chars != NULL)
		*chars = n;
	return at;
}

size_t
json_utf8_cut(const char *s, size_t len)
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

int
json_utf8_valid(const char *buf, size_t len)
{
	const unsigned char	*s = (const unsigned char *)buf;
	size_t			 i = 0, k;

	while (i < len) {
		if (s[i] < 0x80) {
			uint64_t w;

			/* ASCII runs, the common case, eight bytes at a time */
			while (len - i >= 8) {
				memcpy(&w, s + i, 8);
				if (w & UINT64_C(0x8080808080808080))
					break;
				i += 8;
			}
			if (i < len && s[i] < 0x80)
				i++;
			continue;
		}
		if ((k = json_utf8_len(buf + i, len - i)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* What may appear outside strings in standard JSON. */
#define JSON_BARE_CHARS	"{}[]:,-+.0123456789eEtruefalsn \t\r\n"

static int
json_digit(const char *buf, size_t i, size_t len)
{
	return i < len && buf[i] >= '0' && buf[i] <= '9';
}

/*
 * The length of the RFC 8259 number at buf[i] (a '-' or a digit), or 0 when
 * it is not one: json-c also takes "1." and "-01".
 */
static size_t
json_number_len(const char *buf, size_t i, size_t len)
{
	size_t	start = i;

	if (buf[i] == '-')
		i++;
	if (!json_digit(buf, i, len))
		return 0;
	if (buf[i++] != '0')
		while (json_digit(buf, i, len))
			i++;
	if (i < len && buf[i] == '.') {
		if (!json_digit(buf, ++i, len))
			return 0;
		while (json_digit(buf, i, len))
			i++;
	}
	if (i < len && (buf[i] == 'e' || buf[i] == 'E')) {
		i++;
		if (i < len && (buf[i] == '+' || buf[i] == '-'))
			i++;
		if (!json_digit(buf, i, len))
			return 0;
		while (json_digit(buf, i, len))
			i++;
	}
	if (json_digit(buf, i, len) || (i < len && strchr("+-.eE", buf[i]) != NULL &&
	    buf[i] != '\0'))
		return 0;
	return i - start;
}

/*
 * One pass over the raw text for what json-c lets through or counts
 * differently: characters outside strings that standard JSON does not
 * allow (json-c's strict mode still takes single quotes), raw control
 * characters inside strings, numbers outside the RFC 8259 grammar, lone
 * surrogate escapes (json-c turns them into U+FFFD), container nesting
 * deeper than JSON_MAX_DEPTH, and keys holding U+0000 (json-c would cut
 * them there).  Counts the object members into *members, for the
 * repeated-key check.
 */
static enum json_perr
json_precheck(const char *buf, size_t len, size_t *members)
{
	size_t		i, n;
	int		in_str = 0, k, depth = 0, str_nul = 0;
	unsigned	u, prev_high = 0;

	*members = 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (!in_str) {
			if (c == '"')
				in_str = 1;
			else if (c == ':')
				(*members)++;	/* outside strings, only a member has one */
			else if (c == '[' || c == '{') {
				if (++depth > JSON_MAX_DEPTH)
					return JSON_PERR_DEPTH;
			} else if (c == ']' || c == '}')
				depth--;
			else if (c == '-' || (c >= '0' && c <= '9')) {
				if ((n = json_number_len(buf, i, len)) == 0)
					return JSON_PERR_SYNTAX;
				i += n - 1;
			} else if (c == '\0' || !strchr(JSON_BARE_CHARS, c))
				return JSON_PERR_SYNTAX;
			continue;
		}
		if (c < 0x20)
			return JSON_PERR_SYNTAX;
		if (c == '"') {
			if (prev_high)
				return JSON_PERR_UTF8;
			in_str = 0;
			/* json-c cuts a key at U+0000: "method\u0000x" would be "method". */
			if (str_nul) {
				size_t j = i + 1;
				while (j < len && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' ||
				    buf[j] == '\n'))
					j++;
				if (j < len && buf[j] == ':')
					return JSON_PERR_KEYNUL;
			}
			str_nul = 0;
			continue;
		}
		if (c != '\\') {
			if (prev_high)
				return JSON_PERR_UTF8;
			continue;
		}
		if (i + 1 >= len)
			return JSON_PERR_NONE;	/* truncated: the parser says so */
		if (buf[i + 1] != 'u') {
			if (prev_high)
				return JSON_PERR_UTF8;
			i++;
			continue;
		}
		if (i + 5 >= len)
			return JSON_PERR_NONE;
		u = 0;
		for (k = 2; k < 6; k++) {
			int h = hexval((unsigned char)buf[i + (size_t)k]);
			if (h < 0)
				return JSON_PERR_NONE;	/* the parser reports it */
			u = (u << 4) | (unsigned)h;
		}
		i += 5;
		if (u == 0)
			str_nul = 1;
		if (u >= 0xd800 && u <= 0xdbff) {
			if (prev_high)
				return JSON_PERR_UTF8;
			prev_high = 1;
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			if (!prev_high)
				return JSON_PERR_UTF8;
			prev_high = 0;
		} else if (prev_high)
			return JSON_PERR_UTF8;
	}
	return JSON_PERR_NONE;
}

/* How many object members v holds at every level (json-c keeps one per key). */
static size_t
json_count_members(struct json_object *v)
{
	struct json_object_iterator	it, end;
	size_t				n = 0, i, len;

	if (json_object_is_type(v, json_type_array)) {
		len = json_object_array_length(v);
		for (i = 0; i < len; i++)
			n += json_count_members(json_object_array_get_idx(v, i));
	} else if (json_object_is_type(v, json_type_object)) {
		it = json_object_iter_begin(v);
		end = json_object_iter_end(v);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
			n += 1 + json_count_members(json_object_iter_peek_value(&it));
	}
	return n;
}

struct json_object *
json_parse_strict(const char *buf, size_t len, enum json_perr *perr)
{
	struct json_tokener		*tok = NULL;
	struct json_object		*v = NULL;
	enum json_tokener_error		 jerr;
	size_t				 end, members;

	*perr = JSON_PERR_NONE;
	if (buf == NULL || len == 0 || len > (size_t)0x7fffffff) {
		*perr = JSON_PERR_SYNTAX;
		return NULL;
	}
	if (memchr(buf, '\0', len) != NULL) {
		*perr = JSON_PERR_SYNTAX;
		return NULL;
	}
	if (!json_utf8_valid(buf, len)) {
		*perr = JSON_PERR_UTF8;
		return NULL;
	}
	if ((*perr = json_precheck(buf, len, &members)) != JSON_PERR_NONE)
		return NULL;
	/* json-c counts a scalar as a level: the precheck enforces the real limit. */
	if ((tok = json_tokener_new_ex(JSON_MAX_DEPTH + 2)) == NULL) {
		*perr = JSON_PERR_NOMEM;
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	v = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (v == NULL && jerr == json_tokener_continue) {
		/* A bare top-level number or literal waits for more: end the input. */
		v = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		end = len;
	}
	if (jerr != json_tokener_success) {
		if (jerr == json_tokener_error_depth)
			*perr = JSON_PERR_DEPTH;
		else if (jerr == json_tokener_error_parse_utf8_string)
			*perr = JSON_PERR_UTF8;
		else
			*perr = JSON_PERR_SYNTAX;
		json_object_put(v);
		v = NULL;
		goto done;
	}
	/* Only whitespace may follow the value. */
	for (size_t i = end; i < len; i++) {
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r' && buf[i] != '\n') {
			*perr = JSON_PERR_SYNTAX;
			json_object_put(v);
			v = NULL;
			goto done;
		}
	}
	/* json-c keeps the last of repeated keys: a member went missing. */
	if (json_count_members(v) != members) {
		*perr = JSON_PERR_DUPKEY;
		json_object_put(v);
		v = NULL;
	}
done:
	json_tokener_free(tok);
	return v;
}

static const char *const json_perr_texts[] = {
	"no error",				/* JSON_PERR_NONE */
	"Parse error: the body is not valid JSON",	/* JSON_PERR_SYNTAX */
	"Parse error: JSON nested deeper than 64 levels",	/* JSON_PERR_DEPTH */
	"Parse error: the body is not valid UTF-8",	/* JSON_PERR_UTF8 */
	"Parse error: out of memory",		/* JSON_PERR_NOMEM */
	"Parse error: a key is repeated in a JSON object",	/* JSON_PERR_DUPKEY */
	"Parse error: an object key contains U+0000",	/* JSON_PERR_KEYNUL */
};

const char *
json_perr_text(enum json_perr e)
{
	if ((unsigned)e >= JSON_PERR__MAX)
		return "Parse error";
	return json_perr_texts[e];
}

struct json_object *
json_get(struct json_object *o, const char *key)
{
	struct json_object	*v = NULL;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *
json_get_str(struct json_object *o, const char *key)
{
	struct json_object	*v = json_get(o, key);

	if (v == NULL || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
json_is_type(struct json_object *o, enum json_type t)
{
	return o != NULL && json_object_is_type(o, t);
}

int
json_str_has_nul(struct json_object *s)
{
	const char	*p;
	int		 n;

	if (!json_is_type(s, json_type_string))
		return 0;
	p = json_object_get_string(s);
	n = json_object_get_string_len(s);
	return n < 0 || memchr(p, '\0', (size_t)n) != NULL;
}

const char *
json_dump(struct json_object *o, size_t *lenp)
{
	return json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, lenp);
}

/*
 * Long strings -- file contents, diffs, a tool's text block, which is the
 * JSON of its structured result once more -- are most of what a read tool
 * sends.  json-c escapes them a byte at a time, about 1 ns a byte here;
 * json_escape_long looks at 16 bytes at a time (about 0.2 ns a byte) and
 * writes the same bytes as json-c: \" \\ \b \f \n \r \t, \u00XX for the
 * other control characters, \/ unless JSON_C_TO_STRING_NOSLASHESCAPE.
 */
#define JSON_LONG_STRING	128		/* shorter ones are left to json-c */
#define JSON_ESC_CHUNK		2048		/* input bytes escaped per append */

/* The escaped form of byte c, which needs one, at o; returns its length. */
static size_t
json_escape_byte(unsigned char c, char *o)
{
	static const char	 hex[] = "0123456789abcdef";
	static const char	 letter[] = "btn?fr";	/* for 0x08 to 0x0d, not 0x0b */

	o[0] = '\\';
	if (c == '"' || c == '\\' || c == '/') {
		o[1] = (char)c;
		return 2;
	}
	if (c >= 0x08 && c <= 0x0d && c != 0x0b) {
		o[1] = letter[c - 0x08];
		return 2;
	}
	memcpy(o + 1, "u00", 3);
	o[4] = hex[c >> 4];
	o[5] = hex[c & 15];
	return 6;
}

static int
json_needs_escape(unsigned char c, int slash)
{
	return c < 0x20 || c == '"' || c == '\\' || (slash && c == '/');
}

/* Escapes n bytes of s into o (room for 6 * n); returns the length written. */
static size_t
json_escape_run(const unsigned char *s, size_t n, char *o, int slash)
{
	const unsigned char	*e = s + n;
	char			*o0 = o;

#ifdef __SSE2__
	const __m128i		 ctl = _mm_set1_epi8(0x1f), quote = _mm_set1_epi8('"');
	const __m128i		 bsl = _mm_set1_epi8('\\');
	const __m128i		 sl = _mm_set1_epi8(slash ? '/' : '"');

	while (e - s >= 16) {
		__m128i		 x = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i		 hit;
		unsigned	 m, k;

		/* x <= 0x1f (unsigned), '"', '\\', and '/' when asked */
		hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x),
		    _mm_or_si128(_mm_cmpeq_epi8(x, quote),
		    _mm_or_si128(_mm_cmpeq_epi8(x, bsl), _mm_cmpeq_epi8(x, sl))));
		_mm_storeu_si128((__m128i *)(void *)o, x);
		if ((m = (unsigned)_mm_movemask_epi8(hit)) == 0) {
			s += 16;
			o += 16;
			continue;
		}
		k = (unsigned)__builtin_ctz(m);
		s += k;
		o += k;
		o += json_escape_byte(*s++, o);
	}
#endif
	while (s < e) {
		if (json_needs_escape(*s, slash))
			o += json_escape_byte(*s, o);
		else
			*o++ = (char)*s;
		s++;
	}
	return (size_t)(o - o0);
}

static int
json_long_to_json_string(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	const unsigned char	*s = (const unsigned char *)json_object_get_string(o);
	size_t			 n = (size_t)json_object_get_string_len(o), k;
	char			 out[JSON_ESC_CHUNK * 6];
	int			 slash = !(flags & JSON_C_TO_STRING_NOSLASHESCAPE);

	(void)level;
	if (printbuf_memappend(pb, "\"", 1) < 0)
		return -1;
	while (n > 0) {
		k = n < JSON_ESC_CHUNK ? n : JSON_ESC_CHUNK;
		if (printbuf_memappend(pb, out, (int)json_escape_run(s, k, out, slash)) < 0)
			return -1;
		s += k;
		n -= k;
	}
	return printbuf_memappend(pb, "\"", 1) < 0 ? -1 : 0;
}

struct json_object *
json_new_string_long(const char *text, size_t len)
{
	struct json_object	*s;

	if (len > INT32_MAX || (s = json_object_new_string_len(text, (int)len)) == NULL)
		return NULL;
	if (len >= JSON_LONG_STRING)
		json_object_set_serializer(s, json_long_to_json_string, NULL, NULL);
	return s;
}

struct json_object *
json_new_string_repaired(const char *text, size_t len)
{
	struct json_object	*s;
	char			*fixed, *p;
	size_t			 i, k;

	if (json_utf8_valid(text, len))
		return json_new_string_long(text, len);
	if (len > SIZE_MAX / 3 || (fixed = malloc(len * 3 + 1)) == NULL)
		return NULL;
	p = fixed;
	for (i = 0; i < len; ) {
		if ((k = json_utf8_len(text + i, len - i)) != 0) {
			memcpy(p, text + i, k);
			p += k;
			i += k;
			continue;
		}
		memcpy(p, "\xef\xbf\xbd", 3);
		p += 3;
		i++;
	}
	*p = '\0';
	s = json_new_string_long(fixed, (size_t)(p - fixed));
	free(fixed);
	return s;
}
