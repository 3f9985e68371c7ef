/* test-task-native.c - unit tests of native suites (task-native*.c): the example suite, defaults, every bad task.json */
#include "fixture.h"

#include "suite/task.h"

struct dir {
	char *path;
	int n;			/* suites made so far */
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->path = fx_tmpdir();
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	fx_rm_rf(d->path);
	free(d->path);
	free(d);
	return 0;
}

/* A fresh suite holding task directory "a" with JSON as task.json, a
 * prompt.md and a reference.py; returns the suite's path. */
static char *suite_with(struct dir *d, const char *json)
{
	char *suite = fx_str("%s/suite%d", d->path, d->n++);
	char *task = fx_str("%s/a", suite);

	fx_mkdir_p(task);
	fx_write_in(task, "task.json", json);
	fx_write_in(task, "prompt.md", "Write f.\r\nReturn x.\r\n");
	fx_write_in(task, "reference.py", "def f(x):\n    return x\n");
	free(task);
	return suite;
}

static struct task_set load_ok(const char *path)
{
	struct task_set set;
	struct sd_error err = { 0 };

	if (task_set_load(path, &set, &err) < 0)
		fail_msg("cannot load '%s': %s", path, err.msg);
	return set;
}

/* The examples shipped in examples/tasks (run from the repository root). */
static void test_example_suite(void **state)
{
	struct task_set set;
	const struct task *t;
	const struct task_test *x;

	(void)state;
	assert_true(fx_is_dir("examples/tasks"));	/* run from the repository root */
	set = load_ok("examples/tasks");
	assert_int_equal(set.n, 5);
	assert_int_equal(set.format, TASK_NATIVE);
	assert_int_equal(strlen(set.hash), 64);
	assert_string_equal(set.tasks[0].id, "fib");
	assert_string_equal(set.tasks[1].id, "gcd");
	assert_string_equal(set.tasks[2].id, "is_palindrome");
	assert_string_equal(set.tasks[3].id, "reverse_words");
	assert_string_equal(set.tasks[4].id, "sum_to");

	t = task_set_find(&set, "fib");
	assert_string_equal(t->class, "recursion");
	assert_string_equal(t->language, "python");
	assert_string_equal(t->entry_point, "fib");
	assert_int_equal(t->format, TASK_NATIVE);
	assert_contains(t->prompt, "Fibonacci");
	assert_contains(t->reference, "def fib(n: int) -> int:");
	assert_null(t->test_code);
	assert_null(t->setup_code);
	assert_null(t->signature);
	assert_true(t->cpu_time == 2 && t->wall_time == 5);
	assert_int_equal(t->memory, 256u << 20);
	assert_string_equal(t->origin, "examples/tasks/fib");
	assert_int_equal(t->n_tests, 5);
	x = &t->tests[0];
	assert_string_equal(x->name, "small");
	assert_int_equal(x->tier, TIER_CANONICAL);
	assert_true(x->weight == 1.0);
	assert_int_equal(x->visibility, VIS_PUBLIC);
	assert_string_equal(x->args_json, "[10]");
	assert_string_equal(x->expected_json, "55");
	assert_null(x->generator);
	x = &t->tests[2];
	assert_string_equal(x->name, "zero");
	assert_int_equal(x->tier, TIER_EDGE);
	assert_true(x->weight == 1.5);
	x = &t->tests[3];
	assert_string_equal(x->name, "random");
	assert_int_equal(x->tier, TIER_PROPERTY);
	assert_string_equal(x->generator, "{\"args\":[{\"int\":[0,25]}]}");
	assert_int_equal(x->cases, 50);
	assert_null(x->args_json);
	assert_null(x->expected_json);
	x = &t->tests[4];
	assert_string_equal(x->name, "large");
	assert_int_equal(x->visibility, VIS_HOLDOUT);
	assert_null(x->expected_json);		/* the reference's answer */

	t = task_set_find(&set, "gcd");
	assert_string_equal(t->language, "c");
	assert_string_equal(t->class, "math");
	assert_string_equal(t->signature, "long gcd(long a, long b)");
	assert_contains(t->reference, "long gcd(long a, long b)");
	t = task_set_find(&set, "reverse_words");
	assert_string_equal(t->language, "javascript");
	assert_contains(t->reference, "function reverse_words(s)");
	t = task_set_find(&set, "is_palindrome");
	assert_string_equal(t->class, "strings");
	assert_string_equal(t->tests[6].generator, "{\"args\":[{\"str\":{\"len\":[0,8],\"alphabet\":\"ab\"}}]}");
	assert_int_equal(t->tests[6].tier, TIER_PROPERTY);
	assert_string_equal(t->tests[0].expected_json, "true");
	t = task_set_find(&set, "sum_to");
	assert_string_equal(t->class, "loops");
	assert_int_equal(t->memory, 0);
	task_set_release(&set);

	/* one task directory on its own */
	set = load_ok("examples/tasks/fib/");
	assert_int_equal(set.n, 1);
	assert_string_equal(set.tasks[0].origin, "examples/tasks/fib");
	task_set_release(&set);
}

