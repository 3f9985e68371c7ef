/* task-evalplus.c - EvalPlus's HumanEval+ and MBPP+ files as tasks: one test per input, each input's text kept as written
 *
 * A record has task_id, prompt, canonical_solution, entry_point, base_input,
 * plus_input, atol and contract (HumanEval+ also the original test, MBPP+
 * the original assertion: both ignored). The inputs are Python's JSON:
 * integers of any size (HumanEval+ line 23 has one of 29 digits), NaN and
 * Infinity (MBPP+), floats whose exact text matters. jansson can hold none
 * of that, so a line is first checked as Python's json.loads reads it
 * (json-raw.h); each input's text is kept as it is written, as the test's
 * args_json, and only the driver's Python reads it (docs/tasks.md). The
 * other fields are read by jansson from a copy of the line in which the two
 * input lists are blanked out (same length, so columns in messages stay
 * right).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json-raw.h"
#include "base/jsonl.h"
#include "base/utf8.h"
#include "base/util.h"
#include "suite/task-internal.h"

#define EVALPLUS_MAX_INPUTS 100000	/* per list; HumanEval+ has at most 1000 */

/* The first non-blank line of TEXT: *LINE_LEN bytes at the returned
 * pointer, NULL when there is none. */
static const char *first_line(const char *text, size_t len, size_t *line_len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (strspn(p, " \t\r") < n) {
			*line_len = n;
			return p;
		}
		p += n + 1;
	}
	return NULL;
}

bool tk_evalplus_detect(const char *text, size_t len)
{
	struct json_raw top, v;
	size_t n = 0;
	const char *line = first_line(text, len, &n);

	return line && json_raw_parse(line, n, &top, NULL, NULL) && json_raw_member(top, "base_input", &v) &&
	       json_raw_member(top, "plus_input", &v) && json_raw_member(top, "entry_point", &v);
}

/* The 1-based column of byte OFF of LINE, in characters (as jansson counts). */
static size_t column(const char *line, size_t off)
{
	size_t col = 1;

	for (size_t i = 0; i < off; i++)
		col += ((unsigned char)line[i] & 0xc0) != 0x80;
	return col;
}

