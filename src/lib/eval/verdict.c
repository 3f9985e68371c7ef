/* verdict.c - the driver's report read back: each line authenticated in sequence, then turned into test results
 *
 * The driver (runners/driver.py) is the trusted side inside the sandbox; its
 * stdout, the verdict channel, is the only thing sandeval believes, and only
 * line by line as each authenticates under the plan's key in sequence
 * (docs/verdicts.md). What the driver did not report -- it died, ran out of
 * time or memory -- ends as the sandbox did. tests/fuzz/fuzz-verdict.c holds
 * the reader to this: no line that does not authenticate in sequence ever
 * yields a pass, and any such line makes every verdict a crash.
 */
#define _GNU_SOURCE
#include "eval/verdict.h"

#include <ctype.h>
#include <jansson.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void verdict_reader_open(struct verdict_reader *vr, char *buf, size_t len, const char *hexkey)
{
	memset(vr, 0, sizeof(*vr));
	vr->buf = buf;
	vr->len = buf ? len : 0;
	vr->key_ok = strlen(hexkey) == 2 * VERDICT_KEY_BYTES;
	for (size_t i = 0; vr->key_ok && i < VERDICT_KEY_BYTES; i++)
		vr->key_ok = sscanf(hexkey + 2 * i, "%2hhx", &vr->key[i]) == 1;
}

/* Does MAC_HEX (64 hex digits) authenticate "SEQ:JSON" under the key? */
static bool mac_ok(const struct verdict_reader *vr, const char *json, const char *mac_hex)
{
	unsigned char out[SHA256_DIGEST_SIZE], want[SHA256_DIGEST_SIZE];
	cleanup_free char *msg = xasprintf("%lu:%s", vr->seq, json);
	struct hmac_sha256_ctx ctx;

	if (!msg || !vr->key_ok)
		return false;
	for (size_t i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)mac_hex[2 * i]) || !isxdigit((unsigned char)mac_hex[2 * i + 1]) ||
		    sscanf(mac_hex + 2 * i, "%2hhx", &want[i]) != 1)
			return false;
	hmac_sha256_set_key(&ctx, sizeof(vr->key), vr->key);
	hmac_sha256_update(&ctx, strlen(msg), (const uint8_t *)msg);
	hmac_sha256_digest(&ctx, sizeof(out), out);
	return memeql_sec(out, want, sizeof(out));
}

char *verdict_next(struct verdict_reader *vr)
{
	while (vr->pos < vr->len) {
		char *line = vr->buf + vr->pos, *nl = memchr(line, '\n', vr->len - vr->pos);
		size_t n = nl ? (size_t)(nl - line) : vr->len - vr->pos;

		vr->pos += n + 1;
		if (n == 0)
			continue;
		line[n] = '\0';	/* the newline, or the NUL after the report */
		if (n > 65 && !memchr(line, '\0', n) && line[64] == ' ' && mac_ok(vr, line + 65, line)) {
			vr->seq++;
			return line + 65;
		}
		vr->tampered = true;
	}
	return NULL;
}

static const struct task_test *declared(const struct task *t, const char *name)
{
	for (size_t i = 0; i < t->n_tests; i++)
		if (strcmp(t->tests[i].name, name) == 0)
			return &t->tests[i];
	return NULL;
}

/* What a test the driver never reported ended as, given the sandbox's fate. */
static enum test_status fate(const struct sandbox_result *sr)
{
	switch (sr->status) {
	case SB_WALL_LIMIT:
	case SB_CPU_LIMIT:
		return TS_TIMEOUT;
	case SB_MEMORY_LIMIT:
		return TS_MEMORY;
	case SB_OUTPUT_LIMIT:
		return TS_OUTPUT_LIMIT;
	case SB_SIGNALED:
	case SB_SECCOMP_VIOLATION:
	case SB_FILE_SIZE_LIMIT:
		return TS_CRASH;
	default:
		return TS_HARNESS_ERROR;
	}
}

void verdict_read(const struct task *t, const struct sandbox_result *sr, const char *hexkey,
		  struct sample_result *r)
{
	struct verdict_reader vr;
	bool done = false, compile_failed = false;
	char compile_detail[4096] = "";
	char harness[2048] = "";

	verdict_reader_open(&vr, sr->stdout_buf, sr->stdout_len, hexkey);
	for (char *line = verdict_next(&vr); line; line = verdict_next(&vr)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *name, *status, *detail;

		if (!o)
			continue;
		if (json_is_true(json_object_get(o, "done"))) {
			done = true;
		} else if ((status = json_string_value(json_object_get(o, "compile")))) {
			compile_failed = true;
			detail = json_string_value(json_object_get(o, "detail"));
			snprintf(compile_detail, sizeof(compile_detail), "%s", detail ? detail : "");
		} else if ((detail = json_string_value(json_object_get(o, "harness_error")))) {
			snprintf(harness, sizeof(harness), "driver: %s", detail);
		} else if ((name = json_string_value(json_object_get(o, "test")))) {
			int st = test_status_parse(json_string_value(json_object_get(o, "status")));

			sample_result_add_test(r, name, st < 0 ? TS_HARNESS_ERROR : (enum test_status)st,
					       json_string_value(json_object_get(o, "detail")),
					       json_is_true(json_object_get(o, "in_process")), declared(t, name));
		}
		json_decref(o);
	}
	if (compile_failed && !vr.tampered) {
		for (size_t i = 0; i < t->n_tests; i++)
			sample_result_add_test(r, t->tests[i].name, TS_COMPILE_ERROR, compile_detail, false, &t->tests[i]);
		if (!t->n_tests)
			sample_result_add_test(r, "compile", TS_COMPILE_ERROR, compile_detail, false, NULL);
		return;
	}
	if (vr.tampered) {
		/* the candidate reached for the judge: every verdict of the sample is a crash */
		for (size_t i = 0; i < r->n_tests; i++) {
			r->tests[i].status = TS_CRASH;
			free(r->tests[i].detail);
			r->tests[i].detail = strdup(VERDICT_TAMPERED);
		}
		if (r->n_tests == 0 && t->n_tests == 0)
			sample_result_add_test(r, "(verdict channel)", TS_CRASH, VERDICT_TAMPERED, false, NULL);
	}
	if (done && !harness[0] && !vr.tampered)
		return;
	/* The driver did not finish: its tests not reported end as the sandbox
	 * did. A tampered report is the candidate's doing: a crash, whatever
	 * else it wrote (a harness error it forged included). */
	enum test_status st = vr.tampered ? TS_CRASH : harness[0] ? TS_HARNESS_ERROR : fate(sr);
	const char *why = vr.tampered ? VERDICT_TAMPERED : harness[0] ? harness : sandbox_status_name(sr->status);

	if (sr->status == SB_SANDBOX_ERROR)
		why = sr->error;
	if (t->n_tests) {
		for (size_t i = 0; i < t->n_tests; i++) {
			bool seen = false;

			for (size_t j = 0; j < r->n_tests && !seen; j++)
				seen = strcmp(r->tests[j].name, t->tests[i].name) == 0;
			if (!seen)
				sample_result_add_test(r, t->tests[i].name, st, why, false, &t->tests[i]);
		}
	} else if (!done) {
		sample_result_add_test(r, "(tests not reached)", st, why, false, NULL);
	}
}
