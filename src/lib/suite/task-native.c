/* task-native.c - native suites: one directory per task holding task.json (format: docs/tasks.md)
 *
 * Everything a task.json says is checked (here and in task-native-check.c),
 * so that the evaluator can trust it: unknown fields, types, the tagged
 * argument values ($tuple, $set, $int, $float, $dict), generator specs, C
 * signatures and the C types of arguments. Errors name task.json, the line
 * and the JSON path of the field ("fib/task.json:14: field 'tests[3].tier': ...").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/image-ref.h"
#include "base/jsonl.h"
#include "suite/task-internal.h"
#include "base/utf8.h"
#include "base/util.h"

static bool is_ident(const char *s, bool dollar)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || (dollar && *s == '$')))
			return false;
	return true;
}

static bool printable(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static bool valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = utf8_valid_seq((const unsigned char *)s + i, len - i);

		if (!n || s[i] == '\0')
			return false;
		i += n;
	}
	return true;
}

/* ---- text fields: inline, or a file beside task.json ---- */

/* A plain string is a file name when it is one word with an extension. */
static bool looks_like_file(const char *s)
{
	const char *base = strrchr(s, '/'), *dot;

	if (!*s || strlen(s) > 255)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	dot = strrchr(base ? base + 1 : s, '.');
	return dot && dot > (base ? base + 1 : s) && dot[1];
}

static int read_beside(struct tk_native *c, const char *jpath, const char *name, char **out)
{
	struct sd_error e = { 0 };
	cleanup_free char *path = NULL, *text = NULL;
	size_t len = 0;
	char *lf;

	if (!c->dir)
		return tk_nfail(c, jpath, "'%.255s': a task given inline cannot name a file; give the text itself "
				"({\"text\": \"...\"})", name);
	if (name[0] == '/' || strcmp(name, "..") == 0 || strncmp(name, "../", 3) == 0 ||
	    strstr(name, "/../") || (strlen(name) >= 3 && strcmp(name + strlen(name) - 3, "/..") == 0))
		return tk_nfail(c, jpath, "'%.255s': expected a file name relative to the task directory, without '..'",
			    name);
	path = xasprintf("%s/%s", c->dir, name);
	if (!path)
		return tk_nomem(c);
	if (read_file(path, TASK_MAX_FILE, &text, &len, &e) < 0)
		return tk_nfail(c, jpath, "%s", e.msg);
	if (!valid_utf8(text, len))
		return tk_nfail(c, jpath, "'%s' is not valid UTF-8 text", path);
	lf = tk_lf(text);
	if (!lf)
		return tk_nomem(c);
	*out = lf;
	return 0;
}

/* "prompt"/"reference": "inline text", "file.ext", {"file": ...} or {"text": ...}. */
static int text_field(struct tk_native *c, json_t *obj, const char *key, bool required, char **out)
{
	json_t *v = json_object_get(obj, key), *f, *t;
	char *s;

	if (!v || json_is_null(v))
		return required ? tk_nfail(c, key, "missing") : 0;
	if (json_is_string(v)) {
		if (looks_like_file(json_string_value(v)))
			return read_beside(c, key, json_string_value(v), out);
		s = tk_lf(json_string_value(v));
		if (!s)
			return tk_nomem(c);
		*out = s;
		return 0;
	}
	if (!json_is_object(v))
		return tk_nfail(c, key, "expected a string or {\"file\": ...}, got %s", json_type_phrase(v));
	f = json_object_get(v, "file");
	t = json_object_get(v, "text");
	if (json_object_size(v) != 1 || (!json_is_string(f) && !json_is_string(t)))
		return tk_nfail(c, key, "expected {\"file\": \"NAME\"} or {\"text\": \"...\"}");
	if (f)
		return read_beside(c, key, json_string_value(f), out);
	s = tk_lf(json_string_value(t));
	if (!s)
		return tk_nomem(c);
	*out = s;
	return 0;
}

/* ---- tests ---- */

