/* jsonl.h - read JSON Lines (plain or gzip) and JSON files, with file:line in every error */
#ifndef SANDEVAL_JSONL_H
#define SANDEVAL_JSONL_H

#include <jansson.h>
#include <stddef.h>

#include "base/error.h"

/* The longest line accepted (a HumanEval task is ~3 KB; a sample ~10 KB). */
#define JSONL_MAX_LINE (16u << 20)

struct jsonl;

/* Open PATH; ".gz" (or gzip magic bytes) is decompressed with zlib. */
struct jsonl *jsonl_open(const char *path, struct sd_error *err);
/* The next non-empty line as a JSON object (caller json_decref()s it) in *out:
 * returns 1, 0 at end of file, or -1 with "FILE:LINE: ..." in *err (malformed
 * JSON with its column, not an object, invalid UTF-8, a line over
 * JSONL_MAX_LINE). After -1 the reader can go on with the next line. */
int jsonl_next(struct jsonl *r, json_t **out, struct sd_error *err);
/* 1-based number of the line last returned. */
size_t jsonl_line(const struct jsonl *r);
const char *jsonl_path(const struct jsonl *r);
void jsonl_close(struct jsonl *r);

/* A whole JSON document (e.g. sanitized-mbpp.json), plain or gzip. */
json_t *json_load_path(const char *path, struct sd_error *err);
/* "an object", "an array", "a string", "an integer", "a real number", "a boolean"
 * or "null": what a value is, for "expected X, got Y" messages. */
const char *json_type_phrase(const json_t *v);

/* "PATH:LINE:COLUMN: invalid JSON: ..." (or "...: invalid UTF-8") from what
 * json_load*() reported about a whole document; returns -1. */
int jsonl_parse_error(const char *path, const json_error_t *jerr, struct sd_error *err);
/* The whole (decompressed) text of PATH, at most CAP bytes, NUL-terminated,
 * malloc'd in *out (its length in *len if not NULL). 0 or -1. */
int jsonl_read_all(const char *path, size_t cap, char **out, size_t *len, struct sd_error *err);
/* The 1-based line of TEXT (a JSON document jansson accepted) where the value
 * at JPATH ("tests[3].tier", "[12].code", "" for the root) starts, or where
 * its deepest existing ancestor starts when it is missing. For messages. */
size_t json_text_line(const char *text, size_t len, const char *jpath);
/* The line of each of the first N elements of the array TEXT holds, in one pass. */
void json_text_array_lines(const char *text, size_t len, size_t *lines, size_t n);

/* Untrusted text as a JSON string: invalid UTF-8 becomes U+FFFD; NULL: JSON null.
 * NULL only on ENOMEM. */
json_t *json_text(const char *s);
/* A JSON number, or null for NAN and infinities (JSON has neither). */
json_t *json_number_or_null(double v);

#endif