static void test_defaults_and_forms(void **state)
{
	struct dir *d = *state;
	char *suite = suite_with(d,
		"{\"language\": \"python\", \"entry_point\": \"f\",\n"
		" \"prompt\": \"prompt.md\", \"reference\": {\"file\": \"reference.py\"},\n"
		" \"limits\": {\"memory\": 1048576},\n"
		" \"tests\": [\n"
		"  {\"name\": \"t\", \"args\": [{\"$tuple\": [1, 2]}, {\"$int\": \"-123456789012345678901234567890\"},\n"
		"    {\"$set\": [\"a\"]}, {\"$float\": \"-inf\"}, {\"$dict\": [[1, \"x\"], [[2], {\"$tuple\": []}]]},\n"
		"    {\"k\": [true, null]}, 1.5, \"s\\u00e9\"], \"expected\": null},\n"
		"  {\"name\": \"e\", \"tier\": \"edge\", \"weight\": 3, \"args\": []},\n"
		"  {\"name\": \"g\", \"generator\": {\"args\": [{\"list\": {\"of\": {\"choice\": [1, {\"$float\": \"nan\"}]}, \"len\": [0, 3]}},\n"
		"    {\"dict\": {\"keys\": {\"str\": {}}, \"values\": {\"tuple\": [{\"bool\": true}, {\"float\": [-1, 1.5]}]}}}]}},\n"
		"  {\"name\": \"p\", \"tier\": \"canonical\", \"visibility\": \"holdout\", \"generator\": {\"args\": []}, \"cases\": 1}\n"
		" ]}\n");
	struct task_set set = load_ok(suite);
	const struct task *t = &set.tasks[0];

	assert_string_equal(t->id, "a");		/* the directory's name */
	assert_string_equal(t->class, "general");
	assert_string_equal(t->prompt, "Write f.\nReturn x.\n");
	assert_string_equal(t->reference, "def f(x):\n    return x\n");
	assert_int_equal(t->memory, 1048576);
	assert_true(t->cpu_time == 0 && t->wall_time == 0);
	assert_int_equal(t->n_tests, 4);
	assert_string_equal(t->tests[0].args_json,
			    "[{\"$tuple\":[1,2]},{\"$int\":\"-123456789012345678901234567890\"},{\"$set\":[\"a\"]},"
			    "{\"$float\":\"-inf\"},{\"$dict\":[[1,\"x\"],[[2],{\"$tuple\":[]}]]},{\"k\":[true,null]},1.5,"
			    "\"s\xc3\xa9\"]");
	assert_string_equal(t->tests[0].expected_json, "null");	/* None, not "use the reference" */
	assert_int_equal(t->tests[0].tier, TIER_CANONICAL);
	assert_true(t->tests[0].weight == 1.0);
	assert_int_equal(t->tests[1].tier, TIER_EDGE);
	assert_true(t->tests[1].weight == 3.0);
	assert_null(t->tests[1].expected_json);
	assert_int_equal(t->tests[2].tier, TIER_PROPERTY);	/* a generator makes a property test */
	assert_int_equal(t->tests[2].cases, 100);
	assert_true(t->tests[2].weight == 1.0);
	assert_int_equal(t->tests[3].tier, TIER_CANONICAL);
	assert_int_equal(t->tests[3].visibility, VIS_HOLDOUT);
	assert_int_equal(t->tests[3].cases, 1);
	assert_string_equal(t->tests[3].generator, "{\"args\":[]}");
	task_set_release(&set);
	free(suite);

	/* inline text, {"text": ...}, no reference when every answer is given */
	suite = suite_with(d, "{\"id\": \"x/y-1\", \"class\": \"my class\", \"language\": \"javascript\", \"entry_point\": \"$f_1\",\n"
			   " \"prompt\": \"Write f. Return x.\", \"description\": \"d\",\n"
			   " \"tests\": [{\"name\": \"t\", \"args\": [1], \"expected\": 1, \"description\": \"one\"}]}\n");
	set = load_ok(suite);
	assert_string_equal(set.tasks[0].id, "x/y-1");
	assert_string_equal(set.tasks[0].class, "my class");
	assert_string_equal(set.tasks[0].prompt, "Write f. Return x.");
	assert_null(set.tasks[0].reference);
	task_set_release(&set);
	free(suite);
	suite = suite_with(d, "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": {\"text\": \"p.md\"},\n"
			   " \"tests\": [{\"name\": \"t\", \"args\": [], \"expected\": 1}]}\n");
	set = load_ok(suite);
	assert_string_equal(set.tasks[0].prompt, "p.md");
	task_set_release(&set);
	free(suite);
}

static void test_c_signatures(void **state)
{
	static const struct { const char *sig, *args, *expected; } ok[] = {
		{ "long f(long a, long b)", "[1, -2]", "3" },
		{ "const char *f(const char *s)", "[\"ab\"]", "\"ba\"" },
		{ "char* f(char *s, char c)", "[\"ab\", \"x\"]", "\"ba\"" },
		{ "double f(double x, int n)", "[1, 2]", "{\"$float\": \"nan\"}" },
		{ "bool f(char c)", "[\"c\"]", "true" },
		{ "long f(void)", "[]", "1" },
		{ "int64_t  f ( uint64_t x , size_t n ) ;", "[1, 2]", "3" },
		{ "unsigned long long f(unsigned int x, long long y, short z)", "[1, 2, 3]", "3" },
		{ "_Bool f(float x)", "[0.5]", "false" },
	};
	struct dir *d = *state;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *json = fx_str("{\"language\": \"c\", \"entry_point\": \"f\", \"signature\": \"%s\", \"prompt\": \"p\",\n"
				    " \"tests\": [{\"name\": \"t\", \"args\": %s, \"expected\": %s}]}\n",
				    ok[i].sig, ok[i].args, ok[i].expected);
		char *suite = suite_with(d, json);
		struct task_set set;
		struct sd_error err = { 0 };

		if (task_set_load(suite, &set, &err) < 0)
			fail_msg("'%s': %s", ok[i].sig, err.msg);
		assert_string_equal(set.tasks[0].signature, ok[i].sig);
		task_set_release(&set);
		free(suite);
		free(json);
	}
}

