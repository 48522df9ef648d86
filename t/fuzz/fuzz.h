/* fuzz: what the fuzz harnesses share: the libFuzzer entry point and an invariant check. */
#ifndef FM_FUZZ_H
#define FM_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Runs one input through the code under test.  Returns 0 (libFuzzer
 * ignores other values); a broken invariant or a sanitizer report ends
 * the process, which is what libFuzzer and t/fuzz/replay.c count as a crash.
 */
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts naming the file, line and condition: a wrong answer is a finding too. */
#define FUZZ_ASSERT(cond)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
			    __FILE__, __LINE__, #cond);				\
			abort();						\
		}								\
	} while (0)

#endif
