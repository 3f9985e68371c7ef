/* task-json.c - tasks given as JSON values (a service's request) rather than files: the same records, checks and messages */
#define _GNU_SOURCE
#include "suite/task.h"

#include <errno.h>
#include <stdio.h>

#include "suite/task-internal.h"

/* One object, found at WHERE ("tasks" or "tasks[2]"), into the list. */
static int add_object(json_t *obj, const char *where, enum tk_kind *kind, bool *native, bool first,
		      struct tk_list *l, struct sd_error *err)
{
	struct tk_where w = { where, 0, NULL, 0, "" };

	if (!json_is_object(obj))
		return tk_fail(&w, NULL, err, EINVAL, "expected a task (an object), got %s", json_type_phrase(obj));
	if (first)
		*native = tk_record_kind(obj) == KIND_UNKNOWN;
	if (*native)
		return tk_native_object(obj, where, l, err);
	return tk_add_record(obj, &w, kind, l, err);
}

int task_set_from_json(json_t *v, const char *where, struct task_set *set, struct sd_error *err)
{
	struct tk_list l = { 0 };
	enum tk_kind kind = KIND_UNKNOWN;
	bool native = false;
	size_t i;
	json_t *obj;
	int r = 0;

	if (json_is_array(v)) {
		if (json_array_size(v) == 0)
			return sd_error_set(err, EINVAL, "%s: no tasks (an empty array)", where);
		json_array_foreach(v, i, obj) {
			char at[300];

			snprintf(at, sizeof(at), "%s[%zu]", where, i);
			if ((r = add_object(obj, at, &kind, &native, i == 0, &l, err)) < 0)
				break;
		}
	} else {
		r = add_object(v, where, &kind, &native, true, &l, err);
	}
	if (r < 0) {
		tk_list_release(&l);
		return -1;
	}
	return tk_set_finish(&l, native ? TASK_NATIVE : tk_kind_format(kind),
			     set, err);
}
