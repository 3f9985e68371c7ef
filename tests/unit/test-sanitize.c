/* test-sanitize.c - unit tests of sanitize.c and sanitize-python.c: each rule of docs/sanitize.md, on its own and on hostile text */
#include "fixture.h"

#include "suite/sanitize.h"

#define HE_PROMPT "from typing import List\n\n\ndef f(x: List[int]) -> int:\n    \"\"\" Sum of X.\n    >>> f([1])\n    1\n    \"\"\"\n"

static unsigned rules;

/* TEXT sanitized for a task in LANG with ENTRY (and PROMPT for a
 * completion): the new text, or TEXT itself when nothing changed (rules 0). */
static char *san_len(const char *text, size_t len, const char *lang, const char *entry, const char *prompt)
{
	struct sanitize_out out;
	struct sd_error err = { 0 };
	int r = sanitize_text(text, len,
			      &(struct sanitize_spec){ .language = lang, .entry_point = entry, .prompt = prompt }, &out,
			      &err);

	assert_int_not_equal(r, -1);
	rules = out.rules;
	if (r == 0) {
		char *copy = malloc(len + 1);

		assert_null(out.text);
		assert_int_equal(out.rules, 0);
		assert_non_null(copy);
		memcpy(copy, text, len);
		copy[len] = '\0';
		return copy;
	}
	assert_non_null(out.text);
	assert_int_equal(strlen(out.text), out.len);
	assert_int_not_equal(out.rules, 0);
	return out.text;
}

static char *san(const char *text, const char *lang, const char *entry, const char *prompt)
{
	return san_len(text, strlen(text), lang, entry, prompt);
}

#define assert_san(want, text, lang, entry, prompt) do { \
		char *got_ = san((text), (lang), (entry), (prompt)); \
		assert_string_equal(got_, (want)); \
		free(got_); \
	} while (0)

static void test_fence_with_language_tag(void **state)
{
	(void)state;
	assert_san("def f(x):\n    return x + 1\n",
		   "Here is the code:\n```python\ndef f(x):\n    return x + 1\n```\nThis adds one.", "python", "f", NULL);
	assert_int_equal(rules, SANITIZE_FENCE);
	/* ~~~, a longer fence, indentation, an info string after the tag, CRLF */
	assert_san("def f(x):\r\n    return 2\r\n", "Sure.\r\n  ~~~~ py title=x\r\ndef f(x):\r\n    return 2\r\n  ~~~~\r\n",
		   "python", "f", NULL);
	/* a block indented as its fence (an answer in a markdown list): dedented */
	assert_san("import os\n\ndef f(x):\n    return x\n",
		   "1. The code:\n\n   ```python\n   import os\n\n   def f(x):\n       return x\n   ```\n2. Done.\n", "python",
		   "f", NULL);
}

static void test_fence_without_tag(void **state)
{
	(void)state;
	assert_san("def f(x):\n    return x\n", "```\ndef f(x):\n    return x\n```\n", "python", "f", NULL);
	/* a fence left open: to the end of the text */
	assert_san("def f(x):\n    return x\n", "Answer:\n```python\ndef f(x):\n    return x\n", "python", "f", NULL);
	/* a closing fence must be bare: "```python" inside a block opens nothing */
	assert_san("def f(x):\n    return x\n", "```\ndef f(x):\n    return x\n```\n\nOutput:\n```\n3\n```\n", "python", "f",
		   NULL);
}

static void test_several_blocks_the_one_defining_the_entry_point(void **state)
{
	(void)state;
	/* usage first, the definition second, output third: the definition */
	assert_san("def f(x):\n    return x * 2\n",
		   "Use it as:\n```python\nprint(f(1))\nprint(f(2))\nprint(f(3))\n```\nwith\n```python\ndef f(x):\n    return x * 2\n"
		   "```\nwhich prints\n```text\n2\n4\n6\n8\n```\n",
		   "python", "f", NULL);
	/* a draft and a corrected version: the last */
	assert_san("def f(x):\n    return 2\n",
		   "First try:\n```python\ndef f(x):\n    return 1\n```\nCorrected:\n```python\ndef f(x):\n    return 2\n```\n",
		   "python", "f", NULL);
	/* a block in another language is never chosen, even a longer one defining f */
	assert_san("def f(x):\n    return 3\n",
		   "```bash\ndef f(x):\n  echo\n  echo\n  echo\n```\n```python\ndef f(x):\n    return 3\n```\n", "python", "f",
		   NULL);
	/* none defines the entry point: the longest that fits */
	assert_san("    y = x\n    return y\n", "```python\n    return 0\n```\n```\n    y = x\n    return y\n```\n", "python",
		   "f", "def f(x):\n    \"\"\"doc\"\"\"\n");
}

