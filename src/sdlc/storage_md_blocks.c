/* storage_md_blocks: the blocks of the storage format converter: code, lists, tables, macros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sdlc/storage_md-int.h"

/* The longest run of backticks in s. */
static size_t
md_ticks(const char *s)
{
	size_t	run = 0, longest = 0;

	for (; *s != '\0'; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

/* A code block: a fence longer than any run of backticks in text, language, the text as it is. */
void
storage_code_block(struct md *m, const char *text, const char *lang)
{
	const char	*p, *eol;
	size_t		 longest, n, trim;
	char		 fence[64];

	if (m->cell) {
		/* a table cell holds one line: the code as inline code */
		m->space = 1;
		longest = md_ticks(text);
		storage_puts(m, longest > 0 ? "`` " : "`");
		for (p = text; *p != '\0'; p++)
			storage_put(m, strchr("\r\n\t", *p) != NULL ? " " : p, 1);
		storage_close(m, longest > 0 ? " ``" : "`");
		return;
	}
	longest = md_ticks(text);
	n = longest >= 3 ? longest + 1 : 3;
	if (n >= sizeof fence)
		n = sizeof fence - 1;
	memset(fence, '`', n);
	fence[n] = '\0';
	while (*text == '\n' || *text == '\r')
		text++;
	storage_break(m, 2);
	storage_puts(m, fence);
	if (lang != NULL && *lang != '\0' && strpbrk(lang, "` \t\r\n") == NULL)
		storage_puts(m, lang);
	trim = m->npre;
	while (trim > 0 && m->pre[trim - 1] == ' ')
		trim--;
	for (p = text; *p != '\0'; p = *eol != '\0' ? eol + 1 : eol) {
		eol = p + strcspn(p, "\n");
		n = (size_t)(eol - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (*eol == '\0' && n == 0)
			break;
		buf_putc(&m->out, '\n');
		buf_append(&m->out, m->pre, n > 0 ? m->npre : trim);
		buf_append(&m->out, p, n);
	}
	buf_putc(&m->out, '\n');
	buf_append(&m->out, m->pre, m->npre);
	buf_puts(&m->out, fence);
	storage_break(m, 2);
}

/* Code in a line: backticks around the text, more of them when it holds some. */
void
storage_code_inline(struct md *m, xmlNodePtr n)
{
	struct buf	 b;
	const char	*p;
	int		 ticks = 0, sp = 0;

	buf_init(&b);
	storage_text_of(n, &b);
	if (b.data == NULL || strspn(b.data, " \t\r\n") == b.len) {
		buf_release(&b);
		return;
	}
	for (p = b.data; *p != '\0'; p++)
		ticks |= *p == '`';
	storage_puts(m, ticks ? "`` " : "`");
	for (p = b.data; *p != '\0'; p++) {
		if (strchr(" \t\r\n\f", *p) != NULL) {
			sp = 1;
			continue;
		}
		if (sp && p != b.data)
			storage_put(m, " ", 1);
		sp = 0;
		storage_put(m, p, 1);
	}
	storage_close(m, ticks ? " ``" : "`");
	buf_release(&b);
}

/* ac:structured-macro: code and noformat as code blocks; others keep their rich text. */
void
storage_macro(struct md *m, xmlNodePtr n, int depth)
{
	const char	*name = storage_attr(n, "ac:name"), *lang = NULL;
	xmlNodePtr	 c, body = NULL;
	struct buf	 b;

	for (c = n->children; c != NULL; c = c->next) {
		if (storage_is(c, "ac:parameter") && storage_attr(c, "ac:name") != NULL &&
		    strcmp(storage_attr(c, "ac:name"), "language") == 0 && c->children != NULL &&
		    c->children->type == XML_TEXT_NODE)
			lang = (const char *)c->children->content;
		if (storage_is(c, "ac:plain-text-body"))
			body = c;
	}
	if (body == NULL || name == NULL || (strcmp(name, "code") != 0 &&
	    strcmp(name, "noformat") != 0)) {
		storage_children(m, n, depth);
		return;
	}
	buf_init(&b);
	storage_text_of(body, &b);
	storage_code_block(m, b.data != NULL ? b.data : "", strcmp(name, "code") == 0 ? lang : NULL);
	buf_release(&b);
}

void
storage_list(struct md *m, xmlNodePtr n, int ordered, int depth)
{
	xmlNodePtr	c;
	char		mark[32];
	size_t		npre = m->npre, k;
	long		at = 1;

	if (ordered && storage_attr(n, "start") != NULL &&
	    (at = strtol(storage_attr(n, "start"), NULL, 10)) < 0)
		at = 1;
	storage_break(m, m->lists > 0 ? 1 : 2);
	m->fresh = 0;
	m->lists++;
	for (c = n->children; c != NULL; c = c->next) {
		if (!storage_is(c, "li")) {
			if (c->type == XML_ELEMENT_NODE)
				storage_children(m, c, depth);
			continue;
		}
		storage_break(m, 1);
		if (ordered)
			snprintf(mark, sizeof mark, "%ld. ", at++);
		else
			snprintf(mark, sizeof mark, "- ");
		storage_puts(m, mark);
		k = strlen(mark);
		if (m->npre + k <= MD_PREFIX_MAX) {
			memset(m->pre + m->npre, ' ', k);
			m->npre += k;
			m->pre[m->npre] = '\0';
		}
		m->fresh = 1;
		m->space = 0;
		storage_children(m, c, depth);
		m->fresh = 0;
		m->npre = npre;
		m->pre[npre] = '\0';
	}
	m->lists--;
	storage_break(m, m->lists > 0 ? 1 : 2);
}

/* One table cell's Markdown, on one line, its | escaped. */
static char *
md_cell(xmlNodePtr cell, int depth)
{
	struct md	c;
	char		*s;
	size_t		 i;

	memset(&c, 0, sizeof c);
	buf_init(&c.out);
	c.cell = 1;
	storage_children(&c, cell, depth);
	if (c.out.len == 0) {
		buf_release(&c.out);
		return strdup("");
	}
	if ((s = buf_steal(&c.out, NULL)) == NULL)
		return NULL;
	for (i = 0; s[i] != '\0'; i++)
		if (s[i] == '\n' || s[i] == '\r')
			s[i] = ' ';
	while (i > 0 && s[i - 1] == ' ')
		s[--i] = '\0';
	return s;
}

/*
 * The rows of a table (its tr, in thead, tbody, tfoot or directly) into
 * rows[] (NULL: only counted); their number.
 */
static size_t
md_rows(xmlNodePtr t, xmlNodePtr *rows)
{
	xmlNodePtr	c, r;
	size_t		n = 0;

	for (c = t->children; c != NULL; c = c->next) {
		if (storage_is(c, "tr")) {
			if (rows != NULL)
				rows[n] = c;
			n++;
		} else if (storage_is(c, "thead") || storage_is(c, "tbody") ||
		    storage_is(c, "tfoot"))
			for (r = c->children; r != NULL; r = r->next)
				if (storage_is(r, "tr")) {
					if (rows != NULL)
						rows[n] = r;
					n++;
				}
	}
	return n;
}

/*
 * Rows are not padded to the widest: a short row is valid Markdown, and
 * the output stays as long as the input, whatever a hostile table's shape.
 */
void
storage_table(struct md *m, xmlNodePtr t, int depth)
{
	xmlNodePtr	*rows, c;
	size_t		 n, i, j, head = 0;
	char		*s;

	n = md_rows(t, NULL);
	if (m->cell || n == 0) {
		storage_children(m, t, depth);
		return;
	}
	if ((rows = calloc(n, sizeof *rows)) == NULL) {
		m->out.oom = 1;
		return;
	}
	(void)md_rows(t, rows);
	for (c = rows[0]->children; c != NULL; c = c->next)
		head += storage_is(c, "td") || storage_is(c, "th");
	storage_break(m, 2);
	for (i = 0; i < n; i++) {
		storage_break(m, 1);
		storage_puts(m, "|");
		for (j = 0, c = rows[i]->children; c != NULL; c = c->next) {
			if (!storage_is(c, "td") && !storage_is(c, "th"))
				continue;
			s = md_cell(c, depth);
			storage_puts(m, " ");
			storage_puts(m, s != NULL ? s : "");
			storage_puts(m, s != NULL && *s != '\0' ? " |" : "|");
			free(s);
			j++;
		}
		if (j == 0)
			storage_puts(m, " |");
		if (i == 0) {
			storage_break(m, 1);
			storage_puts(m, "|");
			for (j = 0; j < (head > 0 ? head : 1); j++)
				storage_puts(m, " --- |");
		}
	}
	storage_break(m, 2);
	free(rows);
}