static bool identifier(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The inputs of list KEY ("base_input") as tests "base/0", "base/1", ... */
static int add_inputs(struct task *t, struct json_raw list, const char *key, const char *part,
		      const struct tk_where *w, struct sd_error *err)
{
	struct json_raw in;
	size_t pos = 0, n = 0, i;
	struct task_test *tests;

	if (json_raw_kind(list) == '{' && list.len >= 2 && strspn(list.p + 1, " \t\r\n") == list.len - 2)
		return 0;	/* MBPP+ 793's plus_input is {}: EvalPlus's loop over it sees no input */
	if (json_raw_kind(list) != '[')
		return tk_fail(w, key, err, EINVAL, "expected an array of inputs, got %s", json_raw_kind_name(list));
	while (json_raw_next(list, &pos, &in))
		n++;
	if (n > EVALPLUS_MAX_INPUTS)
		return tk_fail(w, key, err, E2BIG, "more than %d inputs", EVALPLUS_MAX_INPUTS);
	tests = realloc(t->tests, (t->n_tests + n + 1) * sizeof(*tests));
	if (!tests)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	t->tests = tests;
	pos = 0;
	for (i = 0; json_raw_next(list, &pos, &in); i++) {
		struct task_test *x = &t->tests[t->n_tests];

		if (json_raw_kind(in) != '[') {
			char sub[64];

			snprintf(sub, sizeof(sub), "%s[%zu]", key, i);
			return tk_fail(w, sub, err, EINVAL, "expected an array of arguments, got %s",
				       json_raw_kind_name(in));
		}
		memset(x, 0, sizeof(*x));
		x->name = xasprintf("%s/%zu", part, i);
		x->args_json = strndup(in.p, in.len);
		if (!x->name || !x->args_json) {
			free(x->name);
			free(x->args_json);
			return sd_error_errno(err, ENOMEM, "%s", w->file);
		}
		x->tier = TIER_CANONICAL;
		x->weight = 1.0;
		x->visibility = VIS_PUBLIC;
		t->n_tests++;
	}
	return 0;
}

/* Blank the text of V inside COPY (a copy of the line starting at LINE). */
static void blank(char *copy, const char *line, struct json_raw v)
{
	char *p = copy + (v.p - line);

	p[0] = '[';
	memset(p + 1, ' ', v.len - 1);
	p[v.len - 1] = ']';
}

static int record(const char *path, size_t lineno, const char *line, size_t len, struct task *t,
		  struct sd_error *err)
{
	struct tk_where w = { path, lineno, NULL, 0, "" };
	struct json_raw top, base, plus, v;
	cleanup_free char *copy = NULL;
	const char *why = NULL;
	json_error_t jerr;
	json_t *obj, *atol;
	size_t off = 0;
	int ret = -1;

	if (!json_raw_parse(line, len, &top, &off, &why))
		return sd_error_set(err, EINVAL, "%s:%zu:%zu: invalid JSON: %s", path, lineno, column(line, off), why);
	if (json_raw_kind(top) != '{')
		return sd_error_set(err, EINVAL, "%s:%zu: expected a JSON object, got %s", path, lineno,
				    json_raw_kind_name(top));
	if (json_raw_member(top, "atol", &v) && json_raw_kind(v) == '0' &&
	    !(v.p[0] >= '0' && v.p[0] <= '9') && !(v.p[0] == '-' && v.p[1] >= '0' && v.p[1] <= '9'))
		return tk_fail(&w, "atol", err, EINVAL, "expected a finite number >= 0, got %.*s", (int)v.len, v.p);
	if (!json_raw_member(top, "base_input", &base))
		return tk_fail(&w, "base_input", err, EINVAL, "missing");
	if (!json_raw_member(top, "plus_input", &plus))
		return tk_fail(&w, "plus_input", err, EINVAL, "missing");
	copy = strndup(line, len);
	if (!copy)
		return sd_error_errno(err, ENOMEM, "%s", path);
	blank(copy, line, base);
	blank(copy, line, plus);
	obj = json_loadb(copy, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj) {
		if (json_error_code(&jerr) == json_error_invalid_utf8)
			return sd_error_set(err, EILSEQ, "%s:%zu:%d: invalid UTF-8", path, lineno, jerr.column);
		return sd_error_set(err, EINVAL, "%s:%zu:%d: invalid JSON: %s", path, lineno, jerr.column, jerr.text);
	}
	if (tk_strdup(obj, "task_id", true, false, &t->id, &w, err) < 0 ||
	    tk_strdup(obj, "prompt", true, false, &t->prompt, &w, err) < 0 ||
	    tk_strdup(obj, "canonical_solution", true, false, &t->reference, &w, err) < 0 ||
	    tk_strdup(obj, "entry_point", true, false, &t->entry_point, &w, err) < 0 ||
	    tk_strdup(obj, "contract", false, false, &t->contract, &w, err) < 0)
		goto out;
	if (!tk_id_ok(t->id)) {
		tk_fail(&w, "task_id", err, EINVAL, "expected 1 to %d printable ASCII characters", TASK_ID_MAX);
		goto out;
	}
	if (!identifier(t->entry_point)) {
		tk_fail(&w, "entry_point", err, EINVAL, "'%.64s' is not a Python identifier", t->entry_point);
		goto out;
	}
	atol = json_object_get(obj, "atol");
	if (!atol || json_is_null(atol)) {
		tk_fail(&w, "atol", err, EINVAL, "missing");
		goto out;
	}
	if (!json_is_number(atol) || !(json_number_value(atol) >= 0) || !isfinite(json_number_value(atol))) {
		tk_fail(&w, "atol", err, EINVAL, "expected a number >= 0, got %s", json_type_phrase(atol));
		goto out;
	}
	t->atol = json_number_value(atol);
	if (add_inputs(t, base, "base_input", "base", &w, err) < 0 || add_inputs(t, plus, "plus_input", "plus", &w, err) < 0)
		goto out;
	t->format = TASK_EVALPLUS;
	/* MBPP+ ("Mbpp/2") or HumanEval+: EvalPlus's comparison has rules of each dataset's own */
	t->class = strdup(strncmp(t->id, "Mbpp/", 5) == 0 ? "mbpp+" : "humaneval+");
	t->language = strdup("python");
	t->origin = xasprintf("%s:%zu", path, lineno);
	if (!t->class || !t->language || !t->origin) {
		sd_error_errno(err, ENOMEM, "%s", path);
		goto out;
	}
	ret = 0;
out:
	json_decref(obj);
	return ret;
}

int tk_evalplus_load(const char *path, const char *text, size_t len, struct tk_list *l, struct sd_error *err)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), bad;
		struct task *t;

		lineno++;
		if (n > JSONL_MAX_LINE)
			return sd_error_set(err, EFBIG, "%s:%zu: line longer than %u bytes", path, lineno, JSONL_MAX_LINE);
		for (bad = 0; bad < n;) {
			size_t k = utf8_valid_seq((const unsigned char *)p + bad, n - bad);

			if (!k)
				return sd_error_set(err, EILSEQ, "%s:%zu:%zu: invalid UTF-8", path, lineno, column(p, bad));
			bad += k;
		}
		if (strspn(p, " \t\r") < n) {
			t = tk_list_add(l);
			if (!t)
				return sd_error_errno(err, ENOMEM, "cannot load '%s'", path);
			if (record(path, lineno, p, n, t, err) < 0) {
				tk_task_release(t);
				l->n--;
				return -1;
			}
		}
		p += n + 1;
	}
	return 0;
}

int task_mini_path(const char *path, char **out, struct sd_error *err)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dash = strchr(base, '-');
	cleanup_free char *mini = NULL;

	if (dash && strncmp(dash, "-Mini-", 6) == 0)
		return sd_error_set(err, EINVAL, "--mini: '%s' is already a Mini file", path);
	if (!dash || (strncmp(base, "HumanEvalPlus-", 14) != 0 && strncmp(base, "MbppPlus-", 9) != 0))
		return sd_error_set(err, EINVAL, "--mini: '%s' is not an EvalPlus file (HumanEvalPlus-VERSION.jsonl.gz "
				    "or MbppPlus-VERSION.jsonl.gz)", path);
	mini = xasprintf("%.*s-Mini%s", (int)(dash - path), path, dash);
	if (!mini)
		return sd_error_errno(err, ENOMEM, "--mini");
	if (access(mini, R_OK) < 0)
		return sd_error_errno(err, errno, "--mini: cannot open '%s', the Mini file of '%s'", mini, path);
	*out = steal_pointer(&mini);
	return 0;
}
