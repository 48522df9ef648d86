/* fuzz-closing: the closing-keyword parser of pull request descriptions, and its stored form. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "service/closing.h"

/*
 * The input is a description.  Whatever it holds, the parser succeeds,
 * keeps at most CLOSING_MAX numbers, each from 1 to INT32_MAX, once each,
 * each written "#N" somewhere in the text, and the stored form reads back
 * to the same list.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct closing_list	 l, back;
	char			 buf[CLOSING_TEXT_MAX], ref[16];
	const char		*s;
	size_t			 i, j, rlen;

	FUZZ_ASSERT(closing_parse(&l, (const char *)data, size) == 0);
	FUZZ_ASSERT(l.n <= CLOSING_MAX);
	for (i = 0; i < l.n; i++) {
		FUZZ_ASSERT(l.numbers[i] >= 1 && l.numbers[i] <= INT32_MAX);
		for (j = 0; j < i; j++)
			FUZZ_ASSERT(l.numbers[j] != l.numbers[i]);
		rlen = (size_t)snprintf(ref, sizeof ref, "#%lld", (long long)l.numbers[i]);
		FUZZ_ASSERT(size >= rlen && memmem(data, size, ref, rlen) != NULL);
	}
	s = closing_format(buf, sizeof buf, &l);
	FUZZ_ASSERT((s == NULL) == (l.n == 0));
	closing_read(&back, s);
	FUZZ_ASSERT(back.n == l.n);
	FUZZ_ASSERT(l.n == 0 || memcmp(back.numbers, l.numbers, l.n * sizeof l.numbers[0]) == 0);
	return 0;
}
