/* task-sample.c - load the samples to score (JSON Lines, plain or gzip) and tie them to their tasks */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/jsonl.h"
#include "suite/task-internal.h"
#include "suite/task.h"
#include "base/util.h"

#define SAMPLE_ID_MAX 512

struct sample_list {
	struct sample *v;
	size_t n, cap;
};

static void sample_free(struct sample *s)
{
	free(s->task_id);
	free(s->sample_id);
	free(s->model);
	free(s->code);
	free(s->given);
}

static void list_free(struct sample_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		sample_free(&l->v[i]);
	free(l->v);
}

/* "mbpp/11", "Mbpp/11", "mbpp_11" and "mbpp_11_remove_occ" name MBPP task "11". */
static bool mbpp_alias(const char *s, char *out, size_t size)
{
	size_t n;

	if (strncasecmp(s, "mbpp", 4) != 0 || (s[4] != '/' && s[4] != '_'))
		return false;
	s += 5;
	n = strspn(s, "0123456789");
	if (n == 0 || n >= size || (s[n] && !(s[-1] == '_' && s[n] == '_')))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* MBPP+ names its tasks "Mbpp/11": "11", "mbpp/11" and "mbpp_11_remove_occ" name it too. */
static bool evalplus_alias(const char *s, char *out, size_t size)
{
	char n[24];

	if (strspn(s, "0123456789") == strlen(s) && strlen(s) < sizeof(n))
		snprintf(n, sizeof(n), "%s", s);
	else if (!mbpp_alias(s, n, sizeof(n)))
		return false;
	return snprintf(out, size, "Mbpp/%s", n) < (int)size;
}

/* The task id of a sample: its own spelling, or the task's when TASKS is given. */
static int sample_task(json_t *obj, const struct tk_where *w, const struct task_set *tasks,
		       const struct tk_map *index, struct sample *s, struct sd_error *err)
{
	json_t *v = json_object_get(obj, "task_id");
	char buf[64], alias[32];
	const char *id;
	size_t i;

	if (!v || json_is_null(v))
		return tk_fail(w, "task_id", err, EINVAL, "missing");
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		id = buf;
		s->task_id_int = true;
		s->task_id_num = (long long)json_integer_value(v);
	} else if (json_is_string(v)) {
		id = json_string_value(v);
		if (!tk_id_ok(id))
			return tk_fail(w, "task_id", err, EINVAL, "expected 1 to %d printable ASCII characters",
				       TASK_ID_MAX);
	} else {
		return tk_fail(w, "task_id", err, EINVAL, "expected a string or an integer, got %s",
			       json_type_phrase(v));
	}
	if (tasks) {
		if (!tk_map_get(index, id, &i) &&
		    !(tasks->format == TASK_MBPP && mbpp_alias(id, alias, sizeof(alias)) &&
		      tk_map_get(index, alias, &i)) &&
		    !(tasks->format == TASK_EVALPLUS && evalplus_alias(id, alias, sizeof(alias)) &&
		      tk_map_get(index, alias, &i)))
			return tk_fail(w, "task_id", err, ENOENT, "unknown task '%s'", id);
		id = tasks->tasks[i].id;
	}
	s->task_id = strdup(id);
	if (!s->task_id)
		return sd_error_errno(err, ENOMEM, "%s", w->file);
	return 0;
}

/* One line into *s (zeroed; the caller frees it on failure). */
static int parse_sample(json_t *obj, const struct tk_where *w, const struct task_set *tasks,
			const struct tk_map *index, struct sample *s, struct sd_error *err)
{
	json_t *comp = json_object_get(obj, "completion"), *sol = json_object_get(obj, "solution");
	json_t *sid = json_object_get(obj, "sample_id");

	if (sample_task(obj, w, tasks, index, s, err) < 0)
		return -1;
	if (json_is_null(comp))
		comp = NULL;
	if (json_is_null(sol))
		sol = NULL;
	if (comp && sol)
		return tk_fail(w, "solution", err, EINVAL, "not allowed with 'completion' (give one of them)");
	if (!comp && !sol)
		return tk_fail(w, "completion", err, EINVAL, "missing (give 'completion' or 'solution')");
	s->is_completion = comp != NULL;
	if (tk_strdup(obj, comp ? "completion" : "solution", true, false, &s->code, w, err) < 0 ||
	    tk_strdup(obj, "model", false, false, &s->model, w, err) < 0)
		return -1;
	if (sid && json_is_integer(sid)) {
		if (asprintf(&s->sample_id, "%lld", (long long)json_integer_value(sid)) < 0) {
			s->sample_id = NULL;
			return sd_error_errno(err, ENOMEM, "%s", w->file);
		}
	} else if (sid && !json_is_null(sid)) {
		if (!json_is_string(sid))
			return tk_fail(w, "sample_id", err, EINVAL, "expected a string or an integer, got %s",
				       json_type_phrase(sid));
		if (!tk_id_ok(json_string_value(sid)) || json_string_length(sid) > SAMPLE_ID_MAX)
			return tk_fail(w, "sample_id", err, EINVAL, "expected 1 to %d printable ASCII characters",
				       SAMPLE_ID_MAX);
		if (tk_strdup(obj, "sample_id", true, false, &s->sample_id, w, err) < 0)
			return -1;
	}
	return 0;
}

/* What loading one sample set keeps: the list, the task index, the ids seen. */
struct sample_load {
	const struct task_set *tasks;
	struct sample_list l;
	struct tk_map index, ids, counts;
	size_t *per_task;
	const char *what;	/* the file, or the JSON value's name */
};

