/* task-native-check.c - checks of native task.json parts: messages, C signatures, tagged values, generator specs */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite/task-internal.h"

int tk_nfail(struct tk_native *c, const char *jpath, const char *fmt, ...)
{
	struct tk_where w = { c->file, 0, c->text, c->len, "" };
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tk_fail(&w, jpath && *jpath ? jpath : NULL, c->err, EINVAL, "%s", msg);
}

int tk_nomem(struct tk_native *c)
{
	return sd_error_errno(c->err, ENOMEM, "cannot load '%s'", c->file);
}

/* Reject keys of OBJ not in ALLOWED (NULL-terminated); PREFIX is its JSON path + ".". */
int tk_only_keys(struct tk_native *c, json_t *obj, const char *prefix, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char jp[300], list[300] = "";
		size_t i;

		for (i = 0; allowed[i] && strcmp(allowed[i], key) != 0; i++)
			;
		if (allowed[i])
			continue;
		for (i = 0; allowed[i]; i++) {
			size_t n = strlen(list);

			snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", allowed[i]);
		}
		snprintf(jp, sizeof(jp), "%s%.100s", prefix, key);
		return tk_nfail(c, jp, "unknown field (expected one of %s)", list);
	}
	return 0;
}

/* ---- C signatures ---- */

static const struct { const char *name; enum tk_ckind kind; } c_types[] = {
	{ "void", CK_VOID }, { "int", CK_INT }, { "long", CK_INT }, { "long int", CK_INT },
	{ "long long", CK_INT }, { "long long int", CK_INT }, { "short", CK_INT },
	{ "unsigned", CK_INT }, { "unsigned int", CK_INT }, { "unsigned long", CK_INT },
	{ "unsigned long long", CK_INT }, { "signed", CK_INT }, { "size_t", CK_INT },
	{ "int32_t", CK_INT }, { "int64_t", CK_INT }, { "uint32_t", CK_INT }, { "uint64_t", CK_INT },
	{ "double", CK_FLOAT }, { "float", CK_FLOAT }, { "bool", CK_BOOL }, { "_Bool", CK_BOOL },
	{ "char", CK_CHAR }, { "char *", CK_STR },
};

