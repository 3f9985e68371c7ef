/* fuzz-lint.h - the body every fuzz-lint-<tool>.c shares: lint_parse() of untrusted linter output keeps its promises
 *
 * The input is what a (subverted) linter printed. Whatever it is, under each
 * exit status: no crash, findings within their caps, every string valid
 * UTF-8 without control bytes, the counts adding up.
 */
#ifndef SANDEVAL_FUZZ_LINT_H
#define SANDEVAL_FUZZ_LINT_H

#include <string.h>

#include "fuzz.h"
#include "eval/lint.h"
#include "base/utf8.h"

static inline void fuzz_lint_string(const char *s, size_t max)
{
	size_t len, clean_len;
	char *clean;

	FUZZ_CHECK(s != NULL);
	len = strlen(s);
	FUZZ_CHECK(len <= max);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK((unsigned char)s[i] >= 0x20 && s[i] != 0x7f);
	clean = utf8_sanitize(s, len, &clean_len);
	FUZZ_CHECK(clean != NULL);
	FUZZ_CHECK(clean_len == len && memcmp(clean, s, len) == 0);
	free(clean);
}

static inline int fuzz_lint(const char *tool, const char *source, const uint8_t *data, size_t size)
{
	static const int exits[] = { 0, 1, 2, 139 };

	for (size_t e = 0; e < sizeof(exits) / sizeof(exits[0]); e++) {
		struct lint_findings fs = { 0 };
		struct sd_error err = { 0 };
		size_t total = 0;
		int rc = lint_parse(tool, (const char *)data, size, exits[e], source, &fs, &err);

		FUZZ_CHECK(rc == 0 || rc == -1);
		FUZZ_CHECK(rc == 0 || err.msg[0]);
		FUZZ_CHECK(fs.n <= LINT_MAX_PARSED);
		for (int s = 0; s <= LINT_SEV_ERROR; s++)
			total += fs.n_by_severity[s];
		FUZZ_CHECK(total == fs.n + fs.dropped);
		for (size_t i = 0; i < fs.n; i++) {
			FUZZ_CHECK(strcmp(fs.v[i].tool, tool) == 0);
			FUZZ_CHECK((unsigned)fs.v[i].severity <= LINT_SEV_ERROR);
			FUZZ_CHECK(fs.v[i].line >= 0);
			fuzz_lint_string(fs.v[i].rule, 96);
			fuzz_lint_string(fs.v[i].category, 32);
			fuzz_lint_string(fs.v[i].message, 512);
		}
		FUZZ_CHECK((lint_judge(&fs, LINT_SEV_STYLE) == LINT_PASSED) == (total == 0));
		lint_findings_release(&fs);
	}
	return 0;
}

#endif
