/* sanitize-python.c - Python's top-level statements: a tokenizer that knows strings, comments, brackets and continuations, what each statement defines and uses, and what the entry point reaches
 *
 * One pass over the text, line by line. A line that starts at column 0,
 * outside a string, a bracket and a backslash continuation, starts a
 * top-level statement; every other line belongs to the statement before it
 * (lines before the first statement are the "body": a HumanEval completion's
 * function body, pseudo-statement 0). The tokenizer is error-tolerant, as
 * model output needs: a single-quoted string ends at the end of its line
 * (prose's "it's" does not swallow the code after it), and a line at column
 * 0 that opens a def, class, import or decorator closes any bracket left
 * open before it (prose's "(see below"). Each statement is classified by
 * its first logical line: import, definition (def, async def, class, with
 * its decorators), assignment (NAME ... = or an augmented one: the names
 * left of the operator are what it defines), or anything else. Every NAME
 * token of a statement, and every word inside an f-string, is a name it
 * uses. The kept statements are the imports and the definitions the entry
 * point reaches, breadth first, through the names they use; every
 * definition of a reached name is kept (Python runs the last one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite/sanitize-internal.h"
#include "suite/sanitize.h"

enum kind { K_BODY, K_OTHER, K_IMPORT, K_DEF, K_ASSIGN, K_DECOR };
enum tok { T_NAME, T_DOT, T_COLON, T_ASSIGN, T_AT, T_OPEN, T_OTHER };

#define NO_DEF SIZE_MAX
#define MAX_TARGETS 32

struct py_stmt {
	size_t first, end;		/* its lines: [first, end) */
	enum kind kind;
	size_t refs, n_refs;		/* the names it uses: scan.refs[refs .. refs + n_refs) */
	bool kept;
};

struct py_name {
	size_t off, len;		/* in the text */
	size_t first_def;		/* scan.defs index, NO_DEF */
	bool seen;
};

struct py_def {
	size_t stmt, next;
};

struct scan {
	const char *x;
	size_t len;
	size_t *line;			/* line starts; line[n_lines] == len */
	size_t n_lines;
	bool *code;			/* the line holds a token, or the inside of a string */
	struct py_stmt *st;
	size_t n_st, cap_st;
	size_t *refs;
	size_t n_refs, cap_refs;
	struct py_name *names;
	size_t n_names, cap_names;
	size_t *slots;			/* open addressing: name index + 1, 0 empty */
	size_t cap_slots;
	struct py_def *defs;
	size_t n_defs, cap_defs;
	/* tokenizer state across lines */
	int depth;			/* open brackets */
	bool cont;			/* the line ended with a backslash */
	char quote;			/* inside a string: its quote, else 0 */
	bool triple, fstr, str_cont;
	/* classification of the current statement's first logical line */
	bool first_line;
	size_t ntok;
	enum tok prev;
	bool expect_name, maybe_assign, assigned, after_colon;
	bool decorator;			/* the statement's line is a decorator's */
	size_t target[MAX_TARGETS];
	size_t n_target;
	bool oom;
};

static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
	"del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
};

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

static bool is_keyword(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (word_is(w, n, keywords[i]))
			return true;
	return false;
}

/* Identifier bytes: ASCII letters, digits, '_', and any byte of a non-ASCII
 * character (Python allows Unicode identifiers; invalid UTF-8 is words too). */