static void test_chatter_before_and_after_without_fences(void **state)
{
	(void)state;
	assert_san("def f(x):\n    return x\n",
		   "Sure! Here's the solution:\n\ndef f(x):\n    return x\n\nThis function's cost is O(1) (constant).\n",
		   "python", "f", NULL);
	assert_int_equal(rules, SANITIZE_DROPPED);
	/* an apostrophe in prose does not open a string that swallows the code */
	assert_san("def f(x):\n    return x\n", "Here's it\ndef f(x):\n    return x\nThat's all, it's done.\n", "python",
		   "f", NULL);
	/* prose starting with '@' is no decorator of the def after it */
	assert_san("@functools.lru_cache(None)\n@ cache # c\ndef f(x):\n    return x\n",
		   "@user thanks!\n@functools.lru_cache(None)\n@ cache # c\ndef f(x):\n    return x\n@decorator of nothing\ny = 1\n",
		   "python", "f", NULL);
	/* a bracket left open by prose is closed by the def after it */
	assert_san("def f(x):\n    return x\n", "Note (see below\ndef f(x):\n    return x\n", "python", "f", NULL);
	/* prose before a completion's body, and after it */
	assert_san("    return x + 1\n", "Here is the completion:\n    return x + 1\n\nThis returns x plus one.", "python",
		   "f", HE_PROMPT);
	assert_int_equal(rules, SANITIZE_CHATTER | SANITIZE_DROPPED);
	assert_san("    return x + 1\n", "Solution:\n\n    return x + 1\n", "python", "f", HE_PROMPT);
}

static void test_indentation_only_completions_left_alone(void **state)
{
	static const char *const bodies[] = {
		"    return sum(x)",
		"    return sum(x)\n",
		"\treturn sum(x)\n",
		"  total = 0\n  for v in x:\n    total += v\n  return total\n",
		"    # a comment at the start\n    def helper(v):\n        return v\n\n    return sum(map(helper, x))\n\n\n",
		"    s = \"\"\"\nprint('not a statement')\n\"\"\"\n    return sum(x)\n",
		"    return (1 +\n2)\n",
		"",
		"\n\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		assert_san(bodies[i], bodies[i], "python", "f", HE_PROMPT);
		assert_int_equal(rules, 0);
	}
}

static void test_body_then_top_level_code(void **state)
{
	(void)state;
	/* a helper the body uses is kept; prints, asserts and unused helpers go */
	assert_san("    return helper(x)\n\ndef helper(x):\n    return sum(x)\n",
		   "    return helper(x)\n\ndef helper(x):\n    return sum(x)\n\ndef unused():\n    return 0\n\nprint(f([1]))\n"
		   "assert f([2]) == 2\n",
		   "python", "f", HE_PROMPT);
	assert_int_equal(rules, SANITIZE_DROPPED);
}

static void test_prompt_repeated(void **state)
{
	(void)state;
	/* the whole function again, as GPT-4 answers: nothing to take off */
	assert_san(HE_PROMPT "    return sum(x)\n", HE_PROMPT "    return sum(x)\n", "python", "f", HE_PROMPT);
	assert_int_equal(rules, 0);
	/* in a fence, with a test after it: the function, its imports */
	assert_san(HE_PROMPT "    return sum(x)\n",
		   "```python\n" HE_PROMPT "    return sum(x)\n\n\nif __name__ == \"__main__\":\n    import doctest\n"
		   "    doctest.testmod()\n```",
		   "python", "f", HE_PROMPT);
	assert_int_equal(rules, SANITIZE_FENCE | SANITIZE_DROPPED);
	/* a prompt that does not end its line: the program starts on a line of its own */
	assert_san("\ndef f(x):\n    return 1\n", "```\ndef f(x):\n    return 1\n```", "python", "f", "def f(x):\n    pass");
}

static void test_main_guard_prints_and_tests_dropped(void **state)
{
	(void)state;
	assert_san("import math\n\ndef f(x):\n    return math.floor(x)\n",
		   "import math\n\ndef f(x):\n    return math.floor(x)\n\nprint(f(2.5))\nfor i in range(3):\n    print(f(i))\n"
		   "if __name__ == '__main__':\n    assert f(1.5) == 1\n    print('ok')\n"
		   "def test_f():\n    assert f(0.5) == 0\n",
		   "python", "f", NULL);
	/* MBPP: a whole program with the task's asserts after it */
	assert_san("def remove_Occ(s, ch):\n    return s.replace(ch, '', 1)[::-1].replace(ch, '', 1)[::-1]\n",
		   "def remove_Occ(s, ch):\n    return s.replace(ch, '', 1)[::-1].replace(ch, '', 1)[::-1]\n"
		   "assert remove_Occ(\"hello\",\"l\") == \"heo\"\n",
		   "python", "remove_Occ", NULL);
}

