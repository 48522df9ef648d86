/* wiki-t: unit tests for the wiki's text checks: characters, UTF-8, page codes, roots, media types. */
#include <stdio.h>
#include <string.h>

#include "hub/wiki.h"
#include "tap.h"

/* Whether s (as bytes, NUL not allowed inside) is UTF-8 by hub_wiki_utf8_ok. */
static int
utf8(const char *s, size_t n)
{
	return hub_wiki_utf8_ok(s, n);
}

static void
test_utf8(void)
{
	ok(utf8("", 0), "empty text");
	ok(utf8("plain ascii\n", 12), "ascii");
	ok(utf8("Статус Согласован", strlen("Статус Согласован")), "Cyrillic");
	ok(utf8("\xe2\x82\xac \xf0\x9f\x98\x80", 8), "three and four bytes (euro, emoji)");
	ok(!utf8("a\0b", 3), "a NUL inside");
	ok(!utf8("\xff\xfe bad", 6), "bytes that never start a character");
	ok(!utf8("\xc0\xaf", 2), "an overlong two-byte form");
	ok(!utf8("\xe0\x80\xaf", 3), "an overlong three-byte form");
	ok(!utf8("\xf0\x80\x80\xaf", 4), "an overlong four-byte form");
	ok(!utf8("\xed\xa0\x80", 3), "a UTF-16 surrogate");
	ok(!utf8("\xf4\x90\x80\x80", 4), "past U+10FFFF");
	ok(!utf8("\xd0", 1), "a character cut at the end");
	ok(!utf8("\xd0" "a", 2), "a continuation byte missing");
}

static void
test_chars(void)
{
	is_int((long long)hub_wiki_chars(""), 0, "no characters");
	is_int((long long)hub_wiki_chars("abc"), 3, "three ascii");
	is_int((long long)hub_wiki_chars("щит"), 3, "three Cyrillic (six bytes)");
	is_int((long long)hub_wiki_chars("\xf0\x9f\x98\x80!"), 2, "an emoji and a mark");
}

static void
test_codes(void)
{
	ok(hub_wiki_code_ok("DOC-1"), "DOC-1");
	ok(hub_wiki_code_ok("doc_x2-120"), "letters, digits and _ before the hyphen");
	ok(!hub_wiki_code_ok("DOC"), "no number");
	ok(!hub_wiki_code_ok("DOC-"), "an empty number");
	ok(!hub_wiki_code_ok("1DOC-1"), "a digit first");
	ok(!hub_wiki_code_ok("DOC-1a"), "letters after the number");
	ok(!hub_wiki_code_ok("DO C-1"), "a space");
	ok(!hub_wiki_code_ok("ДОК-1"), "Cyrillic letters");
	ok(!hub_wiki_code_ok("DOC-1234567890123456789"), "a number of 19 digits");
	ok(!hub_wiki_code_ok(""), "empty");
	ok(!hub_wiki_code_ok(NULL), "none");
}

static void
test_roots(void)
{
	const char	*owner, *name, *branch, *code;
	char		 r[100];

	snprintf(r, sizeof r, "DOC-1");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) == 0 && owner == NULL &&
	    strcmp(code, "DOC-1") == 0, "a bare code");
	snprintf(r, sizeof r, "docs/wiki@release/1.0:DOC-7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) == 0, "owner/name@branch:code");
	is_str(owner, "docs", "its owner");
	is_str(name, "wiki", "its name");
	is_str(branch, "release/1.0", "its branch");
	is_str(code, "DOC-7", "its code");
	snprintf(r, sizeof r, "docs/wiki:DOC-7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) == 0 &&
	    strcmp(branch, "main") == 0, "the branch defaults to main");
	snprintf(r, sizeof r, "wiki:DOC-7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) != 0, "no owner");
	snprintf(r, sizeof r, "docs/wiki@:DOC-7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) != 0, "an empty branch");
	snprintf(r, sizeof r, "docs/wiki:DOC 7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) != 0, "a bad code");
	snprintf(r, sizeof r, "/wiki:DOC-7");
	ok(hub_wiki_root_parse(r, &owner, &name, &branch, &code) != 0, "an empty owner");
}

static void
test_mime(void)
{
	is_str(hub_wiki_mime("схема.png"), "image/png", "png");
	is_str(hub_wiki_mime("SCAN.PDF"), "application/pdf", "an extension in capitals");
	is_str(hub_wiki_mime(".png"), "application/octet-stream", "a name that is only an extension");
	is_str(hub_wiki_mime("Makefile"), "application/octet-stream", "no extension");
}

int
main(void)
{
	test_utf8();
	test_chars();
	test_codes();
	test_roots();
	test_mime();
	return done_testing();
}
