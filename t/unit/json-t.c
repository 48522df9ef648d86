/* json-t: unit tests for the strict JSON parser and UTF-8 validation. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tap.h"

static enum json_perr
perr_of(const char *s, size_t len)
{
	struct json_object	*v;
	enum json_perr		 e;

	v = json_parse_strict(s, len, &e);
	json_object_put(v);
	return e;
}

#define PERR(s)	perr_of((s), sizeof(s) - 1)

/*
 * Whether json_new_string_long(s) serialises to json-c's own bytes for s,
 * with and without JSON_C_TO_STRING_NOSLASHESCAPE.
 */
static int
same_as_json_c(const char *s, size_t len)
{
	static const int	 flags[] = { JSON_C_TO_STRING_PLAIN,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE };
	struct json_object	*ours, *theirs;
	const char		*a, *b;
	size_t			 i, alen, blen;
	int			 same = 1;

	ours = json_new_string_long(s, len);
	theirs = json_object_new_string_len(s, (int)len);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		a = json_object_to_json_string_length(ours, flags[i], &alen);
		b = json_object_to_json_string_length(theirs, flags[i], &blen);
		if (a == NULL || b == NULL || alen != blen || memcmp(a, b, alen) != 0)
			same = 0;
	}
	json_object_put(ours);
	json_object_put(theirs);
	return same;
}

/* Every byte value at positions around the 16-byte steps, in strings of len. */
static int
every_byte_escaped_alike(size_t len)
{
	const size_t	 pos[] = { 0, 1, 14, 15, 16, 17, 31, 32, 100 };
	char		 s[256];
	size_t		 p;
	int		 c, bad = 0;

	for (p = 0; p < sizeof(pos) / sizeof(pos[0]); p++) {
		if (pos[p] >= len)
			continue;
		for (c = 0; c < 256; c++) {
			memset(s, 'a', len);
			s[pos[p]] = (char)c;
			s[len - 1] = (char)(255 - c);
			if (!same_as_json_c(s, len)) {
				diag("byte 0x%02x at %zu (and 0x%02x last) of %zu differs",
				    c, pos[p], 255 - c, len);
				bad++;
			}
		}
	}
	return bad == 0;
}

static char *
nested(int depth)
{
	char	*s = malloc((size_t)depth * 2 + 1);
	int	 i;

	for (i = 0; i < depth; i++) {
		s[i] = '[';
		s[depth * 2 - 1 - i] = ']';
	}
	s[depth * 2] = '\0';
	return s;
}