static bool id_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool id_char(unsigned char c)
{
	return id_start(c) || (c >= '0' && c <= '9');
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The index of the name at X[OFF, OFF + N): found, or added when ADD. SIZE_MAX: none (or ENOMEM). */
static size_t intern(struct scan *sc, size_t off, size_t n, const char *text, bool add)
{
	size_t mask, i;

	if (sc->n_names + 1 > sc->cap_slots / 2) {
		size_t cap = sc->cap_slots ? sc->cap_slots * 2 : 64;
		size_t *slots;

		if (!add)
			goto look;
		if (!(slots = calloc(cap, sizeof(*slots)))) {
			sc->oom = true;
			return SIZE_MAX;
		}
		for (size_t k = 0; k < sc->n_names; k++) {
			const struct py_name *nm = &sc->names[k];

			for (i = hash(sc->x + nm->off, nm->len) & (cap - 1); slots[i]; i = (i + 1) & (cap - 1))
				;
			slots[i] = k + 1;
		}
		free(sc->slots);
		sc->slots = slots;
		sc->cap_slots = cap;
	}
look:
	if (!sc->cap_slots)
		return SIZE_MAX;
	mask = sc->cap_slots - 1;
	for (i = hash(text, n) & mask; sc->slots[i]; i = (i + 1) & mask) {
		const struct py_name *nm = &sc->names[sc->slots[i] - 1];

		if (nm->len == n && memcmp(sc->x + nm->off, text, n) == 0)
			return sc->slots[i] - 1;
	}
	if (!add)
		return SIZE_MAX;
	if (!grow((void **)&sc->names, &sc->cap_names, sc->n_names + 1, sizeof(*sc->names))) {
		sc->oom = true;
		return SIZE_MAX;
	}
	sc->names[sc->n_names] = (struct py_name){ .off = off, .len = n, .first_def = NO_DEF };
	sc->slots[i] = ++sc->n_names;
	return sc->n_names - 1;
}

static void add_ref(struct scan *sc, size_t name)
{
	if (name == SIZE_MAX)
		return;
	if (!grow((void **)&sc->refs, &sc->cap_refs, sc->n_refs + 1, sizeof(*sc->refs))) {
		sc->oom = true;
		return;
	}
	sc->refs[sc->n_refs++] = name;
	sc->st[sc->n_st - 1].n_refs++;
}

static void add_def(struct scan *sc, size_t name)
{
	if (name == SIZE_MAX)
		return;
	if (!grow((void **)&sc->defs, &sc->cap_defs, sc->n_defs + 1, sizeof(*sc->defs))) {
		sc->oom = true;
		return;
	}
	sc->defs[sc->n_defs] = (struct py_def){ .stmt = sc->n_st - 1, .next = sc->names[name].first_def };
	sc->names[name].first_def = sc->n_defs++;
}

static bool word_at(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 && ((size_t)(e - p) == n || !id_char((unsigned char)p[n]));
}

/* A decorator's line: '@', a dotted name, then nothing, a comment or a
 * call's '(' ("@cache", "@functools.lru_cache(None)"; not prose's "@user thanks"). */
static bool decorator_line(const char *p, const char *e)
{
	if (p == e || *p++ != '@')
		return false;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p == e || !id_start((unsigned char)*p))
			return false;
		while (p < e && id_char((unsigned char)*p))
			p++;
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == e || *p == '#' || *p == '(')
			return true;
		if (*p++ != '.')
			return false;
	}
}

/* A new statement from line I, X[P, E) (the previous one ends there); a
 * pending decorator goes on into the decorator, def or class after it. */
static void start_stmt(struct scan *sc, size_t i, const char *p, const char *e)
{
	struct py_stmt *cur = &sc->st[sc->n_st - 1];

	sc->first_line = true;
	sc->ntok = 0;
	sc->prev = T_OTHER;
	sc->expect_name = sc->maybe_assign = sc->assigned = sc->after_colon = false;
	sc->n_target = 0;
	sc->decorator = decorator_line(p, e);
	if (cur->kind == K_DECOR &&
	    (sc->decorator || word_at(p, e, "def") || word_at(p, e, "class") || word_at(p, e, "async")))
		return;
	if (cur->kind == K_DECOR)
		cur->kind = K_OTHER;	/* a decorator of nothing */
	cur->end = i;
	if (!grow((void **)&sc->st, &sc->cap_st, sc->n_st + 1, sizeof(*sc->st))) {
		sc->oom = true;
		return;
	}
	sc->st[sc->n_st++] = (struct py_stmt){ .first = i, .kind = K_OTHER, .refs = sc->n_refs };
}

