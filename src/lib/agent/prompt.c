/* prompt.c - prompts from templates, model answers cleaned into code, the public tests a prompt shows */
#define _GNU_SOURCE
#include "agent/prompt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ---- cleaning ---- */

/* A copy of [S, S+N) with CR LF (and a lone CR) as LF and NUL bytes dropped. */
static char *normalize(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\0')
			continue;
		if (s[i] == '\r') {
			*o++ = '\n';
			if (i + 1 < n && s[i + 1] == '\n')
				i++;
			continue;
		}
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

/* Does CODE define NAME at column 0 ("def NAME(")? Returns where, or NULL. */
static const char *find_def(const char *code, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n)
		return NULL;
	for (const char *p = code; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "def ", 4) == 0 && strncmp(p + 4, name, n) == 0 && (p[4 + n] == '(' || p[4 + n] == ' '))
			return p;
	}
	return NULL;
}

/* The fenced block of TEXT to keep: [*start, *end). false when there is none. */
static bool fenced_block(const char *text, const char *entry, const char **start, const char **end)
{
	const char *first_s = NULL, *first_e = NULL;

	for (const char *p = strstr(text, "```"); p;) {
		const char *s = strchr(p, '\n'), *e;

		if (!s)
			break;
		s++;
		e = strstr(s, "```");
		if (!e)
			e = s + strlen(s);
		if (!first_s) {
			first_s = s;
			first_e = e;
		}
		if (entry) {
			char *block = strndup(s, (size_t)(e - s));
			bool has = block && find_def(block, entry);

			free(block);
			if (has) {
				*start = s;
				*end = e;
				return true;
			}
		}
		p = *e ? strstr(e + 3, "```") : NULL;
	}
	if (!first_s)
		return false;
	*start = first_s;
	*end = first_e;
	return true;
}

char *prompt_clean(const struct task *t, const char *text, bool *whole)
{
	const char *s = text ? text : "", *e = s + strlen(s);
	bool python = !t->language || strcmp(t->language, "python") == 0;
	char *code, *out;
	const char *def, *prefix_end;

	fenced_block(s, python ? t->entry_point : NULL, &s, &e);
	if (!(code = normalize(s, (size_t)(e - s))))
		return NULL;
	*whole = t->format == TASK_MBPP || t->format == TASK_NATIVE;
	if (t->format != TASK_HUMANEVAL || !python || !(def = find_def(code, t->entry_point)))
		return code;
	/* the model repeated the prompt: its program, after the prompt's own imports and helpers */
	for (const char *p = def; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "if __name__", 11) == 0) {
			code[p - code] = '\0';
			break;
		}
	}
	prefix_end = t->prompt ? find_def(t->prompt, t->entry_point) : NULL;
	out = xasprintf("%.*s%s", prefix_end ? (int)(prefix_end - t->prompt) : 0, t->prompt ? t->prompt : "", code);
	free(code);
	*whole = true;
	return out;
}

/* ---- public tests ---- */

/* Are the brackets and quotes of [S, S+N) balanced, with no newline outside
 * a string? The length of the code before a comment (#) outside strings is
 * put in *code_len. */
static bool balanced(const char *s, size_t n, size_t *code_len)
{
	char stack[64];
	size_t depth = 0;
	char quote = 0;

	*code_len = n;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (quote) {
			if (c == '\\')
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		switch (c) {
		case '\'':
		case '"': quote = c; break;
		case '#': *code_len = i; return depth == 0;
		case '(': case '[': case '{':
			if (depth == sizeof(stack))
				return false;
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
			break;
		case ')': case ']': case '}':
			if (!depth || stack[--depth] != c)
				return false;
			break;
		case '\n': return false;
		default: break;
		}
	}
	return depth == 0 && !quote;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       (unsigned char)c >= 0x80;
}

/* Could [S, S+N) (balanced) be one Python expression? Prose a prompt puts
 * after a value is not: an assignment ("19 - 5 - 6 = 8"), two operands side
 * by side ("'No' (the name ...)"), a closing full stop. */
