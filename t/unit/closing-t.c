/* closing-t: unit tests for the closing-keyword parser of pull request descriptions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "service/closing.h"
#include "tap.h"

/* The stored form of what text declares ("" for nothing). */
static const char *
declared(const char *text, size_t len)
{
	static char		 buf[CLOSING_TEXT_MAX];
	struct closing_list	 l;
	const char		*s;

	if (closing_parse(&l, text, len) != 0)
		return "(error)";
	s = closing_format(buf, sizeof buf, &l);
	return s != NULL ? s : "";
}

struct kase {
	const char	*text;
	const char	*want;
	const char	*name;
};

static const struct kase cases[] = {
	/* the keywords, each alone */
	{ "close #1", "1", "close" },
	{ "closes #2", "2", "closes" },
	{ "closed #3", "3", "closed" },
	{ "fix #4", "4", "fix" },
	{ "fixes #5", "5", "fixes" },
	{ "fixed #6", "6", "fixed" },
	{ "resolve #7", "7", "resolve" },
	{ "resolves #8", "8", "resolves" },
	{ "resolved #9", "9", "resolved" },
	{ "Closes #1", "1", "capitalised" },
	{ "FIXES #12", "12", "upper case" },
	{ "ReSoLvEs #3", "3", "mixed case" },
	{ "This change fixes #42 for good.", "42", "inside a sentence, then a full stop" },
	{ "(fixes #3)", "3", "in parentheses" },
	{ "Fixes #3\n", "3", "at the end of a line" },
	{ "Fixes\t#3", "3", "a tab after the keyword" },
	{ "Fixes   #3", "3", "several spaces" },
	{ "Fixes\n#3", "3", "one line break between keyword and reference" },
	{ "Fixes\r\n#3", "3", "a CRLF line break" },
	{ "**Fixes #3**", "3", "bold" },
	{ "- Fixes #3\n- Closes #4", "3,4", "list items" },
	{ "# Fixes #3", "3", "a heading" },
	{ "> Fixes #3", "3", "a block quote" },
	{ "Fixes #3's crash", "3", "an apostrophe after the number" },
	/* lists */
	{ "Closes #123, #124 and #125", "123,124,125", "the issue's example" },
	{ "fixes #1 and #2", "1,2", "joined by and" },
	{ "Resolves #1,#2", "1,2", "a comma without a blank" },
	{ "Fixes #1 , #2", "1,2", "a blank before the comma" },
	{ "Fixes #1, #2, and #3", "1,2,3", "an Oxford comma" },
	{ "Fixes #1 AND #2", "1,2", "AND in capitals" },
	{ "Fixes #1,\n#2", "1,2", "a list across a line break" },
	{ "Fixes #1 and\n#2", "1,2", "a line break after and" },
	{ "Fixes #1 or #2", "1", "or does not join" },
	{ "Fixes #1 & #2", "1", "an ampersand does not join" },
	{ "Fixes #1 #2", "1", "a blank alone does not join" },
	{ "Fixes #1, see #2", "1", "the list ends at a word" },
	{ "Fixes #1 and see #2", "1", "and without a reference ends the list" },
	{ "Fixes #1 and#2", "1", "and glued to the reference" },
	{ "Fixes #1 andy #2", "1", "andy is not and" },
	{ "Fixes #1, fixes #2", "1,2", "one keyword per reference" },
	{ "Closes #1. Fixes #2. Resolves #3.", "1,2,3", "three sentences" },
	{ "Fixes #1, #2\n\nAlso closes #3 and #4", "1,2,3,4", "two paragraphs" },
	/* order and duplicates */
	{ "Fixes #9, #2 and #5", "9,2,5", "order of appearance" },
	{ "Fixes #3, #3 and #3", "3", "a number repeated in a list" },
	{ "Fixes #3. Closes #4. Resolves #3.", "3,4", "a number declared twice" },
	{ "Closes #2\nfixes #1\ncloses #2", "2,1", "first appearance wins" },
	/* references that are not local issues */
	{ "#12", "", "a reference without a keyword" },
	{ "See #12 and #13", "", "references without a keyword" },
	{ "Fixes owner/repo#3", "", "a cross-repository reference" },
	{ "Fixes owner/repo#3, #4", "", "a cross-repository reference starts no list" },
	{ "Fixes #1, owner/repo#3, #4", "1", "a cross-repository reference ends a list" },
	{ "Fixes #1 and owner/repo#3 and #4", "1", "a cross-repository reference after and ends a list" },
	{ "Fixes repo#3", "", "repo#3" },
	{ "prefix#3", "", "prefix#3" },
	{ "fixes#3", "", "a keyword glued to the reference" },
	{ "Fixes prefix#3", "", "a keyword before prefix#3" },
	{ "Fixes https://example.com/a/b/issues/3", "", "a link to an issue" },
	{ "Fixes #3abc", "", "a reference followed by letters" },
	{ "Fixes #3_1", "", "a reference followed by an underscore" },
	{ "Fixes #", "", "a bare hash" },
	{ "Fixes # 3", "", "a blank between hash and number" },
	{ "Fixes ##3", "", "two hashes" },
	{ "Fixes #-3", "", "a negative number" },
	{ "Fixes #0", "", "number zero" },
	{ "Fixes #03", "", "a leading zero" },
	{ "Fixes #2147483647", "2147483647", "the largest number" },
	{ "Fixes #2147483648", "", "one past the largest number" },
	{ "Fixes #99999999999999999999999999", "", "a huge number" },
	{ "Fixes #1, #99999999999, #2", "1", "a huge number ends a list" },
	{ "Fixes #3.5", "3", "a decimal point after the number" },
	/* words that are not the keywords */
	{ "prefixes #3", "", "prefixes (a keyword inside a word)" },
	{ "suffixed #3", "", "suffixed" },
	{ "unresolved #3", "", "unresolved" },
	{ "enclosed #3", "", "enclosed" },
	{ "fixer #3", "", "fixer" },
	{ "closing #3", "", "closing (not a keyword)" },
	{ "fixing #3", "", "fixing (not a keyword)" },
	{ "resolving #3", "", "resolving (not a keyword)" },
	{ "implements #3", "", "implements" },
	{ "fix_es #3", "", "an underscore inside the word" },
	{ "fixes2 #3", "", "a digit after the keyword" },
	{ "\xc3\xa9" "fixes #3", "", "a UTF-8 letter before the keyword" },
	{ "Fixes: #3", "", "a keyword followed by a colon" },
	{ "Fixes - #3", "", "a keyword followed by a dash" },
	{ "Fixes issue #3", "", "a word between keyword and reference" },
	{ "Fixes\n\n#3", "", "a blank line between keyword and reference" },
	{ "Fixes\n  \n#3", "", "a line of blanks between keyword and reference" },
	{ "Fixes #1,\n\n#2", "1", "a blank line ends a list" },
	{ "re-fixes #3", "3", "a hyphen before the keyword" },
	/* code spans */
	{ "`Fixes #3`", "", "inside a code span" },
	{ "``Fixes #3``", "", "inside a double-backtick code span" },
	{ "```Fixes #3```", "", "inside a triple-backtick span on one line" },
	{ "`` `Fixes #3` ``", "", "a span holding backticks" },
	{ "Fixes `#3`", "", "the reference in a code span" },
	{ "`Fixes` #3", "", "the keyword in a code span" },
	{ "Fixes #1 `x` and #2", "1", "a code span ends a list" },
	{ "Use `make` here. Fixes #3", "3", "text after a code span" },
	{ "`a` Fixes #3 `b`", "3", "between two code spans" },
	{ "`unclosed Fixes #3", "3", "an unmatched backtick is text" },
	{ "``a` Fixes #3", "3", "runs of different lengths do not match" },
	{ "`a\nFixes #3`", "", "a code span across a line break" },
	{ "`a\n\nFixes #3`", "3", "a code span does not cross a blank line" },
	/* fenced code blocks */
	{ "```\nFixes #3\n```", "", "inside a ``` fence" },
	{ "~~~\nFixes #3\n~~~", "", "inside a ~~~ fence" },
	{ "```c\nFixes #3\n```", "", "a fence with an info string" },
	{ "````\n```\nFixes #3\n````", "", "a longer fence is not closed by a shorter one" },
	{ "~~~\n```\nFixes #3\n```\n~~~", "", "a ``` line inside a ~~~ fence" },
	{ "```\ncode\n```\nFixes #3", "3", "after a closed fence" },
	{ "```\nFixes #3", "", "an unclosed fence runs to the end" },
	{ "Intro\n```\nFixes #3\n```\nCloses #4", "4", "text around a fence" },
	{ "  ```\n  Fixes #3\n  ```", "", "an indented fence" },
	{ "- item\n\n    ```\n    Fixes #3\n    ```\n", "", "a fence inside a list item" },
	{ "- ```\n  Fixes #3\n  ```", "", "a fence on the list item's line" },
	{ "> ```\n> Fixes #3\n> ```", "", "a fence in a block quote" },
	{ "Fixes\n```\n#3\n```", "", "a fence between keyword and reference" },
	{ "```\r\nFixes #3\r\n```\r\nCloses #4", "4", "a fence with CRLF lines" },
	/* indented code blocks */
	{ "    Fixes #3", "", "an indented code block" },
	{ "\tFixes #3", "", "a tab-indented code block" },
	{ "Text\n\n    Fixes #3\n\nCloses #4", "4", "an indented block after a blank line" },
	{ "Text\n    Fixes #3", "3", "an indented line continues a paragraph" },
	{ "- item\n\n  Fixes #3", "3", "a list item's second paragraph" },
	{ "1. item\n\n    Fixes #3", "3", "a list item's paragraph indented four" },
	{ "- item\n\n      Fixes #3", "", "code inside a list item" },
	{ "- a\n  - b\n\n    Fixes #3", "3", "a nested list item's paragraph" },
	{ "- item\n\nback\n\n    Fixes #3", "", "code after the list has ended" },
	{ "# Title\n    Fixes #3", "", "an indented block after a heading" },
	/* HTML comments */
	{ "<!-- Fixes #3 -->", "", "inside an HTML comment" },
	{ "<!--\nWrite Fixes #3 here\n-->\nCloses #4", "4", "a template comment across lines" },
	{ "<!-- open Fixes #3", "", "an unclosed HTML comment" },
	{ "<!-- a --> Fixes #3", "3", "after an HTML comment" },
	{ "`<!--` Fixes #3 `-->`", "3", "comment markers inside code spans" },
	/* nothing */
	{ "", "", "an empty description" },
	{ "Fixes", "", "a keyword alone" },
	{ "Fixes ", "", "a keyword and a blank" },
	{ "fix the bug", "", "no reference at all" },
};

