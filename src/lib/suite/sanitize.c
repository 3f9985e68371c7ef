/* sanitize.c - model output cleaned before scoring: the fenced block chosen, then Python's pass; every sample of a set (docs/sanitize.md) */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "suite/sanitize-internal.h"
#include "suite/sanitize.h"

int sz_buf_add(struct sz_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(p = realloc(b->p, cap)))
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

void sanitize_out_release(struct sanitize_out *out)
{
	free(out->text);
	*out = (struct sanitize_out){ 0 };
}

enum lang { L_PYTHON, L_C, L_JS, L_OTHER };

static enum lang lang_of(const char *language)
{
	if (!language || strcmp(language, "python") == 0)
		return L_PYTHON;
	if (strcmp(language, "c") == 0 || strcmp(language, "cpp") == 0)
		return L_C;
	if (strcmp(language, "javascript") == 0)
		return L_JS;
	return L_OTHER;
}

/* A fence's info string names the task's language (or none). */
static bool tag_fits(const char *tag, size_t n, enum lang l)
{
	static const char *const py[] = { "python", "py", "python3", "py3", NULL };
	static const char *const c[] = { "c", "cpp", "c++", "cc", "cxx", "h", "hpp", NULL };
	static const char *const js[] = { "javascript", "js", "node", "nodejs", "mjs", "jsx", NULL };
	const char *const *names = l == L_PYTHON ? py : l == L_C ? c : l == L_JS ? js : NULL;

	if (n == 0)
		return true;
	for (size_t i = 0; names && names[i]; i++)
		if (strlen(names[i]) == n && strncasecmp(tag, names[i], n) == 0)
			return true;
	return false;
}

struct line {
	const char *p, *e;		/* without the newline (nor a '\r' before it) */
	const char *next;		/* the next line's start */
};

/* A fence at line L: its character and length (3 or more backticks or
 * tildes after indentation: *IND blanks), its info string's first word in
 * *TAG, *TAG_N; 0 when L is no fence. */
static size_t fence(const struct line *l, char *ch, size_t *ind, const char **tag, size_t *tag_n)
{
	const char *p = l->p, *q;
	size_t n;

	while (p < l->e && (*p == ' ' || *p == '\t'))
		p++;
	*ind = (size_t)(p - l->p);
	if (p == l->e || (*p != '`' && *p != '~'))
		return 0;
	for (q = p; q < l->e && *q == *p; q++)
		;
	if ((n = (size_t)(q - p)) < 3)
		return 0;
	*ch = *p;
	while (q < l->e && (*q == ' ' || *q == '\t'))
		q++;
	*tag = q;
	while (q < l->e && *q != ' ' && *q != '\t' && *q != '`' && *q != '{')
		q++;
	*tag_n = (size_t)(q - *tag);
	return n;
}

/* Line L without up to IND leading blanks: a fenced block's content is
 * indented as its fence is (CommonMark), an answer in a markdown list. */
static struct line dedent(const struct line *l, size_t ind)
{
	struct line d = *l;

	for (size_t i = 0; i < ind && d.p < d.e && (*d.p == ' ' || *d.p == '\t'); i++)
		d.p++;
	return d;
}

/* Does line L define the entry point? Python: "def E(" at column 0. C and
 * JavaScript: at column 0, E followed by '(' or '=' with no '(' before it
 * ("int E(int n) {", "function E(x) {", "const E = (x) =>"; not "console.log(E(1))"). */
