/* canary.c - programs with known outcomes, run before any score is reported */
#include "canary.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	const char *body;
	enum test_status want;
} canaries[] = {
	{ "known-good", "    return x + 1\n", TS_PASSED },
	{ "known-bad", "    return x\n", TS_FAILED },
	{ "infinite loop", "    while True:\n        pass\n", TS_TIMEOUT },
	{ "memory hog", "    a = []\n    while True:\n        a.append(bytearray(1 << 24))\n", TS_MEMORY },
};

int canary_check(const struct eval_options *o, struct sd_error *err)
{
	struct eval_options co = *o;
	struct task t = {
		.id = "canary", .class = "canary", .language = "python", .format = TASK_HUMANEVAL,
		.prompt = "def f(x):\n    \"\"\"Return x plus one.\"\"\"\n", .entry_point = "f",
		.test_code = "def check(candidate):\n    assert candidate(1) == 2\n",
	};

	co.timeout = 1.0;
	co.memory = 256u << 20;
	for (size_t i = 0; i < sizeof(canaries) / sizeof(canaries[0]); i++) {
		struct sample s = { .task_id = "canary", .sample_id = (char *)canaries[i].name,
				    .code = (char *)canaries[i].body, .is_completion = true };
		struct sample_result r;
		enum test_status got;

		if (eval_sample(&t, &s, NULL, &co, &r, err) < 0)
			return sd_error_wrap(err, "canary '%s'", canaries[i].name);
		got = r.n_tests == 1 ? r.tests[0].status : TS_HARNESS_ERROR;
		if (got != canaries[i].want) {
			sd_error_set(err, EIO, "canary '%s' came out '%s' instead of '%s'%s%s: the evaluator "
				     "cannot be trusted on this machine, no scores reported",
				     canaries[i].name, r.n_tests == 1 ? test_status_name(got) : "no single test",
				     test_status_name(canaries[i].want),
				     r.n_tests == 1 && r.tests[0].detail ? " -- " : "",
				     r.n_tests == 1 && r.tests[0].detail ? r.tests[0].detail : "");
			sample_result_release(&r);
			return -1;
		}
		sample_result_release(&r);
	}
	return 0;
}