/* A description of n bytes: "x " repeated, "Fixes #7" in the middle. */
static char *
long_text(size_t n)
{
	char	*s = malloc(n + 1);
	size_t	 i;

	if (s == NULL)
		bail_out("out of memory");
	for (i = 0; i < n; i++)
		s[i] = i % 2 == 0 ? 'x' : ' ';
	memcpy(s + n / 2, " Fixes #7 ", 10);
	s[n] = '\0';
	return s;
}

static void
test_cap(void)
{
	struct closing_list	 l;
	char			*s = malloc(200 * 20 + 16), buf[16];
	size_t			 used = 0;
	int			 i;

	if (s == NULL)
		bail_out("out of memory");
	used += (size_t)sprintf(s, "Fixes ");
	for (i = 1; i <= 150; i++)
		used += (size_t)sprintf(s + used, "%s#%d", i > 1 ? ", " : "", i);
	ok(closing_parse(&l, s, used) == 0, "150 references parse");
	is_int((long long)l.n, CLOSING_MAX, "at most 100 numbers are kept");
	is_int(l.numbers[0], 1, "the first is #1");
	is_int(l.numbers[99], 100, "the hundredth is #100");
	free(s);

	/* 100 of the largest numbers fit the stored form */
	{
		char		 big[CLOSING_TEXT_MAX];
		const char	*f;

		l.n = CLOSING_MAX;
		for (i = 0; i < CLOSING_MAX; i++)
			l.numbers[i] = INT32_MAX - i;
		f = closing_format(big, sizeof big, &l);
		ok(f != NULL && strlen(f) == CLOSING_TEXT_MAX - 1,
		    "100 ten-digit numbers fill CLOSING_TEXT_MAX exactly");
		ok(closing_format(buf, sizeof buf, &l) == NULL, "a buffer too small gives NULL");
	}
}