int
main(void)
{
	char	*s;

	is_int(PERR("{\"a\":1}"), JSON_PERR_NONE, "an object parses");
	is_int(PERR("  {\"a\":1}\r\n "), JSON_PERR_NONE, "surrounding whitespace is fine");
	is_int(PERR("{"), JSON_PERR_SYNTAX, "truncated object");
	is_int(PERR(""), JSON_PERR_SYNTAX, "empty body");
	is_int(PERR("{} x"), JSON_PERR_SYNTAX, "trailing bytes");
	is_int(PERR("{}{}"), JSON_PERR_SYNTAX, "two values");
	is_int(PERR("{\"a\":1,}"), JSON_PERR_SYNTAX, "trailing comma (strict)");
	is_int(PERR("{'a':1}"), JSON_PERR_SYNTAX, "single quotes (strict)");
	is_int(PERR("{\"a\":1 /* c */}"), JSON_PERR_SYNTAX, "comments (strict)");
	is_int(PERR("{\"a\":NaN}"), JSON_PERR_SYNTAX, "NaN");
	is_int(PERR("{\"a\":Infinity}"), JSON_PERR_SYNTAX, "Infinity");
	is_int(PERR("{\"a\":0x10}"), JSON_PERR_SYNTAX, "hex number");
	is_int(PERR("{\"a\":1.}"), JSON_PERR_SYNTAX, "a number ending in a point");
	is_int(PERR("{\"a\":-01}"), JSON_PERR_SYNTAX, "a leading zero after a minus");
	is_int(PERR("{\"a\":1.5e}"), JSON_PERR_SYNTAX, "an exponent without digits");
	is_int(PERR("{\"a\":1e5.5}"), JSON_PERR_SYNTAX, "a point after the exponent");
	is_int(PERR("{\"a\":[-0,0.5,-1.25E+3,7e-2,10]}"), JSON_PERR_NONE, "RFC 8259 numbers parse");
	is_int(PERR("-12.5e3"), JSON_PERR_NONE, "a bare number with every part");
	is_int(PERR("{\"a\":\"it's\"}"), JSON_PERR_NONE, "a quote inside a string is fine");
	is_int(PERR("{\"a\":1}\0"), JSON_PERR_SYNTAX, "a raw NUL byte");
	is_int(PERR("{\"a\":\"\xc3\x28\"}"), JSON_PERR_UTF8, "invalid UTF-8");
	is_int(PERR("{\"a\":\"\xc0\xaf\"}"), JSON_PERR_UTF8, "overlong UTF-8");
	is_int(PERR("{\"a\":\"\xed\xa0\x80\"}"), JSON_PERR_UTF8, "encoded surrogate");
	is_int(PERR("{\"a\":\"\xf4\x90\x80\x80\"}"), JSON_PERR_UTF8, "above U+10FFFF");
	is_int(PERR("{\"a\":\"\\ud800\"}"), JSON_PERR_UTF8, "lone high surrogate escape");
	is_int(PERR("{\"a\":\"\\udc00\"}"), JSON_PERR_UTF8, "lone low surrogate escape");
	is_int(PERR("{\"a\":\"\\ud83d\\ude00\"}"), JSON_PERR_NONE, "a surrogate pair is fine");
	is_int(PERR("{\"a\":\"\xe2\x82\xac\"}"), JSON_PERR_NONE, "valid multi-byte UTF-8");
	s = nested(JSON_MAX_DEPTH);
	is_int(perr_of(s, strlen(s)), JSON_PERR_NONE, "nesting of exactly 64 parses");
	free(s);
	s = nested(JSON_MAX_DEPTH + 1);
	is_int(perr_of(s, strlen(s)), JSON_PERR_DEPTH, "nesting of 65 is refused");
	free(s);
	s = nested(10000);
	is_int(perr_of(s, strlen(s)), JSON_PERR_DEPTH, "nesting of 10000 is refused");
	free(s);
	is_int(PERR("42"), JSON_PERR_NONE, "a bare number is JSON");
	is_int(PERR("null"), JSON_PERR_NONE, "a bare null is JSON");
	is_int(PERR("true "), JSON_PERR_NONE, "a bare true is JSON");
	is_int(PERR("42 x"), JSON_PERR_SYNTAX, "a bare number with trailing bytes");
	is_int(PERR("{\"a\":\"x\ny\"}"), JSON_PERR_SYNTAX, "a raw newline inside a string");
	is_int(PERR("{\"a\":\"x\ty\"}"), JSON_PERR_SYNTAX, "a raw tab inside a string");
	is_int(PERR("{\"a\":[[[1]]]}"), JSON_PERR_NONE, "scalars inside nesting");
	is_int(PERR("{\"a\":1,\"a\":2}"), JSON_PERR_DUPKEY, "a repeated key");
	is_int(PERR("{\"a\":1,\"a\":1}"), JSON_PERR_DUPKEY, "a repeated key with the same value");
	is_int(PERR("[{\"x\":{\"a\":{},\"b\":1,\"a\":{}}}]"), JSON_PERR_DUPKEY,
	    "a repeated key deep inside");
	is_int(PERR("{\"a\":{\"a\":{\"a\":1}},\"b\":{\"a\":1}}"), JSON_PERR_NONE,
	    "the same key in different objects is fine");
	is_int(PERR("{\"a:b\":\"c:d\",\"e\":[\":\"]}"), JSON_PERR_NONE,
	    "colons inside strings are not members");
	is_int(PERR("{\"\\u0061\":1,\"a\":2}"), JSON_PERR_DUPKEY, "a key repeated through an escape");
	is_int(PERR("{\"method\\u0000x\":\"ping\"}"), JSON_PERR_KEYNUL, "a key holding U+0000");
	is_int(PERR("{\"a\":{\"\\u0000\" :1}}"), JSON_PERR_KEYNUL, "a nested key of U+0000 alone");
	is_int(PERR("{\"a\":\"x\\u0000y\",\"b\":[\"\\u0000\"]}"), JSON_PERR_NONE,
	    "U+0000 in values is left to the schema gate");
	ok(json_utf8_valid("abc", 3), "ascii is UTF-8");
	ok(!json_utf8_valid("\xff", 1), "0xff is not UTF-8");
	ok(!json_utf8_valid("\xe2\x82", 2), "truncated sequence");

	ok(every_byte_escaped_alike(128), "long strings: every byte escapes as json-c's (128 bytes)");
	ok(every_byte_escaped_alike(143), "long strings: every byte escapes as json-c's (143 bytes)");
	ok(every_byte_escaped_alike(200), "long strings: every byte escapes as json-c's (200 bytes)");
	ok(same_as_json_c("short \"x\"\n", 10), "a short string is json-c's own");
	{
		size_t	 n = 0, i;
		char	*big = malloc(20000);

		/* file-like lines with quotes, backslashes and tabs, across the 2048-byte chunks */
		for (i = 0; n < 19900; i++)
			n += (size_t)snprintf(big + n, 20000 - n, "line %zu:\t\"q\" \\ \xc3\xa9 /x\n", i);
		ok(same_as_json_c(big, n), "a 20 KB text with escapes in every chunk");
		memset(big, '\\', 5000);
		ok(same_as_json_c(big, 5000), "5,000 backslashes (every byte doubles)");
		memset(big, 0, 5000);
		ok(same_as_json_c(big, 5000), "5,000 NUL bytes (every byte is \\u0000)");
		free(big);
	}
	return done_testing();
}
