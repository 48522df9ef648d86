/* http-t: unit tests for header decoding, the Origin allow-list and bearer-token handling. */
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "conf.h"
#include "core.h"
#include "err.h"
#include "http.h"
#include "tap.h"

static void
test_env(void)
{
	static char e0[] = "REQUEST_METHOD=POST", e1[] = "HTTP_ORIGIN=https://a.example",
	    e2[] = "HTTP_ORIGINX=x", e3[] = "HTTP_ORIGIN=https://b.example", e4[] = "CONTENT_TYPE=",
	    e5[] = "HTTP_=y";
	static char *const env[] = { e0, e1, e2, e3, e4, e5, NULL };
	struct core_request r;
	int n = -1;

	memset(&r, 0, sizeof(r));
	r.env = env;
	is_str(http_env(&r, "REQUEST_METHOD", &n), "POST", "http_env finds a variable");
	is_int(n, 1, "and counts it once");
	is_str(http_env(&r, "HTTP_ORIGIN", &n), "https://a.example", "http_env returns the first of a repeat");
	is_int(n, 2, "and counts both");
	is_str(http_env(&r, "HTTP_ORIGINX", NULL), "x", "a longer name is a different variable");
	is_str(http_env(&r, "HTTP_ORIG", &n), NULL, "a prefix does not match");
	is_int(n, 0, "and counts zero");
	is_str(http_env(&r, "CONTENT_TYPE", &n), "", "an empty value is found");
	is_int(n, 1, "and counted");
	is_str(http_env(&r, "HTTP_AUTHORIZATION", &n), NULL, "a missing variable is NULL");
	is_str(http_env(&r, "HTTP", &n), NULL, "a partial name is not found");
	r.env = NULL;
	is_str(http_env(&r, "REQUEST_METHOD", &n), NULL, "no environment: NULL");
	is_int(n, 0, "no environment: count 0");
	is_str(http_env(NULL, "REQUEST_METHOD", &n), NULL, "no request: NULL");
}

static void
test_repeated(void)
{
	static char e0[] = "HTTP_CONTENT_TYPE=application/json", e1[] = "HTTP_ORIGIN=a",
	    e2[] = "HTTP_ORIGIN=b", e3[] = "HTTP_MCP_METHOD=tools/list",
	    e4[] = "HTTP_MCP_METHOD=tools/call", e5[] = "HTTP_X_OTHER=1", e6[] = "HTTP_X_OTHER=2";
	static char *const once[] = { e0, e3, e5, e6, NULL };
	static char *const twice[] = { e0, e1, e2, e3, e4, NULL };
	struct core_request r;
	char msg[200] = "";

	memset(&r, 0, sizeof(r));
	r.env = once;
	is_int(http_repeated(&r, msg, sizeof(msg)), 0, "single headers and repeated others pass");
	r.env = twice;
	is_int(http_repeated(&r, msg, sizeof(msg)), 1, "a repeated Mcp-Method is refused");
	is_str(msg, "Bad Request: the Mcp-Method header is repeated; send it once",
	    "and the message names it");
}

static void
trim_is(const char *in, const char *want)
{
	char *t = http_trim(in);

	is_str(t, want, "http_trim('%s')", in != NULL ? in : "(null)");
	free(t);
}

static void
test_trim(void)
{
	trim_is("  a b \t", "a b");
	trim_is("\ta", "a");
	trim_is("a", "a");
	trim_is("", "");
	trim_is(" \t \t", "");
	trim_is(" a\r ", "a\r");
	trim_is(NULL, NULL);
}

/* Expects a result of http_decode_value; want is the text (NULL for BAD). */
static void
decode_is(const char *in, enum http_sentinel wr, const char *want, size_t wantlen, const char *name)
{
	enum http_sentinel r;
	char junk[] = "junk", *out = junk;
	size_t len = 99;

	r = http_decode_value(&out, &len, in);
	is_int(r, wr, "decode %s: result", name);
	if (want == NULL) {
		ok(out == NULL && len == 0, "decode %s: no output", name);
	} else {
		is_mem(out, len, want, wantlen, "decode %s: value", name);
		ok(out != NULL && out[len] == '\0', "decode %s: terminated", name);
	}
	free(out);
}

