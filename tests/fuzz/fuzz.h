/* fuzz.h - the entry point every fuzz target defines (libFuzzer's, or replay.c's main under gcc) */
#ifndef SANDEVAL_FUZZ_H
#define SANDEVAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Run one input; must return 0, must not keep state between calls, and
 * aborts (assert) when a property of the code under test does not hold. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test; abort (a crash the fuzzer reports) if it
 * does not hold. Unlike assert(), never compiled out. */
#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
