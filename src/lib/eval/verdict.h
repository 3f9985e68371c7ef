/* verdict.h - the driver's report read back: each line authenticated in sequence, then turned into test results */
#ifndef SANDEVAL_VERDICT_H
#define SANDEVAL_VERDICT_H

#include <stdbool.h>

#include "suite/result.h"
#include "sandbox/sandbox.h"
#include "suite/task.h"

/* The plan carries a fresh key of this many random bytes, in hex. */
#define VERDICT_KEY_BYTES 32
/* The detail of every verdict of a sample whose report did not authenticate. */
#define VERDICT_TAMPERED "the verdict channel was written to, read from or garbled by the candidate"

/* A report being read, line by line (docs/verdicts.md): each line is
 * "MAC JSON", MAC the hex HMAC-SHA256 under the plan's key of "SEQ:JSON"
 * (runners/driver.py, class Mac), SEQ counting the lines authenticated so
 * far from 0. A line that does not authenticate -- written, dropped or
 * garbled by someone else, which only the candidate can be -- is skipped
 * and marks the report as tampered with; so does a NUL byte anywhere (the
 * driver's JSON never holds one). Empty lines are no lines. The fields are
 * the reader's own: only `tampered` is for the caller to read. */
struct verdict_reader {
	char *buf;			/* the report, cut into lines in place */
	size_t len, pos;
	unsigned char key[VERDICT_KEY_BYTES];
	bool key_ok;			/* the hex key decoded (else no line authenticates) */
	unsigned long seq;		/* lines authenticated so far */
	bool tampered;			/* a line did not authenticate */
};

/* Read the LEN bytes at BUF, followed by a NUL (as a sandbox result's
 * stdout is; cut up in place; NULL: an empty report), as a report signed
 * under HEXKEY (2 * VERDICT_KEY_BYTES hex digits). */
void verdict_reader_open(struct verdict_reader *vr, char *buf, size_t len, const char *hexkey);
/* The JSON text of the next line that authenticates, or NULL at the end. */
char *verdict_next(struct verdict_reader *vr);

/* Turn the driver's report in SR's stdout (all stdout_len bytes, cut up in
 * place) and, for the
 * tests it did not report, the sandbox's fate into R's test results. A
 * report with a line that did not authenticate makes every verdict a crash
 * (VERDICT_TAMPERED), whatever else it said; a compile error, every test of
 * the task a compile_error; a test not reported ends as the sandbox did
 * (timeout, memory, crash...), or as a harness_error when the driver said
 * so or ended without its "done". */
void verdict_read(const struct task *t, const struct sandbox_result *sr, const char *hexkey,
		  struct sample_result *r);

#endif