static void test_dependencies_through_names(void **state)
{
	(void)state;
	/* constants, classes and decorated helpers the entry point reaches, in
	 * their order; what nothing reaches goes */
	assert_san("from functools import lru_cache\nMOD = 10 ** 9 + 7\nMOD += 0\nclass Box:\n    v = MOD\n\n"
		   "@lru_cache(maxsize=None)\ndef g(n):\n    return Box.v + n\n\ndef f(n):\n    return g(n) % MOD\n",
		   "from functools import lru_cache\nMOD = 10 ** 9 + 7\nMOD += 0\nUNUSED = 3\nclass Box:\n    v = MOD\n\n"
		   "@lru_cache(maxsize=None)\ndef g(n):\n    return Box.v + n\n\ndef f(n):\n    return g(n) % MOD\n"
		   "result = f(3)\nprint(result)\n",
		   "python", "f", NULL);
	/* every definition of a reached name stays (Python runs the last) */
	assert_san("def f(x):\n    return 1\ndef f(x):\n    return 2\n",
		   "def f(x):\n    return 1\nprint(f(0))\ndef f(x):\n    return 2\n", "python", "f", NULL);
	/* a name inside an f-string, a multi-line constant at column 0 */
	assert_san("T = [\n1,\n2]\ndef f(x):\n    return f\"{T[x]}\"\n",
		   "T = [\n1,\n2]\ndef f(x):\n    return f\"{T[x]}\"\nprint(f(1))\n", "python", "f", NULL);
	/* annotated, tuple and subscript assignments; comparisons are no assignment */
	assert_san("A: int = 1\nB, C = 2, 3\nD = {}\nD['k'] = 4\ndef f():\n    return A + B + C + D['k']\n",
		   "A: int = 1\nB, C = 2, 3\nD = {}\nD['k'] = 4\nA == 5\nf() <= 3\ndef f():\n    return A + B + C + D['k']\n",
		   "python", "f", NULL);
}

static void test_entry_point_not_defined(void **state)
{
	(void)state;
	/* a whole program that never defines the entry point: every definition, no statement */
	assert_san("import os\ndef g():\n    return 1\nX = 2\n", "import os\ndef g():\n    return 1\nX = 2\nprint(g())\n", "python",
		   "f", NULL);
	/* nothing left: the text as given */
	assert_san("print('hello')\n", "print('hello')\n", "python", "f", NULL);
	assert_int_equal(rules, 0);
	assert_san("```python\n```\n", "```python\n```\n", "python", "f", NULL);
}

static void test_strings_and_comments_are_not_statements(void **state)
{
	(void)state;
	assert_san("def f():\n    s = '''\nprint(\"x\")\ndef g(): pass\n'''\n    # print(2)\n    return s\n",
		   "def f():\n    s = '''\nprint(\"x\")\ndef g(): pass\n'''\n    # print(2)\n    return s\n# done\nprint(3)\n",
		   "python", "f", NULL);
	/* the last line kept whole, trailing blanks and its newline with it */
	assert_san("def f():\n    return 1  \t\n", "def f():\n    return 1  \t\n\n  \nprint(2)\n", "python", "f", NULL);
	/* a backslash continuation at column 0 */
	assert_san("X = 1 + \\\n2\ndef f():\n    return X\n", "X = 1 + \\\n2\ndef f():\n    return X\nprint(X)\n", "python",
		   "f", NULL);
}

static void test_invalid_utf8_passes_through(void **state)
{
	static const char in[] = "def f():\n    return '\xff\xfe\xc3'\n\xff prose \xc3\x28 here\nprint(\"\xe2\x82\")\n";
	static const char want[] = "def f():\n    return '\xff\xfe\xc3'\n";
	char *got;

	(void)state;
	got = san_len(in, sizeof(in) - 1, "python", "f", NULL);
	assert_string_equal(got, want);
	free(got);
	/* a NUL byte is a byte like another */
	got = san_len("def f():\n    return 1\n\0print(2)\n", 27, "python", "f", NULL);
	assert_string_equal(got, "def f():\n    return 1\n");
	free(got);
}

