/* storage-t: unit tests for the Confluence storage format to Markdown converter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "sdlc/storage_md.h"
#include "tap.h"

/* Checks that storage s converts to exactly want. */
static void
conv(const char *s, const char *want, const char *name)
{
	struct err	 e;
	char		*out = NULL;
	size_t		 len = 0;
	int		 rc;

	err_clear(&e);
	rc = storage_markdown(&out, &len, s, strlen(s), &e);
	if (!ok(rc == 0, "%s: converts", name))
		diag("error %d: %s", rc, e.msg);
	is_str(out, want, "%s", name);
	if (out != NULL)
		is_int((long long)len, (long long)strlen(out), "%s: the length", name);
	free(out);
}

int
main(void)
{
	conv("", "", "empty text");
	conv("<p>  </p>", "", "white space only");
	conv("<p>Первый абзац.</p><p>Второй\n   абзац.</p>",
	    "Первый абзац.\n\nВторой абзац.\n", "paragraphs, white space folded");
	conv("<h1>Заголовок</h1><h3>Третий</h3><p>текст</p>",
	    "# Заголовок\n\n### Третий\n\nтекст\n", "headings");
	conv("<p>a <strong>жирный</strong> и <em>курсив</em>, <b>b</b><i>i</i> <code>x = 1</code></p>",
	    "a **жирный** и *курсив*, **b***i* `x = 1`\n", "bold, italic, inline code");
	conv("<p><strong>a </strong>b</p>", "**a** b\n", "a space at the end of bold goes after it");
	conv("<p>one<br/>two</p>", "one\\\ntwo\n", "a line break");
	conv("<ul><li>один</li><li>два<ul><li>вложенный</li></ul></li></ul><ol><li>first</li><li>second</li></ol>",
	    "- один\n- два\n  - вложенный\n\n1. first\n2. second\n", "lists, nested");
	conv("<ul><li><p>para</p></li></ul>", "- para\n", "a list item's paragraph");
	conv("<p><a href=\"https://example.org/x\">ссылка</a> and <a href=\"/a b\">b</a></p>",
	    "[ссылка](https://example.org/x) and [b](</a b>)\n", "links");
	conv("<table><tbody><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>x|y</td></tr></tbody></table>",
	    "| A | B |\n| --- | --- |\n| 1 | x\\|y |\n", "a table, | escaped in a cell");
	conv("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td></tr><tr></tr></table>",
	    "| A | B |\n| --- | --- |\n| 1 |\n| |\n", "a short row is not padded; an empty row");
	conv("<ac:structured-macro ac:name=\"code\"><ac:parameter ac:name=\"language\">python</ac:parameter>"
	    "<ac:plain-text-body><![CDATA[if a < b:\n    print(\"<&>\")]]></ac:plain-text-body></ac:structured-macro>",
	    "```python\nif a < b:\n    print(\"<&>\")\n```\n", "a code macro, CDATA kept as it is");
	conv("<pre>line 1\n  line 2</pre>", "```\nline 1\n  line 2\n```\n", "pre");
	conv("<ac:structured-macro ac:name=\"info\"><ac:parameter ac:name=\"title\">T</ac:parameter>"
	    "<ac:rich-text-body><p>Важно.</p></ac:rich-text-body></ac:structured-macro>",
	    "Важно.\n", "another macro keeps its text, not its parameters");
	conv("<p><ac:link><ri:page ri:content-title=\"Другая страница\"/></ac:link></p>",
	    "Другая страница\n", "a link to a page: its title");
	conv("<p><unknown-thing>оставь <x:y>текст</x:y></unknown-thing></p>", "оставь текст\n",
	    "unknown elements keep their text");
	conv("<p>*not* [a] `b` \\</p>", "\\*not\\* \\[a\\] \\`b\\` \\\\\n", "marks escaped");
	conv("<p># not a heading</p>", "\\# not a heading\n", "a # that would start a heading");
	conv("<blockquote><p>q1</p><p>q2</p></blockquote>", "> q1\n>\n> q2\n", "a quote");
	conv("<p>x &amp; &lt;y&gt; &#1046;</p>", "x & <y> Ж\n", "entities");
	conv("<p>unclosed <b>bold<p>next", "unclosed **bold**\n\nnext\n", "broken markup");
	return done_testing();
}