static int parse_enum(struct tk_native *c, json_t *obj, const char *key, const char *jp,
		      const char *const *names, int *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	for (int i = 0; names[i]; i++) {
		if (json_is_string(v) && strcmp(json_string_value(v), names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	if (!json_is_string(v))
		return tk_nfail(c, jp, "expected a string, got %s", json_type_phrase(v));
	if (!names[2])
		return tk_nfail(c, jp, "'%.64s': expected %s or %s", json_string_value(v), names[0], names[1]);
	return tk_nfail(c, jp, "'%.64s': expected %s, %s or %s", json_string_value(v), names[0], names[1],
			names[2]);
}

static char *dump(json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static int parse_test(struct tk_native *c, json_t *obj, size_t index, struct task_test *t, bool *oracle)
{
	static const char *const keys[] = { "name", "tier", "weight", "visibility", "args", "expected",
					    "generator", "cases", "description", NULL };
	static const char *const tiers[] = { "canonical", "edge", "property", NULL };
	static const char *const vis[] = { "public", "holdout", NULL };
	char p[64], jp[128];
	json_t *args, *gen, *exp, *v;
	int tier, visibility = VIS_PUBLIC;

#define JP(key) (snprintf(jp, sizeof(jp), "%s%s", p, key), jp)
	snprintf(p, sizeof(p), "tests[%zu].", index);
	snprintf(jp, sizeof(jp), "tests[%zu]", index);
	if (!json_is_object(obj))
		return tk_nfail(c, jp, "expected an object, got %s", json_type_phrase(obj));
	if (tk_only_keys(c, obj, p, keys) < 0)
		return -1;
	v = json_object_get(obj, "name");
	if (!v)
		return tk_nfail(c, JP("name"), "missing");
	if (!json_is_string(v) || !printable(json_string_value(v), 128))
		return tk_nfail(c, JP("name"), "expected 1 to 128 printable characters");
	args = json_object_get(obj, "args");
	gen = json_object_get(obj, "generator");
	exp = json_object_get(obj, "expected");
	if (args && gen)
		return tk_nfail(c, JP("args"), "a test has either 'args' or 'generator', not both");
	if (!args && !gen)
		return tk_nfail(c, JP("args"), "missing (a test has 'args' or 'generator')");
	tier = gen ? TIER_PROPERTY : TIER_CANONICAL;
	if (parse_enum(c, obj, "tier", JP("tier"), tiers, &tier) < 0 ||
	    parse_enum(c, obj, "visibility", JP("visibility"), vis, &visibility) < 0)
		return -1;
	t->tier = (enum test_tier)tier;
	t->visibility = (enum test_visibility)visibility;
	t->weight = t->tier == TIER_EDGE ? 1.5 : 1.0;
	v = json_object_get(obj, "weight");
	if (v && !json_is_null(v)) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
		    json_number_value(v) > 1e6)
			return tk_nfail(c, JP("weight"), "expected a number in [0, 1e6]");
		t->weight = json_number_value(v);
	}
	v = json_object_get(obj, "description");
	if (v && !json_is_string(v))
		return tk_nfail(c, JP("description"), "expected a string, got %s", json_type_phrase(v));
	v = json_object_get(obj, "cases");
	if (v && !gen)
		return tk_nfail(c, JP("cases"), "only for tests with a 'generator'");
	if (gen) {
		json_t *specs = json_object_get(gen, "args"), *s;
		static const char *const gen_keys[] = { "args", NULL };
		size_t i;

		if (exp)
			return tk_nfail(c, JP("expected"), "not allowed with 'generator' (the reference solution "
				    "answers generated inputs)");
		if (!json_is_object(gen))
			return tk_nfail(c, JP("generator"), "expected an object, got %s", json_type_phrase(gen));
		snprintf(jp, sizeof(jp), "%sgenerator.", p);
		if (tk_only_keys(c, gen, jp, gen_keys) < 0)
			return -1;
		if (!json_is_array(specs))
			return tk_nfail(c, JP("generator.args"), "expected an array of generator specs");
		if (c->lang == LANG_C && json_array_size(specs) != c->n_params)
			return tk_nfail(c, JP("generator.args"), "%zu generators for a C function of %zu parameters",
				    json_array_size(specs), c->n_params);
		json_array_foreach(specs, i, s) {
			char sub[160];

			snprintf(sub, sizeof(sub), "%sgenerator.args[%zu]", p, i);
			if (tk_check_spec(c, s, sub, 0) < 0)
				return -1;
			if (c->lang == LANG_C && !tk_c_spec_ok(s, c->params[i]))
				return tk_nfail(c, sub, "does not generate %s (parameter %zu of the signature)",
					    tk_ckind_name(c->params[i]), i + 1);
		}
		t->cases = 100;
		if (v) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > NATIVE_MAX_CASES)
				return tk_nfail(c, JP("cases"), "expected an integer in [1, %d]", NATIVE_MAX_CASES);
			t->cases = (int)json_integer_value(v);
		}
		t->generator = json_dumps(gen, JSON_COMPACT);
		if (!t->generator)
			return tk_nomem(c);
		*oracle = true;
	} else {
		json_t *a;
		size_t i;

		if (!json_is_array(args))
			return tk_nfail(c, JP("args"), "expected an array of arguments, got %s", json_type_phrase(args));
		if (tk_check_value(c, args, JP("args"), 0) < 0)
			return -1;
		if (exp && tk_check_value(c, exp, JP("expected"), 0) < 0)
			return -1;
		if (c->lang == LANG_C) {
			if (json_array_size(args) != c->n_params)
				return tk_nfail(c, JP("args"), "%zu arguments for a C function of %zu parameters",
					    json_array_size(args), c->n_params);
			json_array_foreach(args, i, a) {
				char sub[160];

				snprintf(sub, sizeof(sub), "%sargs[%zu]", p, i);
				if (!tk_c_value_ok(a, c->params[i]))
					return tk_nfail(c, sub, "expected %s (parameter %zu of the signature)",
						    tk_ckind_name(c->params[i]), i + 1);
			}
			if (exp && !tk_c_value_ok(exp, c->ret))
				return tk_nfail(c, JP("expected"), "expected %s (the signature's return type)",
					    tk_ckind_name(c->ret));
		}
		t->args_json = dump(args);
		if (!t->args_json)
			return tk_nomem(c);
		if (exp) {
			t->expected_json = dump(exp);
			if (!t->expected_json)
				return tk_nomem(c);
		} else {
			*oracle = true;
		}
	}
	t->name = strdup(json_string_value(json_object_get(obj, "name")));
	if (!t->name)
		return tk_nomem(c);
	return 0;
#undef JP
}

