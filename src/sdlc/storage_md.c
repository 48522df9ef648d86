/*
 * storage_md: Confluence storage format to Markdown (storage_md.h).  The
 * text is parsed by libxml2's HTML parser, which takes any input (the
 * storage format is XHTML, but a page's text comes from a server we do
 * not trust to keep it well formed); its CDATA sections, which HTML does
 * not have, are turned into escaped text first.  The tree is then
 * written out as Markdown through one writer that owes line breaks
 * rather than writing them, so blocks are separated by exactly one blank
 * line and list items and quotes carry their indent on every line.
 * Elements it does not know keep their text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "sdlc/storage_md.h"
#include "sdlc/xml_lib.h"
#include "sdlc/storage_md-int.h"

/*
 * libxml2's HTML parser drops the prefix of an element's name (ac:link
 * becomes link) but not of an attribute's: an element is matched with or
 * without its prefix.
 */
int
storage_is(xmlNodePtr n, const char *name)
{
	const char	*colon = strchr(name, ':');

	if (n == NULL || n->type != XML_ELEMENT_NODE || n->name == NULL)
		return 0;
	return strcasecmp((const char *)n->name, name) == 0 ||
	    (colon != NULL && strcasecmp((const char *)n->name, colon + 1) == 0);
}

/* The value of attribute name of n (borrowed), or NULL. */
const char *
storage_attr(xmlNodePtr n, const char *name)
{
	xmlAttrPtr	a;

	for (a = n->properties; a != NULL; a = a->next)
		if (a->name != NULL && strcasecmp((const char *)a->name, name) == 0)
			return a->children != NULL && a->children->content != NULL ?
			    (const char *)a->children->content : "";
	return NULL;
}

/* The text of n's subtree appended to b, without recursion (any depth). */
void
storage_text_of(xmlNodePtr n, struct buf *b)
{
	xmlNodePtr	at = n->children;

	if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
		if (n->content != NULL)
			buf_puts(b, (const char *)n->content);
		return;
	}
	while (at != NULL && at != n) {
		if ((at->type == XML_TEXT_NODE || at->type == XML_CDATA_SECTION_NODE) &&
		    at->content != NULL)
			buf_puts(b, (const char *)at->content);
		if (at->type == XML_ELEMENT_NODE && at->children != NULL) {
			at = at->children;
			continue;
		}
		while (at != n && at->next == NULL)
			at = at->parent;
		if (at != n)
			at = at->next;
	}
}

/* Whether n's subtree has any text but white space. */
int
storage_has_text(xmlNodePtr n)
{
	struct buf	b;
	int		yes;

	buf_init(&b);
	storage_text_of(n, &b);
	yes = b.data != NULL && strspn(b.data, " \t\r\n\f") < b.len;
	buf_release(&b);
	return yes;
}

/* Owes k line breaks (a cell owes a space instead). */
void
storage_break(struct md *m, int k)
{
	if (m->cell) {
		m->space = 1;
		return;
	}
	if (m->out.len == 0 || m->fresh)
		return;
	if (m->nl < k)
		m->nl = k;
}

/* Pays the breaks owed: trailing spaces dropped, blank lines with the prefix trimmed. */
static void
md_flush(struct md *m)
{
	size_t	trim = m->npre;
	int	i;

	if (m->nl == 0)
		return;
	while (m->out.len > 0 && m->out.data[m->out.len - 1] == ' ')
		m->out.data[--m->out.len] = '\0';
	while (trim > 0 && m->pre[trim - 1] == ' ')
		trim--;
	buf_putc(&m->out, '\n');
	for (i = 1; i < m->nl; i++) {
		buf_append(&m->out, m->pre, trim);
		buf_putc(&m->out, '\n');
	}
	m->nl = 0;
	m->space = 0;
	m->bol = 1;
}

/* Writes s (n bytes) as it is: first the breaks, prefix and space owed. */
void
storage_put(struct md *m, const char *s, size_t n)
{
	char	last;

	md_flush(m);
	if (m->bol) {
		buf_append(&m->out, m->pre, m->npre);
		m->bol = 0;
		m->space = 0;
	}
	last = m->out.len > 0 ? m->out.data[m->out.len - 1] : '\n';
	if (m->space && last != ' ' && last != '\n')
		buf_putc(&m->out, ' ');
	m->space = 0;
	m->fresh = 0;
	buf_append(&m->out, s, n);
}

void
storage_puts(struct md *m, const char *s)
{
	storage_put(m, s, strlen(s));
}

/* A closing mark: written right after the text, the space owed kept for after it. */
void
storage_close(struct md *m, const char *s)
{
	int	space = m->space;

	m->space = 0;
	storage_puts(m, s);
	m->space = space;
}

