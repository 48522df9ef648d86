/* fuzz-storage: the Confluence storage format converter, which reads what a server sends. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fuzz.h"
#include "hub/wiki.h"
#include "sdlc/storage_md.h"

/*
 * The input is a page's storage text, any bytes.  The converter either
 * answers Markdown that is a C string of its stated length, empty or
 * ending in one newline after something else, and UTF-8 without NULs (what
 * the hub accepts), or fails with a message; it never crashes, whatever
 * the nesting, the unclosed elements or the CDATA sections.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err	 e;
	char		*out = NULL;
	size_t		 len = 0;
	int		 rc;

	err_clear(&e);
	rc = storage_markdown(&out, &len, (const char *)data, size, &e);
	if (rc != 0) {
		FUZZ_ASSERT(out == NULL && e.msg[0] != '\0');
		return 0;
	}
	FUZZ_ASSERT(out != NULL && strlen(out) == len);
	FUZZ_ASSERT(len == 0 || (out[len - 1] == '\n' && (len == 1 || out[len - 2] != '\n')));
	FUZZ_ASSERT(hub_wiki_utf8_ok(out, len));
	free(out);
	return 0;
}
