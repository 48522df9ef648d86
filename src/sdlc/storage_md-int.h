/*
 * storage_md-int: what the two halves of the storage format converter
 * share: the Markdown writer (storage_md.c) and the blocks written through
 * it, code, lists, tables and macros (storage_md_blocks.c).
 */
#ifndef FM_STORAGE_MD_INT_H
#define FM_STORAGE_MD_INT_H
#include <stddef.h>
#include <libxml/tree.h>

#include "buf.h"

#define MD_PREFIX_MAX	512	/* bytes of indent and quote marks */
#define MD_DEPTH_MAX	200	/* elements below that keep their text only */

struct md {
	struct buf	 out;
	char		 pre[MD_PREFIX_MAX + 1];	/* written at the start of each line */
	size_t		 npre;
	int		 nl;		/* line breaks owed: 1 a new line, 2 a blank line */
	int		 space;		/* a space owed before the next text */
	int		 bol;		/* at the start of a line: the prefix not written yet */
	int		 fresh;		/* a list marker just written: breaks are not owed */
	int		 cell;		/* in a table cell: breaks become spaces */
	int		 lists;		/* lists open */
};

/* Whether n is the element name (any case). */
int	storage_is(xmlNodePtr n, const char *name);
/* The value of attribute name of n (borrowed), or NULL. */
const char *storage_attr(xmlNodePtr n, const char *name);
/* The text of n's subtree appended to b, without recursion (any depth). */
void	storage_text_of(xmlNodePtr n, struct buf *b);
/* Whether n's subtree has any text but white space. */
int	storage_has_text(xmlNodePtr n);
/* Owes k line breaks (a table cell owes a space instead). */
void	storage_break(struct md *m, int k);
/* Writes s (n bytes) as it is, after the breaks, prefix and space owed. */
void	storage_put(struct md *m, const char *s, size_t n);
void	storage_puts(struct md *m, const char *s);
/* A closing mark: written right after the text, the space owed kept for after it. */
void	storage_close(struct md *m, const char *s);
/* Text: white space folded, Markdown's marks escaped. */
void	storage_text(struct md *m, const char *s);
/* The Markdown of n's children, depth elements down. */
void	storage_children(struct md *m, xmlNodePtr n, int depth);

/* A fenced code block of text (language lang, or NULL). */
void	storage_code_block(struct md *m, const char *text, const char *lang);
/* Code in a line: the text of n in backticks. */
void	storage_code_inline(struct md *m, xmlNodePtr n);
/* ac:structured-macro n: code and noformat as code blocks; others keep their rich text. */
void	storage_macro(struct md *m, xmlNodePtr n, int depth);
/* A list n, ordered or not, nested lists indented under their item. */
void	storage_list(struct md *m, xmlNodePtr n, int ordered, int depth);
/* A table n as a pipe table, its first row the header. */
void	storage_table(struct md *m, xmlNodePtr n, int depth);

#endif
