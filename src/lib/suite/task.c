/* task.c - load a task set (format detection, HumanEval and MBPP files, native suites) and its suite hash
 *
 * A file is read either as JSON Lines (HumanEval, mbpp.jsonl) or, when its
 * first non-blank byte is '[', as one JSON array (sanitized-mbpp.json); the
 * first record decides the format and every record is then held to it. A
 * JSON Lines file whose first record has EvalPlus's base_input and
 * plus_input is read by task-evalplus.c (its inputs are JSON that jansson
 * cannot hold). A directory is a native suite (task-native.c). Nothing is half-loaded: the
 * set is written only when every task loaded.
 */
#define _GNU_SOURCE
#include "suite/task.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hash.h"
#include "base/jsonl.h"
#include "suite/task-internal.h"
#include "base/util.h"

#define TASK_MAX_ARRAY_FILE (256u << 20)

/* ---- messages and field access ---- */

int tk_fail(const struct tk_where *w, const char *key, struct sd_error *err, int code,
	    const char *fmt, ...)
{
	char jpath[512], pos[32] = "", msg[768];
	const char *prefix = w->prefix ? w->prefix : "";
	size_t line = w->line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(jpath, sizeof(jpath), "%s%s", prefix, key ? key : "");
	/* "tests[2]." names the object: drop the dot when no key follows */
	if (!key && *jpath && jpath[strlen(jpath) - 1] == '.')
		jpath[strlen(jpath) - 1] = '\0';
	if (w->text)	/* the field's own line, which may not be the object's */
		line = json_text_line(w->text, w->text_len, jpath);
	if (line)
		snprintf(pos, sizeof(pos), ":%zu", line);
	if (!*jpath)
		return sd_error_set(err, code, "%s%s: %s", w->file, pos, msg);
	return sd_error_set(err, code, "%s%s: field '%s': %s", w->file, pos, jpath, msg);
}

int tk_str(json_t *obj, const char *key, bool required, const char **out,
	   const struct tk_where *w, struct sd_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return required ? tk_fail(w, key, err, EINVAL, "missing") : 0;
	if (!json_is_string(v))
		return tk_fail(w, key, err, EINVAL, "expected a string, got %s", json_type_phrase(v));
	*out = json_string_value(v);
	return 0;
}

char *tk_lf(const char *s)
{
	size_t n = strlen(s);
	char *d = malloc(n + 1), *q = d;

	if (!d)
		return NULL;
	for (const char *p = s; *p; p++) {
		if (p[0] == '\r' && p[1] == '\n')
			continue;
		*q++ = *p == '\r' ? '\n' : *p;	/* a lone CR ends a line too, as in Python */
	}
	*q = '\0';
	return d;
}

int tk_strdup(json_t *obj, const char *key, bool required, bool lf, char **out,
	      const struct tk_where *w, struct sd_error *err)
{
	const char *s = NULL;
	char *d;

	if (tk_str(obj, key, required, &s, w, err) < 0)
		return -1;
	if (!s)
		return 0;
	d = lf ? tk_lf(s) : strdup(s);
	if (!d)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	*out = d;
	return 0;
}

int tk_join(json_t *obj, const char *key, bool required, char **out,
	    const struct tk_where *w, struct sd_error *err)
{
	json_t *a = json_object_get(obj, key), *v;
	cleanup_free char *buf = NULL;
	size_t len = 0, i;

	if (!a || json_is_null(a))
		return required ? tk_fail(w, key, err, EINVAL, "missing") : 0;
	if (!json_is_array(a))
		return tk_fail(w, key, err, EINVAL, "expected an array of strings, got %s", json_type_phrase(a));
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			char sub[300];

			snprintf(sub, sizeof(sub), "%s[%zu]", key, i);
			return tk_fail(w, sub, err, EINVAL, "expected a string, got %s", json_type_phrase(v));
		}
		len += json_string_length(v) + 1;
	}
	if (json_array_size(a) == 0)
		return required ? tk_fail(w, key, err, EINVAL, "empty") : 0;
	buf = malloc(len + 1);
	if (!buf)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	len = 0;
	json_array_foreach(a, i, v) {
		cleanup_free char *s = tk_lf(json_string_value(v));

		if (!s)
			return sd_error_errno(err, ENOMEM, "%s", w->file);
		if (i)
			buf[len++] = '\n';
		memcpy(buf + len, s, strlen(s));
		len += strlen(s);
	}
	buf[len] = '\0';
	*out = steal_pointer(&buf);
	return 0;
}

bool tk_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > TASK_ID_MAX)
		return false;
	for (const char *p = id; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return false;
	return true;
}

/* ---- string map ---- */

static size_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

