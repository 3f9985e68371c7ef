/* test-verdict.c - unit tests of verdict.c: the driver's report authenticated line by line and turned into results
 *
 * Each report is written here as the driver writes it (runners/driver.py,
 * class Mac): "HMAC-SHA256(key, SEQ:JSON) JSON" a line, signed with
 * OpenSSL's one-shot HMAC(), not the reader's code. Then one thing is done
 * wrong per case -- a MAC, a replayed or reordered line, a cut line -- and
 * the results must say so.
 */
#include "fixture.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "eval/verdict.h"

#define HEXKEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

/* Hex digits to bytes, for the key above. */
static void unhex(const char *hex, unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
}

/* The line the driver writes for JSON as its SEQ-th line under HEXKEY_, with a newline. */
static char *signed_line_key(const char *hexkey_, unsigned long seq, const char *json)
{
	unsigned char key[VERDICT_KEY_BYTES], mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	char *msg = fx_str("%lu:%s", seq, json), hex[65];

	unhex(hexkey_, key, sizeof(key));
	assert_non_null(HMAC(EVP_sha256(), key, sizeof(key), (const unsigned char *)msg, strlen(msg), mac, &mac_len));
	assert_int_equal(mac_len, 32);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	free(msg);
	return fx_str("%s %s\n", hex, json);
}

static char *signed_line(unsigned long seq, const char *json)
{
	return signed_line_key(HEXKEY, seq, json);
}

/* A report: the lines concatenated (each freed), NULL-terminated list. */
static char *report(char *first, ...)
{
	va_list ap;
	char *out = strdup(""), *line;

	assert_non_null(out);
	va_start(ap, first);
	for (line = first; line; line = va_arg(ap, char *)) {
		char *joined = fx_str("%s%s", out, line);

		free(out);
		free(line);
		out = joined;
	}
	va_end(ap);
	return out;
}

static struct task_test decl[] = {
	{ .name = (char *)"t1", .tier = TIER_CANONICAL, .weight = 1.0, .visibility = VIS_PUBLIC },
	{ .name = (char *)"t2", .tier = TIER_EDGE, .weight = 1.5, .visibility = VIS_HOLDOUT },
};

/* A native task declares its tests; a HumanEval one has them in its test code. */
static struct task native = { .id = (char *)"native", .tests = decl, .n_tests = 2 };
static struct task humaneval = { .id = (char *)"HumanEval/0", .format = TASK_HUMANEVAL };

/* Read the LEN bytes of TEXT (freed) as the sandbox's stdout under STATUS. */
static struct sample_result judge_len(const struct task *t, char *text, size_t len, enum sandbox_status status,
				      const char *key)
{
	struct sandbox_result sr;
	struct sample_result r;

	memset(&sr, 0, sizeof(sr));
	memset(&r, 0, sizeof(r));
	sr.status = status;
	sr.stdout_buf = text;
	sr.stdout_len = len;
	snprintf(sr.error, sizeof(sr.error), "cannot mount '/work'");
	verdict_read(t, &sr, key, &r);
	free(text);
	return r;
}

static struct sample_result judge_key(const struct task *t, char *text, enum sandbox_status status, const char *key)
{
	return judge_len(t, text, text ? strlen(text) : 0, status, key);
}

static struct sample_result judge(const struct task *t, char *text, enum sandbox_status status)
{
	return judge_key(t, text, status, HEXKEY);
}

static const struct test_result *find(const struct sample_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_tests; i++)
		if (strcmp(r->tests[i].name, name) == 0)
			return &r->tests[i];
	fail_msg("no test '%s' among %zu", name, r->n_tests);
	return NULL;
}

static void assert_test(const struct sample_result *r, const char *name, enum test_status st, const char *detail)
{
	const struct test_result *t = find(r, name);

	if (t->status != st)
		fail_msg("test '%s': status %s, want %s", name, test_status_name(t->status), test_status_name(st));
	if (detail)
		assert_string_equal(t->detail ? t->detail : "(null)", detail);
}

