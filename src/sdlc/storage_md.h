/*
 * storage_md: a Confluence page's storage format (XHTML with ac: and ri:
 * elements) as Markdown, parsed with libxml2's HTML parser (xml_lib.h).
 * The rules are in doc/sdlc.md, "The Confluence backend".
 */
#ifndef FM_STORAGE_MD_H
#define FM_STORAGE_MD_H
#include <stddef.h>

struct err;

/*
 * The Markdown of the storage text xhtml (len bytes) into *out (caller
 * frees; NUL-terminated, *out_len bytes; empty, or ending in one newline).
 * ERR_CONFIG when libxml2 cannot be loaded, ERR_NOMEM, ERR_INVALID when
 * the parser gives up.
 */
int	storage_markdown(char **out, size_t *out_len, const char *xhtml, size_t len,
	    struct err *e);

#endif