/* One token of the current statement: its names, and its classification. */
static void token(struct scan *sc, enum tok t, size_t off, size_t n)
{
	struct py_stmt *cur = &sc->st[sc->n_st - 1];
	const char *w = sc->x + off;
	size_t id = SIZE_MAX;

	if (t == T_NAME)
		add_ref(sc, id = intern(sc, off, n, w, true));
	if (!sc->first_line || cur->kind == K_BODY) {
		sc->prev = t;
		return;
	}
	if (sc->ntok++ == 0) {
		if (t == T_AT)
			cur->kind = sc->decorator ? K_DECOR : K_OTHER;
		else if (t != T_NAME)
			cur->kind = K_OTHER;
		else if (word_is(w, n, "import") || word_is(w, n, "from"))
			cur->kind = K_IMPORT;
		else if (word_is(w, n, "def") || word_is(w, n, "class") || word_is(w, n, "async"))
			sc->expect_name = true;
		else if (is_keyword(w, n))
			cur->kind = K_OTHER;
		else
			sc->maybe_assign = true;
	} else if (sc->expect_name) {
		if (t == T_NAME && !word_is(w, n, "def")) {
			add_def(sc, id);
			cur->kind = K_DEF;
			sc->expect_name = false;
		} else if (t != T_NAME) {
			sc->expect_name = false;
		}
	}
	if (sc->maybe_assign && !sc->assigned && sc->depth == 0) {
		if (t == T_NAME && sc->prev != T_DOT && !sc->after_colon && sc->n_target < MAX_TARGETS)
			sc->target[sc->n_target++] = id;
		else if (t == T_COLON)
			sc->after_colon = true;
		else if (t == T_ASSIGN) {
			sc->assigned = true;
			cur->kind = K_ASSIGN;
			for (size_t k = 0; k < sc->n_target; k++)
				add_def(sc, sc->target[k]);
		}
	}
	sc->prev = t;
}

/* Scan a string's body from *P to E; the quote is sc->quote. Words of an
 * f-string are names it uses. */
static void string_body(struct scan *sc, const char **pp, const char *e)
{
	const char *p = *pp;

	sc->str_cont = false;
	while (p < e) {
		if (*p == '\\') {
			if (p + 1 >= e) {
				sc->str_cont = true;
				p = e;
				break;
			}
			p += 2;
		} else if (*p == sc->quote && (!sc->triple || (e - p >= 3 && p[1] == sc->quote && p[2] == sc->quote))) {
			p += sc->triple ? 3 : 1;
			sc->quote = 0;
			break;
		} else if (sc->fstr && id_start((unsigned char)*p) && (p == *pp || !id_char((unsigned char)p[-1]))) {
			const char *w = p;

			while (p < e && id_char((unsigned char)*p))
				p++;
			add_ref(sc, intern(sc, (size_t)(w - sc->x), (size_t)(p - w), w, true));
		} else {
			p++;
		}
	}
	if (sc->quote && !sc->triple && !sc->str_cont)
		sc->quote = 0;	/* a single-quoted string ends with its line */
	*pp = p;
}

static void open_string(struct scan *sc, const char **pp, const char *e, bool fstr)
{
	const char *p = *pp;

	sc->quote = *p;
	sc->fstr = fstr;
	sc->triple = e - p >= 3 && p[1] == *p && p[2] == *p;
	p += sc->triple ? 3 : 1;
	string_body(sc, &p, e);
	*pp = p;
}

/* The '=' at P: an assignment (plain or augmented), or part of a comparison? */
static enum tok equals(const char *ls, const char **pp, const char *e)
{
	const char *p = *pp;
	char b = p > ls ? p[-1] : 0, bb = p - ls >= 2 ? p[-2] : 0;

	if (p + 1 < e && p[1] == '=') {
		*pp = p + 2;
		return T_OTHER;	/* == */
	}
	*pp = p + 1;
	if (b == '=' || b == '!' || b == ':')
		return T_OTHER;
	if ((b == '<' || b == '>') && bb != b)
		return T_OTHER;	/* <=, >= (but <<=, >>=) */
	return T_ASSIGN;
}