static bool type_word(const char *w, size_t n)
{
	static const char *const words[] = { "const", "unsigned", "signed", "short", "long", "int", "char",
					     "double", "float", "bool", "_Bool", "void", "size_t", "int32_t",
					     "int64_t", "uint32_t", "uint64_t" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncmp(words[i], w, n) == 0)
			return true;
	return false;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* A type, then an optional name: "const char *s", "long". Sets *kind, and *name and *name_n
 * to the name (or NULL). Returns the position after it, or NULL. */
static const char *parse_decl(const char *p, enum tk_ckind *kind, const char **name, size_t *name_n)
{
	char canon[64] = "";
	size_t n;

	*name = NULL;
	*name_n = 0;
	for (;;) {
		p = skip_space(p);
		if (*p == '*') {
			if (strlen(canon) + 3 > sizeof(canon))
				return NULL;
			strcat(canon, " *");
			p++;
			continue;
		}
		n = 0;
		while ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z') ||
		       (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
			n++;
		if (!n || !type_word(p, n))
			break;
		if (n != 5 || strncmp(p, "const", 5) != 0) {
			if (strlen(canon) + n + 2 > sizeof(canon))
				return NULL;
			if (*canon)
				strcat(canon, " ");
			strncat(canon, p, n);
		}
		p += n;
	}
	if (n && !(*p >= '0' && *p <= '9')) {
		*name = p;
		*name_n = n;
		p = skip_space(p + n);
	}
	for (size_t i = 0; i < sizeof(c_types) / sizeof(c_types[0]); i++) {
		if (strcmp(canon, c_types[i].name) == 0) {
			*kind = c_types[i].kind;
			return p;
		}
	}
	return NULL;
}

int tk_parse_signature(struct tk_native *c, const char *sig, const char *entry_point)
{
	const char *p = sig, *name;
	size_t name_n;
	enum tk_ckind kind;

	p = parse_decl(p, &c->ret, &name, &name_n);
	if (!p || !name)
		return tk_nfail(c, "signature", "'%.200s': expected 'TYPE NAME(TYPE NAME, ...)' with TYPE one of "
			    "int, long, long long, unsigned, size_t, int64_t, double, float, bool, char, "
			    "const char *", sig);
	if (c->ret == CK_VOID)
		return tk_nfail(c, "signature", "'%.200s': the function must return a value", sig);
	if (strlen(entry_point) != name_n || strncmp(name, entry_point, name_n) != 0)
		return tk_nfail(c, "signature", "'%.200s' does not declare entry_point '%s'", sig, entry_point);
	if (*p != '(')
		return tk_nfail(c, "signature", "'%.200s': expected '(' after the name", sig);
	p = skip_space(p + 1);
	if (strncmp(p, "void", 4) == 0 && *skip_space(p + 4) == ')')
		p = skip_space(p + 4);
	while (*p != ')') {
		p = parse_decl(p, &kind, &name, &name_n);
		if (!p || kind == CK_VOID)
			return tk_nfail(c, "signature", "'%.200s': parameter %zu has an unsupported type", sig,
				    c->n_params + 1);
		if (c->n_params == NATIVE_MAX_PARAMS)
			return tk_nfail(c, "signature", "'%.200s': more than %d parameters", sig, NATIVE_MAX_PARAMS);
		c->params[c->n_params++] = kind;
		if (*p == ',')
			p = skip_space(p + 1);
		else if (*p != ')')
			return tk_nfail(c, "signature", "'%.200s': expected ',' or ')' after parameter %zu", sig,
				    c->n_params);
	}
	p = skip_space(p + 1);
	if (*p == ';')
		p = skip_space(p + 1);
	if (*p)
		return tk_nfail(c, "signature", "'%.200s': unexpected text after ')'", sig);
	return 0;
}

const char *tk_ckind_name(enum tk_ckind k)
{
	static const char *const names[] = { "void", "an integer", "a number", "a boolean",
					     "a one-character string", "a string" };

	return names[k];
}

/* Can V be passed as (or compared with) a C value of KIND? */
bool tk_c_value_ok(json_t *v, enum tk_ckind kind)
{
	json_t *f;

	switch (kind) {
	case CK_INT: return json_is_integer(v);
	case CK_FLOAT:
		f = json_object_get(v, "$float");
		return json_is_number(v) || (json_is_object(v) && json_object_size(v) == 1 && json_is_string(f));
	case CK_BOOL: return json_is_boolean(v);
	case CK_CHAR: return json_is_string(v) && json_string_length(v) == 1;
	case CK_STR: return json_is_string(v);
	default: return false;
	}
}

/* ---- argument values ---- */

static int check_items(struct tk_native *c, json_t *a, const char *jp, int depth)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x) {
		char sub[300];

		snprintf(sub, sizeof(sub), "%s[%zu]", jp, i);
		if (tk_check_value(c, x, sub, depth + 1) < 0)
			return -1;
	}
	return 0;
}

