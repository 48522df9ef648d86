/* closing: finds the local issues a pull request description declares closed (spec: closing keywords). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/closing.h"

/*
 * The description is copied, and what cannot declare anything (code blocks,
 * code spans, HTML comments) is overwritten with MASK, a byte that is
 * neither a blank nor part of a word nor '#': a keyword before masked text
 * and a reference after it are never joined.  Then the copy is scanned for
 * keywords.  Every pass is linear in the length of the text.
 */
#define MASK		'\001'
#define NONE		SIZE_MAX
#define LIST_DEPTH	16

static const char *const keywords[] = {
	"close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved",
	NULL
};

static int
is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c >= 0x80;
}

static int
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether the n bytes at w spell kw, ignoring ASCII case. */
static int
word_is(const char *w, size_t n, const char *kw)
{
	size_t	 i;

	if (strlen(kw) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)w[i]) != kw[i])
			return 0;
	return 1;
}

static void
mask_range(char *m, size_t s, size_t e)
{
	if (e > s)
		memset(m + s, MASK, e - s);
}

/* ---- block structure: fenced and indented code ---- */

struct blocks {
	size_t	 list[LIST_DEPTH];	/* content columns of the open list items, innermost last */
	size_t	 depth;
	int	 para;		/* a paragraph is open: an indented line continues it */
	int	 prev_blank;
	char	 fence;		/* '`' or '~' inside a fenced code block, else 0 */
	size_t	 fence_len;
};

/* The column of the first non-blank at or after p (tabs stop every 4 columns); *at receives it. */
static size_t
indent_of(const char *m, size_t p, size_t e, size_t col, size_t *at)
{
	while (p < e && (m[p] == ' ' || m[p] == '\t')) {
		col = m[p] == '\t' ? col + 4 - col % 4 : col + 1;
		p++;
	}
	*at = p;
	return col;
}

static size_t
run_of(const char *m, size_t p, size_t e, char c)
{
	size_t	 q = p;

	while (q < e && m[q] == c)
		q++;
	return q - p;
}

static int
only_blanks(const char *m, size_t p, size_t e)
{
	for (; p < e; p++)
		if (m[p] != ' ' && m[p] != '\t' && m[p] != '\r')
			return 0;
	return 1;
}

/* Whether a fence opens at p: three or more ` or ~ (the info string of a ` fence holds no `). */
static int
fence_opens(struct blocks *b, const char *m, size_t p, size_t e)
{
	size_t	 n;

	if (p >= e || (m[p] != '`' && m[p] != '~'))
		return 0;
	if ((n = run_of(m, p, e, m[p])) < 3)
		return 0;
	if (m[p] == '`' && memchr(m + p + n, '`', e - p - n) != NULL)
		return 0;
	b->fence = m[p];
	b->fence_len = n;
	return 1;
}

/* The width of a list marker at p ("-", "*", "+", "1." or "1)") followed by a blank or the line's end, else 0. */
static size_t
list_marker(const char *m, size_t p, size_t e)
{
	size_t	 q = p;

	if (p < e && (m[p] == '-' || m[p] == '*' || m[p] == '+'))
		q = p + 1;
	else {
		while (q < e && q - p < 9 && m[q] >= '0' && m[q] <= '9')
			q++;
		if (q == p || q >= e || (m[q] != '.' && m[q] != ')'))
			return 0;
		q++;
	}
	if (q < e && m[q] != ' ' && m[q] != '\t' && m[q] != '\r')
		return 0;
	return q - p;
}

/* Whether an ATX heading ("# Title") starts at p. */
static int
heading_at(const char *m, size_t p, size_t e)
{
	size_t	 n = run_of(m, p, e, '#');

	return n >= 1 && n <= 6 && (p + n == e || m[p + n] == ' ' || m[p + n] == '\t');
}