static void
test_decode(void)
{
	decode_is("tools/call", HTTP_SENT_LITERAL, "tools/call", 10, "plain");
	decode_is("  X  ", HTTP_SENT_LITERAL, "X", 1, "whitespace-trimmed literal");
	decode_is("\t\tget_me \t", HTTP_SENT_LITERAL, "get_me", 6, "tabs trimmed");
	decode_is("=?base64?SGVsbG8=?=", HTTP_SENT_DECODED, "Hello", 5, "base64 of Hello");
	decode_is("  =?base64?SGVsbG8=?=\t", HTTP_SENT_DECODED, "Hello", 5, "trimmed sentinel");
	decode_is("=?base64?ICBYICA=?=", HTTP_SENT_DECODED, "  X  ", 5, "decoded spaces are kept");
	decode_is("=?base64?aMOpbGxv?=", HTTP_SENT_DECODED, "h\xc3\xa9llo", 6, "UTF-8 payload");
	decode_is("=?base64?PT9iYXNlNjQ/eD89?=", HTTP_SENT_DECODED, "=?base64?x?=", 12,
	    "payload that looks like a sentinel");
	decode_is("=?base64?SGVsbG8?=", HTTP_SENT_BAD, NULL, 0, "bad padding");
	decode_is("=?base64?SGVs!!!bG8=?=", HTTP_SENT_BAD, NULL, 0, "bad characters");
	decode_is("=?base64?SGVs bG8=?=", HTTP_SENT_BAD, NULL, 0, "space inside payload");
	decode_is("=?base64?SGVsbG9=?=", HTTP_SENT_BAD, NULL, 0, "non-zero unused bits (=)");
	decode_is("=?base64?QR==?=", HTTP_SENT_BAD, NULL, 0, "non-zero unused bits (==)");
	decode_is("=?base64?SGVsbG8-?=", HTTP_SENT_BAD, NULL, 0, "base64url alphabet");
	decode_is("=?base64?SGVsbG8==?=", HTTP_SENT_BAD, NULL, 0, "too much padding");
	decode_is("=?base64?//4=?=", HTTP_SENT_BAD, NULL, 0, "non-UTF-8 payload");
	decode_is("=?base64?7aCA?=", HTTP_SENT_BAD, NULL, 0, "payload with a UTF-16 surrogate");
	decode_is("=?base64?YQBi?=", HTTP_SENT_BAD, NULL, 0, "payload containing NUL");
	decode_is("=?base64?" "?=", HTTP_SENT_DECODED, "", 0, "empty payload");
	decode_is("base64?SGVsbG8=?=", HTTP_SENT_LITERAL, "base64?SGVsbG8=?=", 17, "missing prefix");
	decode_is("=?base64?SGVsbG8=", HTTP_SENT_LITERAL, "=?base64?SGVsbG8=", 17, "missing suffix");
	decode_is("=?BASE64?SGVsbG8=?=", HTTP_SENT_LITERAL, "=?BASE64?SGVsbG8=?=", 19, "upper-case marker");
	decode_is("=?base64?=", HTTP_SENT_LITERAL, "=?base64?=", 10, "overlapping markers");
	decode_is("", HTTP_SENT_LITERAL, "", 0, "empty value");
	decode_is(NULL, HTTP_SENT_LITERAL, "", 0, "NULL value");
	decode_is("caf\xc3\xa9", HTTP_SENT_LITERAL, "caf\xc3\xa9", 5, "raw UTF-8 literal");
	decode_is("caf\xe9", HTTP_SENT_BAD, NULL, 0, "raw Latin-1 literal");
	decode_is("a\x01" "b", HTTP_SENT_BAD, NULL, 0, "literal with a control character");
	decode_is("a\tb", HTTP_SENT_BAD, NULL, 0, "literal with an inner tab");
	decode_is("ab\x7f", HTTP_SENT_BAD, NULL, 0, "literal with DEL");
	decode_is("a\rb", HTTP_SENT_BAD, NULL, 0, "literal with CR");
}

