/* task-multilang.c - HumanEval-X's and MultiPL-E's C++ and JavaScript records as program tasks
 *
 * Both benchmarks test by a program: the candidate's code and the task's
 * test code in one file, compiled and run, judged by how it ends. Each
 * benchmark builds that program its own way; what is read here says how
 * (docs/tasks.md, HumanEval-X and MultiPL-E):
 *
 *   HumanEval-X (CodeGeeX's evaluate_humaneval_x.py, execution.py):
 *     C++  missing includes + "\n" + prompt + completion + "\n" + test,
 *          g++ -std=c++11 (and -lcrypto -lssl for task 162), passes on exit 0
 *     JS   prompt + completion + "\n" + test, node, passes when it writes
 *          nothing (its tests use console.assert, which neither throws nor
 *          sets the exit status)
 *   MultiPL-E (its evaluation's eval_cpp / eval_javascript):
 *          prompt + completion + "\n" + tests, g++ -std=c++17 or node,
 *          passes on exit 0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "suite/task-internal.h"

/* CodeGeeX's IMPORT_HELPER["cpp"]: each that the prompt does not hold is put before it. */
static const char *const cpp_includes[] = {
	"#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>", "#include<vector>",
	"#include<string>", "#include<climits>", "#include<cstring>", "#include<iostream>",
};

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The identifier at S (N bytes at most), malloc'd; NULL when none. */
static char *ident_at(const char *s)
{
	size_t n = 0;

	while (ident_char(s[n]))
		n++;
	return n && !(s[0] >= '0' && s[0] <= '9') ? strndup(s, n) : NULL;
}

/* The function a HumanEval-X declaration declares: the name before the
 * first '(' of its last line ("bool has_close_elements(vector<float> ..."),
 * or after "const " ("const hasCloseElements = (numbers, threshold) => {"). */
static char *declared_name(const char *decl)
{
	const char *end = decl + strlen(decl), *line, *paren, *p;

	while (end > decl && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t' || end[-1] == '{'))
		end--;
	for (line = end; line > decl && line[-1] != '\n'; line--)
		;
	if (strncmp(line, "const ", 6) == 0)
		return ident_at(line + 6);
	paren = memchr(line, '(', (size_t)(end - line));
	if (!paren)
		return NULL;
	for (p = paren; p > line && p[-1] == ' '; p--)
		;
	while (p > line && ident_char(p[-1]))
		p--;
	return ident_at(p);
}

/* MultiPL-E names the function in its tests: "candidate = NAME;". */
static char *tested_name(const char *tests)
{
	const char *p = strstr(tests, "candidate = ");

	return p ? ident_at(p + 12) : NULL;
}

static int fill(struct task *t, const struct tk_where *w, const char *class, const char *language,
		struct sd_error *err)
{
	size_t line = w->line;

	t->format = TASK_PROGRAM;
	t->class = strdup(class);
	t->language = strdup(language);
	if (asprintf(&t->origin, "%s:%zu", w->file, line ? line : 1) < 0)
		t->origin = NULL;
	if (!t->class || !t->language || !t->origin)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	return 0;
}

int tk_humaneval_x_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err)
{
	const char *decl = NULL;
	bool cpp;

	if (tk_strdup(obj, "task_id", true, false, &t->id, w, err) < 0 ||
	    tk_strdup(obj, "prompt", true, false, &t->prompt, w, err) < 0 ||
	    tk_strdup(obj, "canonical_solution", true, false, &t->reference, w, err) < 0 ||
	    tk_strdup(obj, "test", true, false, &t->test_code, w, err) < 0 ||
	    tk_str(obj, "declaration", true, &decl, w, err) < 0)
		return -1;
	if (!tk_id_ok(t->id))
		return tk_fail(w, "task_id", err, EINVAL, "expected 1 to %d printable ASCII characters", TASK_ID_MAX);
	cpp = strncmp(t->id, "CPP/", 4) == 0;
	if (!cpp && strncmp(t->id, "JavaScript/", 11) != 0)
		return tk_fail(w, "task_id", err, ENOTSUP, "'%s': HumanEval-X's C++ (CPP/) and JavaScript (JavaScript/) "
			       "tasks are supported, no other language", t->id);
	t->entry_point = declared_name(decl);
	if (cpp) {
		size_t len = 0;

		t->setup_code = calloc(1, 1);
		for (size_t i = 0; t->setup_code && i < sizeof(cpp_includes) / sizeof(cpp_includes[0]); i++) {
			char *more;

			if (strstr(t->prompt, cpp_includes[i]))
				continue;
			more = realloc(t->setup_code, len + strlen(cpp_includes[i]) + 2);
			if (!more)
				break;
			t->setup_code = more;
			len += (size_t)sprintf(t->setup_code + len, "%s\n", cpp_includes[i]);
		}
		/* CodeGeeX links OpenSSL for task 162 (an MD5), by its id */
		t->build = xasprintf("[\"g++\", \"-std=c++11\", \"-o\", \"/tmp/candidate\", \"{source}\"%s]",
				     strstr(t->id, "162") ? ", \"-lcrypto\", \"-lssl\"" : "");
		if (!t->setup_code || !t->build)
			return sd_error_errno(err, ENOMEM, "%s", w->file);
	} else {
		t->quiet = true;
	}
	return fill(t, w, "humaneval-x", cpp ? "cpp" : "javascript", err);
}

int tk_multiple_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err)
{
	const char *lang = NULL;

	if (tk_str(obj, "language", true, &lang, w, err) < 0 ||
	    tk_strdup(obj, json_is_string(json_object_get(obj, "task_id")) ? "task_id" : "name", true, false,
		      &t->id, w, err) < 0 ||
	    tk_strdup(obj, "prompt", true, false, &t->prompt, w, err) < 0 ||
	    tk_strdup(obj, "tests", true, false, &t->test_code, w, err) < 0)
		return -1;
	if (strcmp(lang, "cpp") != 0 && strcmp(lang, "js") != 0)
		return tk_fail(w, "language", err, ENOTSUP, "'%.32s': MultiPL-E's C++ (cpp) and JavaScript (js) "
			       "tasks are supported, no other language", lang);
	if (!tk_id_ok(t->id))
		return tk_fail(w, "task_id", err, EINVAL, "expected 1 to %d printable ASCII characters", TASK_ID_MAX);
	t->entry_point = tested_name(t->test_code);
	return fill(t, w, "multipl-e", strcmp(lang, "cpp") == 0 ? "cpp" : "javascript", err);
}