/* One line [s, e) (without its '\n'): masks it when it is code or a fence. */
static void
block_line(struct blocks *b, char *m, size_t s, size_t e)
{
	size_t	 p = s, col = 0, at, at2, ind, base, w, ccol, c2, q, c;

	/* blockquote markers: "> " */
	for (;;) {
		q = p;
		c = col;
		while (q < e && m[q] == ' ' && c - col < 3) {
			q++;
			c++;
		}
		if (q >= e || m[q] != '>')
			break;
		p = q + 1;
		col = c + 1;
		if (p < e && m[p] == ' ') {
			p++;
			col++;
		}
	}
	ind = indent_of(m, p, e, col, &at);
	if (b->fence != 0) {
		w = run_of(m, at, e, b->fence);
		if (w >= b->fence_len && only_blanks(m, at + w, e)) {
			b->fence = 0;
			b->para = 0;
		}
		mask_range(m, s, e);
		b->prev_blank = 0;
		return;
	}
	if (only_blanks(m, at, e)) {
		b->para = 0;
		b->prev_blank = 1;
		return;
	}
	/* A line leaves the list items it is not indented enough for. */
	w = list_marker(m, at, e);
	if (b->prev_blank || w > 0)
		while (b->depth > 0 && b->list[b->depth - 1] > ind)
			b->depth--;
	base = b->depth > 0 ? b->list[b->depth - 1] : 0;
	b->prev_blank = 0;
	if (ind >= base + 4 && !b->para) {
		mask_range(m, s, e);	/* indented code */
		return;
	}
	if (fence_opens(b, m, at, e)) {
		mask_range(m, s, e);
		b->para = 0;
		return;
	}
	if (heading_at(m, at, e)) {
		b->para = 0;
		return;
	}
	if (w > 0) {
		ccol = ind + w;
		c2 = indent_of(m, at + w, e, ccol, &at2);
		/* an empty item, or code inside it: the content starts one column after the marker */
		ccol = at2 >= e || c2 - ccol > 4 ? ccol + 1 : c2;
		if (b->depth == LIST_DEPTH)
			b->depth--;
		b->list[b->depth++] = ccol;
		if (at2 < e && fence_opens(b, m, at2, e)) {
			mask_range(m, at2, e);
			b->para = 0;
			return;
		}
	}
	b->para = 1;
}

static void
mask_blocks(char *m, size_t len)
{
	struct blocks	 b;
	size_t		 s = 0, e;

	memset(&b, 0, sizeof b);
	b.prev_blank = 1;
	while (s < len) {
		for (e = s; e < len && m[e] != '\n'; e++)
			;
		block_line(&b, m, s, e);
		s = e + 1;
	}
}

/* ---- inline: code spans and HTML comments ---- */

/* Where the run of inline text from s ends: at masked text or before a blank line. */
static size_t
chunk_end(const char *m, size_t len, size_t s)
{
	size_t	 i, j;

	for (i = s; i < len; i++) {
		if (m[i] == MASK)
			return i;
		if (m[i] != '\n')
			continue;
		for (j = i + 1; j < len && (m[j] == ' ' || m[j] == '\t' || m[j] == '\r'); j++)
			;
		if (j >= len || m[j] == '\n')
			return i;
	}
	return len;
}

/*
 * Code spans: a run of n backticks opens a span that the next run of
 * exactly n backticks in the same paragraph closes; a run without a
 * closer is text.  next[r] is the next run of r's length, found for every
 * run at once, so the pass stays linear however the runs are mixed.
 */
static int
mask_spans(char *m, size_t len)
{
	size_t	*pos = NULL, *rlen = NULL, *next = NULL, *last = NULL;
	size_t	 cap = len / 2 + 1, n, i, k, r, s, e;
	int	 rc = ERR_NOMEM;

	if ((pos = calloc(cap, sizeof *pos)) == NULL ||
	    (rlen = calloc(cap, sizeof *rlen)) == NULL ||
	    (next = calloc(cap, sizeof *next)) == NULL ||
	    (last = malloc((len + 1) * sizeof *last)) == NULL)
		goto done;
	for (i = 0; i <= len; i++)
		last[i] = NONE;
	for (s = 0; s < len; s = e + 1) {
		e = chunk_end(m, len, s);
		n = 0;
		for (i = s; i < e; i = k) {
			if (m[i] != '`') {
				k = i + 1;
				continue;
			}
			for (k = i; k < e && m[k] == '`'; k++)
				;
			pos[n] = i;
			rlen[n++] = k - i;
		}
		for (r = n; r-- > 0;) {
			next[r] = last[rlen[r]];
			last[rlen[r]] = r;
		}
		for (r = 0; r < n; r++)
			last[rlen[r]] = NONE;
		for (r = 0; r < n;) {
			if ((k = next[r]) == NONE) {
				r++;
				continue;
			}
			mask_range(m, pos[r], pos[k] + rlen[k]);
			r = k + 1;
		}
	}
	rc = 0;
done:
	free(pos);
	free(rlen);
	free(next);
	free(last);
	return rc;
}

/* HTML comments "<!-- ... -->" are not shown; one left open runs to the end. */
static void
mask_comments(char *m, size_t len)
{
	size_t	 i = 0, k, end;

	while (i + 4 <= len) {
		if (memcmp(m + i, "<!--", 4) != 0) {
			i++;
			continue;
		}
		end = len;
		for (k = i + 2; k + 3 <= len; k++)
			if (memcmp(m + k, "-->", 3) == 0) {
				end = k + 3;
				break;
			}
		mask_range(m, i, end);
		i = end;
	}
}

/* ---- declarations ---- */

