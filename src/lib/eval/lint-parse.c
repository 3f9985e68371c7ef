/* lint-parse.c - parse what each linter printed (untrusted text) into findings with severity and category
 *
 * Every parser takes the bytes a linter wrote inside the lint sandbox, which
 * a candidate may have subverted: lengths are capped, strings made valid
 * UTF-8, numbers range-checked, and a parser never trusts a line to be well
 * formed. The severity and category tables are docs/lint.md's.
 */
#define _GNU_SOURCE
#include "eval/lint.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define MAX_RULE 96
#define MAX_MESSAGE 512

const char *const lint_tools[] = { "flake8", "bandit", "cppcheck", "clang-tidy", "eslint", NULL };

void lint_findings_release(struct lint_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		lint_finding_release(&fs->v[i]);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

/* A copy of at most MAX bytes of S[0..len) as valid UTF-8 without NULs or
 * control characters (tabs and newlines become spaces); NULL on ENOMEM. */
static char *clean(const char *s, size_t len, size_t max)
{
	size_t n = 0, out_len;
	char *tmp, *res;

	if (!s)
		len = 0;
	if (len > max)
		len = max;
	tmp = malloc(len + 1);
	if (!tmp)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		tmp[n++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	tmp[n] = '\0';
	res = utf8_sanitize(tmp, n, &out_len);
	free(tmp);
	if (res && max >= 3 && out_len > max) {
		/* U+FFFD grew it: cut back at a character boundary */
		size_t cut = max;

		while (cut > 0 && ((unsigned char)res[cut] & 0xc0) == 0x80)
			cut--;
		res[cut] = '\0';
	}
	return res;
}

static int push(struct lint_findings *fs, const char *tool, const char *rule, size_t rule_len,
		const char *category, enum lint_severity sev, long line, const char *msg, size_t msg_len,
		struct sd_error *err)
{
	struct lint_finding *f;

	if ((unsigned)sev > LINT_SEV_ERROR)
		sev = LINT_SEV_ERROR;
	fs->n_by_severity[sev]++;
	if (fs->n >= LINT_MAX_PARSED) {
		fs->dropped++;
		return 0;
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct lint_finding *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			return sd_error_set(err, ENOMEM, "%s: out of memory", tool);
		fs->v = v;
		fs->cap = cap;
	}
	f = &fs->v[fs->n];
	memset(f, 0, sizeof(*f));
	f->tool = strdup(tool);
	f->rule = clean(rule, rule_len, MAX_RULE);
	f->category = strdup(category);
	f->message = clean(msg, msg_len, MAX_MESSAGE);
	f->severity = sev;
	f->line = line > 0 && line <= INT_MAX ? (int)line : 0;
	if (!f->tool || !f->rule || !f->category || !f->message) {
		lint_finding_release(f);
		return sd_error_set(err, ENOMEM, "%s: out of memory", tool);
	}
	fs->n++;
	return 0;
}

static int push_str(struct lint_findings *fs, const char *tool, const char *rule, const char *category,
		    enum lint_severity sev, long line, const char *msg, struct sd_error *err)
{
	return push(fs, tool, rule ? rule : "", rule ? strlen(rule) : 0, category, sev, line,
		    msg ? msg : "", msg ? strlen(msg) : 0, err);
}

/* Walk the lines of OUT[0..len): FN gets each (without its newline). */
typedef int (*line_fn)(const char *line, size_t len, const char *source, struct lint_findings *fs,
		       struct sd_error *err);

static int each_line(const char *out, size_t len, const char *source, struct lint_findings *fs,
		     line_fn fn, struct sd_error *err)
{
	size_t at = 0;

	while (out && at < len) {
		const char *nl = memchr(out + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (out + at)) : len - at;

		if (n && out[at + n - 1] == '\r')
			n--;
		if (fn(out + at, n, source, fs, err) < 0)
			return -1;
		at += n + 1;
		if (nl && out[at - 1] == '\r')
			at++;
	}
	return 0;
}

/* A decimal number at *p (at most 9 digits); advances *p. -1 when none. */
static long number(const char **p, const char *end)
{
	long v = 0;
	int digits = 0;

	while (*p < end && **p >= '0' && **p <= '9' && digits < 9) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	if (digits == 0 || (*p < end && **p >= '0' && **p <= '9'))
		return -1;
	return v;
}

static bool starts(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/* "SOURCE:" or any "PATH:" before "LINE:COL:": returns the position after
 * the path's colon, or NULL. *own tells whether the path was SOURCE. */
static const char *after_path(const char *line, const char *end, const char *source, bool *own)
{
	size_t sl = source ? strlen(source) : 0;

	*own = false;
	if (sl && starts(line, end, source) && line + sl < end && line[sl] == ':') {
		*own = true;
		return line + sl + 1;
	}
	/* another file (an included one): the first ":<digits>:<digits>:" */
	for (const char *p = line; p < end; p++) {
		const char *q = p + 1;

		if (*p != ':' || q >= end || *q < '0' || *q > '9')
			continue;
		if (number(&q, end) >= 0 && q < end && *q == ':')
			return p + 1;
	}
	return NULL;
}

/* --- flake8: "PATH:ROW:COL: CODE TEXT" on stdout; exit 0 clean, 1 findings --- */

static void flake8_class(const char *code, size_t n, enum lint_severity *sev, const char **cat)
{
	char c[8] = "";

	memcpy(c, code, n < sizeof(c) - 1 ? n : sizeof(c) - 1);
	if (c[0] == 'E' && c[1] == '9') {
		*sev = LINT_SEV_ERROR, *cat = "error";		/* syntax, indentation, I/O */
	} else if (c[0] == 'F') {
		if (strncmp(c, "F82", 3) == 0 || strcmp(c, "F831") == 0 || strncmp(c, "F70", 3) == 0)
			*sev = LINT_SEV_ERROR, *cat = "error";	/* undefined name, duplicate argument, misplaced break/return/yield */
		else if (!strcmp(c, "F401") || !strcmp(c, "F811") || !strcmp(c, "F841") || !strcmp(c, "F842"))
			*sev = LINT_SEV_WARNING, *cat = "unused";
		else if (!strcmp(c, "F541"))
			*sev = LINT_SEV_STYLE, *cat = "style";	/* f-string without placeholders */
		else
			*sev = LINT_SEV_WARNING, *cat = "bug";
	} else if (c[0] == 'C' && c[1] == '9') {
		*sev = LINT_SEV_WARNING, *cat = "complexity";
	} else if (c[0] == 'W' && c[1] == '6') {
		*sev = LINT_SEV_WARNING, *cat = "bug";		/* invalid escape sequence, deprecated forms */
	} else if (c[0] == 'E' || c[0] == 'W') {
		*sev = LINT_SEV_STYLE, *cat = "style";
	} else {
		*sev = LINT_SEV_WARNING, *cat = "other";	/* a plugin's code */
	}
}

static int flake8_line(const char *line, size_t len, const char *source, struct lint_findings *fs,
		       struct sd_error *err)
{
	const char *end = line + len, *p, *code;
	enum lint_severity sev;
	const char *cat;
	size_t code_len;
	bool own;
	long row;

	p = after_path(line, end, source, &own);
	if (!p || (row = number(&p, end)) < 0 || p >= end || *p++ != ':' || number(&p, end) < 0 ||
	    !starts(p, end, ": "))
		return 0;	/* not a finding */
	p += 2;
	code = p;
	while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
		p++;
	code_len = (size_t)(p - code);
	if (code_len == 0 || code_len > 12)
		return 0;
	flake8_class(code, code_len, &sev, &cat);
	if (p < end && *p == ' ')
		p++;
	return push(fs, "flake8", code, code_len, cat, sev, own ? row : 0, p, (size_t)(end - p), err);
}

/* --- cppcheck: our template "LINE\tCOL\tSEVERITY\tID\tMESSAGE" on stderr; exit 0 --- */

static int cppcheck_line(const char *line, size_t len, const char *source, struct lint_findings *fs,
			 struct sd_error *err)
{
	const char *end = line + len, *p = line, *sv, *id;
	enum lint_severity sev;
	const char *cat;
	size_t svn, idn;
	long row;

	if ((row = number(&p, end)) < 0 || p >= end || *p++ != '\t' || number(&p, end) < 0 || p >= end ||
	    *p++ != '\t')
		return 0;
	sv = p;
	while (p < end && *p != '\t')
		p++;
	svn = (size_t)(p - sv);
	if (p >= end)
		return 0;
	id = ++p;
	while (p < end && *p != '\t')
		p++;
	idn = (size_t)(p - id);
	if (p >= end || idn == 0)
		return 0;
	p++;
#define SV(s) (svn == strlen(s) && memcmp(sv, s, svn) == 0)
	if (SV("information") || SV("debug") || SV("none"))
		return 0;	/* cppcheck about itself, not the code */
	if (SV("error"))
		sev = LINT_SEV_ERROR, cat = "bug";
	else if (SV("warning"))
		sev = LINT_SEV_WARNING, cat = "bug";
	else if (SV("style"))
		sev = LINT_SEV_STYLE, cat = "style";
	else if (SV("performance"))
		sev = LINT_SEV_STYLE, cat = "performance";
	else if (SV("portability"))
		sev = LINT_SEV_WARNING, cat = "portability";
	else
		sev = LINT_SEV_WARNING, cat = "other";
#undef SV
	if ((idn >= 6 && memcmp(id, "syntax", 6) == 0) || (idn == 16 && memcmp(id, "internalAstError", 16) == 0))
		cat = "error";
	return push(fs, "cppcheck", id, idn, cat, sev, row, p, (size_t)(end - p), err);
}

/* --- clang-tidy: "PATH:LINE:COL: warning|error: MESSAGE [CHECK]" on stdout --- */

static void tidy_class(const char *check, size_t n, bool is_error, enum lint_severity *sev, const char **cat)
{
#define PRE(s) (n >= strlen(s) && memcmp(check, s, strlen(s)) == 0)
	if (is_error)
		*sev = LINT_SEV_ERROR, *cat = "error";
	else if (PRE("clang-analyzer-security") || PRE("cert-"))
		*sev = LINT_SEV_WARNING, *cat = "security";
	else if (PRE("clang-analyzer-") || PRE("clang-diagnostic-") || PRE("bugprone-"))
		*sev = LINT_SEV_WARNING, *cat = "bug";
	else if (PRE("performance-"))
		*sev = LINT_SEV_STYLE, *cat = "performance";
	else if (PRE("portability-"))
		*sev = LINT_SEV_WARNING, *cat = "portability";
	else
		*sev = LINT_SEV_STYLE, *cat = "style";
#undef PRE
}

static int tidy_line(const char *line, size_t len, const char *source, struct lint_findings *fs,
		     struct sd_error *err)
{
	const char *end = line + len, *p, *msg, *msg_end, *check = NULL;
	size_t check_len = 0;
	enum lint_severity sev;
	const char *cat;
	bool own, is_error;
	long row;

	p = after_path(line, end, source, &own);
	if (!p || (row = number(&p, end)) < 0 || p >= end || *p++ != ':' || number(&p, end) < 0 ||
	    p >= end || *p++ != ':')
		return 0;
	if (starts(p, end, " warning: "))
		is_error = false, p += 10;
	else if (starts(p, end, " error: "))
		is_error = true, p += 8;
	else if (starts(p, end, " fatal error: "))
		is_error = true, p += 14;
	else
		return 0;	/* note:, remark:, a source excerpt */
	msg = p;
	msg_end = end;
	if (msg_end > msg && msg_end[-1] == ']') {
		const char *open = msg_end - 1;

		while (open > msg && open[-1] != '[' && open[-1] != ' ')
			open--;
		if (open > msg && open[-1] == '[') {
			check = open;
			check_len = (size_t)(msg_end - 1 - open);
			msg_end = open - 1;
			while (msg_end > msg && msg_end[-1] == ' ')
				msg_end--;
		}
	}
	if (!check || !check_len) {
		check = is_error ? "clang-diagnostic-error" : "clang-diagnostic";
		check_len = strlen(check);
	}
	tidy_class(check, check_len, is_error, &sev, &cat);
	return push(fs, "clang-tidy", check, check_len, cat, sev, own ? row : 0, msg, (size_t)(msg_end - msg), err);
}

/* --- bandit: JSON {"results": [...], "errors": [...]} on stdout; exit 0 clean, 1 findings --- */

static int level(const char *s)
{
	if (s && strcmp(s, "HIGH") == 0)
		return 2;
	if (s && strcmp(s, "MEDIUM") == 0)
		return 1;
	if (s && strcmp(s, "LOW") == 0)
		return 0;
	return -1;
}

static long jline(json_t *v)
{
	json_int_t n = json_integer_value(v);

	return n > 0 && n <= INT_MAX ? (long)n : 0;
}

static int parse_bandit(const char *out, size_t len, struct lint_findings *fs, struct sd_error *err)
{
	json_error_t je;
	json_t *doc = json_loadb(out, len, JSON_REJECT_DUPLICATES, &je), *results, *errors, *v;
	size_t i;
	int ret = 0;

	if (!json_is_object(doc)) {
		json_decref(doc);
		return sd_error_set(err, EINVAL, "bandit: output is not a JSON object (%d:%d: %s)", je.line,
				    je.column, je.text);
	}
	results = json_object_get(doc, "results");
	errors = json_object_get(doc, "errors");
	if (!json_is_array(results)) {
		json_decref(doc);
		return sd_error_set(err, EINVAL, "bandit: output has no \"results\" array");
	}
	json_array_foreach(results, i, v) {
		int s = level(json_string_value(json_object_get(v, "issue_severity")));
		int c = level(json_string_value(json_object_get(v, "issue_confidence")));
		const char *id = json_string_value(json_object_get(v, "test_id"));
		enum lint_severity sev;

		if (!json_is_object(v) || s < 0 || !id) {
			ret = sd_error_set(err, EINVAL, "bandit: result %zu is not a finding", i);
			break;
		}
		sev = s == 2 ? LINT_SEV_ERROR : LINT_SEV_WARNING;
		if (c == 0 && sev > LINT_SEV_STYLE)	/* low confidence: one level lower */
			sev = (enum lint_severity)(sev - 1);
		if ((ret = push_str(fs, "bandit", id, "security", sev, jline(json_object_get(v, "line_number")),
				    json_string_value(json_object_get(v, "issue_text")), err)) < 0)
			break;
	}
	json_array_foreach(errors, i, v) {
		if (ret < 0)
			break;
		/* a file bandit could not parse (a syntax error): it analysed nothing */
		ret = push_str(fs, "bandit", "parse-error", "error", LINT_SEV_ERROR, 0,
			       json_string_value(json_object_get(v, "reason")), err);
	}
	json_decref(doc);
	return ret;
}

/* --- eslint: JSON [{"filePath", "messages": [...]}] on stdout; exit 0 clean, 1 findings --- */

static void eslint_class(const char *rule, int level_1_2, enum lint_severity *sev, const char **cat)
{
	static const char *const errors[] = {
		"no-undef", "no-const-assign", "no-dupe-args", "no-dupe-class-members", "no-dupe-keys",
		"no-func-assign", "no-import-assign", "no-obj-calls", "no-this-before-super", "getter-return",
		"no-setter-return", "valid-typeof", "no-class-assign", "no-new-symbol", "constructor-super",
		"no-unsafe-negation", NULL,
	};

	if (!rule) {
		*sev = LINT_SEV_ERROR, *cat = "error";	/* a parse error */
		return;
	}
	for (size_t i = 0; errors[i]; i++) {
		if (strcmp(rule, errors[i]) == 0) {
			*sev = LINT_SEV_ERROR, *cat = "error";
			return;
		}
	}
	if (!strcmp(rule, "no-unused-vars"))
		*sev = LINT_SEV_WARNING, *cat = "unused";
	else if (!strcmp(rule, "no-eval") || !strcmp(rule, "no-implied-eval") || !strcmp(rule, "no-new-func") ||
		 !strcmp(rule, "no-script-url"))
		*sev = LINT_SEV_WARNING, *cat = "security";
	else if (!strcmp(rule, "complexity") || !strcmp(rule, "max-depth"))
		*sev = LINT_SEV_WARNING, *cat = "complexity";
	else if (level_1_2 == 1)
		*sev = LINT_SEV_STYLE, *cat = "style";
	else
		*sev = LINT_SEV_WARNING, *cat = "bug";
}

static int parse_eslint(const char *out, size_t len, struct lint_findings *fs, struct sd_error *err)
{
	json_error_t je;
	json_t *doc = json_loadb(out, len, JSON_REJECT_DUPLICATES, &je), *file, *msgs, *m;
	size_t i, j;
	int ret = 0;

	if (!json_is_array(doc)) {
		json_decref(doc);
		return sd_error_set(err, EINVAL, "eslint: output is not a JSON array (%d:%d: %s)", je.line,
				    je.column, je.text);
	}
	json_array_foreach(doc, i, file) {
		msgs = json_object_get(file, "messages");
		if (!json_is_array(msgs)) {
			ret = sd_error_set(err, EINVAL, "eslint: file %zu has no \"messages\" array", i);
			break;
		}
		json_array_foreach(msgs, j, m) {
			json_t *rule = json_object_get(m, "ruleId");
			json_int_t lv = json_integer_value(json_object_get(m, "severity"));
			enum lint_severity sev;
			const char *cat;

			if (!json_is_object(m) || (!json_is_string(rule) && !json_is_null(rule)) || lv < 1 || lv > 2) {
				ret = sd_error_set(err, EINVAL, "eslint: message %zu is not a finding", j);
				break;
			}
			eslint_class(json_string_value(rule), (int)lv, &sev, &cat);
			if ((ret = push_str(fs, "eslint", json_is_string(rule) ? json_string_value(rule) : "parse-error",
					    cat, sev, jline(json_object_get(m, "line")),
					    json_string_value(json_object_get(m, "message")), err)) < 0)
				break;
		}
		if (ret < 0)
			break;
	}
	json_decref(doc);
	return ret;
}

/* --- the dispatcher --- */

static bool has_error(const struct lint_findings *fs, size_t before)
{
	return fs->n_by_severity[LINT_SEV_ERROR] > before;
}

int lint_parse(const char *tool, const char *out, size_t len, int exit_code, const char *source,
	       struct lint_findings *fs, struct sd_error *err)
{
	size_t before = fs->n + fs->dropped, errors_before = fs->n_by_severity[LINT_SEV_ERROR];
	int ret;

	if (!out)
		len = 0;
	if (strcmp(tool, "flake8") == 0) {
		if (exit_code != 0 && exit_code != 1)
			return sd_error_set(err, EINVAL, "flake8 failed (exit status %d)", exit_code);
		if (each_line(out, len, source, fs, flake8_line, err) < 0)
			return -1;
		if (exit_code == 1 && fs->n + fs->dropped == before)
			return sd_error_set(err, EINVAL, "flake8 exited 1 without a finding it could report");
		return 0;
	}
	if (strcmp(tool, "cppcheck") == 0) {
		if (exit_code != 0)
			return sd_error_set(err, EINVAL, "cppcheck failed (exit status %d)", exit_code);
		return each_line(out, len, source, fs, cppcheck_line, err);
	}
	if (strcmp(tool, "clang-tidy") == 0) {
		if (each_line(out, len, source, fs, tidy_line, err) < 0)
			return -1;
		/* it exits non-zero on compiler errors, which it reports as findings */
		if (exit_code != 0 && !has_error(fs, errors_before))
			return sd_error_set(err, EINVAL, "clang-tidy failed (exit status %d)", exit_code);
		return 0;
	}
	if (strcmp(tool, "bandit") == 0 || strcmp(tool, "eslint") == 0) {
		bool bandit = tool[0] == 'b';

		if (exit_code != 0 && exit_code != 1)
			return sd_error_set(err, EINVAL, "%s failed (exit status %d)", tool, exit_code);
		ret = bandit ? parse_bandit(out, len, fs, err) : parse_eslint(out, len, fs, err);
		if (ret == 0 && exit_code == 1 && fs->n + fs->dropped == before)
			return sd_error_set(err, EINVAL, "%s exited 1 without a finding it could report", tool);
		return ret;
	}
	return sd_error_set(err, EINVAL, "unknown linter '%s'", tool);
}

enum lint_status lint_judge(const struct lint_findings *fs, enum lint_severity threshold)
{
	for (int s = (int)threshold; s <= LINT_SEV_ERROR; s++)
		if (s >= 0 && fs->n_by_severity[s])
			return LINT_FAILED;
	return LINT_PASSED;
}