/* ---- bad task.json files: each with the exact message ---- */

static const struct bad {
	const char *json;
	const char *msg;	/* after "SUITE/a/task.json" */
} bad[] = {
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n"
	  " \"tests\": [\n"
	  "  {\"name\": \"a\", \"args\": []},\n"
	  "  {\"name\": \"b\",\n"
	  "   \"tier\": \"foo\", \"args\": []}]}",
	  ":5: field 'tests[1].tier': 'foo': expected canonical, edge or property" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [],\n"
	  "   \"tire\": \"edge\"}]}",
	  ":3: field 'tests[0].tire': unknown field (expected one of name, tier, weight, visibility, args, "
	  "expected, generator, cases, description)" },
	{ "{\"language\": \"python\",\n \"prompt\": \"p\", \"tests\": []}", ":1: field 'entry_point': missing" },
	{ "{\"entry_point\": \"f\",\n \"language\": \"rust\"}", ":2: field 'language': 'rust': expected python, c or javascript" },
	{ "{\"entry_point\": \"f\", \"language\": \"python\",\n \"risk\": \"medium\"}", ":2: field 'risk': 'medium': expected low or high" },
	{ "{\"entry_point\": \"f\"}", ":1: field 'language': missing" },
	{ "{\"entry_point\": \"f\",\n \"language\": null}", ":2: field 'language': missing" },	/* found by libFuzzer */
	{ "{\"language\": \"python\", \"entry_point\": \"f(x)\"}", ":1: field 'entry_point': 'f(x)' is not a function name" },
	{ "{\"language\": \"python\", \"entry_point\": \"$f\"}", ":1: field 'entry_point': '$f' is not a function name" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n \"signature\": \"long f(long x)\", \"tests\": []}",
	  ":2: field 'signature': only for C tasks" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"id\": \"\"}",
	  ":1: field 'id': expected 1 to 256 printable ASCII characters" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"class\": \"a\\nb\"}",
	  ":1: field 'class': expected 1 to 128 printable characters" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"class\": 3}",
	  ":1: field 'class': expected a string, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"tests\": [{\"name\": \"a\", \"args\": []}]}",
	  ":1: field 'prompt': missing" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\",\n \"prompt\": \"nope.md\"}",
	  ":2: field 'prompt': cannot open 'SUITE/a/nope.md': No such file or directory" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"../a/prompt.md\"}",
	  ":1: field 'prompt': '../a/prompt.md': expected a file name relative to the task directory, without '..'" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": {\"file\": \"/etc/passwd\"}}",
	  ":1: field 'prompt': '/etc/passwd': expected a file name relative to the task directory, without '..'" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": {\"file\": \"x/../../y.md\"}}",
	  ":1: field 'prompt': 'x/../../y.md': expected a file name relative to the task directory, without '..'" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": {\"url\": \"x\"}}",
	  ":1: field 'prompt': expected {\"file\": \"NAME\"} or {\"text\": \"...\"}" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": [1]}",
	  ":1: field 'prompt': expected a string or {\"file\": ...}, got an array" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"bad.md\"}",
	  ":1: field 'prompt': 'SUITE/a/bad.md' is not valid UTF-8 text" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"nul.py\"}",
	  ":1: field 'reference': 'SUITE/a/nul.py' is not valid UTF-8 text" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n \"limits\": {\"memory\": \"12Q\"}}",
	  ":2: field 'limits.memory': invalid size '12Q': unknown suffix 'Q' (use K, M, G or T)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n \"limits\": {\"cpu_time\": -1}}",
	  ":2: field 'limits.cpu_time': expected seconds, a number in (0, 86400]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n \"limits\": {\"wall_time\": \"5\"}}",
	  ":2: field 'limits.wall_time': expected seconds, a number in (0, 86400]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"limits\": {\"pids\": 3}}",
	  ":1: field 'limits.pids': unknown field (expected one of cpu_time, wall_time, memory)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"limits\": {\"memory\": 0}}",
	  ":1: field 'limits.memory': expected a positive number of bytes" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"limits\": 5}",
	  ":1: field 'limits': expected an object, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\"}", ":1: field 'tests': missing" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": []}",
	  ":1: field 'tests': expected an array of 1 to 10000 tests" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [3]}",
	  ":1: field 'tests[0]': expected an object, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"args\": []}]}",
	  ":1: field 'tests[0].name': missing" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"\", \"args\": []}]}",
	  ":1: field 'tests[0].name': expected 1 to 128 printable characters" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [\n"
	  " {\"name\": \"a\", \"args\": [], \"expected\": 1},\n {\"name\": \"a\", \"args\": [], \"expected\": 2}]}",
	  ":3: field 'tests[1].name': duplicate test name 'a' (also tests[0])" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\"}]}",
	  ":1: field 'tests[0].args': missing (a test has 'args' or 'generator')" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": [],\n"
	  " \"generator\": {\"args\": []}}]}",
	  ":1: field 'tests[0].args': a test has either 'args' or 'generator', not both" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": 1}]}",
	  ":1: field 'tests[0].args': expected an array of arguments, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": [], \"expected\": 1,\n"
	  " \"weight\": -1}]}",
	  ":2: field 'tests[0].weight': expected a number in [0, 1e6]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": [], \"expected\": 1,\n"
	  " \"visibility\": \"secret\"}]}",
	  ":2: field 'tests[0].visibility': 'secret': expected public or holdout" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": [], \"expected\": 1,\n"
	  " \"cases\": 5}]}",
	  ":2: field 'tests[0].cases': only for tests with a 'generator'" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": []}, \"cases\": 0}]}",
	  ":2: field 'tests[0].cases': expected an integer in [1, 100000]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": []}, \"expected\": 3}]}",
	  ":2: field 'tests[0].expected': not allowed with 'generator' (the reference solution answers generated inputs)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [\n"
	  " {\"name\": \"a\", \"args\": [], \"expected\": 1},\n {\"name\": \"b\", \"args\": [2]}]}",
	  ":3: field 'tests[1]': needs the reference solution's answer, and the task has no 'reference'" },
	/* tagged values */
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [1, {\"$tuple\": 3}]}]}",
	  ":2: field 'tests[0].args[1].$tuple': expected an array, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"$int\": \"12a\"}]}]}",
	  ":2: field 'tests[0].args[0].$int': expected a string of decimal digits" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"$int\": 12}]}]}",
	  ":2: field 'tests[0].args[0].$int': expected a string of decimal digits" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"$float\": \"NaN\"}]}]}",
	  ":2: field 'tests[0].args[0].$float': expected \"nan\", \"inf\" or \"-inf\"" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [], \"expected\": {\"$set\": [1], \"x\": 2}}]}",
	  ":2: field 'tests[0].expected.$set': a tagged value has exactly one key" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"$frozenset\": []}]}]}",
	  ":2: field 'tests[0].args[0].$frozenset': unknown tag (expected $tuple, $set, $int, $float or $dict)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"$dict\": [[1, 2, 3]]}]}]}",
	  ":2: field 'tests[0].args[0].$dict[0]': expected a [key, value] pair" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [{\"k\": {\"$set\": 1}}]}]}",
	  ":2: field 'tests[0].args[0].k.$set': expected an array, got an integer" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\",\n"
	  " \"args\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]}",
	  ":2: field 'tests[0].args[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
	  "[0][0][0][0][0][0]': nested more than 32 deep" },
	/* generator specs */
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"list\": {\"of\": {\"int\": [5, 1]}}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].list.of.int': low is greater than high" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"list\": {\"len\": [0, 3]}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].list.of': missing" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"str\": {\"len\": [0, 3], \"alpha\": \"x\"}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].str.alpha': unknown field (expected one of len, alphabet)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"str\": {\"len\": [0, 100001]}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].str.len': expected bounds within [0, 100000]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"str\": {\"alphabet\": \"\"}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].str.alphabet': expected a non-empty string" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"bool\": false}]}}]}",
	  ":2: field 'tests[0].generator.args[0].bool': expected true" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"choice\": []}]}}]}",
	  ":2: field 'tests[0].generator.args[0].choice': expected a non-empty array of values" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"float\": [1, \"2\"]}]}}]}",
	  ":2: field 'tests[0].generator.args[0].float': expected [low, high] with two finite numbers" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"int\": [1.5, 2]}]}}]}",
	  ":2: field 'tests[0].generator.args[0].int': expected [low, high] with two integers" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"int\": [1]}]}}]}",
	  ":2: field 'tests[0].generator.args[0].int': expected [low, high]" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"tuple\": [{\"int\": [0, 1]}, {\"uuid\": true}]}]}}]}",
	  ":2: field 'tests[0].generator.args[0].tuple[1].uuid': unknown generator (expected int, float, bool, "
	  "choice, str, list, tuple or dict)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"int\": [0, 1], \"float\": [0, 1]}]}}]}",
	  ":2: field 'tests[0].generator.args[0]': expected a generator spec: {\"int\": [lo, hi]}, {\"float\": [lo, hi]}, "
	  "{\"bool\": true}, {\"choice\": [...]}, {\"str\": {...}}, {\"list\": {...}}, {\"tuple\": [...]} or {\"dict\": {...}}" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [{\"dict\": {\"keys\": {\"int\": [0, 1]}}}]}}]}",
	  ":2: field 'tests[0].generator.args[0].dict.values': missing" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": [], \"seed\": 3}}]}",
	  ":2: field 'tests[0].generator.seed': unknown field (expected one of args)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": {\"args\": {\"int\": [0, 1]}}}]}",
	  ":2: field 'tests[0].generator.args': expected an array of generator specs" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\",\n"
	  " \"generator\": [1]}]}",
	  ":2: field 'tests[0].generator': expected an object, got an array" },
	/* C */
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"prompt\": \"p\"}",
	  ":1: field 'signature': missing (C tasks declare the function, e.g. \"long gcd(long a, long b)\")" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\",\n \"signature\": \"long gcdx(long a, long b)\"}",
	  ":2: field 'signature': 'long gcdx(long a, long b)' does not declare entry_point 'gcd'" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"struct s gcd(long a)\"}",
	  ":1: field 'signature': 'struct s gcd(long a)': expected 'TYPE NAME(TYPE NAME, ...)' with TYPE one of int, "
	  "long, long long, unsigned, size_t, int64_t, double, float, bool, char, const char *" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"void gcd(long a)\"}",
	  ":1: field 'signature': 'void gcd(long a)': the function must return a value" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, int *b)\"}",
	  ":1: field 'signature': 'long gcd(long a, int *b)': parameter 2 has an unsupported type" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a long b)\"}",
	  ":1: field 'signature': 'long gcd(long a long b)': expected ',' or ')' after parameter 1" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a) { return a; }\"}",
	  ":1: field 'signature': 'long gcd(long a) { return a; }': unexpected text after ')'" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd\"}",
	  ":1: field 'signature': 'long gcd': expected '(' after the name" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, long b)\", \"prompt\": \"p\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [1.5, 2], \"expected\": 1}]}",
	  ":2: field 'tests[0].args[0]': expected an integer (parameter 1 of the signature)" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, long b)\", \"prompt\": \"p\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [1], \"expected\": 1}]}",
	  ":2: field 'tests[0].args': 1 arguments for a C function of 2 parameters" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, long b)\", \"prompt\": \"p\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [1, 2], \"expected\": \"1\"}]}",
	  ":2: field 'tests[0].expected': expected an integer (the signature's return type)" },
	{ "{\"language\": \"c\", \"entry_point\": \"f\", \"signature\": \"long f(char c)\", \"prompt\": \"p\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [\"ab\"], \"expected\": 1}]}",
	  ":2: field 'tests[0].args[0]': expected a one-character string (parameter 1 of the signature)" },
	{ "{\"language\": \"c\", \"entry_point\": \"f\", \"signature\": \"long f(const char *s)\", \"prompt\": \"p\",\n"
	  " \"tests\": [{\"name\": \"a\", \"args\": [{\"$tuple\": []}], \"expected\": 1}]}",
	  ":2: field 'tests[0].args[0]': expected a string (parameter 1 of the signature)" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, long b)\", \"prompt\": \"p\",\n"
	  " \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\", \"generator\": {\"args\": [{\"int\": [0, 1]}]}}]}",
	  ":2: field 'tests[0].generator.args': 1 generators for a C function of 2 parameters" },
	{ "{\"language\": \"c\", \"entry_point\": \"gcd\", \"signature\": \"long gcd(long a, bool b)\", \"prompt\": \"p\",\n"
	  " \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\", \"generator\": {\"args\": [{\"float\": [0, 1]},\n"
	  " {\"bool\": true}]}}]}",
	  ":2: field 'tests[0].generator.args[0]': does not generate an integer (parameter 1 of the signature)" },
	{ "{\"language\": \"c\", \"entry_point\": \"f\", \"signature\": \"long f(char c, const char *s)\", \"prompt\": \"p\",\n"
	  " \"reference\": \"reference.py\", \"tests\": [{\"name\": \"a\", \"generator\": {\"args\": [{\"str\": {\"len\": [1, 1]}},\n"
	  " {\"list\": {\"of\": {\"int\": [0, 1]}}}]}}]}",
	  ":3: field 'tests[0].generator.args[1]': does not generate a string (parameter 2 of the signature)" },
	/* the file itself */
	{ "{\"language\": \"python\",\n \"entry_point\": \"f\",}\n", ":2:21: invalid JSON: string or '}' expected near '}'" },
	{ "{\"language\": \"python\", \"language\": \"c\"}", ":1:33: invalid JSON: duplicate object key near '\"language\"'" },
	{ "{\"language\": \"pyth\xf0n\"}", ":1:18: invalid UTF-8" },
	{ "[1]", ":1: expected a JSON object, got an array" },
	{ "", ":1:1: invalid JSON: '[' or '{' expected near end of file" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": []}],\n"
	  " \"hints\": []}",
	  ":2: field 'hints': unknown field (expected one of id, class, language, entry_point, signature, prompt, "
	  "reference, limits, tests, description, image, risk)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": []}],\n"
	  " \"image\": \"Py Thon\"}",
	  ":2: field 'image': expected NAME or NAME@sha256:<64 hex digits>, got 'Py Thon': bad image name 'Py Thon' "
	  "(lower-case letters, digits, '.', '_', '-'; at most 64, starting with a letter or digit)" },
	{ "{\"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [{\"name\": \"a\", \"args\": []}],\n"
	  " \"image\": \"py@sha256:12\"}",
	  ":2: field 'image': expected NAME or NAME@sha256:<64 hex digits>, got 'py@sha256:12': bad image digest in "
	  "'py@sha256:12' (want NAME@sha256: and 64 lower-case hex digits)" },
};

