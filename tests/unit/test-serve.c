/* test-serve.c - unit tests of the service's parts that run no sandbox: /run_code's request and limits, /v1/evaluate's checks, metrics, the wire */
#include "fixture.h"

#include <jansson.h>
#include <sys/socket.h>

#include "serve/serve-internal.h"

static struct serve_options opts(void)
{
	struct serve_options o;

	serve_options_init(&o);
	return o;
}

static int parse(const char *body, struct rc_request *rq, struct sd_error *err)
{
	struct serve_options o = opts();

	return rc_parse(body, strlen(body), &o, rq, err);
}

static void test_run_code_defaults(void **state)
{
	struct rc_request rq;
	struct sd_error err = { 0 };

	(void)state;
	/* exactly what verl sends: SandboxFusion's fields, stdin null, empty files */
	if (parse("{\"compile_timeout\": 10, \"run_timeout\": 10, \"code\": \"print(1)\", \"stdin\": null,"
		  " \"memory_limit_MB\": -1, \"language\": \"python\", \"files\": {}, \"fetch_files\": []}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(rq.lang);
	assert_string_equal(rq.language, "python");
	assert_int_equal(rq.code_len, 8);
	assert_true(rq.run_timeout == 10.0 && rq.compile_timeout == 10.0);
	assert_int_equal(rq.memory, 512ull << 20);	/* -1: the server's default */
	assert_null(rq.stdin_data);
	assert_int_equal(rq.n_files, 0);
	assert_int_equal(rq.n_fetch, 0);
	rc_release(&rq);
	/* only the two required fields */
	if (parse("{\"code\": \"\", \"language\": \"cpp\"}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(rq.run_timeout == 10.0);
	rc_release(&rq);
}

static void test_run_code_limits_mapping(void **state)
{
	struct rc_request rq;
	struct sd_error err = { 0 };

	(void)state;
	/* above the server's maxima: clamped (60 s, 2G), not refused */
	if (parse("{\"code\": \"x\", \"language\": \"python\", \"run_timeout\": 1000, \"compile_timeout\": 0.25,"
		  " \"memory_limit_MB\": 100000}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(rq.run_timeout == 60.0);
	assert_true(rq.compile_timeout == 0.25);
	assert_int_equal(rq.memory, 2ull << 30);
	rc_release(&rq);
	if (parse("{\"code\": \"x\", \"language\": \"python\", \"memory_limit_MB\": 64.5}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(rq.memory, (uint64_t)(64.5 * 1048576));
	rc_release(&rq);
	if (parse("{\"code\": \"x\", \"language\": \"python\", \"memory_limit_MB\": 0}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(rq.memory, 512ull << 20);
	rc_release(&rq);
}

static void test_run_code_languages(void **state)
{
	static const char *const served[] = { "python", "python3", "cpp", "c++", "c", "nodejs", "js", "javascript", "bash" };
	static const char *const not_served[] = { "go", "java", "Python", "", "python\\u0000x" };
	struct rc_request rq;
	struct sd_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
		char *body = fx_str("{\"code\": \"x\", \"language\": \"%s\"}", served[i]);

		if (parse(body, &rq, &err) < 0)
			fail_msg("%s: %s", served[i], err.msg);
		if (!rq.lang)
			fail_msg("'%s' is not served", served[i]);
		rc_release(&rq);
		free(body);
	}
	for (size_t i = 0; i < sizeof(not_served) / sizeof(not_served[0]); i++) {
		char *body = fx_str("{\"code\": \"x\", \"language\": \"%s\"}", not_served[i]), *answer;
		json_t *o;

		if (parse(body, &rq, &err) < 0)
			fail_msg("%s: %s", not_served[i], err.msg);
		assert_null(rq.lang);
		answer = rc_unknown_language(&rq);
		o = json_loads(answer, 0, NULL);
		assert_non_null(o);
		assert_string_equal(json_string_value(json_object_get(o, "status")), "SandboxError");
		assert_contains(json_string_value(json_object_get(o, "message")), "unknown language");
		assert_true(json_is_null(json_object_get(o, "run_result")));
		assert_true(json_is_object(json_object_get(o, "files")));
		json_decref(o);
		free(answer);
		rc_release(&rq);
		free(body);
	}
}

static void test_run_code_files(void **state)
{
	struct rc_request rq;
	struct sd_error err = { 0 };

	(void)state;
	if (parse("{\"code\": \"x\", \"language\": \"python\", \"stdin\": \"in\\u0000put\","
		  " \"files\": {\"a.txt\": \"aGVsbG8=\", \"dir/b.bin\": \"AAE=\", \"/work/c\": \"\", \"skipped\": null},"
		  " \"fetch_files\": [\"out.txt\", \"/work/d/e\"]}", &rq, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(rq.stdin_len, 6);
	assert_memory_equal(rq.stdin_data, "in\0put", 6);
	assert_int_equal(rq.n_files, 3);
	assert_string_equal(rq.files[0].path, "a.txt");
	assert_string_equal(rq.files[0].data, "hello");
	assert_int_equal(rq.files[1].len, 2);
	assert_int_equal(rq.files[2].len, 0);
	assert_int_equal(rq.n_fetch, 2);
	assert_string_equal(rq.fetch[1], "/work/d/e");
	rc_release(&rq);
}

struct bad_case {
	const char *body;
	const char *msg;
};

static void test_run_code_errors_name_the_field(void **state)
{
	static const struct bad_case cases[] = {
		{ "", "the body is not JSON" },
		{ "{\"code\": \"x\", \"language\": \"python\"", "the body is not JSON" },
		{ "{\"code\": \"\xff\", \"language\": \"python\"}", "the body is not JSON: unable to decode byte 0xff" },
		{ "[1]", "the body: expected a JSON object, got an array" },
		{ "{\"language\": \"python\"}", "field 'code': missing" },
		{ "{\"code\": 5, \"language\": \"python\"}", "field 'code': expected a string, got an integer" },
		{ "{\"code\": \"x\"}", "field 'language': missing" },
		{ "{\"code\": \"x\", \"language\": [\"python\"]}", "field 'language': expected a string" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"run_timeout\": \"10\"}", "field 'run_timeout': expected a number" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"run_timeout\": 0}", "field 'run_timeout': expected a positive" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"compile_timeout\": -3}", "field 'compile_timeout': expected a positive" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"memory_limit_MB\": \"1G\"}", "field 'memory_limit_MB': expected a number" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"memory_limit_MB\": 8}", "field 'memory_limit_MB': at least 16" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"stdin\": 1}", "field 'stdin': expected a string" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": []}", "field 'files': expected an object" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"../x\": \"\"}}", "field 'files[\"../x\"]': expected a path" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"/etc/passwd\": \"\"}}", "field 'files[\"/etc/passwd\"]'" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"a//b\": \"\"}}", "field 'files[\"a//b\"]'" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"main.py\": \"\"}}", "field 'files[\"main.py\"]': the name of the code's own file" },
		{ "{\"code\": \"x\", \"language\": \"c\", \"files\": {\"main\": \"\"}}", "field 'files[\"main\"]': the name of the compiled program" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"a\": \"!!!!\"}}", "field 'files[\"a\"]': not base64 (at character 0)" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"files\": {\"a\": 7}}", "field 'files[\"a\"]': expected base64 text" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"fetch_files\": \"out\"}", "field 'fetch_files': expected an array" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"fetch_files\": [\"ok\", 3]}", "field 'fetch_files[1]': expected a path" },
		{ "{\"code\": \"x\", \"language\": \"python\", \"fetch_files\": [\"../../etc/shadow\"]}", "field 'fetch_files[0]'" },
		{ "{\"code\": \"x\", \"code\": \"y\", \"language\": \"python\"}", "the body is not JSON: duplicate object key" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rc_request rq;
		struct sd_error err = { 0 };

		if (parse(cases[i].body, &rq, &err) == 0)
			fail_msg("case %zu accepted: %s", i, cases[i].body);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: '%s' does not start with '%s'", i, err.msg, cases[i].msg);
		rc_release(&rq);
	}
}

static void test_evaluate_checks(void **state)
{
	static const struct bad_case cases[] = {
		{ "{}", "field 'tasks': missing" },
		{ "{\"tasks\": 3, \"samples\": [{}]}", "field 'tasks': expected a suite's name, a task or an array of tasks, got an integer" },
		{ "{\"tasks\": \"humaneval\", \"samples\": [{}]}", "field 'tasks': no suite 'humaneval' on this server" },
		{ "{\"tasks\": \"ex\", \"samples\": [{}]}", NULL },
		{ "{\"tasks\": {}}", "field 'samples': missing" },
		{ "{\"tasks\": {}, \"samples\": []}", "field 'samples': expected a non-empty array of samples, got an empty one" },
		{ "{\"tasks\": {}, \"samples\": {}}", "field 'samples': expected a non-empty array of samples, got an object" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"k\": [1, 0]}", "field 'k[1]': expected an integer from 1 to 100000" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"k\": 10}", "field 'k': expected an array" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"lint\": \"no\"}", "field 'lint': expected true or false" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"sanitize\": 1}", "field 'sanitize': expected true or false, got an integer" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"memory\": \"lots\"}", "field 'memory':" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"memory\": \"8M\"}", "field 'memory': expected 16M to" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"timeout\": 0}", "field 'timeout': expected seconds a test" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"seed\": -1}", "field 'seed': expected a non-negative integer" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"holdout\": \"some\"}", "field 'holdout': expected" },
		{ "{\"tasks\": {}, \"samples\": [{}], \"model\": 1}", "field 'model': expected a string" },
		{ "{\"tasks\": [], \"samples\": [{}], \"k\": [1, 10], \"lint\": false, \"memory\": \"256M\", \"seed\": 3,"
		  " \"holdout\": \"exclude\", \"timeout\": 2, \"model\": \"m\", \"sanitize\": true}", NULL },
	};
	struct serve_options o = opts();

	(void)state;
	o.suites[0] = (struct serve_suite){ "ex", "examples/tasks" };
	o.n_suites = 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		int r = ev_check(cases[i].body, strlen(cases[i].body), &o, &err);

		if (!cases[i].msg) {
			if (r < 0)
				fail_msg("case %zu refused: %s", i, err.msg);
			continue;
		}
		if (r == 0)
			fail_msg("case %zu accepted: %s", i, cases[i].body);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: '%s' does not start with '%s'", i, err.msg, cases[i].msg);
	}
}

static void test_metrics_text(void **state)
{
	struct metrics m = { 0 };
	struct metrics_gauges g = { .in_flight = 2, .queue_depth = 5, .workers = 2, .ready = true };
	char *t;

	(void)state;
	metrics_request(&m, EP_RUN_CODE, 200, 0.003);
	metrics_request(&m, EP_RUN_CODE, 200, 0.2);
	metrics_request(&m, EP_RUN_CODE, 503, 0.0001);
	metrics_request(&m, EP_RUN_CODE, 200, 1000);	/* past the last bucket: +Inf only */
	metrics_request(&m, EP_OTHER, 404, 0.001);
	m.rejections[REJ_QUEUE_FULL] = 1;
	m.sandbox_status[3] = 7;
	t = metrics_text(&m, &g);
	assert_non_null(t);
	assert_contains(t, "sandeval_serve_requests_total{endpoint=\"/run_code\",code=\"200\"} 3\n");
	assert_contains(t, "sandeval_serve_requests_total{endpoint=\"/run_code\",code=\"503\"} 1\n");
	assert_contains(t, "sandeval_serve_requests_total{endpoint=\"other\",code=\"404\"} 1\n");
	assert_contains(t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"/run_code\",le=\"0.005\"} 2\n");
	assert_contains(t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"/run_code\",le=\"0.25\"} 3\n");
	assert_contains(t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"/run_code\",le=\"300\"} 3\n");
	assert_contains(t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"/run_code\",le=\"+Inf\"} 4\n");
	assert_contains(t, "sandeval_serve_request_duration_seconds_count{endpoint=\"/run_code\"} 4\n");
	assert_contains(t, "# TYPE sandeval_serve_request_duration_seconds histogram\n");
	assert_contains(t, "sandeval_serve_sandboxes_in_flight 2\n");
	assert_contains(t, "sandeval_serve_queue_depth 5\n");
	assert_contains(t, "sandeval_serve_rejections_total{reason=\"queue_full\"} 1\n");
	assert_contains(t, "sandeval_serve_sandbox_status_total{status=\"cpu_limit\"} 7\n");
	assert_contains(t, "sandeval_serve_ready 1\n");
	assert_not_contains(t, "endpoint=\"/v1/evaluate\",le");	/* no histogram without requests */
	/* every line is a comment or NAME{...} VALUE */
	for (char *line = t, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (line[0] != '#' && !strchr(line, ' '))
			fail_msg("malformed line: %.*s", (int)(nl - line), line);
	}
	free(t);
}

static void test_wire_and_memfd(void **state)
{
	struct wire_job job = { .kind = JOB_RUN_GET, .id = 42, .arg = "r-0123" }, got;
	int sv[2], fd, rfd;
	char *back = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fd = memfd_of("test", "hello\0world", 11);
	assert_true(fd >= 0);
	assert_int_equal(wire_send(sv[0], &job, sizeof(job), fd), 0);
	close(fd);
	assert_int_equal(wire_recv(sv[1], &got, sizeof(got), &rfd), (ssize_t)sizeof(got));
	assert_int_equal(got.id, 42);
	assert_string_equal(got.arg, "r-0123");
	assert_true(rfd >= 0);
	assert_int_equal(fcntl(rfd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(memfd_read(rfd, 100, &back, &len), 0);
	assert_int_equal(len, 11);
	assert_memory_equal(back, "hello\0world", 11);
	free(back);
	assert_int_equal(memfd_read(rfd, 10, &back, &len), -1);	/* past the cap */
	assert_int_equal(errno, EFBIG);
	close(rfd);
	/* no descriptor, then the end */
	assert_int_equal(wire_send(sv[0], &job, sizeof(job), -1), 0);
	assert_int_equal(wire_recv(sv[1], &got, sizeof(got), &rfd), (ssize_t)sizeof(got));
	assert_int_equal(rfd, -1);
	close(sv[0]);
	assert_int_equal(wire_recv(sv[1], &got, sizeof(got), &rfd), 0);
	close(sv[1]);
}

static void test_error_json(void **state)
{
	char *t = error_json("bad_request", "field '%s': \"quoted\" \xff", "x\ny");
	json_t *o;

	(void)state;
	assert_non_null(t);
	o = json_loads(t, 0, NULL);
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 2);
	assert_string_equal(json_string_value(json_object_get(o, "error")), "bad_request");
	assert_string_equal(json_string_value(json_object_get(o, "message")), "field 'x\ny': \"quoted\" \xef\xbf\xbd");
	json_decref(o);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_code_defaults),
		cmocka_unit_test(test_run_code_limits_mapping),
		cmocka_unit_test(test_run_code_languages),
		cmocka_unit_test(test_run_code_files),
		cmocka_unit_test(test_run_code_errors_name_the_field),
		cmocka_unit_test(test_evaluate_checks),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_wire_and_memfd),
		cmocka_unit_test(test_error_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
