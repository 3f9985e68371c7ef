/* json-raw.c - JSON text as Python's json module reads it (integers of any size, NaN, Infinity), checked and located, never converted
 *
 * A recursive-descent checker over bytes that are already valid UTF-8. The
 * grammar is Python's json.loads (json/scanner.py, json/decoder.py):
 * RFC 8259's, plus the constants NaN, Infinity and -Infinity; a number is
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? of any length; a string
 * holds no raw character below U+0020 (its strict mode) and only the escapes
 * \" \\ \/ \b \f \n \r \t \uXXXX; white space is space, tab, LF and CR.
 */
#include "base/json-raw.h"

#include <string.h>

struct scan {
	const char *s;
	size_t n, i;
	const char *why;
};

static void ws(struct scan *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
		c->i++;
}

static bool fail(struct scan *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

static bool word(struct scan *c, const char *w)
{
	size_t n = strlen(w);

	if (c->n - c->i < n || memcmp(c->s + c->i, w, n) != 0)
		return fail(c, "unknown word (true, false, null, NaN, Infinity)");
	c->i += n;
	return true;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_hex(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static bool digits(struct scan *c)
{
	size_t start = c->i;

	while (c->i < c->n && is_digit(c->s[c->i]))
		c->i++;
	return c->i > start || fail(c, "digit expected");
}

static bool number(struct scan *c)
{
	if (c->s[c->i] == '-') {
		c->i++;
		if (c->i < c->n && c->s[c->i] == 'I')
			return word(c, "Infinity");
	}
	if (c->i < c->n && c->s[c->i] == '0')
		c->i++;
	else if (c->i >= c->n || !is_digit(c->s[c->i]) || !digits(c))
		return fail(c, "digit expected");
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		if (!digits(c))
			return false;
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (!digits(c))
			return false;
	}
	return true;
}

static bool string(struct scan *c)
{
	c->i++;		/* the opening quote */
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i];

		if (ch == '"') {
			c->i++;
			return true;
		}
		if (ch < 0x20)
			return fail(c, "control character in a string");
		if (ch != '\\') {
			c->i++;
			continue;
		}
		if (++c->i >= c->n)
			break;
		ch = (unsigned char)c->s[c->i];
		if (ch == 'u') {
			for (int k = 1; k <= 4; k++)
				if (c->i + (size_t)k >= c->n || !is_hex(c->s[c->i + (size_t)k]))
					return fail(c, "\\u must be followed by four hex digits");
			c->i += 5;
		} else if (strchr("\"\\/bfnrt", ch) && ch) {
			c->i++;
		} else {
			return fail(c, "invalid escape in a string");
		}
	}
	return fail(c, "unterminated string");
}

static bool value(struct scan *c, int depth);

/* An object or an array: OPEN already seen. */
static bool container(struct scan *c, int depth, char close)
{
	if (depth >= JSON_RAW_MAX_DEPTH)
		return fail(c, "nested too deeply");
	c->i++;
	ws(c);
	if (c->i < c->n && c->s[c->i] == close) {
		c->i++;
		return true;
	}
	for (;;) {
		if (close == '}') {
			if (c->i >= c->n || c->s[c->i] != '"')
				return fail(c, "a member name (a string) expected");
			if (!string(c))
				return false;
			ws(c);
			if (c->i >= c->n || c->s[c->i] != ':')
				return fail(c, "':' expected");
			c->i++;
			ws(c);
		}
		if (!value(c, depth + 1))
			return false;
		ws(c);
		if (c->i < c->n && c->s[c->i] == ',') {
			c->i++;
			ws(c);
			continue;
		}
		if (c->i < c->n && c->s[c->i] == close) {
			c->i++;
			return true;
		}
		return fail(c, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static bool value(struct scan *c, int depth)
{
	if (c->i >= c->n)
		return fail(c, "a value expected");
	switch (c->s[c->i]) {
	case '{': return container(c, depth, '}');
	case '[': return container(c, depth, ']');
	case '"': return string(c);
	case 't': return word(c, "true");
	case 'f': return word(c, "false");
	case 'n': return word(c, "null");
	case 'N': return word(c, "NaN");
	case 'I': return word(c, "Infinity");
	default:
		if (c->s[c->i] == '-' || is_digit(c->s[c->i]))
			return number(c);
		return fail(c, "a value expected");
	}
}

bool json_raw_parse(const char *text, size_t len, struct json_raw *out, size_t *off, const char **why)
{
	struct scan c = { text, len, 0, NULL };
	size_t start;

	ws(&c);
	start = c.i;
	if (!value(&c, 0))
		goto bad;
	if (out)
		*out = (struct json_raw){ text + start, c.i - start };
	ws(&c);
	if (c.i == c.n)
		return true;
	fail(&c, "extra data after the value");
bad:
	if (off)
		*off = c.i;
	if (why)
		*why = c.why;
	return false;
}

char json_raw_kind(struct json_raw v)
{
	if (!v.len)
		return '\0';
	switch (v.p[0]) {
	case '{': case '[': case '"': case 't': case 'f': case 'n':
		return v.p[0];
	default:
		return '0';
	}
}

const char *json_raw_kind_name(struct json_raw v)
{
	switch (json_raw_kind(v)) {
	case '{': return "an object";
	case '[': return "an array";
	case '"': return "a string";
	case 't': case 'f': return "a boolean";
	case 'n': return "null";
	default: return "a number";
	}
}

/* The next element or member of the checked container at V, from *POS (0
 * at first): its name (members; NAME NULL for arrays) and value. */
static bool next_item(struct json_raw v, size_t *pos, struct json_raw *name, struct json_raw *out)
{
	struct scan c = { v.p, v.len, *pos ? *pos : 1, NULL };
	size_t start;

	ws(&c);
	if (c.i < c.n && c.s[c.i] == ',') {
		c.i++;
		ws(&c);
	}
	if (c.i >= c.n || c.s[c.i] == '}' || c.s[c.i] == ']')
		return false;
	if (name) {
		start = c.i;
		if (!string(&c))
			return false;
		*name = (struct json_raw){ c.s + start + 1, c.i - start - 2 };
		ws(&c);
		c.i++;		/* ':' */
		ws(&c);
	}
	start = c.i;
	if (!value(&c, 1))
		return false;
	*out = (struct json_raw){ c.s + start, c.i - start };
	*pos = c.i;
	return true;
}

bool json_raw_member(struct json_raw obj, const char *key, struct json_raw *out)
{
	struct json_raw name, v;
	size_t pos = 0, n = strlen(key);

	if (json_raw_kind(obj) != '{')
		return false;
	while (next_item(obj, &pos, &name, &v)) {
		if (name.len == n && memcmp(name.p, key, n) == 0) {
			*out = v;
			return true;
		}
	}
	return false;
}

size_t json_raw_count(struct json_raw obj, const char *key)
{
	struct json_raw name, v;
	size_t pos = 0, n = strlen(key), count = 0;

	if (json_raw_kind(obj) != '{')
		return 0;
	while (next_item(obj, &pos, &name, &v))
		count += name.len == n && memcmp(name.p, key, n) == 0;
	return count;
}

bool json_raw_next(struct json_raw arr, size_t *pos, struct json_raw *out)
{
	if (json_raw_kind(arr) != '[')
		return false;
	return next_item(arr, pos, NULL, out);
}
