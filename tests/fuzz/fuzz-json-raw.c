/* fuzz-json-raw.c - fuzz target: json-raw.c, the check of Python's JSON (EvalPlus's inputs) and the spans it finds
 *
 * Properties: whatever jansson accepts as one value (nested no deeper than
 * JSON_RAW_MAX_DEPTH) json_raw_parse accepts too (Python's grammar is
 * jansson's plus NaN, Infinity and numbers of any size); an accepted value's
 * span lies within the input; the elements and members found are values of
 * their own, in order, without overlap, inside their container; a rejection
 * has an offset within the input and a reason.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <string.h>

#include "fuzz.h"
#include "base/json-raw.h"

static size_t depth_of(const uint8_t *data, size_t size)
{
	size_t depth = 0, max = 0;
	bool in_string = false;

	for (size_t i = 0; i < size; i++) {
		if (in_string) {
			if (data[i] == '\\')
				i++;
			else if (data[i] == '"')
				in_string = false;
		} else if (data[i] == '"') {
			in_string = true;
		} else if (data[i] == '[' || data[i] == '{') {
			max = ++depth > max ? depth : max;
		} else if ((data[i] == ']' || data[i] == '}') && depth) {
			depth--;
		}
	}
	return max;
}

/* The items of container V, each a value of its own, in order, inside V. */
static void walk(struct json_raw v, int depth)
{
	struct json_raw e, again;
	const char *last = v.p;
	size_t pos = 0, n = 0;

	if (depth > 8)
		return;
	while (json_raw_next(v, &pos, &e)) {
		FUZZ_CHECK(e.p > last && e.p + e.len < v.p + v.len);
		FUZZ_CHECK(json_raw_parse(e.p, e.len, &again, NULL, NULL));
		FUZZ_CHECK(again.p == e.p && again.len == e.len);
		last = e.p + e.len - 1;
		FUZZ_CHECK(++n <= v.len);
		if (json_raw_kind(e) == '[' || json_raw_kind(e) == '{')
			walk(e, depth + 1);
	}
	if (json_raw_kind(v) == '{') {
		/* a member named as the first one is found: the first */
		const char *q = memchr(v.p + 1, '"', v.len - 1);

		if (q) {
			const char *end = q + 1;
			char name[64];

			while (end < v.p + v.len && *end != '"')
				end += *end == '\\' ? 2 : 1;
			if (end - q - 1 < (long)sizeof(name) && !memchr(q + 1, '\0', (size_t)(end - q - 1))) {
				memcpy(name, q + 1, (size_t)(end - q - 1));
				name[end - q - 1] = '\0';
				FUZZ_CHECK(json_raw_member(v, name, &e));
				FUZZ_CHECK(json_raw_count(v, name) >= 1);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct json_raw v = { NULL, 0 };
	size_t off = (size_t)-1;
	const char *why = NULL;
	json_error_t jerr;
	json_t *j = json_loadb(text, size, JSON_DECODE_ANY, &jerr);
	bool ok = json_raw_parse(text, size, &v, &off, &why);

	if (j && depth_of(data, size) <= JSON_RAW_MAX_DEPTH)
		FUZZ_CHECK(ok);
	json_decref(j);
	if (!ok) {
		FUZZ_CHECK(off <= size && why && *why);
		return 0;
	}
	FUZZ_CHECK(v.p >= text && v.len > 0 && v.p + v.len <= text + size);
	FUZZ_CHECK(json_raw_kind(v) != '\0');
	if (json_raw_kind(v) == '[' || json_raw_kind(v) == '{')
		walk(v, 0);
	return 0;
}
