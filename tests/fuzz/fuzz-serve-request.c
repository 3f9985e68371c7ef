/* fuzz-serve-request.c - fuzz target: the service's request bodies, /run_code's (SandboxFusion's) and /v1/evaluate's */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve-internal.h"

/* What rc_parse lets through as a path: under /work, no "..", no empty component, printable. */
static int path_ok(const char *p)
{
	if (strncmp(p, "/work/", 6) == 0)
		p += 6;
	if (!*p || *p == '/' || strlen(p) > 255)
		return 0;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '\\')
			return 0;
	for (const char *c = p; c;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c = slash ? slash + 1 : NULL;
	}
	return 1;
}

static int message_ok(const char *msg)
{
	return strncmp(msg, "field '", 7) == 0 || strncmp(msg, "the body", 8) == 0 || strcmp(msg, "out of memory") == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_options o;
	struct rc_request rq;
	struct sd_error err = { 0 };

	serve_options_init(&o);
	o.suites[0] = (struct serve_suite){ "ex", "examples/tasks" };
	o.n_suites = 1;
	if (rc_parse((const char *)data, size, &o, &rq, &err) == 0) {
		FUZZ_CHECK(rq.code != NULL && rq.root != NULL);
		FUZZ_CHECK(strlen(rq.language) < sizeof(rq.language));
		FUZZ_CHECK(rq.run_timeout > 0 && rq.run_timeout <= o.max_time && isfinite(rq.run_timeout));
		FUZZ_CHECK(rq.compile_timeout > 0 && rq.compile_timeout <= o.max_time);
		FUZZ_CHECK(rq.memory >= (16ull << 20) && rq.memory <= o.max_memory);
		FUZZ_CHECK(rq.n_files <= 64 && rq.n_fetch <= 64);
		FUZZ_CHECK(!rq.stdin_data || rq.stdin_len <= size);
		for (size_t i = 0; i < rq.n_files; i++) {
			FUZZ_CHECK(path_ok(rq.files[i].path));
			FUZZ_CHECK(rq.files[i].data != NULL && rq.files[i].len <= size);
		}
		for (size_t i = 0; i < rq.n_fetch; i++)
			FUZZ_CHECK(path_ok(rq.fetch[i]));
		if (!rq.lang) {
			char *answer = rc_unknown_language(&rq);

			FUZZ_CHECK(answer != NULL && strstr(answer, "\"SandboxError\""));
			free(answer);
		}
	} else {
		FUZZ_CHECK(message_ok(err.msg));
	}
	rc_release(&rq);
	memset(&err, 0, sizeof(err));
	if (ev_check((const char *)data, size, &o, &err) < 0)
		FUZZ_CHECK(message_ok(err.msg));
	return 0;
}
