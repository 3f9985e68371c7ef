/* fuzz-lint-flake8.c - fuzz target: lint_parse() of what flake8 printed (untrusted: the candidate is its input) */
#include "fuzz-lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lint("flake8", "/work/candidate.py", data, size);
}