/* Text: runs of white space become one space; Markdown's marks are escaped. */
void
storage_text(struct md *m, const char *s)
{
	const char	*p = s, *q;
	char		 c;
	int		 first;

	while (*p != '\0') {
		if (strchr(" \t\r\n\f", *p) != NULL) {
			m->space = 1;
			p++;
			continue;
		}
		for (q = p; *q != '\0' && strchr(" \t\r\n\f\\*`[]|", *q) == NULL; q++)
			;
		first = m->bol || m->nl > 0 || m->out.len == 0;
		if (q > p) {
			if (first && strchr("#>-+", *p) != NULL && (q - p == 1 || *p == '#')) {
				storage_puts(m, "\\");
			}
			storage_put(m, p, (size_t)(q - p));
			p = q;
			continue;
		}
		c = *p++;
		if (c == '|' && !m->cell) {
			storage_put(m, "|", 1);
			continue;
		}
		storage_puts(m, "\\");
		storage_close(m, (char[]){ c, '\0' });
	}
}

/* Inline marks around n's children, when they have text. */
static void
md_wrap(struct md *m, xmlNodePtr n, const char *mark, int depth)
{
	if (!storage_has_text(n)) {
		storage_children(m, n, depth);
		return;
	}
	storage_puts(m, mark);
	storage_children(m, n, depth);
	storage_close(m, mark);
}

static void
md_link(struct md *m, xmlNodePtr n, int depth)
{
	const char	*href = storage_attr(n, "href");

	if (href == NULL || *href == '\0' || strpbrk(href, "\r\n") != NULL) {
		storage_children(m, n, depth);
		return;
	}
	if (!storage_has_text(n)) {
		storage_puts(m, "<");
		storage_close(m, href);
		storage_close(m, ">");
		return;
	}
	storage_puts(m, "[");
	storage_children(m, n, depth);
	storage_close(m, "](");
	if (strpbrk(href, " ()<>") != NULL) {
		storage_close(m, "<");
		storage_close(m, href);
		storage_close(m, ">");
	} else
		storage_close(m, href);
	storage_close(m, ")");
}

/* ac:link: its body's text, else the title of the page or the name of the file it links. */
static void
md_ac_link(struct md *m, xmlNodePtr n, int depth)
{
	xmlNodePtr	c;
	const char	*name = NULL;

	for (c = n->children; c != NULL; c = c->next) {
		if ((storage_is(c, "ac:plain-text-link-body") || storage_is(c, "ac:link-body")) &&
		    storage_has_text(c)) {
			storage_children(m, c, depth);
			return;
		}
		if (storage_is(c, "ri:page") && name == NULL)
			name = storage_attr(c, "ri:content-title");
		if (storage_is(c, "ri:attachment") && name == NULL)
			name = storage_attr(c, "ri:filename");
	}
	if (name != NULL)
		storage_text(m, name);
}

static void
md_node(struct md *m, xmlNodePtr n, int depth)
{
	const char	*name = (const char *)n->name;
	struct buf	 b;
	size_t		 npre;
	int		 h;

	if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
		if (n->content != NULL)
			storage_text(m, (const char *)n->content);
		return;
	}
	if (n->type != XML_ELEMENT_NODE || name == NULL)
		return;
	if (depth > MD_DEPTH_MAX) {
		buf_init(&b);
		storage_text_of(n, &b);
		if (b.data != NULL)
			storage_text(m, b.data);
		buf_release(&b);
		return;
	}
	depth++;
	if (strlen(name) == 2 && (name[0] == 'h' || name[0] == 'H') && name[1] >= '1' &&
	    name[1] <= '6') {
		h = name[1] - '0';
		storage_break(m, 2);
		storage_puts(m, &"###### "[6 - h]);
		storage_children(m, n, depth);
		storage_break(m, 2);
	} else if (storage_is(n, "p") || storage_is(n, "div") || storage_is(n, "section") ||
	    storage_is(n, "article")) {
		storage_break(m, 2);
		storage_children(m, n, depth);
		storage_break(m, 2);
	} else if (storage_is(n, "br")) {
		if (m->cell)
			m->space = 1;
		else if (m->out.len > 0 && !m->bol && m->nl == 0) {
			storage_close(m, "\\");
			m->nl = 1;
		}
	} else if (storage_is(n, "strong") || storage_is(n, "b"))
		md_wrap(m, n, "**", depth);
	else if (storage_is(n, "em") || storage_is(n, "i") || storage_is(n, "cite"))
		md_wrap(m, n, "*", depth);
	else if (storage_is(n, "s") || storage_is(n, "del") || storage_is(n, "strike"))
		md_wrap(m, n, "~~", depth);
	else if (storage_is(n, "code") || storage_is(n, "tt") || storage_is(n, "kbd") ||
	    storage_is(n, "samp"))
		storage_code_inline(m, n);
	else if (storage_is(n, "pre")) {
		buf_init(&b);
		storage_text_of(n, &b);
		storage_code_block(m, b.data != NULL ? b.data : "", NULL);
		buf_release(&b);
	} else if (storage_is(n, "ac:structured-macro") || storage_is(n, "ac:macro"))
		storage_macro(m, n, depth);
	else if (storage_is(n, "ac:plain-text-body")) {
		buf_init(&b);
		storage_text_of(n, &b);
		storage_code_block(m, b.data != NULL ? b.data : "", NULL);
		buf_release(&b);
	} else if (storage_is(n, "a"))
		md_link(m, n, depth);
	else if (storage_is(n, "ac:link"))
		md_ac_link(m, n, depth);
	else if (storage_is(n, "ul"))
		storage_list(m, n, 0, depth);
	else if (storage_is(n, "ol"))
		storage_list(m, n, 1, depth);
	else if (storage_is(n, "table"))
		storage_table(m, n, depth);
	else if (storage_is(n, "blockquote")) {
		/* the breaks before the quote are written with the prefix outside it */
		storage_break(m, 2);
		md_flush(m);
		npre = m->npre;
		if (m->npre + 2 <= MD_PREFIX_MAX && !m->cell) {
			memcpy(m->pre + m->npre, "> ", 2);
			m->npre += 2;
			m->pre[m->npre] = '\0';
		}
		storage_children(m, n, depth);
		storage_break(m, 2);
		m->npre = npre;
		m->pre[npre] = '\0';
	} else if (storage_is(n, "hr")) {
		storage_break(m, 2);
		storage_puts(m, "---");
		storage_break(m, 2);
	} else if (storage_is(n, "ac:parameter") || storage_is(n, "script") ||
	    storage_is(n, "style") || storage_is(n, "head") || storage_is(n, "title") ||
	    storage_is(n, "ac:placeholder"))
		return;
	else
		storage_children(m, n, depth);
}

