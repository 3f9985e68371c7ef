/* fuzz-jsonl.c - fuzz target: JSON Lines (plain or gzip) read line by line, the input as a task or samples file
 *
 * The input is written to a temp file and read with jsonl_next() to the end
 * (going on after each error), with json_load_path(), as a task file
 * (HumanEval/MBPP/EvalPlus detection) and as a samples file; json_text_line() walks
 * it as text. Properties: objects only, line numbers that never go back and
 * stay within the file, every error naming the file, out-params untouched on
 * failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/jsonl.h"
#include "suite/task.h"

/* One temp file per process, rewritten in place for each input (creating
 * and unlinking a file per input costs far more than the parsing). */
static char *tmp_path;

static void cleanup(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

static const char *temp_file(const uint8_t *data, size_t size)
{
	const char *base = getenv("TMPDIR");
	int fd;

	if (!tmp_path) {
		FUZZ_CHECK(asprintf(&tmp_path, "%s/fuzz-jsonl.XXXXXX", base && *base ? base : "/tmp") > 0);
		fd = mkstemp(tmp_path);
		FUZZ_CHECK(fd >= 0);
		close(fd);
		atexit(cleanup);
	}
	/* no O_TRUNC: ext4 flushes a file truncated to 0 and rewritten on close */
	fd = open(tmp_path, O_WRONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	FUZZ_CHECK(ftruncate(fd, (off_t)size) == 0);
	close(fd);
	return tmp_path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = temp_file(data, size);
	struct sd_error err = { 0 };
	struct jsonl *r = jsonl_open(path, &err);
	size_t newlines = 0, last = 0, lines[4];
	struct task_set tasks = { (struct task *)0x1, 7, TASK_NATIVE, "x" };
	struct sample_set samples = { .samples = (struct sample *)0x1, .n = 7 };
	json_t *obj, *doc;
	int ret, rounds = 0;
	/* gzip can hold more lines than the input has bytes; plain text cannot */
	size_t max_line = size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? (size_t)-1 : 0;

	for (size_t i = 0; i < size; i++)
		newlines += data[i] == '\n';
	if (!max_line)
		max_line = newlines + 1;
	FUZZ_CHECK(r != NULL);
	while ((ret = jsonl_next(r, &obj, &err)) != 0) {
		FUZZ_CHECK(++rounds < 1000000);
		FUZZ_CHECK(jsonl_line(r) >= last && jsonl_line(r) >= 1);
		last = jsonl_line(r);
		if (ret > 0) {
			FUZZ_CHECK(json_is_object(obj));
			json_decref(obj);
		} else {
			FUZZ_CHECK(strncmp(err.msg, path, strlen(path)) == 0);
		}
	}
	FUZZ_CHECK(last <= max_line);
	jsonl_close(r);

	doc = json_load_path(path, &err);
	if (doc)
		json_decref(doc);
	else
		FUZZ_CHECK(strstr(err.msg, path) != NULL);

	if (task_set_load(path, &tasks, &err) == 0) {
		FUZZ_CHECK(tasks.n > 0 && strlen(tasks.hash) == 64);
		for (size_t i = 0; i < tasks.n; i++) {
			const struct task *t = &tasks.tasks[i];

			FUZZ_CHECK(t->id && t->entry_point && t->format == tasks.format);
			/* EvalPlus tasks have inputs instead of test code: each kept as an array's text */
			FUZZ_CHECK(t->format == TASK_EVALPLUS ? t->reference && !t->test_code : t->test_code != NULL);
			for (size_t j = 0; t->format == TASK_EVALPLUS && j < t->n_tests; j++)
				FUZZ_CHECK(t->tests[j].args_json && t->tests[j].args_json[0] == '[' &&
					   (strncmp(t->tests[j].name, "base/", 5) == 0 ||
					    strncmp(t->tests[j].name, "plus/", 5) == 0));
			FUZZ_CHECK(task_set_find(&tasks, tasks.tasks[i].id) == &tasks.tasks[i]);
		}
		if (sample_set_load(path, &tasks, &samples, &err) == 0)
			sample_set_release(&samples);
		task_set_release(&tasks);
	} else {
		FUZZ_CHECK(tasks.tasks == (struct task *)0x1 && tasks.n == 7);
		FUZZ_CHECK(err.msg[0] != '\0');
	}
	samples.samples = (struct sample *)0x1;
	if (sample_set_load(path, NULL, &samples, &err) == 0) {
		for (size_t i = 0; i < samples.n; i++)
			FUZZ_CHECK(samples.samples[i].sample_id && samples.samples[i].code &&
				   samples.samples[i].line >= 1 && samples.samples[i].line <= max_line);
		sample_set_release(&samples);
	} else {
		FUZZ_CHECK(samples.samples == (struct sample *)0x1);
	}

	/* the text walker, on anything */
	FUZZ_CHECK(json_text_line((const char *)data, size, "tests[1].args[0].x") <= newlines + 1);
	FUZZ_CHECK(json_text_line((const char *)data, size, "[0].code") <= newlines + 1);
	json_text_array_lines((const char *)data, size, lines, 4);
	for (int i = 0; i < 4; i++)
		FUZZ_CHECK(lines[i] <= newlines + 1);

	return 0;
}