/* r, b, u, f and their pairs (rb, Rb, fr...): a string's prefix */
static bool string_prefix(const char *w, size_t n)
{
	if (n > 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("rRbBuUfF", w[i]) || w[i] == '\0')
			return false;
	return true;
}

/* The tokens of X[P, E), one line without its newline. */
static void tokens(struct scan *sc, const char *p, const char *e)
{
	const char *ls = p;

	sc->cont = false;
	if (sc->quote)
		string_body(sc, &p, e);
	while (p < e && !sc->oom) {
		unsigned char c = (unsigned char)*p;
		const char *w = p;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\0') {
			p++;
		} else if (c == '#') {
			break;
		} else if (id_start(c)) {
			while (p < e && id_char((unsigned char)*p))
				p++;
			if (p < e && (*p == '"' || *p == '\'') && string_prefix(w, (size_t)(p - w))) {
				open_string(sc, &p, e, memchr(w, 'f', (size_t)(p - w)) || memchr(w, 'F', (size_t)(p - w)));
				token(sc, T_OTHER, 0, 0);
			} else {
				token(sc, T_NAME, (size_t)(w - sc->x), (size_t)(p - w));
			}
		} else if ((c >= '0' && c <= '9') || (c == '.' && p + 1 < e && p[1] >= '0' && p[1] <= '9')) {
			while (p < e && (id_char((unsigned char)*p) || *p == '.'))
				p++;
			token(sc, T_OTHER, 0, 0);
		} else if (c == '"' || c == '\'') {
			open_string(sc, &p, e, false);
			token(sc, T_OTHER, 0, 0);
		} else if (c == '(' || c == '[' || c == '{') {
			token(sc, T_OPEN, 0, 0);
			sc->depth++;
			p++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (sc->depth > 0)
				sc->depth--;
			token(sc, T_OTHER, 0, 0);
			p++;
		} else if (c == '\\' && p + 1 == e) {
			sc->cont = true;
			p++;
		} else if (c == '=') {
			token(sc, equals(ls, &p, e), 0, 0);
		} else {
			p++;
			if (c == ';' && sc->depth == 0)
				sc->first_line = false;
			token(sc, c == '.' ? T_DOT : c == ':' ? T_COLON : c == '@' ? T_AT : T_OTHER, 0, 0);
		}
	}
	if (!sc->cont && !sc->quote && sc->depth == 0)
		sc->first_line = false;
}

/* A line at column 0 that can only start a statement: a bracket left open
 * before it was prose's, not code's. */
static bool opens_statement(const char *p, const char *e)
{
	static const char *const starts[] = { "def ", "class ", "async def ", "import ", "from ", "@", "if __name__" };

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		size_t n = strlen(starts[i]);

		if ((size_t)(e - p) >= n && memcmp(p, starts[i], n) == 0)
			return true;
	}
	return false;
}

static int split_lines(struct scan *sc)
{
	size_t n = 1;

	for (size_t i = 0; i < sc->len; i++)
		if (sc->x[i] == '\n')
			n++;
	sc->line = malloc((n + 1) * sizeof(*sc->line));
	sc->code = calloc(n + 1, sizeof(*sc->code));
	if (!sc->line || !sc->code)
		return -1;
	sc->n_lines = 0;
	sc->line[sc->n_lines++] = 0;
	for (size_t i = 0; i < sc->len; i++)
		if (sc->x[i] == '\n')
			sc->line[sc->n_lines++] = i + 1;
	if (sc->line[sc->n_lines - 1] == sc->len && sc->n_lines > 1)
		sc->n_lines--;	/* no empty last line after a final newline */
	sc->line[sc->n_lines] = sc->len;
	return 0;
}

/* Line I without its newline (and a '\r' before it). */
static const char *line_end(const struct scan *sc, size_t i)
{
	const char *e = sc->x + sc->line[i + 1];

	if (e > sc->x + sc->line[i] && e[-1] == '\n')
		e--;
	if (e > sc->x + sc->line[i] && e[-1] == '\r')
		e--;
	return e;
}

