/* gate-report.h - the gate's verdict for people and tools: the terminal lines, JSON, JUnit XML */
#ifndef SANDEVAL_GATE_REPORT_H
#define SANDEVAL_GATE_REPORT_H

#include <stdio.h>

#include "base/error.h"
#include "score/gate.h"

/* BASE and CAND may be NULL (a cannot-judge
 * result from before loading). The last line of gate_print is the verdict:
 * "gate: PASS: …", "gate: REGRESSION: …" or "gate: CANNOT JUDGE: …". */
void gate_print(FILE *f, const struct gate_result *r, const struct gate_options *opt,
		const struct gate_run *base, const struct gate_run *cand);
int gate_write_json(const char *path, const struct gate_result *r, const struct gate_options *opt,
		    const struct gate_run *base, const struct gate_run *cand, struct sd_error *err);
/* JUnit XML: a testcase for the overall metric and one per class; <failure>
 * on a regression, <error> when the gate cannot judge. */
int gate_write_junit(const char *path, const struct gate_result *r, const struct gate_options *opt,
		     struct sd_error *err);
int gate_junit_write(FILE *f, const struct gate_result *r, const struct gate_options *opt);

#endif
