/* fuzz-result-json.c - fuzz target: sandbox_result_json() of untrusted program output must be valid JSON
 *
 * The input is cut into stdout, stderr, an event detail and an error text;
 * the JSON must parse, and stdout must come back as utf8_sanitize() made it.
 */
#include <jansson.h>
#include <string.h>

#include "fuzz.h"
#include "sandbox/sandbox-internal.h"
#include "base/utf8.h"

static char *copy(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	FUZZ_CHECK(s != NULL);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sandbox_result res;
	struct sandbox_event ev;
	size_t q = size / 4, clean_len;
	char *text, *clean;
	json_t *j, *out;
	json_error_t jerr;
	double value = 0;

	memset(&res, 0, sizeof(res));
	if (size >= sizeof(value))
		memcpy(&value, data, sizeof(value));	/* any double, NaN and infinities included */
	res.status = (enum sandbox_status)(size ? data[0] % 12 : 0);
	res.exit_code = size > 1 ? (int)(int8_t)data[1] : -1;
	res.signal = size > 2 ? data[2] % 70 : 0;
	res.cpu_ms = -1;
	res.peak_memory_bytes = (int64_t)size - 5;
	res.stdout_buf = copy(data, q);		/* raw, embedded NULs kept */
	res.stdout_len = q;
	res.stderr_buf = copy(data + q, q);
	res.stderr_len = q;
	ev.t_ms = 1;
	ev.phase = "execute";
	ev.detail = copy(data + 2 * q, q);
	res.events = &ev;
	res.n_events = 1;
	{
		size_t n = size - 3 * q < sizeof(res.error) - 1 ? size - 3 * q : sizeof(res.error) - 1;

		memcpy(res.error, data + 3 * q, n);
		res.error[n] = '\0';
	}
	sandbox_add_limit(&res, "cpu_time", value, "seconds", "cgroup-v2");
	sandbox_add_limit(&res, "memory", 1048576, "bytes", "rlimit");

	text = sandbox_result_json(&res);
	FUZZ_CHECK(text != NULL);
	j = json_loads(text, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
	FUZZ_CHECK(j != NULL);
	out = json_object_get(j, "stdout");
	FUZZ_CHECK(json_is_string(out));
	clean = utf8_sanitize(res.stdout_buf, res.stdout_len, &clean_len);
	FUZZ_CHECK(clean != NULL);
	FUZZ_CHECK(json_string_length(out) == clean_len);
	FUZZ_CHECK(memcmp(json_string_value(out), clean, clean_len) == 0);
	FUZZ_CHECK((json_object_get(j, "error") != NULL) == (res.status == SB_SANDBOX_ERROR));
	FUZZ_CHECK(json_is_string(json_object_get(j, "status")));
	FUZZ_CHECK(json_array_size(json_object_get(j, "events")) == 1);
	FUZZ_CHECK(json_object_get(json_object_get(j, "limits"), "memory") != NULL);

	free(clean);
	json_decref(j);
	free(text);
	free(res.stdout_buf);
	free(res.stderr_buf);
	free(ev.detail);
	return 0;
}