static bool expression_like(const char *s, size_t n)
{
	static const char *const keywords[] = { "and", "or", "not", "in", "is", "if", "else", "for", "lambda" };
	size_t depth = 0;
	char quote = 0;
	bool operand = false, space = false;

	if (n && s[n - 1] == '.' && !(n > 1 && s[n - 2] >= '0' && s[n - 2] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (quote) {
			if (c == '\\')
				i++;
			else if (c == quote) {
				quote = 0;
				if (depth == 0)
					operand = true;
			}
			continue;
		}
		if (depth == 0 && (c == '\'' || c == '"' || c == '(' || c == '[' || c == '{' || word_char(c)) && operand &&
		    space) {
			size_t w = 0;
			bool kw = false;

			while (i + w < n && word_char(s[i + w]))
				w++;
			for (size_t k = 0; w && k < sizeof(keywords) / sizeof(keywords[0]); k++)
				kw |= strlen(keywords[k]) == w && strncmp(s + i, keywords[k], w) == 0;
			if (!kw)
				return false;
			i += w - 1;
			operand = space = false;
			continue;
		}
		space = false;
		switch (c) {
		case '\'':
		case '"': quote = c; break;
		case '(': case '[': case '{': depth++; break;
		case ')': case ']': case '}':
			if (depth)
				depth--;
			if (depth == 0)
				operand = true;
			break;
		case ' ': case '\t': space = true; break;
		case '=':
			if (depth == 0 && !(i + 1 < n && s[i + 1] == '=') && !(i > 0 && strchr("=!<>", s[i - 1])))
				return false;
			operand = false;
			break;
		default:
			if (depth == 0)
				operand = word_char(c);
			break;
		}
	}
	return true;
}

/* [S, S+N) without spaces at either end. */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/* Append "    assert (CALL) == (VALUE)\n" to F when both are one balanced
 * expression each; VALUE loses a closing docstring quote. 1 when added. */
static int add_assert(FILE *f, const char *call, size_t cn, const char *value, size_t vn)
{
	size_t len;

	trim(&call, &cn);
	trim(&value, &vn);
	if (vn >= 3 && (strncmp(value + vn - 3, "\"\"\"", 3) == 0 || strncmp(value + vn - 3, "'''", 3) == 0)) {
		vn -= 3;
		trim(&value, &vn);
	}
	if (!cn || !vn || !balanced(call, cn, &len))
		return 0;
	cn = len;
	if (!balanced(value, vn, &len))
		return 0;
	vn = len;
	trim(&call, &cn);
	trim(&value, &vn);
	/* a value that is not an expression: output, a traceback, prose */
	if (!cn || !vn || strncmp(value, "Traceback", 9) == 0 || !expression_like(call, cn) || !expression_like(value, vn) ||
	    (memchr(value, ':', vn) && !memchr("[{('\"", value[0], 5)))
		return 0;
	fprintf(f, "    assert (%.*s) == (%.*s)\n", (int)cn, call, (int)vn, value);
	return 1;
}

/* The line at P: its start past indentation, its length. */
static const char *line_at(const char *p, size_t *n)
{
	const char *e = strchr(p, '\n');

	*n = e ? (size_t)(e - p) : strlen(p);
	while (*n && (*p == ' ' || *p == '\t')) {
		p++;
		(*n)--;
	}
	return p;
}

static const char *next_line(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e + 1 : NULL;
}

/* "CALL SEP VALUE" with CALL a call of ENTRY: the separators prompts use */
static int example_line(FILE *f, const char *s, size_t n, const char *entry)
{
	static const char *const seps[] = { "==>", "\xe2\x9e\x9e", "\xe2\x86\x92", "=>", "->", "==" };
	size_t en = strlen(entry);
	const char *at = NULL;

	/* the call: at the start of the line or after a label ("Example: ") */
	for (const char *p = s; p + en < s + n && (p = memmem(p, (size_t)(s + n - p), entry, en)); p++) {
		if (p[en] == '(' && (p == s || p[-1] == ' ' || p[-1] == '\t') && (p == s || memchr(s, ':', (size_t)(p - s)))) {
			at = p;
			break;
		}
	}
	if (!at)
		return 0;
	n -= (size_t)(at - s);
	s = at;
	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		const char *p = memmem(s, n, seps[i], strlen(seps[i]));

		if (p)
			return add_assert(f, s, (size_t)(p - s), p + strlen(seps[i]), n - (size_t)(p - s) - strlen(seps[i]));
	}
	return 0;
}