static void test_bad_task_json(void **state)
{
	struct dir *d = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *suite = suite_with(d, bad[i].json), *want, *msg, *at;
		struct task_set set;
		struct sd_error err = { 0 };

		fx_write_in(suite, "a/bad.md", "caf\xe9\n");
		fx_write_in(suite, "a/nul.py", "x = 1\n");
		{
			char *p = fx_str("%s/a/nul.py", suite);
			FILE *f = fopen(p, "ab");

			assert_non_null(f);
			fputc('\0', f);
			fclose(f);
			free(p);
		}
		memset(&set, 0x5a, sizeof(set));
		if (task_set_load(suite, &set, &err) == 0)
			fail_msg("case %zu loaded; expected '%s'", i, bad[i].msg);
		assert_int_equal(((unsigned char *)&set)[0], 0x5a);
		/* SUITE in the expected message stands for the suite's path */
		msg = strdup(bad[i].msg);
		assert_non_null(msg);
		while ((at = strstr(msg, "SUITE"))) {
			char *next = fx_str("%.*s%s%s", (int)(at - msg), msg, suite, at + 5);

			free(msg);
			msg = next;
		}
		want = fx_str("%s/a/task.json%s", suite, msg);
		if (strcmp(err.msg, want) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s", i, err.msg, want);
		free(want);
		free(msg);
		free(suite);
	}
}

