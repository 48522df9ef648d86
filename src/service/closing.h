/* closing: the issues a pull request description declares closed ("Closes #3, #4"). */
#ifndef FM_CLOSING_H
#define FM_CLOSING_H
#include <stddef.h>
#include <stdint.h>

#define CLOSING_MAX		100	/* declarations kept per description */
#define CLOSING_TEXT_MAX	(CLOSING_MAX * 11)	/* the stored form, NUL included */

/* Local issue numbers, in order of first appearance, without duplicates. */
struct closing_list {
	size_t	 n;
	int64_t	 numbers[CLOSING_MAX];
};

/*
 * The local issues the pull request description text (len bytes, may be
 * NULL) declares closed, into *out (spec: closing keywords).
 *
 * A declaration is one of the keywords close, closes, closed, fix, fixes,
 * fixed, resolve, resolves, resolved (any case, a whole word), then
 * whitespace, then a local reference #N (N from 1 to 2147483647, without a
 * leading zero, not followed by a letter, digit or underscore), or a list
 * of them joined by commas and/or "and": "Closes #1, #2 and #3".  The
 * whitespace may hold one line break but not a blank line.  Nothing else
 * declares: a keyword followed by a colon, a reference without a keyword,
 * "prefix#3", a cross-repository reference "owner/repo#3" (which also ends
 * a list), and text inside inline code spans, fenced code blocks (``` or
 * ~~~, at any indentation), indented code blocks and HTML comments.  At
 * most CLOSING_MAX numbers are kept; the rest is ignored.
 *
 * Returns 0, or ERR_NOMEM (and an empty *out).
 */
int	closing_parse(struct closing_list *out, const char *text, size_t len);

/*
 * The stored form of l ("3,4", the column pull_requests.closing_issue_numbers)
 * into buf of size bytes (CLOSING_TEXT_MAX always suffices).  Returns buf,
 * or NULL when l is empty (the column is NULL then) or buf is too small.
 */
const char *closing_format(char *buf, size_t size, const struct closing_list *l);

/*
 * Reads the stored form back ("3,4"; NULL or "" for none) into *out,
 * skipping anything that is not a number from 1 to 2147483647.
 */
void	closing_read(struct closing_list *out, const char *stored);

#endif