/* One sample object into the list; W names where it came from, LINE is its
 * line in the file (or its position in the array, from 1). */
static int add_sample(struct sample_load *ld, json_t *obj, const struct tk_where *w, size_t line,
		      struct sd_error *err)
{
	struct sample_list *l = &ld->l;
	struct sample *s;
	size_t k, first = 0;
	bool generated;
	int ret;

	if (!json_is_object(obj))
		return tk_fail(w, NULL, err, EINVAL, "expected a sample (an object), got %s", json_type_phrase(obj));
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct sample *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return sd_error_errno(err, ENOMEM, "cannot load '%s'", ld->what);
		l->v = v;
		l->cap = cap;
	}
	s = &l->v[l->n];
	memset(s, 0, sizeof(*s));
	s->line = line;
	if (parse_sample(obj, w, ld->tasks, &ld->index, s, err) < 0) {
		sample_free(s);
		return -1;
	}
	l->n++;
	/* the per-task counter: in per_task[] by task index, else in counts */
	if (ld->tasks) {
		tk_map_get(&ld->index, s->task_id, &k);
		k = ld->per_task[k]++;
	} else {
		size_t *count = tk_map_slot(&ld->counts, s->task_id);

		if (!count)
			return sd_error_errno(err, ENOMEM, "cannot load '%s'", ld->what);
		k = (*count)++;
	}
	generated = !s->sample_id;
	if (generated && !(s->sample_id = xasprintf("%s/%zu", s->task_id, k)))
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", ld->what);
	ret = tk_map_put(&ld->ids, s->sample_id, s->line, &first);
	if (ret < 0)
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", ld->what);
	if (ret == 1 && w->line)
		return tk_fail(w, "sample_id", err, EEXIST, "duplicate sample id '%s'%s (first on line %zu)",
			       s->sample_id, generated ? ", as numbered for a sample without one," : "", first);
	if (ret == 1)	/* from a JSON array: LINE is the position from 1 */
		return tk_fail(w, "sample_id", err, EEXIST, "duplicate sample id '%s'%s (first at %s[%zu])",
			       s->sample_id, generated ? ", as numbered for a sample without one," : "", ld->what,
			       first - 1);
	return 0;
}

static int load(struct jsonl *r, struct sample_load *ld, struct sd_error *err)
{
	json_t *obj;
	int n;

	while ((n = jsonl_next(r, &obj, err)) > 0) {
		struct tk_where w = { ld->what, jsonl_line(r), NULL, 0, "" };
		int ret = add_sample(ld, obj, &w, w.line, err);

		json_decref(obj);
		if (ret < 0)
			return -1;
	}
	return n;
}

static int load_begin(struct sample_load *ld, const struct task_set *tasks, const char *what,
		      struct sd_error *err)
{
	memset(ld, 0, sizeof(*ld));
	ld->tasks = tasks;
	ld->what = what;
	if (!tasks)
		return 0;
	ld->per_task = calloc(tasks->n ? tasks->n : 1, sizeof(*ld->per_task));
	if (!ld->per_task)
		return sd_error_errno(err, ENOMEM, "cannot load '%s'", what);
	for (size_t i = 0; i < tasks->n; i++)
		if (tk_map_put(&ld->index, tasks->tasks[i].id, i, NULL) < 0)
			return sd_error_errno(err, ENOMEM, "cannot load '%s'", what);
	return 0;
}

/* Hand the list over as *SET when RET is 0 (and it is not empty); free what loading kept. */
static int load_end(struct sample_load *ld, int ret, struct sample_set *set, struct sd_error *err)
{
	if (ret == 0 && ld->l.n == 0)
		ret = sd_error_set(err, EINVAL, "%s: no samples", ld->what);
	tk_map_free(&ld->index);
	tk_map_free(&ld->ids);
	tk_map_free(&ld->counts);
	free(ld->per_task);
	if (ret < 0) {
		list_free(&ld->l);
		return -1;
	}
	set->samples = ld->l.v;
	set->n = ld->l.n;
	return 0;
}

int sample_set_load(const char *path, const struct task_set *tasks, struct sample_set *set,
		    struct sd_error *err)
{
	struct sample_load ld;
	struct jsonl *r;
	int ret = load_begin(&ld, tasks, path, err);

	if (ret == 0) {
		r = jsonl_open(path, err);
		ret = r ? load(r, &ld, err) : -1;
		jsonl_close(r);
	}
	return load_end(&ld, ret, set, err);
}

int sample_set_from_json(json_t *v, const char *where, const struct task_set *tasks, struct sample_set *set,
			 struct sd_error *err)
{
	struct sample_load ld;
	int ret = load_begin(&ld, tasks, where, err);
	json_t *obj;
	size_t i;

	if (ret == 0 && !json_is_array(v))
		ret = sd_error_set(err, EINVAL, "field '%s': expected an array of samples, got %s", where,
				   json_type_phrase(v));
	if (ret == 0) {
		json_array_foreach(v, i, obj) {
			char at[300];
			struct tk_where w = { at, 0, NULL, 0, "" };

			snprintf(at, sizeof(at), "%s[%zu]", where, i);
			if ((ret = add_sample(&ld, obj, &w, i + 1, err)) < 0)
				break;
		}
	}
	return load_end(&ld, ret, set, err);
}

void sample_set_release(struct sample_set *set)
{
	struct sample_list l = { set->samples, set->n, set->n };

	list_free(&l);
	memset(set, 0, sizeof(*set));
}