/* ---- suites ---- */

static void test_suite_layout(void **state)
{
	struct dir *d = *state;
	static const char task[] = "{\"id\": \"same\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n"
				   " \"tests\": [{\"name\": \"a\", \"args\": [], \"expected\": 1}]}\n";
	char *suite = suite_with(d, task), *want, *p;
	struct task_set set, other;
	struct sd_error err = { 0 };

	/* hidden directories and plain files beside the tasks are not tasks */
	fx_mkdir_p(p = fx_str("%s/.git/x", suite));
	free(p);
	fx_write_in(suite, "README.md", "a suite\n");
	set = load_ok(suite);
	assert_int_equal(set.n, 1);

	/* the same tasks elsewhere: the same hash */
	p = suite_with(d, task);
	other = load_ok(p);
	assert_string_equal(set.hash, other.hash);
	task_set_release(&other);
	fx_write_in(p, "a/task.json", "{\"id\": \"same\", \"language\": \"python\", \"entry_point\": \"f\", \"prompt\": \"p\",\n"
		    " \"tests\": [{\"name\": \"a\", \"args\": [], \"expected\": 1, \"weight\": 2}]}\n");
	other = load_ok(p);
	assert_string_not_equal(set.hash, other.hash);
	task_set_release(&other);
	free(p);
	task_set_release(&set);

	/* two tasks with one id */
	fx_mkdir_p(p = fx_str("%s/b", suite));
	fx_write_in(p, "task.json", task);
	assert_int_equal(task_set_load(suite, &set, &err), -1);
	want = fx_str("%s/b: duplicate task id 'same' (first at %s/a)", suite, suite);
	assert_string_equal(err.msg, want);
	free(want);
	free(p);

	/* a task directory without task.json */
	fx_unlink_in(suite, "b/task.json");
	assert_int_equal(task_set_load(suite, &set, &err), -1);
	want = fx_str("%s/b: no task.json in this task directory", suite);
	assert_string_equal(err.msg, want);
	free(want);
	free(suite);

	/* an empty directory */
	suite = fx_str("%s/empty", d->path);
	fx_mkdir_p(suite);
	assert_int_equal(task_set_load(suite, &set, &err), -1);
	want = fx_str("%s: no tasks (expected task.json, or directories holding one)", suite);
	assert_string_equal(err.msg, want);
	free(want);
	free(suite);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_suite),
		cmocka_unit_test_setup_teardown(test_defaults_and_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_c_signatures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_task_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suite_layout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