static int map_grow(struct tk_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	const char **keys = calloc(cap, sizeof(*keys));
	size_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		for (j = fnv1a(m->keys[i]) & (cap - 1); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The slot of KEY, or the empty slot where it goes. */
static size_t map_find(const struct tk_map *m, const char *key)
{
	size_t j;

	for (j = fnv1a(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (strcmp(m->keys[j], key) == 0)
			break;
	return j;
}

int tk_map_put(struct tk_map *m, const char *key, size_t val, size_t *old)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -1;
	j = map_find(m, key);
	if (m->keys[j]) {
		if (old)
			*old = m->vals[j];
		return 1;
	}
	m->keys[j] = key;
	m->vals[j] = val;
	m->n++;
	return 0;
}

size_t *tk_map_slot(struct tk_map *m, const char *key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	j = map_find(m, key);
	if (!m->keys[j]) {
		m->keys[j] = key;
		m->vals[j] = 0;
		m->n++;
	}
	return &m->vals[j];
}

bool tk_map_get(const struct tk_map *m, const char *key, size_t *val)
{
	size_t j;

	if (!m->cap)
		return false;
	j = map_find(m, key);
	if (!m->keys[j])
		return false;
	*val = m->vals[j];
	return true;
}

void tk_map_free(struct tk_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- tasks ---- */

struct task *tk_list_add(struct tk_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct task *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

void tk_task_release(struct task *t)
{
	free(t->id);
	free(t->class);
	free(t->language);
	free(t->prompt);
	free(t->entry_point);
	free(t->signature);
	free(t->reference);
	free(t->test_code);
	free(t->setup_code);
	free(t->test_split);
	free(t->image);
	free(t->contract);
	free(t->build);
	for (size_t i = 0; i < t->n_tests; i++) {
		free(t->tests[i].name);
		free(t->tests[i].args_json);
		free(t->tests[i].expected_json);
		free(t->tests[i].generator);
	}
	free(t->tests);
	free(t->origin);
	memset(t, 0, sizeof(*t));
}

void tk_list_release(struct tk_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		tk_task_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

enum tk_kind tk_record_kind(json_t *obj)
{
	if (json_object_get(obj, "canonical_solution") && json_object_get(obj, "entry_point"))
		return KIND_HUMANEVAL;
	if (json_object_get(obj, "test_list") && json_object_get(obj, "code"))
		return KIND_MBPP;
	if (json_object_get(obj, "declaration") && json_object_get(obj, "canonical_solution") && json_object_get(obj, "test"))
		return KIND_HUMANEVAL_X;
	if (json_object_get(obj, "tests") && json_object_get(obj, "stop_tokens") && json_object_get(obj, "language"))
		return KIND_MULTIPLE;
	return KIND_UNKNOWN;
}

enum task_format tk_kind_format(enum tk_kind kind)
{
	return kind == KIND_HUMANEVAL ? TASK_HUMANEVAL : kind == KIND_MBPP ? TASK_MBPP : TASK_PROGRAM;
}

int tk_add_record(json_t *obj, const struct tk_where *w, enum tk_kind *kind, struct tk_list *l,
		  struct sd_error *err)
{
	enum tk_kind k = tk_record_kind(obj);
	struct task *t;
	int r;

	if (*kind == KIND_UNKNOWN) {
		if (k == KIND_UNKNOWN)
			return tk_fail(w, NULL, err, EINVAL,
				       "unknown task format: expected HumanEval fields (task_id, prompt, "
				       "canonical_solution, test, entry_point), MBPP fields (task_id, "
				       "text or prompt, code, test_list), EvalPlus's (base_input, plus_input), "
				       "HumanEval-X's (declaration, canonical_solution, test) or MultiPL-E's "
				       "(language, prompt, tests, stop_tokens)");
		*kind = k;
	}
	t = tk_list_add(l);
	if (!t)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	if (*kind == KIND_HUMANEVAL)
		r = tk_humaneval_record(obj, w, t, err);
	else if (*kind == KIND_HUMANEVAL_X)
		r = tk_humaneval_x_record(obj, w, t, err);
	else if (*kind == KIND_MULTIPLE)
		r = tk_multiple_record(obj, w, t, err);
	else
		r = tk_mbpp_record(obj, w, t, err);
	if (r < 0) {
		tk_task_release(t);
		l->n--;
	}
	return r;
}

static int load_jsonl(const char *path, enum tk_kind *kind, struct tk_list *l, struct sd_error *err)
{
	struct jsonl *r = jsonl_open(path, err);
	json_t *obj;
	int n;

	if (!r)
		return -1;
	while ((n = jsonl_next(r, &obj, err)) > 0) {
		struct tk_where w = { path, jsonl_line(r), NULL, 0, "" };
		int ret = tk_add_record(obj, &w, kind, l, err);

		json_decref(obj);
		if (ret < 0) {
			n = -1;
			break;
		}
	}
	jsonl_close(r);
	return n;
}

static int load_array(const char *path, const char *text, size_t len, enum tk_kind *kind,
		      struct tk_list *l, struct sd_error *err)
{
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *obj;
	cleanup_free size_t *lines = NULL;
	size_t i;
	int ret = 0;

	if (!doc)
		return jsonl_parse_error(path, &jerr, err);
	if (!json_is_array(doc)) {
		json_decref(doc);
		return sd_error_set(err, EINVAL, "%s: expected an array of tasks", path);
	}
	lines = calloc(json_array_size(doc) + 1, sizeof(*lines));
	if (!lines) {
		json_decref(doc);
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", path);
	}
	json_text_array_lines(text, len, lines, json_array_size(doc));
	json_array_foreach(doc, i, obj) {
		char prefix[32];
		struct tk_where w = { path, lines[i], text, len, prefix };

		snprintf(prefix, sizeof(prefix), "[%zu].", i);
		if (!json_is_object(obj)) {
			ret = tk_fail(&w, NULL, err, EINVAL, "expected an object, got %s", json_type_phrase(obj));
			break;
		}
		ret = tk_add_record(obj, &w, kind, l, err);
		if (ret < 0)
			break;
	}
	json_decref(doc);
	return ret;
}

static int load_file(const char *path, struct tk_list *l, enum task_format *format, struct sd_error *err)
{
	cleanup_free char *text = NULL;
	enum tk_kind kind = KIND_UNKNOWN;
	size_t len = 0, i = 0;
	int r;

	/* The whole file is read once to see its first byte: the largest
	 * benchmark files are well under a megabyte. */
	if (jsonl_read_all(path, TASK_MAX_ARRAY_FILE, &text, &len, err) < 0)
		return -1;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		memset(text, ' ', 3);	/* a byte order mark; keep the offsets */
	while (i < len && strchr(" \t\r\n", text[i]) && text[i])
		i++;
	if (i < len && text[i] == '[') {
		r = load_array(path, text, len, &kind, l, err);
	} else if (tk_evalplus_detect(text, len)) {
		if (tk_evalplus_load(path, text, len, l, err) < 0)
			return -1;
		if (l->n == 0)
			return sd_error_set(err, EINVAL, "%s: no tasks", path);
		*format = TASK_EVALPLUS;
		return 0;
	} else {
		r = load_jsonl(path, &kind, l, err);
	}
	if (r < 0)
		return -1;
	if (l->n == 0)
		return sd_error_set(err, EINVAL, "%s: no tasks", path);
	*format = tk_kind_format(kind);
	return 0;
}

/* ---- suite hash ---- */

static void hash_num(struct sha256_ctx *ctx, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	hash_update_str(ctx, buf);
}

static void hash_u64(struct sha256_ctx *ctx, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	hash_update_str(ctx, buf);
}

/* sha256 over every field of every task in order, each as a tag byte, a
 * 64-bit big-endian length and the bytes (NULL apart from ""); origin (a path)
 * is left out, so a suite hashes the same wherever it lies. */
static int suite_hash(const struct tk_list *l, enum task_format format, char hex[65], struct sd_error *err)
{
	struct sha256_ctx sha, *ctx = &sha;

	sha256_init(ctx);
	hash_update_str(ctx, "sandeval-suite-v1");
	hash_u64(ctx, format);
	for (size_t i = 0; i < l->n; i++) {
		const struct task *t = &l->v[i];

		hash_update_str(ctx, t->id);
		hash_update_str(ctx, t->class);
		hash_update_str(ctx, t->language);
		hash_u64(ctx, t->format);
		hash_update_str(ctx, t->prompt);
		hash_update_str(ctx, t->entry_point);
		hash_update_str(ctx, t->signature);
		hash_update_str(ctx, t->reference);
		hash_update_str(ctx, t->test_code);
		hash_update_str(ctx, t->setup_code);
		hash_num(ctx, t->cpu_time);
		hash_num(ctx, t->wall_time);
		hash_u64(ctx, t->memory);
		hash_u64(ctx, t->n_tests);
		for (size_t j = 0; j < t->n_tests; j++) {
			const struct task_test *x = &t->tests[j];

			hash_update_str(ctx, x->name);
			hash_u64(ctx, x->tier);
			hash_num(ctx, x->weight);
			hash_u64(ctx, x->visibility);
			hash_update_str(ctx, x->args_json);
			hash_update_str(ctx, x->expected_json);
			hash_update_str(ctx, x->generator);
			hash_u64(ctx, (uint64_t)x->cases);
		}
		if (t->format == TASK_EVALPLUS) {	/* only here: the other formats' hashes stay as they were */
			hash_num(ctx, t->atol);
			hash_update_str(ctx, t->contract);
		}
		if (t->format == TASK_PROGRAM) {
			hash_update_str(ctx, t->build);
			hash_u64(ctx, t->quiet);
		}
	}
	hash_digest_hex(ctx, hex);
	return 0;
}

/* ---- the public API ---- */

int tk_set_finish(struct tk_list *l, enum task_format format, struct task_set *set, struct sd_error *err)
{
	struct tk_map ids = { 0 };
	char hex[65];
	int r = 0;

	for (size_t i = 0; i < l->n && r == 0; i++) {
		size_t first = 0;

		r = tk_map_put(&ids, l->v[i].id, i, &first);
		if (r < 0)
			sd_error_errno(err, ENOMEM, "cannot load '%s'", l->v[i].origin);
		else if (r == 1)
			r = sd_error_set(err, EEXIST, "%s: duplicate task id '%s' (first at %s)", l->v[i].origin,
					 l->v[i].id, l->v[first].origin);
	}
	tk_map_free(&ids);
	if (r < 0 || suite_hash(l, format, hex, err) < 0) {
		tk_list_release(l);
		return -1;
	}
	set->tasks = l->v;
	set->n = l->n;
	set->format = format;
	memcpy(set->hash, hex, sizeof(set->hash));
	memset(l, 0, sizeof(*l));
	return 0;
}

int task_set_load(const char *path, struct task_set *set, struct sd_error *err)
{
	struct tk_list l = { 0 };
	struct stat sb;
	enum task_format format = TASK_NATIVE;
	int r;

	if (stat(path, &sb) < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path);
	if (S_ISDIR(sb.st_mode))
		r = tk_native_load(path, &l, err);
	else
		r = load_file(path, &l, &format, err);
	if (r < 0) {
		tk_list_release(&l);
		return -1;
	}
	return tk_set_finish(&l, format, set, err);
}

void task_set_release(struct task_set *set)
{
	struct tk_list l = { set->tasks, set->n, set->n };

	tk_list_release(&l);
	memset(set, 0, sizeof(*set));
}

static int dup_field(char **to, const char *from)
{
	*to = from ? strdup(from) : NULL;
	return from && !*to ? -1 : 0;
}

void task_release(struct task *t)
{
	tk_task_release(t);
}

int task_copy(const struct task *from, struct task *to)
{
	struct task t = *from;
	int bad = 0;

	t.tests = NULL;
	t.n_tests = 0;
	bad |= dup_field(&t.id, from->id) | dup_field(&t.class, from->class) | dup_field(&t.language, from->language);
	bad |= dup_field(&t.prompt, from->prompt) | dup_field(&t.entry_point, from->entry_point);
	bad |= dup_field(&t.signature, from->signature) | dup_field(&t.reference, from->reference);
	bad |= dup_field(&t.test_code, from->test_code) | dup_field(&t.setup_code, from->setup_code);
	bad |= dup_field(&t.test_split, from->test_split) | dup_field(&t.image, from->image);
	bad |= dup_field(&t.contract, from->contract) | dup_field(&t.build, from->build);
	bad |= dup_field(&t.origin, from->origin);
	if (!bad && from->n_tests && !(t.tests = calloc(from->n_tests, sizeof(*t.tests))))
		bad = -1;
	for (size_t i = 0; !bad && i < from->n_tests; i++) {
		struct task_test *d = &t.tests[i];

		*d = from->tests[i];
		d->name = d->args_json = d->expected_json = d->generator = NULL;
		t.n_tests = i + 1;
		bad |= dup_field(&d->name, from->tests[i].name) | dup_field(&d->args_json, from->tests[i].args_json);
		bad |= dup_field(&d->expected_json, from->tests[i].expected_json);
		bad |= dup_field(&d->generator, from->tests[i].generator);
	}
	if (bad) {
		tk_task_release(&t);
		return -1;
	}
	*to = t;
	return 0;
}

const struct task *task_set_find(const struct task_set *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->tasks[i].id, id) == 0)
			return &set->tasks[i];
	return NULL;
}

const char *test_tier_name(enum test_tier t)
{
	switch (t) {
	case TIER_CANONICAL: return "canonical";
	case TIER_EDGE: return "edge";
	case TIER_PROPERTY: return "property";
	}
	return "unknown";
}

const char *test_visibility_name(enum test_visibility v)
{
	switch (v) {
	case VIS_PUBLIC: return "public";
	case VIS_HOLDOUT: return "holdout";
	}
	return "unknown";
}