/* Every verdict a crash saying the channel was tampered with. */
static void assert_all_tampered(const struct sample_result *r)
{
	assert_true(r->n_tests > 0);
	for (size_t i = 0; i < r->n_tests; i++) {
		if (r->tests[i].status != TS_CRASH)
			fail_msg("test '%s': status %s, want crash", r->tests[i].name, test_status_name(r->tests[i].status));
		assert_string_equal(r->tests[i].detail, VERDICT_TAMPERED);
	}
}

#define PASS1 "{\"test\":\"t1\",\"status\":\"passed\"}"
#define PASS2 "{\"test\":\"t2\",\"status\":\"passed\"}"
#define FAIL2 "{\"test\":\"t2\",\"status\":\"failed\",\"detail\":\"expected 3, got 4\"}"
#define DONE "{\"done\":true}"

static void test_authentic(void **state)
{
	struct sample_result r;

	(void)state;
	r = judge(&native, report(signed_line(0, PASS1), signed_line(1, FAIL2), signed_line(2, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_test(&r, "t1", TS_PASSED, NULL);
	assert_test(&r, "t2", TS_FAILED, "expected 3, got 4");
	/* tier, weight and visibility come from the task, not from the report */
	assert_int_equal(find(&r, "t2")->tier, TIER_EDGE);
	assert_true(find(&r, "t2")->weight == 1.5);
	assert_int_equal(find(&r, "t2")->visibility, VIS_HOLDOUT);
	sample_result_release(&r);

	/* in_process as reported; a status the reader does not know is sandeval's fault */
	r = judge(&native, report(signed_line(0, "{\"test\":\"t1\",\"status\":\"passed\",\"in_process\":true}"),
				  signed_line(1, "{\"test\":\"t2\",\"status\":\"won\"}"), signed_line(2, DONE), NULL), SB_OK);
	assert_true(find(&r, "t1")->in_process);
	assert_test(&r, "t2", TS_HARNESS_ERROR, NULL);
	sample_result_release(&r);

	/* HumanEval: the tests are what the driver reports */
	r = judge(&humaneval, report(signed_line(0, "{\"test\":\"L3: assert f(1) == 2\",\"status\":\"passed\"}"),
				     signed_line(1, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 1);
	assert_test(&r, "L3: assert f(1) == 2", TS_PASSED, NULL);
	sample_result_release(&r);

	/* the driver ends every line with a newline, but the last one need not */
	{
		char *text = report(signed_line(0, PASS1), signed_line(1, PASS2), signed_line(2, DONE), NULL);

		text[strlen(text) - 1] = '\0';
		r = judge(&native, text, SB_OK);
		assert_int_equal(r.n_tests, 2);
		assert_test(&r, "t2", TS_PASSED, NULL);
		sample_result_release(&r);
	}
}

static void test_bad_mac(void **state)
{
	char *line;
	struct sample_result r;

	(void)state;
	/* one flipped digit of the second line's MAC: t1's authentic pass is a crash too */
	line = signed_line(1, PASS2);
	line[10] = line[10] == '0' ? '1' : '0';
	r = judge(&native, report(signed_line(0, PASS1), line, signed_line(2, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* the JSON changed under a good MAC */
	line = signed_line(1, FAIL2);
	memcpy(strstr(line, "failed"), "passed", 6);
	r = judge(&native, report(signed_line(0, PASS1), line, signed_line(2, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* lines without a MAC at all, as a candidate would print them */
	r = judge(&native, report(strdup(PASS1 "\n"), strdup(PASS2 "\n"), strdup(DONE "\n"), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* a line signed under another key */
	r = judge(&native, report(signed_line(0, PASS1),
				  signed_line_key("ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 1, PASS2),
				  signed_line(1, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* a key that does not decode: nothing authenticates */
	r = judge_key(&native, report(signed_line(0, PASS1), signed_line(1, PASS2), signed_line(2, DONE), NULL), SB_OK,
		      "00");
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* HumanEval, no test reported: a crash stands for the sample (and,
	 * without an authentic "done", one for the tests not reached) */
	r = judge(&humaneval, report(strdup("garbage\n"), signed_line(0, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 1);
	assert_test(&r, "(verdict channel)", TS_CRASH, VERDICT_TAMPERED);
	sample_result_release(&r);
	r = judge(&humaneval, report(strdup("garbage\n"), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* a forged harness error must not excuse the tests (harness errors are not counted) */
	r = judge(&native, report(signed_line(0, PASS1), strdup("{\"harness_error\":\"oops\"}\n"),
				  signed_line(1, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);
}

static void test_nul(void **state)
{
	char *a = signed_line(0, PASS1), *b = report(signed_line(1, FAIL2), signed_line(2, DONE), NULL);
	char *text = fx_str("%s#%s", a, b);
	size_t len = strlen(text);
	struct sample_result r;

	(void)state;
	/* One NUL byte between two authentic lines. It ended the report for a
	 * reader of C strings: t2's failure and "done" unseen, t2 a harness
	 * error (not counted), the sample passed. Found by fuzz-verdict. */
	text[strlen(a)] = '\0';
	r = judge_len(&native, text, len, SB_OK, HEXKEY);
	assert_int_equal(r.n_tests, 2);
	assert_all_tampered(&r);
	sample_result_release(&r);
	free(a);
	free(b);

	/* inside an authentic line, after its JSON: "MAC JSON\0junk" */
	a = signed_line(0, PASS1);
	b = signed_line(1, DONE);
	text = fx_str("%.*s#junk\n%s", (int)strlen(a) - 1, a, b);
	len = strlen(text);
	text[strlen(a) - 1] = '\0';
	r = judge_len(&native, text, len, SB_OK, HEXKEY);
	assert_all_tampered(&r);
	sample_result_release(&r);
	free(a);
	free(b);
}

static void test_replayed(void **state)
{
	struct sample_result r;

	(void)state;
	/* t1's pass written again in t2's place: valid MAC, wrong sequence number */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(0, PASS1), signed_line(1, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* the whole report twice (the second copy replays 0, 1, 2) */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(1, PASS2), signed_line(2, DONE),
				  signed_line(0, PASS1), signed_line(1, PASS2), signed_line(2, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);
}

static void test_reordered(void **state)
{
	struct sample_result r;

	(void)state;
	/* both lines authentic, in the wrong order */
	r = judge(&native, report(signed_line(1, PASS2), signed_line(0, PASS1), signed_line(2, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* a line dropped: the next one's number is one too high */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(2, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* a line signed for a later place (the failure skipped) */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(2, PASS2), signed_line(3, DONE), NULL), SB_OK);
	assert_all_tampered(&r);
	sample_result_release(&r);
}

static void test_truncated(void **state)
{
	char *text;
	struct sample_result r;

	(void)state;
	/* the last line cut short (the driver died writing it): it cannot
	 * authenticate, so it counts as garbled like any other */
	text = report(signed_line(0, PASS1), signed_line(1, PASS2), signed_line(2, DONE), NULL);
	text[strlen(text) - 5] = '\0';
	r = judge(&native, text, SB_WALL_LIMIT);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* cut inside the MAC */
	text = report(signed_line(0, PASS1), signed_line(1, PASS2), NULL);
	text[strlen(text) - strlen(PASS2) - 20] = '\0';
	r = judge(&native, text, SB_SIGNALED);
	assert_all_tampered(&r);
	sample_result_release(&r);

	/* cut at a line's end: nothing garbled, the rest ends as the sandbox did */
	text = report(signed_line(0, PASS1), signed_line(1, PASS2), NULL);
	r = judge(&native, text, SB_WALL_LIMIT);
	assert_test(&r, "t1", TS_PASSED, NULL);
	assert_test(&r, "t2", TS_PASSED, NULL);
	sample_result_release(&r);
}

static void test_fates(void **state)
{
	static const struct {
		enum sandbox_status sb;
		enum test_status ts;
		const char *why;
	} cases[] = {
		{ SB_WALL_LIMIT, TS_TIMEOUT, "wall_limit" },
		{ SB_CPU_LIMIT, TS_TIMEOUT, "cpu_limit" },
		{ SB_MEMORY_LIMIT, TS_MEMORY, "memory_limit" },
		{ SB_OUTPUT_LIMIT, TS_OUTPUT_LIMIT, "output_limit" },
		{ SB_SIGNALED, TS_CRASH, "signaled" },
		{ SB_SECCOMP_VIOLATION, TS_CRASH, "seccomp_violation" },
		{ SB_FILE_SIZE_LIMIT, TS_CRASH, "file_size_limit" },
		{ SB_NONZERO_EXIT, TS_HARNESS_ERROR, "nonzero_exit" },
		{ SB_OK, TS_HARNESS_ERROR, "ok" },	/* the driver ended without its "done" */
		{ SB_SANDBOX_ERROR, TS_HARNESS_ERROR, "cannot mount '/work'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* t1 reported before the end keeps its verdict; t2 was not reached */
		struct sample_result r = judge(&native, report(signed_line(0, PASS1), NULL), cases[i].sb);

		assert_int_equal(r.n_tests, 2);
		assert_test(&r, "t1", TS_PASSED, NULL);
		assert_test(&r, "t2", cases[i].ts, cases[i].why);
		sample_result_release(&r);

		/* nothing reported at all */
		r = judge(&native, NULL, cases[i].sb);
		assert_int_equal(r.n_tests, 2);
		assert_test(&r, "t1", cases[i].ts, cases[i].why);
		assert_test(&r, "t2", cases[i].ts, cases[i].why);
		sample_result_release(&r);

		/* HumanEval: one stand-in for the tests not reached */
		r = judge(&humaneval, report(signed_line(0, PASS1), NULL), cases[i].sb);
		assert_int_equal(r.n_tests, 2);
		assert_test(&r, "t1", TS_PASSED, NULL);
		assert_test(&r, "(tests not reached)", cases[i].ts, cases[i].why);
		sample_result_release(&r);
	}
}

static void test_compile_error(void **state)
{
	struct sample_result r;

	(void)state;
	r = judge(&native, report(signed_line(0, "{\"compile\":\"compile_error\",\"detail\":\"a.c:1: error: expected ';'\"}"),
				  signed_line(1, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_test(&r, "t1", TS_COMPILE_ERROR, "a.c:1: error: expected ';'");
	assert_test(&r, "t2", TS_COMPILE_ERROR, "a.c:1: error: expected ';'");
	assert_int_equal(find(&r, "t2")->visibility, VIS_HOLDOUT);
	sample_result_release(&r);

	r = judge(&humaneval, report(signed_line(0, "{\"compile\":\"compile_error\"}"), signed_line(1, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 1);
	assert_test(&r, "compile", TS_COMPILE_ERROR, "");
	sample_result_release(&r);

	/* beside a line that does not authenticate, a crash like any other
	 * verdict (it was a compile_error; found by fuzz-verdict) */
	r = judge(&native, report(signed_line(0, "{\"compile\":\"compile_error\"}"), strdup("x\n"),
				  signed_line(1, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_all_tampered(&r);
	sample_result_release(&r);
}

static void test_harness_error(void **state)
{
	struct sample_result r;

	(void)state;
	/* the driver failed after t1: t2 is sandeval's fault, t1 stands */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(1, "{\"harness_error\":\"Traceback: boom\"}"),
				  NULL), SB_NONZERO_EXIT);
	assert_int_equal(r.n_tests, 2);
	assert_test(&r, "t1", TS_PASSED, NULL);
	assert_test(&r, "t2", TS_HARNESS_ERROR, "driver: Traceback: boom");
	sample_result_release(&r);

	/* even with "done" after it */
	r = judge(&native, report(signed_line(0, "{\"harness_error\":\"cannot make the driver non-dumpable\"}"),
				  signed_line(1, DONE), NULL), SB_OK);
	assert_test(&r, "t1", TS_HARNESS_ERROR, "driver: cannot make the driver non-dumpable");
	assert_test(&r, "t2", TS_HARNESS_ERROR, "driver: cannot make the driver non-dumpable");
	sample_result_release(&r);
}

static void test_done_missing(void **state)
{
	struct sample_result r;

	(void)state;
	/* every test reported, but no "done": the reported verdicts stand */
	r = judge(&native, report(signed_line(0, PASS1), signed_line(1, FAIL2), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_test(&r, "t1", TS_PASSED, NULL);
	assert_test(&r, "t2", TS_FAILED, NULL);
	sample_result_release(&r);

	/* HumanEval: whether all were reported is unknown, so a stand-in says the driver did not finish */
	r = judge(&humaneval, report(signed_line(0, PASS1), NULL), SB_OK);
	assert_int_equal(r.n_tests, 2);
	assert_test(&r, "(tests not reached)", TS_HARNESS_ERROR, "ok");
	sample_result_release(&r);

	/* with "done", nothing is added */
	r = judge(&humaneval, report(signed_line(0, PASS1), signed_line(1, DONE), NULL), SB_OK);
	assert_int_equal(r.n_tests, 1);
	sample_result_release(&r);
}

static void test_reader(void **state)
{
	struct verdict_reader vr;
	char *text;

	(void)state;
	/* the JSON of each line in order; empty lines are no lines */
	text = report(signed_line(0, PASS1), strdup("\n\n"), signed_line(1, DONE), NULL);
	verdict_reader_open(&vr, text, strlen(text), HEXKEY);
	assert_string_equal(verdict_next(&vr), PASS1);
	assert_string_equal(verdict_next(&vr), DONE);
	assert_null(verdict_next(&vr));
	assert_null(verdict_next(&vr));
	assert_false(vr.tampered);
	free(text);

	/* a bad line is skipped and marks the report; the next in sequence still reads */
	text = report(signed_line(0, PASS1), strdup("x\n"), signed_line(1, DONE), NULL);
	verdict_reader_open(&vr, text, strlen(text), HEXKEY);
	assert_string_equal(verdict_next(&vr), PASS1);
	assert_string_equal(verdict_next(&vr), DONE);
	assert_null(verdict_next(&vr));
	assert_true(vr.tampered);
	free(text);

	/* no report, an empty one */
	verdict_reader_open(&vr, NULL, 0, HEXKEY);
	assert_null(verdict_next(&vr));
	assert_false(vr.tampered);
	text = strdup("");
	verdict_reader_open(&vr, text, strlen(text), HEXKEY);
	assert_null(verdict_next(&vr));
	assert_false(vr.tampered);
	free(text);

	/* a MAC of 64 characters that are not all hex; a line of exactly "MAC " */
	text = signed_line(0, PASS1);
	text[0] = 'g';
	verdict_reader_open(&vr, text, strlen(text), HEXKEY);
	assert_null(verdict_next(&vr));
	assert_true(vr.tampered);
	free(text);
	text = signed_line(0, PASS1);
	text[65] = '\0';
	verdict_reader_open(&vr, text, strlen(text), HEXKEY);
	assert_null(verdict_next(&vr));
	assert_true(vr.tampered);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_authentic),
		cmocka_unit_test(test_bad_mac),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_replayed),
		cmocka_unit_test(test_reordered),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_fates),
		cmocka_unit_test(test_compile_error),
		cmocka_unit_test(test_harness_error),
		cmocka_unit_test(test_done_missing),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