/* HumanEval: the prompt's examples of the entry point, as check(candidate). */
static int humaneval_public(const struct task *t, char **test_code, size_t *count)
{
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&text, &len);
	const char *prompt = t->prompt ? t->prompt : "";
	const char *from = find_def(prompt, t->entry_point);

	if (!f)
		return -1;
	fputs("def check(candidate):\n", f);
	for (const char *p = from ? from : prompt; p; p = next_line(p)) {
		size_t ln, vn;
		const char *l = line_at(p, &ln), *v, *q;

		if (ln > 4 && strncmp(l, ">>> ", 4) == 0) {
			/* the value: the next line, unless it is another prompt or blank */
			q = next_line(p);
			if (!q)
				break;
			v = line_at(q, &vn);
			if (vn && strncmp(v, ">>>", 3) != 0 && strncmp(v, "...", 3) != 0) {
				n += (size_t)add_assert(f, l + 4, ln - 4, v, vn);
				p = q;
			}
		} else if (t->entry_point) {
			n += (size_t)example_line(f, l, ln, t->entry_point);
		}
	}
	if (fclose(f) != 0) {
		free(text);
		return -1;
	}
	*test_code = text;
	*count = n;
	return 0;
}

int prompt_public_task(const struct task *t, struct task *out, size_t *n_public, struct sd_error *err)
{
	struct task c;
	char *code = NULL;
	size_t n = 0;

	if (t->format != TASK_HUMANEVAL && t->format != TASK_MBPP && t->format != TASK_NATIVE)
		return sd_error_set(err, ENOTSUP, "task '%s': the agent loop takes HumanEval, MBPP and native tasks "
				    "(public tests of this format are not defined)", t->id);
	if (task_copy(t, &c) < 0)
		return sd_error_set(err, ENOMEM, "out of memory");
	if (t->format == TASK_NATIVE) {
		for (size_t i = 0; i < c.n_tests; i++) {
			if (c.tests[i].visibility == VIS_PUBLIC) {
				c.tests[n++] = c.tests[i];
				continue;
			}
			free(c.tests[i].name);
			free(c.tests[i].args_json);
			free(c.tests[i].expected_json);
			free(c.tests[i].generator);
		}
		c.n_tests = n;
	} else if (t->format == TASK_MBPP) {
		const char *tc = t->test_code ? t->test_code : "";
		const char *e = strchr(tc, '\n');

		code = strndup(tc, e ? (size_t)(e - tc) : strlen(tc));
		n = code && *code ? 1 : 0;
	} else if (humaneval_public(t, &code, &n) < 0) {
		code = NULL;
	}
	if (t->format != TASK_NATIVE) {
		if (!code) {
			task_release(&c);
			return sd_error_set(err, ENOMEM, "out of memory");
		}
		free(c.test_code);
		c.test_code = code;
		free(c.test_split);
		c.test_split = NULL;
	}
	*out = c;
	*n_public = n;
	return 0;
}

/* ---- templates ---- */

char *prompt_render(const char *tmpl, const char *const *vars)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (const char *p = tmpl; *p;) {
		const char *open = strstr(p, "{{"), *close;
		bool done = false;

		if (!open) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(open - p), f);
		close = strstr(open + 2, "}}");
		if (close) {
			size_t n = (size_t)(close - open - 2);

			for (size_t i = 0; vars && vars[i] && vars[i + 1] && !done; i += 2) {
				if (strlen(vars[i]) == n && strncmp(vars[i], open + 2, n) == 0) {
					fputs(vars[i + 1], f);
					done = true;
				}
			}
		}
		if (done) {
			p = close + 2;
		} else {
			fputs("{{", f);
			p = open + 2;
		}
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
