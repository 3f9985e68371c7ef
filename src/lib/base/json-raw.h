/* json-raw.h - JSON text as Python's json module reads it (integers of any size, NaN, Infinity), checked and located, never converted
 *
 * jansson holds integers in 64 bits and rejects NaN and Infinity, which
 * Python's json module writes and reads (EvalPlus's inputs hold both, and
 * integers of 100 digits and more). Such text is checked here against the
 * grammar Python's json.loads accepts, and its values are located as spans
 * of the text, so that the text itself can travel, unchanged, to the Python
 * that reads it (docs/tasks.md, EvalPlus).
 */
#ifndef SANDEVAL_JSON_RAW_H
#define SANDEVAL_JSON_RAW_H

#include <stdbool.h>
#include <stddef.h>

/* Nesting is limited (Python's own reader stops near 1000). */
#define JSON_RAW_MAX_DEPTH 500

/* A value's text: P[0..LEN), without surrounding white space. */
struct json_raw {
	const char *p;
	size_t len;
};

/* Is TEXT[0..LEN) exactly one JSON value (white space around it allowed),
 * as Python's json.loads reads it: RFC 8259 plus NaN, Infinity and
 * -Infinity, numbers of any length, strings without raw control characters.
 * On success *OUT (may be NULL) is the value. On failure: false, *OFF the
 * byte offset of the problem and *WHY what is wrong ("',' or ']' expected"). */
bool json_raw_parse(const char *text, size_t len, struct json_raw *out, size_t *off, const char **why);

/* The kind of a checked value: '{', '[', '"', '0' (a number, NaN or
 * Infinity included), 't', 'f' or 'n' (null). */
char json_raw_kind(struct json_raw v);
/* "an object", "an array", "a string", "a number", "a boolean", "null". */
const char *json_raw_kind_name(struct json_raw v);

/* The value of member KEY of the checked object OBJ (the first, should it
 * repeat): true and *OUT set when there is one. KEY is compared with the
 * member's name as written (no escapes). */
bool json_raw_member(struct json_raw obj, const char *key, struct json_raw *out);
/* How many members of OBJ are named KEY (as written). */
size_t json_raw_count(struct json_raw obj, const char *key);

/* The elements of the checked array ARR, one by one: start with *POS = 0;
 * true and *OUT the next element, false after the last. */
bool json_raw_next(struct json_raw arr, size_t *pos, struct json_raw *out);

#endif