/* Past blanks from p, with at most one line break (a blank line ends a declaration). */
static size_t
skip_ws(const char *m, size_t len, size_t p)
{
	int	 nl = 0;

	for (; p < len; p++) {
		if (m[p] == '\n') {
			if (nl++ > 0)
				break;
		} else if (m[p] != ' ' && m[p] != '\t' && m[p] != '\r')
			break;
	}
	return p;
}

/* A local reference "#N" at p: N from 1 to INT32_MAX, no leading zero, then a non-word byte. */
static int
ref_at(const char *m, size_t len, size_t p, int64_t *num, size_t *end)
{
	int64_t	 v = 0;
	size_t	 q = p + 1;

	if (p >= len || m[p] != '#' || q >= len || m[q] < '1' || m[q] > '9')
		return 0;
	for (; q < len && m[q] >= '0' && m[q] <= '9'; q++) {
		v = v * 10 + (m[q] - '0');
		if (v > INT32_MAX)
			return 0;
	}
	if (q < len && is_word((unsigned char)m[q]))
		return 0;
	*num = v;
	*end = q;
	return 1;
}

/* "and" at p followed by a blank: the position after the blanks, else 0. */
static size_t
and_at(const char *m, size_t len, size_t p)
{
	size_t	 q;

	if (p + 3 >= len || !word_is(m + p, 3, "and"))
		return 0;
	q = skip_ws(m, len, p + 3);
	return q > p + 3 ? q : 0;
}

static void
add(struct closing_list *out, int64_t v)
{
	size_t	 i;

	for (i = 0; i < out->n; i++)
		if (out->numbers[i] == v)
			return;
	if (out->n < CLOSING_MAX)
		out->numbers[out->n++] = v;
}

/*
 * After a keyword ending at p: whitespace, then "#N", then more joined by
 * ",", "and" or ", and".  Returns where scanning goes on: after the last
 * reference taken, or p when there is none.
 */
static size_t
declared(struct closing_list *out, const char *m, size_t len, size_t p)
{
	int64_t	 v;
	size_t	 q, a, end;

	q = skip_ws(m, len, p);
	if (q == p || !ref_at(m, len, q, &v, &end))
		return p;
	add(out, v);
	for (p = end;;) {
		q = skip_ws(m, len, p);
		if (q < len && m[q] == ',') {
			q = skip_ws(m, len, q + 1);
			if ((a = and_at(m, len, q)) != 0)
				q = a;
		} else if (q > p && (a = and_at(m, len, q)) != 0)
			q = a;
		else
			break;
		if (!ref_at(m, len, q, &v, &end))
			break;
		add(out, v);
		p = end;
	}
	return p;
}

static int
is_keyword(const char *w, size_t n)
{
	size_t	 i;

	for (i = 0; keywords[i] != NULL; i++)
		if (word_is(w, n, keywords[i]))
			return 1;
	return 0;
}

int
closing_parse(struct closing_list *out, const char *text, size_t len)
{
	char	*m;
	size_t	 i, j;

	out->n = 0;
	if (text == NULL || len == 0)
		return 0;
	if ((m = malloc(len)) == NULL)
		return ERR_NOMEM;
	memcpy(m, text, len);
	mask_blocks(m, len);
	if (mask_spans(m, len) != 0) {
		free(m);
		return ERR_NOMEM;
	}
	mask_comments(m, len);
	for (i = 0; i < len && out->n < CLOSING_MAX;) {
		if (!is_alpha((unsigned char)m[i]) ||
		    (i > 0 && is_word((unsigned char)m[i - 1]))) {
			i++;
			continue;
		}
		for (j = i; j < len && is_word((unsigned char)m[j]); j++)
			;
		i = is_keyword(m + i, j - i) ? declared(out, m, len, j) : j;
	}
	free(m);
	return 0;
}

const char *
closing_format(char *buf, size_t size, const struct closing_list *l)
{
	size_t	 used = 0, i;
	int	 w;

	if (l->n == 0 || size == 0)
		return NULL;
	for (i = 0; i < l->n; i++) {
		w = snprintf(buf + used, size - used, "%s%lld", i > 0 ? "," : "",
		    (long long)l->numbers[i]);
		if (w < 0 || (size_t)w >= size - used)
			return NULL;
		used += (size_t)w;
	}
	return buf;
}

void
closing_read(struct closing_list *out, const char *stored)
{
	const char	*p = stored;
	int64_t		 v;
	int		 ok;

	out->n = 0;
	while (p != NULL && *p != '\0' && out->n < CLOSING_MAX) {
		v = 0;
		ok = *p >= '1' && *p <= '9';
		for (; *p != '\0' && *p != ','; p++) {
			if (*p < '0' || *p > '9' || v > INT32_MAX)
				ok = 0;
			else
				v = v * 10 + (*p - '0');
		}
		if (ok && v <= INT32_MAX)
			add(out, v);
		if (*p == ',')
			p++;
	}
}
