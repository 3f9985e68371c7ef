/* fuzz-lint-clang-tidy.c - fuzz target: lint_parse() of what clang-tidy printed (untrusted: the candidate is its input) */
#include "fuzz-lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lint("clang-tidy", "/work/candidate.c", data, size);
}