static void test_huge_input(void **state)
{
	size_t n = SANITIZE_MAX_INPUT, len = 0;
	char *text = malloc(SANITIZE_MAX_INPUT + 2), *got;
	static const char def[] = "def f(x):\n    return x\n";

	(void)state;
	assert_non_null(text);
	memcpy(text, def, sizeof(def) - 1);
	len = sizeof(def) - 1;
	while (len + 9 < n) {
		memcpy(text + len, "print(1)\n", 9);
		len += 9;
	}
	got = san_len(text, len, "python", "f", NULL);
	assert_string_equal(got, def);
	free(got);
	/* one line of 1 MiB of brackets */
	memset(text, '(', n);
	memcpy(text, def, sizeof(def) - 1);
	got = san_len(text, n, "python", "f", NULL);
	assert_string_equal(got, def);
	free(got);
	/* past the cap: left as given */
	memset(text, 'x', SANITIZE_MAX_INPUT + 1);
	memcpy(text, "```\n", 4);
	got = san_len(text, SANITIZE_MAX_INPUT + 1, "python", "f", NULL);
	assert_int_equal(rules, 0);
	free(got);
	free(text);
}

static void test_other_languages_fences_only(void **state)
{
	(void)state;
	/* C++: the block that defines the function, not the one calling it */
	assert_san("#include <vector>\nint add(int a, int b) {\n    return a + b;\n}\n",
		   "Here you go:\n```cpp\n#include <vector>\nint add(int a, int b) {\n    return a + b;\n}\n```\nTest:\n```cpp\n"
		   "int main() {\n    printf(\"%d\", add(1, 2));\n    return 0;\n}\n```\n",
		   "cpp", "add", NULL);
	/* JavaScript: function NAME( and const NAME = */
	assert_san("const add = (a, b) => a + b;\n",
		   "```js\nconsole.log(add(1, 2));\n```\n```javascript\nconst add = (a, b) => a + b;\n```\n", "javascript", "add",
		   NULL);
	/* no fence: chatter stays (nothing Python-aware here) */
	assert_san("Here:\nint add(int a, int b) { return a + b; }\n", "Here:\nint add(int a, int b) { return a + b; }\n", "c",
		   "add", NULL);
	assert_int_equal(rules, 0);
}

static void test_sample_set_sanitize(void **state)
{
	struct task tasks[] = {
		{ .id = "t/0", .language = "python", .entry_point = "f", .prompt = "def f(x):\n    \"\"\"doc\"\"\"\n" },
		{ .id = "t/1", .language = "python", .entry_point = "g" },
	};
	struct task_set ts = { .tasks = tasks, .n = 2 };
	struct sample s[] = {
		{ .task_id = "t/0", .sample_id = "a", .code = strdup("    return x\n"), .is_completion = true },
		{ .task_id = "t/0", .sample_id = "b", .code = strdup("```python\n    return x\n```\n"), .is_completion = true },
		{ .task_id = "t/1", .sample_id = "c", .code = strdup("def g():\n    return 1\nprint(g())\n") },
	};
	struct sample_set set = { .samples = s, .n = 3 };
	struct sd_error err = { 0 };
	size_t changed = 99;

	(void)state;
	assert_int_equal(sample_set_sanitize(&set, &ts, &changed, &err), 0);
	assert_true(set.sanitized);
	assert_int_equal(changed, 2);
	assert_null(s[0].given);
	assert_string_equal(s[0].code, "    return x\n");
	assert_string_equal(s[1].given, "```python\n    return x\n```\n");
	assert_string_equal(s[1].code, "    return x\n");
	assert_string_equal(s[2].code, "def g():\n    return 1\n");
	/* twice: nothing more changes, the original stays the given one */
	assert_int_equal(sample_set_sanitize(&set, &ts, &changed, &err), 0);
	assert_int_equal(changed, 0);
	assert_string_equal(s[1].given, "```python\n    return x\n```\n");
	/* a sample of no task */
	s[0].task_id = "t/9";
	assert_int_equal(sample_set_sanitize(&set, &ts, NULL, &err), -1);
	assert_contains(err.msg, "no task 't/9'");
	for (size_t i = 0; i < 3; i++) {
		free(s[i].code);
		free(s[i].given);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fence_with_language_tag),
		cmocka_unit_test(test_fence_without_tag),
		cmocka_unit_test(test_several_blocks_the_one_defining_the_entry_point),
		cmocka_unit_test(test_chatter_before_and_after_without_fences),
		cmocka_unit_test(test_indentation_only_completions_left_alone),
		cmocka_unit_test(test_body_then_top_level_code),
		cmocka_unit_test(test_prompt_repeated),
		cmocka_unit_test(test_main_guard_prints_and_tests_dropped),
		cmocka_unit_test(test_dependencies_through_names),
		cmocka_unit_test(test_entry_point_not_defined),
		cmocka_unit_test(test_strings_and_comments_are_not_statements),
		cmocka_unit_test(test_invalid_utf8_passes_through),
		cmocka_unit_test(test_huge_input),
		cmocka_unit_test(test_other_languages_fences_only),
		cmocka_unit_test(test_sample_set_sanitize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