void
storage_children(struct md *m, xmlNodePtr n, int depth)
{
	xmlNodePtr	c;

	for (c = n->children; c != NULL; c = c->next)
		md_node(m, c, depth);
}

/* xhtml with its CDATA sections as escaped text, in <html><body>: the parser's input. */
static int
md_input(struct buf *b, const char *s, size_t len)
{
	const char	*end = s + len, *p, *q;

	buf_puts(b, "<html><body>");
	while (s < end) {
		p = memmem(s, (size_t)(end - s), "<![CDATA[", 9);
		if (p == NULL) {
			buf_append(b, s, (size_t)(end - s));
			break;
		}
		buf_append(b, s, (size_t)(p - s));
		p += 9;
		if ((q = memmem(p, (size_t)(end - p), "]]>", 3)) == NULL)
			q = end;
		for (; p < q; p++) {
			if (*p == '<')
				buf_puts(b, "&lt;");
			else if (*p == '>')
				buf_puts(b, "&gt;");
			else if (*p == '&')
				buf_puts(b, "&amp;");
			else
				buf_putc(b, *p);
		}
		s = q < end ? q + 3 : end;
	}
	buf_puts(b, "</body></html>");
	return b->oom ? -1 : 0;
}

int
storage_markdown(char **out, size_t *out_len, const char *xhtml, size_t len, struct err *e)
{
	const struct xml_lib	*x;
	htmlDocPtr		 doc = NULL;
	xmlNodePtr		 root, c, body = NULL;
	struct buf		 in;
	struct md		 m;
	int			 rc = 0;

	*out = NULL;
	*out_len = 0;
	memset(&m, 0, sizeof m);
	m.bol = 1;
	buf_init(&in);
	buf_init(&m.out);
	if ((x = xml_lib(e)) == NULL)
		return ERR_CONFIG;
	/* what comes from a JSON answer is UTF-8, but may hold a NUL the parser would cut at */
	if (!json_utf8_valid(xhtml, len) || memchr(xhtml, '\0', len) != NULL)
		return err_set(e, ERR_INVALID, "the page's storage text is not UTF-8 without NULs");
	if (len > (size_t)1 << 30 || md_input(&in, xhtml, len) != 0) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	doc = x->htmlReadMemory(in.data, (int)in.len, NULL, "UTF-8", HTML_PARSE_NOERROR |
	    HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
	if (doc == NULL || (root = x->xmlDocGetRootElement(doc)) == NULL) {
		rc = err_set(e, ERR_INVALID, "the page's storage text cannot be parsed");
		goto done;
	}
	for (c = root->children; c != NULL && body == NULL; c = c->next)
		if (storage_is(c, "body"))
			body = c;
	storage_children(&m, body != NULL ? body : root, 0);
	if (m.out.oom) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	while (m.out.len > 0 && strchr(" \n", m.out.data[m.out.len - 1]) != NULL)
		m.out.data[--m.out.len] = '\0';
	if (m.out.len > 0)
		buf_putc(&m.out, '\n');
	if (m.out.oom) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out_len = m.out.len;
	*out = m.out.len > 0 ? buf_steal(&m.out, NULL) : strdup("");
	if (*out == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	if (doc != NULL)
		x->xmlFreeDoc(doc);
	buf_release(&in);
	buf_release(&m.out);
	return rc;
}
