/* task-internal.h - shared by task*.c: field checks that name file:line:field, a string map, the per-format loaders */
#ifndef SANDEVAL_TASK_INTERNAL_H
#define SANDEVAL_TASK_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/jsonl.h"
#include "suite/task.h"

#define TASK_MAX_FILE (4u << 20)	/* task.json, prompt and reference files */
#define TASK_ID_MAX 256

/* Where a JSON object came from, for messages: "FILE:LINE: field 'PREFIXKEY': ...".
 * LINE 0 with TEXT set: the line is found in TEXT from the JSON path
 * PREFIXKEY (json_text_line); with neither, only FILE is named. */
struct tk_where {
	const char *file;
	size_t line;
	const char *text;
	size_t text_len;
	const char *prefix;		/* JSON path of the object, "" or "tests[2]." */
};

/* Fail with "FILE:LINE: field 'PREFIX+KEY': MESSAGE" (no field part when KEY
 * is NULL and PREFIX is empty); returns -1. */
int tk_fail(const struct tk_where *w, const char *key, struct sd_error *err, int code,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A string field (NULL or absent allowed when !required: *out untouched). */
int tk_str(json_t *obj, const char *key, bool required, const char **out,
	   const struct tk_where *w, struct sd_error *err);
/* A malloc'd copy of a string field, line ends made "\n" when LF (tk_lf). */
int tk_strdup(json_t *obj, const char *key, bool required, bool lf, char **out,
	      const struct tk_where *w, struct sd_error *err);
/* An array of strings joined with "\n" (NULL when absent or empty and !required). */
int tk_join(json_t *obj, const char *key, bool required, char **out,
	    const struct tk_where *w, struct sd_error *err);

/* Copy of S with every "\r\n" (and lone "\r") as "\n"; NULL on ENOMEM. */
char *tk_lf(const char *s);
/* ID for messages: printable ASCII, at most TASK_ID_MAX bytes. */
bool tk_id_ok(const char *id);

/* String -> index map (open addressing); keys are borrowed, not copied. */
struct tk_map {
	const char **keys;
	size_t *vals;
	size_t cap, n;
};
/* 0 when added, 1 when KEY was there (*old gets its value), -1 on ENOMEM. */
int tk_map_put(struct tk_map *m, const char *key, size_t val, size_t *old);
bool tk_map_get(const struct tk_map *m, const char *key, size_t *val);
/* The value of KEY, added as 0 when missing; NULL on ENOMEM. */
size_t *tk_map_slot(struct tk_map *m, const char *key);
void tk_map_free(struct tk_map *m);

/* A growing list of tasks. */
struct tk_list {
	struct task *v;
	size_t n, cap;
};
/* A zeroed task at the end of the list, or NULL on ENOMEM. */
struct task *tk_list_add(struct tk_list *l);
void tk_task_release(struct task *t);
void tk_list_release(struct tk_list *l);
/* The loaded list L as *SET: no duplicate ids, the suite hash. L is taken
 * over (emptied), also on failure (then released). 0 or -1. */
int tk_set_finish(struct tk_list *l, enum task_format format, struct task_set *set, struct sd_error *err);

/* What a HumanEval or MBPP record is, from its fields. */
enum tk_kind { KIND_UNKNOWN, KIND_HUMANEVAL, KIND_MBPP, KIND_HUMANEVAL_X, KIND_MULTIPLE };
enum tk_kind tk_record_kind(json_t *obj);
/* The task set's format for records of KIND (HumanEval-X and MultiPL-E are program tasks). */
enum task_format tk_kind_format(enum tk_kind kind);
/* One record of a HumanEval or MBPP file into the list; *KIND (KIND_UNKNOWN
 * for the first record) is the file's format, every record held to it. */
int tk_add_record(json_t *obj, const struct tk_where *w, enum tk_kind *kind, struct tk_list *l,
		  struct sd_error *err);

/* Per-format record converters: OBJ (a HumanEval or MBPP record) into *T
 * (zeroed by the caller; released by the caller on failure). */
int tk_humaneval_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err);
int tk_mbpp_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err);
/* HumanEval-X (task_id "CPP/0", "JavaScript/0"; declaration, example_test) and
 * MultiPL-E (tests, stop_tokens, language "cpp" or "js") records (task-multilang.c). */
int tk_humaneval_x_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err);
int tk_multiple_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err);
/* The MBPP entry point: the first function called in the first assert that
 * CODE defines at top level (else the first function called there). */
char *tk_mbpp_entry_point(const char *code, const char *first_assert);
/* Is the first record of TEXT (a whole JSON Lines file) EvalPlus's
 * (base_input and plus_input)? Then tk_evalplus_load reads it. */
bool tk_evalplus_detect(const char *text, size_t len);
/* Every record of an EvalPlus file (TEXT, its whole content) into L. */
int tk_evalplus_load(const char *path, const char *text, size_t len, struct tk_list *l, struct sd_error *err);
/* A native suite: DIR holds task.json, or one directory per task. */
int tk_native_load(const char *dir, struct tk_list *out, struct sd_error *err);
/* One native task given as a JSON object (task.json's format) rather than
 * read from a directory: WHERE names it in messages ("tasks[0]") and is its
 * origin; its id is required, and a text field naming a file is refused. */
int tk_native_object(json_t *root, const char *where, struct tk_list *out, struct sd_error *err);

/* ---- native suites (task-native.c, task-native-check.c) ---- */

#define NATIVE_MAX_DEPTH 32		/* nesting of argument values and generator specs */
#define NATIVE_MAX_TESTS 10000
#define NATIVE_MAX_CASES 100000
#define NATIVE_MAX_PARAMS 16
#define NATIVE_MAX_LEN 100000		/* generated strings, lists, dicts */

enum tk_lang { LANG_PYTHON, LANG_C, LANG_JS };
/* What a C parameter or return value is, as far as JSON values go. */
enum tk_ckind { CK_VOID, CK_INT, CK_FLOAT, CK_BOOL, CK_CHAR, CK_STR };

/* One task.json being read. */
struct tk_native {
	const char *file;		/* DIR/task.json */
	const char *dir;
	const char *text;		/* its text, for line numbers */
	size_t len;
	enum tk_lang lang;
	enum tk_ckind ret, params[NATIVE_MAX_PARAMS];	/* C: from the signature */
	size_t n_params;
	struct sd_error *err;
};

/* "task.json:LINE: field 'JPATH': MESSAGE"; returns -1. */
int tk_nfail(struct tk_native *c, const char *jpath, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int tk_nomem(struct tk_native *c);
/* Reject keys of OBJ not in ALLOWED (NULL-terminated); PREFIX is its JSON path + ".". */
int tk_only_keys(struct tk_native *c, json_t *obj, const char *prefix, const char *const *allowed);
/* "long gcd(long a, long b)" into c->ret, c->params, c->n_params. */
int tk_parse_signature(struct tk_native *c, const char *sig, const char *entry_point);
/* A JSON value with the tagged forms ($tuple, $set, $int, $float, $dict). */
int tk_check_value(struct tk_native *c, json_t *v, const char *jp, int depth);
/* A generator spec ({"int": [lo, hi]}, {"list": {...}}, ...). */
int tk_check_spec(struct tk_native *c, json_t *s, const char *jp, int depth);
/* Can V be passed as (compared with) a C value of KIND? Can SPEC generate one? */
bool tk_c_value_ok(json_t *v, enum tk_ckind kind);
bool tk_c_spec_ok(json_t *spec, enum tk_ckind kind);
const char *tk_ckind_name(enum tk_ckind k);

#endif
