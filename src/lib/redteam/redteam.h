/* redteam.h - the attack catalog run against the sandbox: each attack in a fresh sandbox, judged from the host (contained) and by its tripwires (detected)
 *
 * A catalog (runners/redteam/catalog.json, docs/redteam.md) lists attacks:
 * a name, a class, a program (runners/redteam/attack.py NAME) or a sample
 * for the evaluation pipeline (the verdict attacks), the limits, and what
 * must be seen: the tripwire counters that must move, per backend. For
 * each attack the host is looked at before and after (a canary file and a
 * secret in a host directory, listeners on host loopback ports and an
 * abstract socket, core_pattern and other kernel and cgroup files, the
 * mount table, processes of the run's uid, cgroups named after the run):
 * the attack is contained when nothing changed or was reached, and
 * detected when its expected counters moved. A counter the backend does
 * not keep (null) never counts as moved.
 */
#ifndef SANDEVAL_REDTEAM_H
#define SANDEVAL_REDTEAM_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "base/tripwire.h"

struct redteam_options {
	const char *backend;		/* "native" (default) or "gvisor" */
	const char *catalog;		/* NULL: <runners>/redteam/catalog.json */
	const char *runners_dir;	/* NULL: evaluator_runners_dir() */
	const char *only;		/* comma-separated names, or NULL: every attack */
};

/* One attack's outcome. */
struct redteam_result {
	const char *name;		/* the catalog's, owned by the run */
	const char *klass;		/* escape, exfiltration, metadata, dos, residue, tamper, reward-hacking, symlink */
	const char *description;
	bool contained;
	bool detected;
	char seen[256];			/* the counters that moved, "denied_syscalls.mount=1 ..." or "none" */
	char expected[256];		/* what had to move */
	char why[512];			/* what was not contained or not detected; "" when both hold */
	const char *status;		/* the sandbox's status, or the verdict for pipeline attacks */
	long long wall_ms;		/* the attack's time, host clock */
};

struct redteam;

/* Read the catalog and select the attacks (an unknown name in o->only is
 * an error naming it). NULL with *err on failure. */
struct redteam *redteam_open(const struct redteam_options *o, struct sd_error *err);
void redteam_free(struct redteam *rt);
/* The selected attacks' names and classes, without running them. */
size_t redteam_count(const struct redteam *rt);
const char *redteam_name(const struct redteam *rt, size_t i);
const char *redteam_class(const struct redteam *rt, size_t i);
const char *redteam_description(const struct redteam *rt, size_t i);
/* Run attack I in a fresh sandbox and judge it into *R. 0, or -1 with *err
 * when the harness itself failed (the host could not be looked at, the
 * sandbox could not start at all). */
int redteam_run(struct redteam *rt, size_t i, struct redteam_result *r, struct sd_error *err);

/* Output: a table for people, a JSON array, JUnit XML. */
void redteam_print_table(FILE *f, const struct redteam_result *rs, size_t n);
char *redteam_json(const struct redteam_result *rs, size_t n, const char *backend);
int redteam_junit(const char *path, const struct redteam_result *rs, size_t n, const char *backend,
		  struct sd_error *err);

#endif