static void
b64_is(const char *in, const char *want, size_t wantlen)
{
	unsigned char out[64];
	size_t len = sizeof(out);
	int rc;

	rc = http_b64_decode(out, &len, in, strlen(in));
	if (want == NULL) {
		is_int(rc, -1, "http_b64_decode('%s') refused", in);
	} else {
		is_int(rc, 0, "http_b64_decode('%s') accepted", in);
		is_mem(out, len, want, wantlen, "http_b64_decode('%s') value", in);
	}
}

static void
test_b64(void)
{
	unsigned char out[8];
	size_t len;

	/* RFC 4648 section 10 test vectors. */
	b64_is("", "", 0);
	b64_is("Zg==", "f", 1);
	b64_is("Zm8=", "fo", 2);
	b64_is("Zm9v", "foo", 3);
	b64_is("Zm9vYg==", "foob", 4);
	b64_is("Zm9vYmE=", "fooba", 5);
	b64_is("Zm9vYmFy", "foobar", 6);
	b64_is("+/+/", "\xfb\xff\xbf", 3);
	b64_is("AA==", "\0", 1);
	b64_is("Zg=", NULL, 0);
	b64_is("Zg", NULL, 0);
	b64_is("Z===", NULL, 0);
	b64_is("====", NULL, 0);
	b64_is("Zm9v====", NULL, 0);
	b64_is("Zg==Zg==", NULL, 0);
	b64_is("Zh==", NULL, 0);
	b64_is("Zm9=", NULL, 0);
	b64_is("Zm=v", NULL, 0);
	b64_is("-_8=", NULL, 0);
	b64_is("Zm9v\n", NULL, 0);
	len = 2;
	is_int(http_b64_decode(out, &len, "Zm9v", 4), -1, "too little room is refused");
	len = 3;
	is_int(http_b64_decode(out, &len, "Zm9v", 4), 0, "exact room is enough");
	is_int((long long)len, 3, "and the length is returned");
}

static void
test_origin(void)
{
	static char o0[] = "https://forge.example", o1[] = "http://localhost:8080", o2[] = "null";
	struct config c;

	memset(&c, 0, sizeof(c));
	c.allowed_origins[0] = o0;
	c.allowed_origins[1] = o1;
	c.allowed_origins[2] = o2;
	c.n_allowed_origins = 3;
	ok(http_origin_ok(&c, "https://forge.example"), "an allowed origin passes");
	ok(http_origin_ok(&c, "http://localhost:8080"), "the second allowed origin passes");
	ok(!http_origin_ok(&c, "https://FORGE.example"), "comparison is case-sensitive");
	ok(!http_origin_ok(&c, "https://forge.example/"), "a trailing slash is another origin");
	ok(!http_origin_ok(&c, "https://forge.example:443"), "an explicit port is another origin");
	ok(!http_origin_ok(&c, "http://forge.example"), "another scheme is another origin");
	ok(!http_origin_ok(&c, "https://forge.example.evil"), "a longer host is another origin");
	ok(!http_origin_ok(&c, "https://forge.exampl"), "a prefix is another origin");
	ok(!http_origin_ok(&c, "http://localhost"), "a port-less localhost is another origin");
	ok(!http_origin_ok(&c, "https://evil.example"), "an unknown origin fails");
	ok(!http_origin_ok(&c, "null"), "\"null\" never passes, even when listed");
	ok(!http_origin_ok(&c, "https://forge.example, https://evil.example"), "a joined list fails");
	ok(!http_origin_ok(&c, "https://forge.example,https://forge.example"), "a repeated list fails");
	ok(!http_origin_ok(&c, " https://forge.example"), "leading space is not trimmed");
	ok(!http_origin_ok(&c, ""), "an empty origin fails");
	ok(!http_origin_ok(&c, NULL), "no origin is not 'allowed' (the caller decides)");
	c.n_allowed_origins = 0;
	ok(!http_origin_ok(&c, "https://forge.example"), "an empty allow-list allows nothing");
	ok(!http_origin_ok(NULL, "https://forge.example"), "no configuration allows nothing");
}