static void scan(struct scan *sc)
{
	sc->st = calloc(1, sizeof(*sc->st));
	if (!sc->st) {
		sc->oom = true;
		return;
	}
	sc->cap_st = sc->n_st = 1;
	sc->st[0] = (struct py_stmt){ .kind = K_BODY };
	for (size_t i = 0; i < sc->n_lines && !sc->oom; i++) {
		const char *p = sc->x + sc->line[i], *e = line_end(sc, i), *q = p;

		while (q < e && (*q == ' ' || *q == '\t' || *q == '\f' || *q == '\r'))
			q++;
		if (sc->quote) {
			sc->code[i] = true;
		} else if (q == e || *q == '#') {
			if (!sc->cont)
				continue;	/* blank or a comment: no token */
		} else if (q == p && !sc->cont && (sc->depth == 0 || opens_statement(p, e))) {
			sc->depth = 0;
			start_stmt(sc, i, p, e);
		}
		tokens(sc, p, e);
		sc->code[i] = true;
	}
	sc->st[sc->n_st - 1].end = sc->n_lines;
	for (size_t k = 0; k < sc->n_st; k++)
		if (sc->st[k].kind == K_DECOR)
			sc->st[k].kind = K_OTHER;	/* a decorator of nothing */
}

static void reach(struct scan *sc, const char *entry, bool body)
{
	size_t *queue, head = 0, tail = 0, e = SIZE_MAX;
	bool keep_all;

	if (entry)
		e = intern(sc, 0, strlen(entry), entry, false);
	/* no entry point, or a whole program that never defines it: every definition stays */
	keep_all = !entry || (!body && (e == SIZE_MAX || sc->names[e].first_def == NO_DEF));
	if (keep_all) {
		for (size_t k = 1; k < sc->n_st; k++)
			sc->st[k].kept = sc->st[k].kind == K_DEF || sc->st[k].kind == K_ASSIGN;
		return;
	}
	if (!(queue = malloc((sc->n_names + 1) * sizeof(*queue)))) {
		sc->oom = true;
		return;
	}
	if (e != SIZE_MAX) {
		sc->names[e].seen = true;
		queue[tail++] = e;
	}
	for (size_t r = 0; r < sc->st[0].n_refs; r++) {
		size_t id = sc->refs[sc->st[0].refs + r];

		if (!sc->names[id].seen) {
			sc->names[id].seen = true;
			queue[tail++] = id;
		}
	}
	while (head < tail) {
		for (size_t d = sc->names[queue[head++]].first_def; d != NO_DEF; d = sc->defs[d].next) {
			struct py_stmt *s = &sc->st[sc->defs[d].stmt];

			if (s->kept)
				continue;
			s->kept = true;
			for (size_t r = 0; r < s->n_refs; r++) {
				size_t id = sc->refs[s->refs + r];

				if (!sc->names[id].seen) {
					sc->names[id].seen = true;
					queue[tail++] = id;
				}
			}
		}
	}
	free(queue);
}

/* Lines [FIRST, END) up to the last that holds code, then the blank lines
 * right after it; a newline added when the text ends without one. */
static int emit(const struct scan *sc, size_t first, size_t end, struct sz_buf *out)
{
	size_t last = end, to;

	while (last > first && !sc->code[last - 1])
		last--;
	if (last == first)
		return 0;
	to = last;
	while (to < end && line_end(sc, to) == sc->x + sc->line[to])
		to++;
	if (sz_buf_add(out, sc->x + sc->line[first], sc->line[to] - sc->line[first]) < 0)
		return -1;
	if (out->len && out->p[out->len - 1] != '\n')
		return sz_buf_add(out, "\n", 1);
	return 0;
}

/* Prose, not code: a line at column 0 that starts with a word that is no
 * keyword followed by another word ("Here is", "This function"), ends with
 * ':' without being a compound statement's header ("Solution:"), or holds
 * an apostrophe inside a word ("Here's"). */