static bool decimal(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s || strlen(s) > 100000)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A JSON value with the tagged forms of docs/tasks.md. */
int tk_check_value(struct tk_native *c, json_t *v, const char *jp, int depth)
{
	const char *key, *tag = NULL;
	json_t *x, *inner;
	char sub[300];
	size_t i;

	if (depth > NATIVE_MAX_DEPTH)
		return tk_nfail(c, jp, "nested more than %d deep", NATIVE_MAX_DEPTH);
	if (json_is_array(v))
		return check_items(c, v, jp, depth);
	if (!json_is_object(v))
		return 0;
	json_object_foreach(v, key, x) {
		if (key[0] == '$')
			tag = key;
	}
	if (!tag) {		/* a plain object: a dict with string keys */
		json_object_foreach(v, key, x) {
			snprintf(sub, sizeof(sub), "%s.%.100s", jp, key);
			if (tk_check_value(c, x, sub, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	snprintf(sub, sizeof(sub), "%s.%.100s", jp, tag);
	if (json_object_size(v) != 1)
		return tk_nfail(c, sub, "a tagged value has exactly one key");
	inner = json_object_get(v, tag);
	if (strcmp(tag, "$tuple") == 0 || strcmp(tag, "$set") == 0) {
		if (!json_is_array(inner))
			return tk_nfail(c, sub, "expected an array, got %s", json_type_phrase(inner));
		return check_items(c, inner, sub, depth);
	}
	if (strcmp(tag, "$int") == 0) {
		if (!json_is_string(inner) || !decimal(json_string_value(inner)))
			return tk_nfail(c, sub, "expected a string of decimal digits");
		return 0;
	}
	if (strcmp(tag, "$float") == 0) {
		const char *s = json_string_value(inner);

		if (!s || (strcmp(s, "nan") != 0 && strcmp(s, "inf") != 0 && strcmp(s, "-inf") != 0))
			return tk_nfail(c, sub, "expected \"nan\", \"inf\" or \"-inf\"");
		return 0;
	}
	if (strcmp(tag, "$dict") == 0) {
		if (!json_is_array(inner))
			return tk_nfail(c, sub, "expected an array of [key, value] pairs, got %s", json_type_phrase(inner));
		json_array_foreach(inner, i, x) {
			char pair[320];

			snprintf(pair, sizeof(pair), "%s[%zu]", sub, i);
			if (!json_is_array(x) || json_array_size(x) != 2)
				return tk_nfail(c, pair, "expected a [key, value] pair");
			if (check_items(c, x, pair, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	return tk_nfail(c, sub, "unknown tag (expected $tuple, $set, $int, $float or $dict)");
}

/* ---- generator specs ---- */

static int check_range(struct tk_native *c, json_t *r, const char *jp, bool real, long long min, long long max)
{
	json_t *lo = json_array_get(r, 0), *hi = json_array_get(r, 1);

	if (!json_is_array(r) || json_array_size(r) != 2)
		return tk_nfail(c, jp, "expected [low, high]");
	if (real) {
		if (!json_is_number(lo) || !json_is_number(hi) || !isfinite(json_number_value(lo)) ||
		    !isfinite(json_number_value(hi)))
			return tk_nfail(c, jp, "expected [low, high] with two finite numbers");
		if (json_number_value(lo) > json_number_value(hi))
			return tk_nfail(c, jp, "low is greater than high");
		return 0;
	}
	if (!json_is_integer(lo) || !json_is_integer(hi))
		return tk_nfail(c, jp, "expected [low, high] with two integers");
	if (json_integer_value(lo) > json_integer_value(hi))
		return tk_nfail(c, jp, "low is greater than high");
	if (json_integer_value(lo) < min || json_integer_value(hi) > max)
		return tk_nfail(c, jp, "expected bounds within [%lld, %lld]", min, max);
	return 0;
}

/* {"of"/"keys"/"values"/"len"/"alphabet": ...} bodies of str, list and dict. */

static int check_body(struct tk_native *c, json_t *body, const char *jp, const char *const *keys, int depth)
{
	char prefix[320], sub[320];
	json_t *x;

	if (!json_is_object(body))
		return tk_nfail(c, jp, "expected an object, got %s", json_type_phrase(body));
	snprintf(prefix, sizeof(prefix), "%s.", jp);
	if (tk_only_keys(c, body, prefix, keys) < 0)
		return -1;
	for (size_t i = 0; keys[i]; i++) {
		x = json_object_get(body, keys[i]);
		snprintf(sub, sizeof(sub), "%s%s", prefix, keys[i]);
		if (strcmp(keys[i], "len") == 0) {
			if (x && check_range(c, x, sub, false, 0, NATIVE_MAX_LEN) < 0)
				return -1;
		} else if (strcmp(keys[i], "alphabet") == 0) {
			if (x && (!json_is_string(x) || json_string_length(x) == 0))
				return tk_nfail(c, sub, "expected a non-empty string");
		} else if (!x) {
			return tk_nfail(c, sub, "missing");
		} else if (tk_check_spec(c, x, sub, depth + 1) < 0) {
			return -1;
		}
	}
	return 0;
}

int tk_check_spec(struct tk_native *c, json_t *s, const char *jp, int depth)
{
	static const char *const str_keys[] = { "len", "alphabet", NULL };
	static const char *const list_keys[] = { "of", "len", NULL };
	static const char *const dict_keys[] = { "keys", "values", "len", NULL };
	const char *kind;
	json_t *body, *x;
	char sub[320];
	size_t i;

	if (depth > NATIVE_MAX_DEPTH)
		return tk_nfail(c, jp, "nested more than %d deep", NATIVE_MAX_DEPTH);
	if (!json_is_object(s) || json_object_size(s) != 1)
		return tk_nfail(c, jp, "expected a generator spec: {\"int\": [lo, hi]}, {\"float\": [lo, hi]}, "
			    "{\"bool\": true}, {\"choice\": [...]}, {\"str\": {...}}, {\"list\": {...}}, "
			    "{\"tuple\": [...]} or {\"dict\": {...}}");
	kind = json_object_iter_key(json_object_iter(s));
	body = json_object_get(s, kind);
	snprintf(sub, sizeof(sub), "%s.%.100s", jp, kind);
	if (strcmp(kind, "int") == 0)
		return check_range(c, body, sub, false, LLONG_MIN, LLONG_MAX);
	if (strcmp(kind, "float") == 0)
		return check_range(c, body, sub, true, 0, 0);
	if (strcmp(kind, "bool") == 0)
		return json_is_true(body) ? 0 : tk_nfail(c, sub, "expected true");
	if (strcmp(kind, "choice") == 0) {
		if (!json_is_array(body) || json_array_size(body) == 0)
			return tk_nfail(c, sub, "expected a non-empty array of values");
		return check_items(c, body, sub, depth);
	}
	if (strcmp(kind, "str") == 0)
		return check_body(c, body, sub, str_keys, depth);
	if (strcmp(kind, "list") == 0)
		return check_body(c, body, sub, list_keys, depth);
	if (strcmp(kind, "dict") == 0)
		return check_body(c, body, sub, dict_keys, depth);
	if (strcmp(kind, "tuple") == 0) {
		if (!json_is_array(body))
			return tk_nfail(c, sub, "expected an array of generator specs");
		json_array_foreach(body, i, x) {
			char item[340];

			snprintf(item, sizeof(item), "%s[%zu]", sub, i);
			if (tk_check_spec(c, x, item, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	return tk_nfail(c, sub, "unknown generator (expected int, float, bool, choice, str, list, tuple or dict)");
}

/* Can SPEC generate C values of KIND? */
bool tk_c_spec_ok(json_t *spec, enum tk_ckind kind)
{
	const char *k = json_object_iter_key(json_object_iter(spec));
	json_t *body = json_object_get(spec, k), *x, *len;
	size_t i;

	if (strcmp(k, "int") == 0)
		return kind == CK_INT || kind == CK_FLOAT;
	if (strcmp(k, "float") == 0)
		return kind == CK_FLOAT;
	if (strcmp(k, "bool") == 0)
		return kind == CK_BOOL;
	if (strcmp(k, "str") == 0) {
		len = json_object_get(body, "len");
		return kind == CK_STR || (kind == CK_CHAR && len && json_integer_value(json_array_get(len, 0)) == 1 &&
					  json_integer_value(json_array_get(len, 1)) == 1);
	}
	if (strcmp(k, "choice") == 0) {
		json_array_foreach(body, i, x)
			if (!tk_c_value_ok(x, kind))
				return false;
		return true;
	}
	return false;
}