static void
scopes_is(const char *list, int wantrc, unsigned want)
{
	unsigned got = 0xdead;
	int rc;

	rc = auth_parse_scopes(&got, list);
	is_int(rc, wantrc, "auth_parse_scopes('%s') returns %d", list, wantrc);
	if (wantrc == 0)
		is_int(got, want, "auth_parse_scopes('%s') bits", list);
}

static void
test_scopes(void)
{
	char buf[64];

	scopes_is("read", 0, AUTH_SCOPE_READ);
	scopes_is("write", 0, AUTH_SCOPE_WRITE);
	scopes_is("read,write", 0, AUTH_SCOPE_READ | AUTH_SCOPE_WRITE);
	scopes_is("execute", 0, AUTH_SCOPE_EXECUTE | AUTH_SCOPE_WRITE);
	scopes_is("merge", 0, AUTH_SCOPE_MERGE | AUTH_SCOPE_WRITE);
	scopes_is("merge,read", 0, AUTH_SCOPE_MERGE | AUTH_SCOPE_WRITE | AUTH_SCOPE_READ);
	scopes_is("read, execute ,merge", 0,
	    AUTH_SCOPE_READ | AUTH_SCOPE_WRITE | AUTH_SCOPE_EXECUTE | AUTH_SCOPE_MERGE);
	scopes_is("read,read", 0, AUTH_SCOPE_READ);
	scopes_is("", 0, 0);
	scopes_is("admin", -1, 0);
	scopes_is("Read", -1, 0);
	scopes_is("read,,write", -1, 0);
	scopes_is("read,", -1, 0);
	scopes_is(",read", -1, 0);
	scopes_is("read write", -1, 0);
	scopes_is("readwrite", -1, 0);
	scopes_is("rea", -1, 0);

	auth_format_scopes(buf, sizeof(buf),
	    AUTH_SCOPE_MERGE | AUTH_SCOPE_EXECUTE | AUTH_SCOPE_WRITE | AUTH_SCOPE_READ);
	is_str(buf, "read,write,execute,merge", "format: all scopes in canonical order");
	auth_format_scopes(buf, sizeof(buf), AUTH_SCOPE_EXECUTE);
	is_str(buf, "execute", "format: implied scopes are not added");
	auth_format_scopes(buf, sizeof(buf), AUTH_SCOPE_READ | AUTH_SCOPE_MERGE);
	is_str(buf, "read,merge", "format: two scopes");
	auth_format_scopes(buf, sizeof(buf), 0);
	is_str(buf, "", "format: no scopes");
	auth_format_scopes(buf, 8, AUTH_SCOPE_READ | AUTH_SCOPE_WRITE);
	is_str(buf, "read", "format: cut at a name boundary when short");
	auth_format_scopes(buf, 0, AUTH_SCOPE_READ);
	ok(1, "format: zero-length buffer is harmless");

	is_str(auth_scope_name(AUTH_SCOPE_READ), "read", "scope name read");
	is_str(auth_scope_name(AUTH_SCOPE_WRITE), "write", "scope name write");
	is_str(auth_scope_name(AUTH_SCOPE_EXECUTE), "execute", "scope name execute");
	is_str(auth_scope_name(AUTH_SCOPE_MERGE), "merge", "scope name merge");
	is_str(auth_scope_name(0), NULL, "no name for 0");
	is_str(auth_scope_name(AUTH_SCOPE_READ | AUTH_SCOPE_WRITE), NULL, "no name for two bits");

	ok(auth_has_scope(AUTH_SCOPE_EXECUTE, AUTH_SCOPE_WRITE), "execute includes write");
	ok(auth_has_scope(AUTH_SCOPE_MERGE, AUTH_SCOPE_WRITE), "merge includes write");
	ok(!auth_has_scope(AUTH_SCOPE_EXECUTE | AUTH_SCOPE_WRITE, AUTH_SCOPE_MERGE), "execute does not include merge");
	ok(!auth_has_scope(AUTH_SCOPE_MERGE | AUTH_SCOPE_WRITE, AUTH_SCOPE_EXECUTE), "merge does not include execute");
	ok(!auth_has_scope(AUTH_SCOPE_WRITE, AUTH_SCOPE_EXECUTE), "write does not include execute");
	ok(!auth_has_scope(AUTH_SCOPE_WRITE, AUTH_SCOPE_READ), "write does not include read");
	ok(!auth_has_scope(AUTH_SCOPE_EXECUTE, AUTH_SCOPE_READ), "execute does not include read");
	ok(!auth_has_scope(AUTH_SCOPE_READ, AUTH_SCOPE_WRITE), "read does not include write");
	ok(auth_has_scope(AUTH_SCOPE_READ, AUTH_SCOPE_READ), "read covers read");
	ok(auth_has_scope(AUTH_SCOPE_READ | AUTH_SCOPE_MERGE, AUTH_SCOPE_READ | AUTH_SCOPE_WRITE),
	    "read+merge covers read+write");
	ok(!auth_has_scope(AUTH_SCOPE_READ, AUTH_SCOPE_READ | AUTH_SCOPE_WRITE), "read does not cover read+write");
	ok(auth_has_scope(0, 0), "nothing needed is always covered");
	ok(!auth_has_scope(0, AUTH_SCOPE_READ), "no scopes cover nothing");
}