static bool defines(const struct line *line, size_t ind, const char *entry, enum lang lang)
{
	struct line dl = dedent(line, ind);
	const struct line *l = &dl;
	size_t n = strlen(entry);

	if (lang == L_PYTHON)
		return sz_py_defines(l->p, (size_t)(l->e - l->p), entry);
	if (l->p == l->e || *l->p == ' ' || *l->p == '\t')
		return false;
	for (const char *p = l->p; p + n <= l->e; p++) {
		const char *q = p + n;

		if (*p == '(')
			return false;
		if (memcmp(p, entry, n) != 0 || (p > l->p && (p[-1] == '_' || p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9') ||
							       ((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z'))))
			continue;
		while (q < l->e && (*q == ' ' || *q == '\t'))
			q++;
		if (q < l->e && (*q == '(' || (*q == '=' && (q + 1 == l->e || q[1] != '='))))
			return true;
	}
	return false;
}

static struct line *split(const char *text, size_t len, size_t *n_out)
{
	size_t n = 1, k = 0;
	struct line *v;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (!(v = malloc(n * sizeof(*v))))
		return NULL;
	for (const char *p = text, *end = text + len; p <= end && k < n;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		v[k].p = p;
		v[k].next = nl ? nl + 1 : end;
		if (e > p && e[-1] == '\r')
			e--;
		v[k++].e = e;
		if (!nl)
			break;
		p = nl + 1;
	}
	*n_out = k;
	return v;
}

struct block {
	size_t first, end;		/* content lines [first, end) */
	size_t ind;			/* the opening fence's indentation */
	bool fits, defines;
	size_t code;			/* non-blank lines */
};

/* Rules 2 and 3: the fenced block to keep, lines [*FIRST, *END) dedented by
 * *IND; *FENCED false when the text holds no fence. -1 on ENOMEM. */
static int choose_block(const struct line *l, size_t n, const char *entry, enum lang lang, size_t *first,
			size_t *end, size_t *ind, bool *fenced)
{
	struct block *b = calloc(n / 2 + 1, sizeof(*b)), *best = NULL;
	size_t nb = 0, i = 0;
	bool any_fits = false;

	*fenced = false;
	if (!b)
		return -1;
	while (i < n) {
		char ch, ch2;
		const char *tag, *tag2;
		size_t tag_n, tag2_n, ind2, len = fence(&l[i], &ch, &b[nb].ind, &tag, &tag_n), len2;
		struct block *cur;

		if (!len) {
			i++;
			continue;
		}
		*fenced = true;
		cur = &b[nb++];
		cur->first = ++i;
		cur->fits = tag_fits(tag, tag_n, lang);
		any_fits |= cur->fits;
		/* the content, up to a closing fence (the same character, at least as long, nothing after) or the end */
		for (; i < n; i++) {
			if ((len2 = fence(&l[i], &ch2, &ind2, &tag2, &tag2_n)) >= len && ch2 == ch && tag2 == l[i].e)
				break;
			if (entry && defines(&l[i], cur->ind, entry, lang))
				cur->defines = true;
			if (l[i].p != l[i].e)
				cur->code++;
		}
		cur->end = i;
		if (i < n)
			i++;
		if (nb > n / 2)
			break;
	}
	for (size_t k = 0; k < nb; k++) {
		if (any_fits && !b[k].fits)
			continue;
		if (b[k].defines)
			best = &b[k];	/* the last that defines the entry point */
	}
	for (size_t k = 0; k < nb && !(best && best->defines); k++) {
		if (any_fits && !b[k].fits)
			continue;
		if (!best || b[k].code > best->code)
			best = &b[k];	/* else the longest, the first of equals */
	}
	if (best) {
		*first = best->first;
		*end = best->end;
		*ind = best->ind;
	}
	free(b);
	return 0;
}

/* Lines [FIRST, END) of L in OUT, each without IND leading blanks when
 * every line that is not blank has them (a block indented as its fence),
 * else as they are (a fence indented alone: dedenting would break the code). */
static int block_text(const struct line *l, size_t n, size_t first, size_t end, size_t ind, struct sz_buf *out)
{
	for (size_t i = first; i < end && i < n && ind; i++) {
		struct line d = dedent(&l[i], ind);

		if (d.p != d.e && d.p - l[i].p < (ptrdiff_t)ind)
			ind = 0;
	}
	for (size_t i = first; i < end && i < n; i++) {
		struct line d = dedent(&l[i], ind);

		if (sz_buf_add(out, d.p, (size_t)(l[i].next - d.p)) < 0)
			return -1;
	}
	return 0;
}

/* Does the text define NAME at column 0 in Python? */
static bool py_defines_in(const char *text, size_t len, const char *name)
{
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		if (sz_py_defines(p, (size_t)(e - p), name))
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

int sanitize_text(const char *text, size_t len, const struct sanitize_spec *spec, struct sanitize_out *out,
		  struct sd_error *err)
{
	enum lang lang = lang_of(spec->language);
	const char *entry = spec->entry_point && *spec->entry_point ? spec->entry_point : NULL;
	const char *from = text, *to = text + len;
	struct sz_buf buf = { 0 }, block = { 0 };
	struct line *lines;
	size_t n_lines, first = 0, end = 0, ind = 0;
	unsigned rules = 0;
	bool fenced, body = false;

	*out = (struct sanitize_out){ 0 };
	if (len > SANITIZE_MAX_INPUT)
		return 0;
	if (!(lines = split(text, len, &n_lines)))
		return sd_error_set(err, ENOMEM, "out of memory");
	if (choose_block(lines, n_lines, entry, lang, &first, &end, &ind, &fenced) < 0 ||
	    (fenced && block_text(lines, n_lines, first, end, ind, &block) < 0)) {
		free(lines);
		free(block.p);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	free(lines);
	if (fenced) {
		rules |= SANITIZE_FENCE;
		from = block.p ? block.p : "";
		to = from + block.len;
	}
	if (lang == L_PYTHON) {
		/* a body that follows the prompt's signature, or a whole program */
		body = spec->prompt && entry && py_defines_in(spec->prompt, strlen(spec->prompt), entry) &&
		       !py_defines_in(from, (size_t)(to - from), entry);
		if (sz_python(from, (size_t)(to - from), entry, body, &buf, &rules, err) < 0) {
			free(block.p);
			free(buf.p);
			return -1;
		}
	} else if (sz_buf_add(&buf, from, (size_t)(to - from)) < 0) {
		free(block.p);
		free(buf.p);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	free(block.p);
	/* nothing taken off, or nothing left: the text as given */
	if (!rules || blank(buf.p ? buf.p : "", buf.len)) {
		free(buf.p);
		return 0;
	}
	/* a whole program after a prompt that does not end its last line */
	if (!body && spec->prompt && *spec->prompt && spec->prompt[strlen(spec->prompt) - 1] != '\n') {
		struct sz_buf nl = { 0 };

		if (sz_buf_add(&nl, "\n", 1) < 0 || sz_buf_add(&nl, buf.p, buf.len) < 0) {
			free(nl.p);
			free(buf.p);
			return sd_error_set(err, ENOMEM, "out of memory");
		}
		free(buf.p);
		buf = nl;
	}
	*out = (struct sanitize_out){ .text = buf.p, .len = buf.len, .rules = rules };
	return 1;
}

int sample_set_sanitize(struct sample_set *set, const struct task_set *tasks, size_t *changed,
			struct sd_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++) {
		struct sample *s = &set->samples[i];
		const struct task *t = task_set_find(tasks, s->task_id);
		struct sanitize_out out;
		int r;

		if (!t)
			return sd_error_set(err, EINVAL, "sample '%s': no task '%s'", s->sample_id, s->task_id);
		if (s->given)
			continue;	/* sanitized already */
		r = sanitize_text(s->code ? s->code : "", s->code ? strlen(s->code) : 0,
				  &(struct sanitize_spec){ .language = t->language, .entry_point = t->entry_point,
							   .prompt = s->is_completion ? t->prompt : NULL },
				  &out, err);
		if (r < 0)
			return sd_error_wrap(err, "sample '%s'", s->sample_id);
		if (r == 0)
			continue;
		s->given = s->code;
		s->code = out.text;
		n++;
	}
	set->sanitized = true;
	if (changed)
		*changed = n;
	return 0;
}