static void tests_free(struct task_test *tests, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(tests[i].name);
		free(tests[i].args_json);
		free(tests[i].expected_json);
		free(tests[i].generator);
	}
	free(tests);
}

static int parse_tests(struct tk_native *c, json_t *root, struct task *t)
{
	json_t *a = json_object_get(root, "tests"), *x;
	struct tk_map names = { 0 };
	struct task_test *tests;
	size_t i, n = 0, first_oracle = SIZE_MAX;

	if (!a)
		return tk_nfail(c, "tests", "missing");
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > NATIVE_MAX_TESTS)
		return tk_nfail(c, "tests", "expected an array of 1 to %d tests", NATIVE_MAX_TESTS);
	tests = calloc(json_array_size(a), sizeof(*tests));
	if (!tests)
		return tk_nomem(c);
	json_array_foreach(a, i, x) {
		bool oracle = false;
		size_t other = 0;
		int r = parse_test(c, x, i, &tests[i], &oracle);

		n = i + 1;
		if (r == 0) {
			r = tk_map_put(&names, tests[i].name, i, &other);
			if (r < 0)
				r = tk_nomem(c);
		}
		if (r == 1) {
			char jp[64];

			snprintf(jp, sizeof(jp), "tests[%zu].name", i);
			r = tk_nfail(c, jp, "duplicate test name '%s' (also tests[%zu])", tests[i].name, other);
		}
		if (r < 0) {
			tk_map_free(&names);
			tests_free(tests, n);
			return -1;
		}
		if (oracle && first_oracle == SIZE_MAX)
			first_oracle = i;
	}
	tk_map_free(&names);
	if (first_oracle != SIZE_MAX && !t->reference) {
		char jp[64];

		snprintf(jp, sizeof(jp), "tests[%zu]", first_oracle);
		tests_free(tests, n);
		return tk_nfail(c, jp, "needs the reference solution's answer, and the task has no 'reference'");
	}
	t->tests = tests;
	t->n_tests = n;
	return 0;
}

/* ---- the task ---- */