static void
test_stored(void)
{
	struct closing_list	 l;

	l.n = 0;
	ok(closing_format(NULL, 0, &l) == NULL, "nothing declared formats as NULL (the column is NULL)");
	closing_read(&l, "3,4,10");
	ok(l.n == 3 && l.numbers[0] == 3 && l.numbers[1] == 4 && l.numbers[2] == 10,
	    "the stored form reads back");
	closing_read(&l, NULL);
	is_int((long long)l.n, 0, "a NULL column reads as nothing");
	closing_read(&l, "");
	is_int((long long)l.n, 0, "an empty column reads as nothing");
	closing_read(&l, "5,x,0,,07,2147483648,6");
	ok(l.n == 2 && l.numbers[0] == 5 && l.numbers[1] == 6,
	    "a damaged stored form keeps only the valid numbers");
}

int
main(void)
{
	size_t		 i;
	char		*s;
	clock_t		 t0;
	double		 secs;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		is_str(declared(cases[i].text, strlen(cases[i].text)), cases[i].want, "%s: %s",
		    cases[i].name, cases[i].text);

	is_str(declared(NULL, 0), "", "a NULL description declares nothing");
	is_str(declared("Fixes #3 and more", 8), "3", "only len bytes are read");
	is_str(declared("Fixes #34", 8), "3", "a reference cut by len ends there");
	is_str(declared("Fixes #3\0 #4", 12), "3", "a NUL byte ends a list");

	/* long inputs, no NUL: linear time whatever the shape */
	s = long_text(1 << 20);
	t0 = clock();
	is_str(declared(s, strlen(s)), "7", "a 1 MiB description finds the one declaration");
	free(s);
	s = malloc((1 << 20) + 1);
	if (s == NULL)
		bail_out("out of memory");
	for (i = 0; i < (1 << 20); i++)	/* backtick runs of growing length, none closed */
		s[i] = (i & (i + 1)) == 0 ? ' ' : '`';
	s[1 << 20] = '\0';
	is_str(declared(s, 1 << 20), "", "1 MiB of unmatched backtick runs");
	memset(s, '`', 1 << 20);
	is_str(declared(s, 1 << 20), "", "1 MiB of backticks");
	for (i = 0; i + 3 < (1 << 20); i += 3)
		memcpy(s + i, "<!-", 3);
	is_str(declared(s, 1 << 20), "", "1 MiB of almost-comments");
	for (i = 0; i + 10 <= (1 << 20); i += 10)
		memcpy(s + i, "fixes #1, ", 10);
	is_str(declared(s, 1 << 20), "1", "1 MiB of one repeated declaration");
	for (i = 0; i < (1 << 20); i++)
		s[i] = "\n`~ -#>"[i % 7];
	is_str(declared(s, 1 << 20), "", "1 MiB of markup characters");
	free(s);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(secs < 20.0, "the long inputs take %.2f s", secs);

	test_cap();
	test_stored();
	return done_testing();
}