static bool prose(const char *p, const char *e)
{
	const char *w = p, *q;

	if (p == e || !id_start((unsigned char)*p))
		return false;
	while (p < e && id_char((unsigned char)*p))
		p++;
	if (is_keyword(w, (size_t)(p - w)))
		return false;
	for (q = p; q < e && (*q == ' ' || *q == '\t'); q++)
		;
	if (q > p && q < e && id_start((unsigned char)*q))
		return true;
	for (q = e; q > w && (q[-1] == ' ' || q[-1] == '\t'); q--)
		;
	if (q > w && q[-1] == ':')
		return true;
	for (q = w + 1; q + 1 < e; q++)
		if (*q == '\'' && id_char((unsigned char)q[-1]) && id_char((unsigned char)q[1]))
			return true;
	return false;
}

/* A body's leading prose: the number of lines before the body's first
 * indented line when every non-blank one of them is prose at column 0; 0 when not. */
static size_t leading_prose(const struct scan *sc)
{
	bool any = false;

	for (size_t i = 0; i < sc->n_lines; i++) {
		const char *p = sc->x + sc->line[i], *e = line_end(sc, i);

		if (p == e)
			continue;
		if (*p == ' ' || *p == '\t')
			return any ? i : 0;
		if (!prose(p, e))
			return 0;
		any = true;
	}
	return 0;
}

int sz_python(const char *x, size_t len, const char *entry, bool body, struct sz_buf *out, unsigned *rules,
	      struct sd_error *err)
{
	struct scan sc = { .x = x, .len = len };
	size_t skip = 0, base = out->len;
	int ret = -1;

	if (split_lines(&sc) < 0)
		goto oom;
	if (body && (skip = leading_prose(&sc)) > 0) {
		size_t off = sc.line[skip];

		*rules |= SANITIZE_CHATTER;
		free(sc.line);
		free(sc.code);
		sc.x = x + off;
		sc.len = len - off;
		if (split_lines(&sc) < 0)
			goto oom;
	}
	scan(&sc);
	if (!sc.oom)
		reach(&sc, entry, body);
	if (sc.oom)
		goto oom;
	if (emit(&sc, 0, sc.st[0].end, out) < 0)
		goto oom;
	for (size_t k = 1; k < sc.n_st; k++) {
		if (sc.st[k].kind != K_IMPORT && !sc.st[k].kept) {
			*rules |= SANITIZE_DROPPED;
			continue;
		}
		if (emit(&sc, sc.st[k].first, sc.st[k].end, out) < 0)
			goto oom;
	}
	/* no blank lines at the end: the text ends with its last line of code, whole */
	{
		size_t end = out->len;
		const char *nl;

		while (end > base && memchr(" \t\r\n", out->p[end - 1], 4))
			end--;
		if (end > base && (nl = memchr(out->p + end, '\n', out->len - end))) {
			out->len = (size_t)(nl - out->p) + 1;
			out->p[out->len] = '\0';
		}
	}
	ret = 0;
	goto out;
oom:
	sd_error_set(err, ENOMEM, "out of memory");
out:
	free(sc.line);
	free(sc.code);
	free(sc.st);
	free(sc.refs);
	free(sc.names);
	free(sc.slots);
	free(sc.defs);
	return ret;
}

bool sz_py_defines(const char *line, size_t n, const char *name)
{
	const char *p = line, *e = line + n;
	size_t len = strlen(name);

	if (n >= 6 && memcmp(p, "async", 5) == 0 && (p[5] == ' ' || p[5] == '\t')) {
		for (p += 5; p < e && (*p == ' ' || *p == '\t'); p++)
			;
	}
	if (e - p < 4 || memcmp(p, "def", 3) != 0 || (p[3] != ' ' && p[3] != '\t'))
		return false;
	for (p += 3; p < e && (*p == ' ' || *p == '\t'); p++)
		;
	if ((size_t)(e - p) < len || memcmp(p, name, len) != 0)
		return false;
	for (p += len; p < e && (*p == ' ' || *p == '\t'); p++)
		;
	return p < e && *p == '(';
}