static int parse_limits(struct tk_native *c, json_t *root, struct task *t)
{
	static const char *const keys[] = { "cpu_time", "wall_time", "memory", NULL };
	json_t *l = json_object_get(root, "limits"), *v;
	double *secs[] = { &t->cpu_time, &t->wall_time };

	if (!l || json_is_null(l))
		return 0;
	if (!json_is_object(l))
		return tk_nfail(c, "limits", "expected an object, got %s", json_type_phrase(l));
	if (tk_only_keys(c, l, "limits.", keys) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		char jp[32];

		snprintf(jp, sizeof(jp), "limits.%s", keys[i]);
		v = json_object_get(l, keys[i]);
		if (!v)
			continue;
		if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 86400)
			return tk_nfail(c, jp, "expected seconds, a number in (0, 86400]");
		*secs[i] = json_number_value(v);
	}
	v = json_object_get(l, "memory");
	if (v && json_is_integer(v)) {
		if (json_integer_value(v) <= 0)
			return tk_nfail(c, "limits.memory", "expected a positive number of bytes");
		t->memory = (uint64_t)json_integer_value(v);
	} else if (v) {
		struct sd_error e = { 0 };
		uint64_t bytes = 0;

		if (!json_is_string(v))
			return tk_nfail(c, "limits.memory", "expected a size such as \"256M\", got %s", json_type_phrase(v));
		if (parse_size(json_string_value(v), &bytes, &e) < 0)
			return tk_nfail(c, "limits.memory", "%s", e.msg);
		if (bytes == 0)
			return tk_nfail(c, "limits.memory", "expected a positive size");
		t->memory = bytes;
	}
	return 0;
}

static int parse_task(struct tk_native *c, json_t *root, const char *dirname, struct task *t)
{
	static const char *const keys[] = { "id", "class", "language", "entry_point", "signature", "prompt",
					    "reference", "limits", "tests", "description", "image", "risk", NULL };
	static const char *const langs[] = { "python", "c", "javascript", NULL };
	static const char *const risks[] = { "low", "high", NULL };
	int risk = 0;
	struct tk_where w = { c->file, 0, c->text, c->len, "" };
	const char *id = dirname, *class = "general", *ep = NULL, *sig = NULL, *desc = NULL, *image = NULL;
	int lang = -1;

	if (!json_is_object(root))
		return tk_nfail(c, NULL, "expected a JSON object, got %s", json_type_phrase(root));
	if (tk_only_keys(c, root, "", keys) < 0)
		return -1;
	if (tk_str(root, "id", false, &id, &w, c->err) < 0 ||
	    tk_str(root, "class", false, &class, &w, c->err) < 0 ||
	    tk_str(root, "entry_point", true, &ep, &w, c->err) < 0 ||
	    tk_str(root, "signature", false, &sig, &w, c->err) < 0 ||
	    tk_str(root, "description", false, &desc, &w, c->err) < 0 ||
	    tk_str(root, "image", false, &image, &w, c->err) < 0)
		return -1;
	if (image) {
		struct image_ref ref;
		struct sd_error ie = { 0 };

		if (!image_ref_like(image) || image_ref_parse(image, &ref, &ie) < 0)
			return tk_nfail(c, "image", "expected NAME or NAME@sha256:<64 hex digits>, got '%.80s'%s%s",
					image, ie.msg[0] ? ": " : "", ie.msg);
	}
	if (!id)
		return tk_nfail(c, "id", "missing");
	if (!tk_id_ok(id))
		return tk_nfail(c, "id", "expected 1 to %d printable ASCII characters", TASK_ID_MAX);
	if (!printable(class, 128))
		return tk_nfail(c, "class", "expected 1 to 128 printable characters");
	if (!json_object_get(root, "language") || json_is_null(json_object_get(root, "language")))
		return tk_nfail(c, "language", "missing");
	if (parse_enum(c, root, "language", "language", langs, &lang) < 0 ||
	    parse_enum(c, root, "risk", "risk", risks, &risk) < 0)
		return -1;
	t->high_risk = risk == 1;
	c->lang = (enum tk_lang)lang;
	if (!is_ident(ep, c->lang == LANG_JS))
		return tk_nfail(c, "entry_point", "'%.64s' is not a function name", ep);
	if (c->lang == LANG_C && !sig)
		return tk_nfail(c, "signature", "missing (C tasks declare the function, e.g. \"long gcd(long a, long b)\")");
	if (c->lang != LANG_C && sig)
		return tk_nfail(c, "signature", "only for C tasks");
	if (sig && tk_parse_signature(c, sig, ep) < 0)
		return -1;
	t->format = TASK_NATIVE;
	t->id = strdup(id);
	t->class = strdup(class);
	t->language = strdup(langs[lang]);
	t->entry_point = strdup(ep);
	t->signature = sig ? strdup(sig) : NULL;
	t->origin = strdup(c->dir ? c->dir : c->file);
	t->image = image ? strdup(image) : NULL;
	if ((image && !t->image) || !t->id || !t->class || !t->language || !t->entry_point || (sig && !t->signature) || !t->origin)
		return tk_nomem(c);
	if (text_field(c, root, "prompt", true, &t->prompt) < 0 ||
	    text_field(c, root, "reference", false, &t->reference) < 0 ||
	    parse_limits(c, root, t) < 0 || parse_tests(c, root, t) < 0)
		return -1;
	return 0;
}

