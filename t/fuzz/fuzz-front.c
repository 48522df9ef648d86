/* fuzz-front: the git wiki's front matter reader, which reads what anyone who can push writes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hub/wiki.h"
#include "hub/wiki-int.h"

/*
 * The input is a Markdown file's text, any bytes (read up to a NUL, as the
 * backend sees it).  The reader says it is no page (0), a page (1) whose
 * code is a page code, whose parent is none or a code, whose title has 1
 * to WIKI_TITLE_MAX characters and whose body is a suffix of the text, or
 * refuses it (-1) with a reason; it never reads past the text.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wiki_file	 f;
	char			*text, why[700] = "";
	int			 rc;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&f, 0, sizeof f);
	f.name = "docs/page.md";
	rc = hub_wiki_front(&f, text, why, sizeof why);
	FUZZ_ASSERT(rc >= -1 && rc <= 1);
	if (rc < 0)
		FUZZ_ASSERT(why[0] != '\0');
	if (rc == 1) {
		FUZZ_ASSERT(f.code != NULL && hub_wiki_code_ok(f.code));
		FUZZ_ASSERT(f.parent_code == NULL || f.parent_code[0] == '\0' ||
		    hub_wiki_code_ok(f.parent_code));
		FUZZ_ASSERT(f.title != NULL && f.title[0] != '\0' &&
		    hub_wiki_chars(f.title) <= WIKI_TITLE_MAX);
		FUZZ_ASSERT(f.body >= text && f.body <= text + strlen(text) &&
		    f.body_len == strlen(f.body));
	}
	free(f.code);
	free(f.title);
	free(f.parent_code);
	free(text);
	return 0;
}
