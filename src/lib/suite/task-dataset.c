/* task-dataset.c - HumanEval and MBPP records (JSON Lines lines or array elements) as tasks */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"
#include "suite/task-internal.h"

static bool identifier(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/* "FILE:LINE" of the record, malloc'd. */
static char *origin(const struct tk_where *w)
{
	size_t line = w->line;
	char *s = NULL;

	if (!line && w->text)
		line = json_text_line(w->text, w->text_len, w->prefix);
	if (asprintf(&s, "%s:%zu", w->file, line ? line : 1) < 0)
		return NULL;
	return s;
}

/* The task id: a string as is, an integer (MBPP) in decimal. */
static int task_id(json_t *obj, const struct tk_where *w, bool allow_int, char **out, struct sd_error *err)
{
	json_t *v = json_object_get(obj, "task_id");
	char *id = NULL;

	if (!v || json_is_null(v))
		return tk_fail(w, "task_id", err, EINVAL, "missing");
	if (json_is_integer(v) && allow_int) {
		if (json_integer_value(v) < 0)
			return tk_fail(w, "task_id", err, EINVAL, "negative");
		if (asprintf(&id, "%lld", (long long)json_integer_value(v)) < 0)
			id = NULL;
	} else if (json_is_string(v)) {
		if (!tk_id_ok(json_string_value(v)))
			return tk_fail(w, "task_id", err, EINVAL,
				       "expected 1 to %d printable ASCII characters", TASK_ID_MAX);
		id = strdup(json_string_value(v));
	} else {
		return tk_fail(w, "task_id", err, EINVAL, "expected a string%s, got %s",
			       allow_int ? " or an integer" : "", json_type_phrase(v));
	}
	if (!id)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	*out = id;
	return 0;
}

static int fill_common(struct task *t, const struct tk_where *w, enum task_format format,
		       const char *class, struct sd_error *err)
{
	t->format = format;
	t->class = strdup(class);
	t->language = strdup("python");
	t->origin = origin(w);
	if (!t->class || !t->language || !t->origin)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	return 0;
}

int tk_humaneval_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err)
{
	if (task_id(obj, w, false, &t->id, err) < 0 ||
	    tk_strdup(obj, "prompt", true, false, &t->prompt, w, err) < 0 ||
	    tk_strdup(obj, "canonical_solution", true, false, &t->reference, w, err) < 0 ||
	    tk_strdup(obj, "test", true, false, &t->test_code, w, err) < 0 ||
	    tk_strdup(obj, "entry_point", true, false, &t->entry_point, w, err) < 0)
		return -1;
	if (!identifier(t->entry_point))
		return tk_fail(w, "entry_point", err, EINVAL, "'%.64s' is not a Python identifier",
			       t->entry_point);
	return fill_common(t, w, TASK_HUMANEVAL, "humaneval", err);
}

/* ---- MBPP ---- */

/* Identifier at s (ASCII), its length or 0. */
static size_t ident_len(const char *s)
{
	size_t n = 0;

	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return 0;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n;
}

/* Does CODE define NAME (n bytes) at top level ("def NAME(" at a line start)? */
static bool defines(const char *code, const char *name, size_t n)
{
	for (const char *p = code; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;

		if (strncmp(q, "async ", 6) == 0)
			q += 6;
		if (strncmp(q, "def", 3) != 0 || (q[3] != ' ' && q[3] != '\t'))
			continue;
		q += 3;
		while (*q == ' ' || *q == '\t')
			q++;
		if (ident_len(q) == n && strncmp(q, name, n) == 0)
			return true;
	}
	return false;
}

static bool builtin(const char *s, size_t n)
{
	static const char *const names[] = {
		"assert", "not", "and", "or", "in", "is", "if", "else", "lambda", "set", "frozenset",
		"sorted", "list", "tuple", "dict", "abs", "round", "len", "str", "int", "float", "bool",
		"sum", "min", "max", "all", "any", "type", "isinstance", "repr", "isclose", "print",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(names[i], s, n) == 0)
			return true;
	return false;
}

char *tk_mbpp_entry_point(const char *code, const char *first_assert)
{
	const char *fallback = NULL, *p = first_assert;
	size_t fallback_n = 0;

	while (*p) {
		size_t n;
		const char *q;

		if (*p == '"' || *p == '\'') {		/* skip a string literal */
			char quote = *p++;

			while (*p && *p != quote)
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
			continue;
		}
		n = ident_len(p);
		if (!n || (p > first_assert && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))) {
			p += n ? n : 1;
			continue;
		}
		for (q = p + n; *q == ' ' || *q == '\t'; q++)
			;
		if (*q == '(') {
			if (defines(code, p, n))
				return strndup(p, n);
			if (!fallback && !builtin(p, n)) {
				fallback = p;
				fallback_n = n;
			}
		}
		p += n;
	}
	return fallback ? strndup(fallback, fallback_n) : NULL;
}

int tk_mbpp_record(json_t *obj, const struct tk_where *w, struct task *t, struct sd_error *err)
{
	const char *prompt_key = json_object_get(obj, "text") ? "text" : "prompt";
	char *setup = NULL, *imports = NULL;
	json_t *tests = json_object_get(obj, "test_list"), *challenge;
	const char *first;
	size_t i;

	if (task_id(obj, w, true, &t->id, err) < 0 ||
	    tk_strdup(obj, prompt_key, true, true, &t->prompt, w, err) < 0 ||
	    tk_strdup(obj, "code", true, true, &t->reference, w, err) < 0 ||
	    tk_join(obj, "test_list", true, &t->test_code, w, err) < 0)
		return -1;
	/* the challenge tests are not run (as in the usual MBPP evaluation), but must be well-formed */
	challenge = json_object_get(obj, "challenge_test_list");
	if (challenge && !json_is_null(challenge)) {
		if (!json_is_array(challenge))
			return tk_fail(w, "challenge_test_list", err, EINVAL,
				       "expected an array of strings, got %s", json_type_phrase(challenge));
		json_array_foreach(challenge, i, tests) {
			if (!json_is_string(tests)) {
				char key[64];

				snprintf(key, sizeof(key), "challenge_test_list[%zu]", i);
				return tk_fail(w, key, err, EINVAL, "expected a string, got %s", json_type_phrase(tests));
			}
		}
	}
	if (tk_strdup(obj, "test_setup_code", false, true, &setup, w, err) < 0)
		return -1;
	if (tk_join(obj, "test_imports", false, &imports, w, err) < 0) {
		free(setup);
		return -1;
	}
	if (setup && !*setup) {
		free(setup);
		setup = NULL;
	}
	if (setup && imports) {
		if (asprintf(&t->setup_code, "%s\n%s", imports, setup) < 0)
			t->setup_code = NULL;
		free(setup);
		free(imports);
		if (!t->setup_code)
			return sd_error_errno(err, ENOMEM, "%s", w->file);
	} else {
		t->setup_code = setup ? setup : imports;
	}
	first = json_string_value(json_array_get(json_object_get(obj, "test_list"), 0));
	t->entry_point = tk_mbpp_entry_point(t->reference, first);
	if (!t->entry_point)
		return tk_fail(w, "test_list[0]", err, EINVAL, "cannot tell which function the test calls");
	return fill_common(t, w, TASK_MBPP, "mbpp", err);
}