/* DIR/task.json into the list; NAME is the default id. */
static int load_one(const char *dir, const char *name, struct tk_list *out, struct sd_error *err)
{
	cleanup_free char *file = xasprintf("%s/task.json", dir);
	cleanup_free char *text = NULL;
	struct tk_native c = { 0 };
	struct task t = { 0 }, *slot;
	json_error_t jerr;
	json_t *root;
	size_t len = 0;
	int r;

	if (!file)
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", dir);
	if (read_file(file, TASK_MAX_FILE, &text, &len, err) < 0)
		return -1;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return jsonl_parse_error(file, &jerr, err);
	c.file = file;
	c.dir = dir;
	c.text = text;
	c.len = len;
	c.err = err;
	r = parse_task(&c, root, name, &t);
	json_decref(root);
	if (r == 0 && !(slot = tk_list_add(out)))
		r = sd_error_errno(err, ENOMEM, "cannot load '%s'", file);
	if (r < 0) {
		tk_task_release(&t);
		return -1;
	}
	*slot = t;
	return 0;
}

int tk_native_object(json_t *root, const char *where, struct tk_list *out, struct sd_error *err)
{
	struct tk_native c = { .file = where, .err = err };
	struct task t = { 0 }, *slot;

	int r = parse_task(&c, root, NULL, &t);

	if (r == 0 && !(slot = tk_list_add(out)))
		r = tk_nomem(&c);
	if (r < 0) {
		tk_task_release(&t);
		return -1;
	}
	*slot = t;
	return 0;
}

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int tk_native_load(const char *dir, struct tk_list *out, struct sd_error *err)
{
	cleanup_free char *self = xasprintf("%s/task.json", dir);
	cleanup_free char *clean = strdup(dir);
	struct dirent **names = NULL;
	const char *base;
	int n, r = 0;

	if (!self || !clean)
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", dir);
	for (size_t l = strlen(clean); l > 1 && clean[l - 1] == '/'; l--)
		clean[l - 1] = '\0';
	if (is_file(self)) {	/* DIR is one task */
		base = strrchr(clean, '/');
		return load_one(clean, base && base[1] ? base + 1 : clean, out, err);
	}
	n = scandir(clean, &names, NULL, alphasort);
	if (n < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", dir);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		cleanup_free char *sub = NULL, *json = NULL;
		struct stat sb;

		if (r < 0 || name[0] == '.')
			continue;
		sub = strcmp(clean, "/") == 0 ? xasprintf("/%s", name) : xasprintf("%s/%s", clean, name);
		json = sub ? xasprintf("%s/task.json", sub) : NULL;
		if (!json) {
			r = sd_error_errno(err, ENOMEM, "cannot load '%s'", dir);
			continue;
		}
		if (stat(sub, &sb) < 0 || !S_ISDIR(sb.st_mode))
			continue;	/* README.md and the like */
		if (!is_file(json)) {
			r = sd_error_set(err, ENOENT, "%s: no task.json in this task directory", sub);
			continue;
		}
		r = load_one(sub, name, out, err);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (r == 0 && out->n == 0)
		return sd_error_set(err, ENOENT, "%s: no tasks (expected task.json, or directories holding one)", dir);
	return r;
}