static void
test_tokens(void)
{
	char h[65], t1[64], t2[64];
	size_t i;
	int good;

	auth_token_hash(h, "abc", 3);
	is_str(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha-256 of abc");
	auth_token_hash(h, "", 0);
	is_str(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha-256 of nothing");
	auth_token_hash(h, "abcdef", 3);
	is_str(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "hash uses the given length");

	is_int(auth_token_generate(t1), 0, "token generated");
	is_int(auth_token_generate(t2), 0, "second token generated");
	is_int((long long)strlen(t1), 48, "token is 48 characters");
	ok(strncmp(t1, "fmcp_", 5) == 0, "token starts with fmcp_");
	good = 1;
	for (i = 5; t1[i] != '\0'; i++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", t1[i]) == NULL)
			good = 0;
	ok(good, "token body is base64url without padding");
	/* 256 bits in 43 characters: the last one carries 2 zero bits. */
	ok(strchr("AEIMQUYcgkosw048", t1[47]) != NULL, "last character has zero unused bits (%c)", t1[47]);
	ok(strcmp(t1, t2) != 0, "two tokens differ");
}

static void
bearer_is(const char *hdr, enum auth_result want, const char *wtok)
{
	const char *tok = "junk";
	size_t len = 99;
	enum auth_result r;

	r = auth_parse_bearer(hdr, &tok, &len);
	is_int(r, want, "Authorization '%s': result %d", hdr != NULL ? hdr : "(null)", (int)want);
	if (wtok != NULL)
		is_mem(tok, len, wtok, strlen(wtok), "Authorization '%s': token", hdr);
	else
		ok(tok == NULL && len == 0, "Authorization '%s': no token", hdr != NULL ? hdr : "(null)");
}

static void
test_bearer(void)
{
	struct principal p;
	struct err e;
	char big[700];

	bearer_is("Bearer abc", AUTH_OK, "abc");
	bearer_is("bearer abc", AUTH_OK, "abc");
	bearer_is("BEARER fmcp_x-y.z~1+2/3==", AUTH_OK, "fmcp_x-y.z~1+2/3==");
	bearer_is("Bearer  abc", AUTH_OK, "abc");
	bearer_is(" \tBearer abc \t", AUTH_OK, "abc");
	bearer_is(NULL, AUTH_MISSING, NULL);
	bearer_is("", AUTH_MISSING, NULL);
	bearer_is("   ", AUTH_MISSING, NULL);
	bearer_is("abc", AUTH_MISSING, NULL);
	bearer_is("Basic dXNlcjpwYXNz", AUTH_MISSING, NULL);
	bearer_is("Bearerabc", AUTH_MISSING, NULL);
	bearer_is("Bear abc", AUTH_MISSING, NULL);
	bearer_is("Bearer", AUTH_INVALID, NULL);
	bearer_is("Bearer ", AUTH_INVALID, NULL);
	bearer_is("Bearer abc def", AUTH_INVALID, NULL);
	bearer_is("Bearer\tabc", AUTH_INVALID, NULL);
	bearer_is("Bearer =abc", AUTH_INVALID, NULL);
	bearer_is("Bearer a=b", AUTH_INVALID, NULL);
	bearer_is("Bearer a,b", AUTH_INVALID, NULL);
	bearer_is("Bearer \"abc\"", AUTH_INVALID, NULL);
	bearer_is("Bearer realm=\"x\"", AUTH_INVALID, NULL);
	bearer_is("Bearer ab\xc3\xa9", AUTH_INVALID, NULL);

	/* auth_check answers malformed headers before reaching the database. */
	err_clear(&e);
	is_int(auth_check(&p, NULL, NULL, &e), AUTH_MISSING, "auth_check: no header");
	is_int(auth_check(&p, NULL, "Basic x", &e), AUTH_MISSING, "auth_check: another scheme");
	is_int(auth_check(&p, NULL, "Bearer", &e), AUTH_INVALID, "auth_check: no token");
	is_int(auth_check(&p, NULL, "Bearer a b", &e), AUTH_INVALID, "auth_check: two tokens");
	memcpy(big, "Bearer ", 7);
	memset(big + 7, 'a', sizeof(big) - 8);
	big[sizeof(big) - 1] = '\0';
	is_int(auth_check(&p, NULL, big, &e), AUTH_INVALID, "auth_check: an overlong token");
	is_int(auth_check_token(&p, NULL, NULL, &e), AUTH_MISSING, "auth_check_token: NULL");
	is_int(auth_check_token(&p, NULL, "", &e), AUTH_MISSING, "auth_check_token: empty");
	is_int(e.code, 0, "no error recorded for a malformed credential");
}

static void
test_network(void)
{
	static const struct {
		const char	*addr, *want, *what;
	} cases[] = {
		{ "192.0.2.7", "192.0.2.0/24", "an IPv4 address is counted by its /24" },
		{ "192.0.2.255", "192.0.2.0/24", "and every address of the /24 alike" },
		{ "192.0.3.7", "192.0.3.0/24", "the next /24 is another network" },
		{ "::ffff:192.0.2.9", "192.0.2.0/24", "an IPv4-mapped IPv6 address is its IPv4 /24" },
		{ "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64", "an IPv6 address is counted by its /64" },
		{ "2001:db8:1:2::ffff", "2001:db8:1:2::/64", "and every address of the /64 alike" },
		{ "2001:db8:1:3::1", "2001:db8:1:3::/64", "the next /64 is another network" },
		{ "::1", "::/64", "the IPv6 loopback" },
		{ "fe80::1%eth0", "-", "a scoped address is the catch-all network" },
		{ "unix:", "-", "a non-numeric address too" },
		{ "", "-", "an empty one too" },
		{ "192.0.2.7 ", "-", "and one with a trailing space" },
	};
	char	 out[HTTP_NETWORK_MAX], small[8];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		http_client_network(out, sizeof(out), cases[i].addr);
		is_str(out, cases[i].want, "%s", cases[i].what);
	}
	http_client_network(out, sizeof(out), NULL);
	is_str(out, "-", "no REMOTE_ADDR is the catch-all network");
	http_client_network(out, sizeof(out), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	is_str(out, "ffff:ffff:ffff:ffff::/64", "the longest /64 fits HTTP_NETWORK_MAX");
	http_client_network(small, sizeof(small), "192.0.2.7");
	is_str(small, "-", "a network that does not fit is not cut short");
}

int
main(void)
{
	test_env();
	test_repeated();
	test_trim();
	test_decode();
	test_b64();
	test_origin();
	test_scopes();
	test_tokens();
	test_bearer();
	test_network();
	return done_testing();
}
