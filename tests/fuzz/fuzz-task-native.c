/* fuzz-task-native.c - fuzz target: a native task.json from untrusted bytes
 *
 * The input becomes DIR/task.json beside a prompt.md and a reference.py, and
 * DIR is loaded as a suite. Properties: on success every test is consistent
 * (args or generator, JSON that parses back, weights finite), the C fields
 * only on C tasks, the hash set; on failure the message names task.json and
 * the set is untouched.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "suite/task.h"

/* Write DIR/NAME in place: no O_TRUNC, as ext4 flushes a file truncated to 0
 * and rewritten when it is closed, which made this target 20 times slower. */
static void put(const char *dir, const char *name, const void *data, size_t size)
{
	char *path = NULL;
	int fd;

	FUZZ_CHECK(asprintf(&path, "%s/%s", dir, name) > 0);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	FUZZ_CHECK(ftruncate(fd, (off_t)size) == 0);
	close(fd);
	free(path);
}

/* One temp directory per process; task.json is rewritten for each input. */
static char *dir;

static void drop(const char *name)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s", dir, name) > 0)
		unlink(path);
	free(path);
}

static void cleanup(void)
{
	drop("task.json");
	drop("prompt.md");
	drop("reference.py");
	rmdir(dir);
}

static void parses(const char *text, int array)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);

	FUZZ_CHECK(v != NULL);
	FUZZ_CHECK(!array || json_is_array(v));
	json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *base = getenv("TMPDIR");
	struct task_set set = { (struct task *)0x1, 7, TASK_HUMANEVAL, "x" };
	struct sd_error err = { 0 };

	if (!dir) {
		FUZZ_CHECK(asprintf(&dir, "%s/fuzz-task.XXXXXX", base && *base ? base : "/tmp") > 0);
		FUZZ_CHECK(mkdtemp(dir) != NULL);
		atexit(cleanup);
		put(dir, "prompt.md", "Write f.\n", 9);
		put(dir, "reference.py", "def f(x):\n    return x\n", 23);
	}
	put(dir, "task.json", data, size);
	if (task_set_load(dir, &set, &err) == 0) {
		const struct task *t = &set.tasks[0];

		FUZZ_CHECK(set.n == 1 && set.format == TASK_NATIVE && strlen(set.hash) == 64);
		FUZZ_CHECK(t->id && t->class && t->language && t->entry_point && t->prompt && t->origin);
		FUZZ_CHECK((t->signature != NULL) == (strcmp(t->language, "c") == 0));
		FUZZ_CHECK(t->n_tests >= 1 && t->tests);
		FUZZ_CHECK(t->cpu_time >= 0 && t->wall_time >= 0);
		for (size_t i = 0; i < t->n_tests; i++) {
			const struct task_test *x = &t->tests[i];

			FUZZ_CHECK(x->name && *x->name);
			FUZZ_CHECK((x->args_json != NULL) != (x->generator != NULL));
			FUZZ_CHECK(isfinite(x->weight) && x->weight >= 0);
			FUZZ_CHECK(x->tier <= TIER_PROPERTY && x->visibility <= VIS_HOLDOUT);
			if (x->args_json)
				parses(x->args_json, 1);
			if (x->expected_json)
				parses(x->expected_json, 0);
			if (x->generator) {
				parses(x->generator, 0);
				FUZZ_CHECK(x->cases >= 1 && !x->expected_json);
			}
			if (!x->expected_json)
				FUZZ_CHECK(t->reference != NULL);
		}
		task_set_release(&set);
	} else {
		FUZZ_CHECK(set.tasks == (struct task *)0x1 && set.n == 7);
		FUZZ_CHECK(strstr(err.msg, "task.json") != NULL);
	}
	return 0;
}
