/* redteam.c - the attack catalog: read it, run each attack in a fresh sandbox (or through the evaluation pipeline), judge it
 *
 * An attack is one catalog entry (docs/redteam.md): either a program
 * ("program": attack.py's NAME, run as `python3 /work/attack.py NAME TOKEN`
 * with the catalog's limits by sandbox_run) or a sample ("eval": a task and
 * a sample, scored by evaluator_tests, the pipeline `sandeval run` uses).
 * Judging: contained is rt_host_check (nothing on the host changed or was
 * reached) and, for samples, no test passed; detected is every member of
 * the backend's "expect" holding against the supervisor's tripwires (or
 * the verdict). A counter the backend leaves uncounted never holds.
 */
#define _GNU_SOURCE
#include "redteam/redteam.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"
#include "base/util.h"
#include "eval/evaluator.h"
#include "eval/verdict.h"
#include "redteam/redteam-internal.h"
#include "sandbox/sandbox.h"
#include "suite/result.h"
#include "suite/task.h"

#define RT_MAX 128

struct rt_attack {
	const char *name, *klass, *description, *program;
	json_t *expect;			/* this backend's */
	json_t *limits;			/* the attack's own, over the catalog's */
	json_t *eval;			/* {task, sample}: through the pipeline */
};

struct redteam {
	struct redteam_options o;
	char *runners;
	char *dir;			/* the catalog's directory: its programs are there */
	json_t *catalog;
	json_t *limits;
	struct rt_attack all[RT_MAX];
	size_t n_all;
	size_t sel[RT_MAX];
	size_t n_sel;
	struct rt_host host;
	bool host_open;
	char env_text[8][PATH_MAX + 32];	/* the attack programs' environment */
	struct evaluator *ev;
};

static const char *const classes[] = {
	"escape", "exfiltration", "metadata", "dos", "residue", "tamper", "reward-hacking", "symlink", "benign", NULL,
};

static bool known_class(const char *c)
{
	for (size_t i = 0; classes[i]; i++)
		if (strcmp(classes[i], c) == 0)
			return true;
	return false;
}

/* The members an "expect" object may have. */
static const char *const expect_keys[] = {
	"denied_syscalls", "network_attempts", "metadata_probes", "writes_denied", "lingering_processes",
	"limit_hits", "status", "verdict", "any", "clean", NULL,
};

static int check_expect(const json_t *e, const char *where, struct sd_error *err)
{
	const char *k;
	json_t *v;

	if (!json_is_object(e) || json_object_size(e) == 0)
		return sd_error_set(err, EINVAL, "%s: not an object with what must be seen", where);
	json_object_foreach((json_t *)e, k, v) {
		size_t i;

		for (i = 0; expect_keys[i] && strcmp(expect_keys[i], k) != 0; i++)
			;
		if (!expect_keys[i])
			return sd_error_set(err, EINVAL, "%s: unknown member '%s'", where, k);
		if (strcmp(k, "any") == 0) {
			size_t j;
			json_t *alt;

			if (!json_is_array(v) || json_array_size(v) == 0)
				return sd_error_set(err, EINVAL, "%s: 'any' is not a non-empty array", where);
			json_array_foreach(v, j, alt)
				if (check_expect(alt, where, err) < 0)
					return -1;
		} else if (strcmp(k, "clean") == 0) {
			if (!json_is_true(v))
				return sd_error_set(err, EINVAL, "%s: 'clean' can only be true", where);
		} else if (i < 5 && k[0] != 'd') {	/* the counters */
			if (!json_is_integer(v) || json_integer_value(v) < 1)
				return sd_error_set(err, EINVAL, "%s: '%s' is not a count of at least 1", where, k);
		} else if (!json_is_string(v)) {
			return sd_error_set(err, EINVAL, "%s: '%s' is not a name", where, k);
		} else if (strcmp(k, "limit_hits") == 0) {
			unsigned b;

			for (b = 1; b <= TW_LIMIT_FILE_SIZE && strcmp(tripwire_limit_name(b), json_string_value(v)) != 0;
			     b <<= 1)
				;
			if (b > TW_LIMIT_FILE_SIZE)
				return sd_error_set(err, EINVAL, "%s: no limit '%s' (cpu, memory, pids, output, file_size)",
						    where, json_string_value(v));
		}
	}
	return 0;
}

static int load_attack(struct redteam *rt, json_t *a, size_t i, struct sd_error *err)
{
	struct rt_attack *at = &rt->all[rt->n_all];
	char where[64];
	json_t *e;

	snprintf(where, sizeof(where), "attacks[%zu]", i);
	if (json_unpack_ex(a, NULL, 0, "{s:s, s:s, s:s}", "name", &at->name, "class", &at->klass, "description",
			   &at->description) < 0)
		return sd_error_set(err, EINVAL, "%s: needs name, class and description (strings)", where);
	if (!known_class(at->klass))
		return sd_error_set(err, EINVAL, "%s ('%s'): unknown class '%s'", where, at->name, at->klass);
	for (size_t j = 0; j < rt->n_all; j++)
		if (strcmp(rt->all[j].name, at->name) == 0)
			return sd_error_set(err, EINVAL, "%s: attack '%s' listed twice", where, at->name);
	at->program = json_string_value(json_object_get(a, "program"));
	at->eval = json_object_get(a, "eval");
	if (!at->program == !at->eval)
		return sd_error_set(err, EINVAL, "%s ('%s'): needs one of 'program' and 'eval'", where, at->name);
	if (at->eval && (!json_is_object(json_object_get(at->eval, "task")) ||
			 !json_is_object(json_object_get(at->eval, "sample"))))
		return sd_error_set(err, EINVAL, "%s ('%s'): 'eval' needs a task and a sample", where, at->name);
	at->limits = json_object_get(a, "limits");
	e = json_object_get(a, "expect");
	if (strcmp(rt->o.backend, "native") != 0 && json_object_get(a, rt->o.backend))
		e = json_object_get(json_object_get(a, rt->o.backend), "expect");
	snprintf(where, sizeof(where), "attacks[%zu] ('%.30s'): expect", i, at->name);
	if (check_expect(e, where, err) < 0)
		return -1;
	at->expect = e;
	rt->n_all++;
	return 0;
}

static int select_attacks(struct redteam *rt, struct sd_error *err)
{
	cleanup_free char *copy = NULL, *unknown = NULL;
	char *save = NULL;

	if (!rt->o.only) {
		for (size_t i = 0; i < rt->n_all; i++)
			rt->sel[rt->n_sel++] = i;
		return 0;
	}
	copy = strdup(rt->o.only);
	if (!copy)
		return sd_error_errno(err, ENOMEM, "redteam");
	for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < rt->n_all && strcmp(rt->all[i].name, n) != 0; i++)
			;
		if (i == rt->n_all) {
			char *u = xasprintf("%s%s'%s'", unknown ? unknown : "", unknown ? ", " : "", n);

			free(unknown);
			unknown = u;
			continue;
		}
		bool dup = false;

		for (size_t j = 0; j < rt->n_sel; j++)
			dup |= rt->sel[j] == i;
		if (!dup)
			rt->sel[rt->n_sel++] = i;
	}
	if (unknown)
		return sd_error_set(err, EINVAL, "unknown attack %s (--list names them)", unknown);
	if (rt->n_sel == 0)
		return sd_error_set(err, EINVAL, "--only names no attack");
	return 0;
}

struct redteam *redteam_open(const struct redteam_options *o, struct sd_error *err)
{
	struct redteam *rt = calloc(1, sizeof(*rt));
	cleanup_free char *path = NULL;
	json_t *attacks, *a;
	size_t i;

	if (!rt) {
		sd_error_errno(err, ENOMEM, "redteam");
		return NULL;
	}
	rt->o = *o;
	if (!rt->o.backend)
		rt->o.backend = "native";
	if (strcmp(rt->o.backend, "native") != 0 && strcmp(rt->o.backend, "gvisor") != 0) {
		sd_error_set(err, EINVAL, "unknown backend '%s' (native or gvisor)", rt->o.backend);
		goto fail;
	}
	rt->runners = strdup(o->runners_dir ? o->runners_dir : evaluator_runners_dir());
	path = o->catalog ? strdup(o->catalog) : xasprintf("%s/redteam/catalog.json", rt->runners);
	if (!rt->runners || !path) {
		sd_error_errno(err, ENOMEM, "redteam");
		goto fail;
	}
	{
		char *slash = strrchr(path, '/');

		rt->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	}
	if (!(rt->catalog = json_load_path(path, err))) {
		sd_error_wrap(err, "cannot read catalog '%s'", path);
		goto fail;
	}
	attacks = json_object_get(rt->catalog, "attacks");
	rt->limits = json_object_get(rt->catalog, "limits");
	if (!json_is_array(attacks) || json_array_size(attacks) == 0 || json_array_size(attacks) > RT_MAX) {
		sd_error_set(err, EINVAL, "catalog '%s': 'attacks' is not an array of 1 to %d attacks", path, RT_MAX);
		goto fail;
	}
	json_array_foreach(attacks, i, a)
		if (load_attack(rt, a, i, err) < 0) {
			sd_error_wrap(err, "catalog '%s'", path);
			goto fail;
		}
	if (select_attacks(rt, err) < 0)
		goto fail;
	return rt;
fail:
	redteam_free(rt);
	return NULL;
}

void redteam_free(struct redteam *rt)
{
	if (!rt)
		return;
	if (rt->host_open)
		rt_host_close(&rt->host);
	evaluator_free(rt->ev);
	json_decref(rt->catalog);
	free(rt->runners);
	free(rt->dir);
	free(rt);
}

size_t redteam_count(const struct redteam *rt)
{
	return rt->n_sel;
}

const char *redteam_name(const struct redteam *rt, size_t i)
{
	return rt->all[rt->sel[i]].name;
}

const char *redteam_class(const struct redteam *rt, size_t i)
{
	return rt->all[rt->sel[i]].klass;
}

const char *redteam_description(const struct redteam *rt, size_t i)
{
	return rt->all[rt->sel[i]].description;
}

/* ---------------------------------------------------------------- limits */

/* The attack's limit NAME, else the catalog's, else DEF. */
static json_t *limit(const struct redteam *rt, const struct rt_attack *at, const char *name)
{
	json_t *v = json_object_get(at->limits, name);

	return v ? v : json_object_get(rt->limits, name);
}

static int set_limits(const struct redteam *rt, const struct rt_attack *at, struct sandbox_config *cfg,
		      struct sd_error *err)
{
	static const char *const secs[] = { "cpu_time", "wall_time" };
	static const char *const sizes[] = { "memory", "file_size", "tmpfs", "output" };
	uint64_t *size_dst[] = { &cfg->memory, &cfg->file_size, &cfg->tmpfs, &cfg->output };
	double *sec_dst[] = { &cfg->cpu_time, &cfg->wall_time };
	json_t *v;

	for (size_t k = 0; k < 2; k++)
		if ((v = limit(rt, at, secs[k]))) {
			if (!json_is_number(v) || json_number_value(v) <= 0)
				return sd_error_set(err, EINVAL, "'%s': limit '%s' is not a positive number", at->name, secs[k]);
			*sec_dst[k] = json_number_value(v);
		}
	for (size_t k = 0; k < 4; k++)
		if ((v = limit(rt, at, sizes[k])) &&
		    (!json_is_string(v) || parse_size(json_string_value(v), size_dst[k], err) < 0))
			return sd_error_set(err, EINVAL, "'%s': limit '%s' is not a size such as \"64M\"", at->name, sizes[k]);
	if ((v = limit(rt, at, "pids"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return sd_error_set(err, EINVAL, "'%s': limit 'pids' is not a positive integer", at->name);
		cfg->pids = (long)json_integer_value(v);
	}
	return 0;
}

/* ---------------------------------------------------------------- judging */

struct seen {
	const struct tripwires *t;	/* NULL for a pipeline attack without sandbox tripwires */
	const char *status;
	const char *verdict;		/* pipeline: "passed", "tampered", "failed", "harness_error" */
};

static bool holds(const json_t *e, const struct seen *s, char *miss, size_t cap);

static bool counter(const struct seen *s, const char *k, uint32_t *v, unsigned *bit)
{
	const struct tripwires *t = s->t;

	if (!t)
		return false;
	if (strcmp(k, "network_attempts") == 0 || strcmp(k, "metadata_probes") == 0) {
		*bit = TW_NETWORK;
		*v = k[0] == 'n' ? t->network_attempts : t->metadata_probes;
	} else if (strcmp(k, "writes_denied") == 0) {
		*bit = TW_WRITES;
		*v = t->writes_denied;
	} else {
		*bit = TW_LINGERING;
		*v = t->lingering_processes;
	}
	return !(t->uncounted & *bit);
}

static bool holds_one(const char *k, const json_t *v, const struct seen *s, char *miss, size_t cap)
{
	const char *want = json_string_value(v);
	uint32_t got;
	unsigned bit;

	if (strcmp(k, "any") == 0) {
		size_t i;
		json_t *alt;
		char sub[256] = "";

		json_array_foreach((json_t *)v, i, alt)
			if (holds(alt, s, sub, sizeof(sub)))
				return true;
		snprintf(miss, cap, "none of the alternatives (%s)", sub);
		return false;
	}
	if (strcmp(k, "status") == 0 || strcmp(k, "verdict") == 0) {
		const char *is = k[0] == 's' ? s->status : s->verdict;

		if (is && strcmp(is, want) == 0)
			return true;
		snprintf(miss, cap, "%s %s, not %s", k, is ? is : "unknown", want);
		return false;
	}
	if (!s->t) {
		snprintf(miss, cap, "%s: no tripwires", k);
		return false;
	}
	if (strcmp(k, "clean") == 0) {
		if (tripwires_total(s->t) == 0)
			return true;
		snprintf(miss, cap, "a counter moved");
		return false;
	}
	if (strcmp(k, "denied_syscalls") == 0) {
		if (s->t->uncounted & TW_SYSCALLS) {
			snprintf(miss, cap, "denied_syscalls not counted by this backend");
			return false;
		}
		for (uint32_t i = 0; i < s->t->n_denied; i++)
			if (s->t->denied[i].count && (strcmp(want, "*") == 0 || strcmp(s->t->denied[i].name, want) == 0))
				return true;
		snprintf(miss, cap, "denied_syscalls.%s did not move", want);
		return false;
	}
	if (strcmp(k, "limit_hits") == 0) {
		for (unsigned b = 1; b <= TW_LIMIT_FILE_SIZE; b <<= 1)
			if ((s->t->limit_hits & b) && strcmp(tripwire_limit_name(b), want) == 0)
				return true;
		snprintf(miss, cap, "limit_hits has no %s", want);
		return false;
	}
	if (!counter(s, k, &got, &bit)) {
		snprintf(miss, cap, "%s not counted by this backend (null)", k);
		return false;
	}
	if (got >= (uint32_t)json_integer_value(v))
		return true;
	snprintf(miss, cap, "%s %u, want at least %lld", k, got, (long long)json_integer_value(v));
	return false;
}

static bool holds(const json_t *e, const struct seen *s, char *miss, size_t cap)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)e, k, v)
		if (!holds_one(k, v, s, miss, cap))
			return false;
	return true;
}

/* The counters that moved, as "name=value" words. */
static void describe_seen(const struct tripwires *t, const char *extra, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
#define ADD(...) do { if (len < cap) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__); } while (0)
	if (extra)
		ADD("%s ", extra);
	if (t) {
		for (uint32_t i = 0; i < t->n_denied; i++)
			ADD("denied_syscalls.%s=%u ", t->denied[i].name, t->denied[i].count);
		if (t->network_attempts)
			ADD("network_attempts=%u ", t->network_attempts);
		if (t->metadata_probes)
			ADD("metadata_probes=%u ", t->metadata_probes);
		if (t->writes_denied)
			ADD("writes_denied=%u ", t->writes_denied);
		for (unsigned b = 1; b <= TW_LIMIT_FILE_SIZE; b <<= 1)
			if (t->limit_hits & b)
				ADD("limit_hits.%s ", tripwire_limit_name(b));
		if (t->lingering_processes)
			ADD("lingering_processes=%u ", t->lingering_processes);
	}
#undef ADD
	if (len && len < cap)
		buf[len - 1] = '\0';
	if (!buf[0])
		snprintf(buf, cap, "none");
}

static void compact(const json_t *e, char *buf, size_t cap)
{
	cleanup_free char *text = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);

	snprintf(buf, cap, "%s", text ? text : "?");
}

/* Appends to WHY what the attack itself said (its KEY=VALUE lines, on one
 * line, as much as fits): a miss then shows whether the attack was even
 * performed. */
static void add_said(char *why, size_t cap, const char *out, size_t len)
{
	size_t at = strlen(why);

	if (!out || !len || at + 16 >= cap)
		return;
	at += (size_t)snprintf(why + at, cap - at, "; it said: ");
	for (size_t i = 0; i < len && at + 1 < cap; i++)
		why[at++] = out[i] == '\n' ? ' ' : (unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e ? '?' : out[i];
	while (at > 0 && why[at - 1] == ' ')
		at--;
	why[at] = '\0';
}

/* ---------------------------------------------------------------- running */

static int run_program(struct redteam *rt, const struct rt_attack *at, struct redteam_result *r,
		       const struct rt_snap *before, struct sd_error *err)
{
	char *env[8];
	cleanup_free char *script = xasprintf("%s/%s", rt->dir ? rt->dir : ".", at->program);
	char *argv[] = { "python3", "/work/attack.py", (char *)at->name, rt->host.token, NULL };
	struct sandbox_file file = { .dest = "attack.py", .src = script };
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct seen s = { 0 };
	cleanup_free char *both = NULL;
	size_t n_env = rt_host_env(&rt->host, rt->env_text, 8);
	char miss[256] = "";

	for (size_t k = 0; k < n_env; k++)
		env[k] = rt->env_text[k];
	sandbox_config_init(&cfg);
	cfg.backend = rt->o.backend;
	cfg.argv = argv;
	cfg.files = &file;
	cfg.n_files = 1;
	cfg.env = env;
	cfg.n_env = n_env;
	if (set_limits(rt, at, &cfg, err) < 0 || sandbox_config_check(&cfg, err) < 0)
		return -1;
	if (sandbox_run(&cfg, &res, err) < 0)
		return sd_error_wrap(err, "attack '%s'", at->name);
	r->status = sandbox_status_name(res.status);
	both = malloc(res.stdout_len + res.stderr_len + 1);
	if (both) {
		memcpy(both, res.stdout_buf, res.stdout_len);
		memcpy(both + res.stdout_len, res.stderr_buf, res.stderr_len);
	}
	if (res.status == SB_SANDBOX_ERROR)
		snprintf(r->why, sizeof(r->why), "the sandbox failed: %s", res.error);
	/* a uid of the run's own only natively (gVisor's Sentry runs as nobody, as other things do) */
	r->contained = rt_host_check(&rt->host, before, res.id,
				     strcmp(rt->o.backend, "native") == 0 ? res.host_uid : 0, both,
				     both ? res.stdout_len + res.stderr_len : 0, r->why, sizeof(r->why)) &&
		       res.status != SB_SANDBOX_ERROR;
	s.t = &res.tripwires;
	s.status = r->status;
	r->detected = holds(at->expect, &s, miss, sizeof(miss));
	describe_seen(&res.tripwires, NULL, r->seen, sizeof(r->seen));
	if (!r->detected) {
		snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why), "%snot detected: %s",
			 r->why[0] ? "; " : "", miss);
		add_said(r->why, sizeof(r->why), res.stdout_buf, res.stdout_len);
	}
	sandbox_result_release(&res);
	return 0;
}

/* The pipeline's verdict of a sample: passed, tampered (the report did not authenticate), failed. */
static const char *verdict_of(const struct sample_result *sr)
{
	bool tampered = sr->n_tests > 0;

	if (sr->harness_error)
		return "harness_error";
	if (sr->passed)
		return "passed";
	for (size_t i = 0; i < sr->n_tests; i++)
		if (sr->tests[i].status == TS_PASSED)
			return "partly-passed";
	for (size_t i = 0; i < sr->n_tests; i++)
		tampered &= sr->tests[i].detail && strcmp(sr->tests[i].detail, VERDICT_TAMPERED) == 0;
	return tampered ? "tampered" : "failed";
}

static int run_eval(struct redteam *rt, const struct rt_attack *at, struct redteam_result *r,
		    const struct rt_snap *before, struct sd_error *err)
{
	struct task_set ts = { 0 };
	struct sample_set ss = { 0 };
	struct sample_result sr = { 0 };
	json_t *samples = json_pack("[O]", json_object_get(at->eval, "sample"));
	struct seen s = { 0 };
	char miss[256] = "", extra[64], first_id[40];
	int ret = -1;

	if (!rt->ev) {
		struct evaluator_options eo;

		evaluator_options_init(&eo);
		eo.backend = rt->o.backend;
		eo.runners_dir = rt->runners;
		eo.lint = false;
		eo.timeout = 2;
		eo.memory = 256 << 20;
		if (!(rt->ev = evaluator_new(&eo, err)))
			goto out;
	}
	if (!samples || task_set_from_json(json_object_get(at->eval, "task"), "task", &ts, err) < 0 ||
	    sample_set_from_json(samples, "sample", &ts, &ss, err) < 0 || ss.n != 1 ||
	    evaluator_prepare(rt->ev, ts.tasks, ts.n, err) < 0) {
		sd_error_wrap(err, "attack '%s'", at->name);
		goto out;
	}
	if (evaluator_tests(rt->ev, &ts.tasks[0], &ss.samples[0], NULL, &sr, err) < 0) {
		sd_error_wrap(err, "attack '%s'", at->name);
		goto out;
	}
	/* the sample's sandboxes destroyed before the host is looked at (a
	 * pooled gVisor sandbox's destruction otherwise waits for the next) */
	evaluator_settle(rt->ev);
	s.verdict = verdict_of(&sr);
	s.t = &sr.tripwires;
	r->status = s.verdict;
	/* the first of the sample's sandboxes (its tests'), by id */
	snprintf(first_id, sizeof(first_id), "%.*s", (int)strcspn(sr.sandbox_ids ? sr.sandbox_ids : "", ","),
		 sr.sandbox_ids ? sr.sandbox_ids : "");
	r->contained = rt_host_check(&rt->host, before, first_id, 0, NULL, 0, r->why, sizeof(r->why));
	if (sr.passed || strcmp(s.verdict, "partly-passed") == 0) {
		snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why), "%sthe forged sample was scored as passing",
			 r->why[0] ? "; " : "");
		r->contained = false;
	}
	if (sr.harness_error)
		snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why), "%sharness error",
			 r->why[0] ? "; " : "");
	r->detected = holds(at->expect, &s, miss, sizeof(miss));
	snprintf(extra, sizeof(extra), "verdict=%s", s.verdict);
	describe_seen(&sr.tripwires, extra, r->seen, sizeof(r->seen));
	if (!r->detected)
		snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why), "%snot detected: %s",
			 r->why[0] ? "; " : "", miss);
	ret = 0;
out:
	sample_result_release(&sr);
	sample_set_release(&ss);
	task_set_release(&ts);
	json_decref(samples);
	return ret;
}

int redteam_run(struct redteam *rt, size_t i, struct redteam_result *r, struct sd_error *err)
{
	const struct rt_attack *at = &rt->all[rt->sel[i]];
	struct rt_snap before;
	int64_t t0 = now_ms();
	int ret;

	*r = (struct redteam_result){ .name = at->name, .klass = at->klass, .description = at->description };
	compact(at->expect, r->expected, sizeof(r->expected));
	if (!rt->host_open) {
		if (rt_host_open(&rt->host, err) < 0) {
			rt_host_close(&rt->host);
			return -1;
		}
		rt->host_open = true;
	}
	rt_snap_take(&rt->host, &before);
	ret = at->program ? run_program(rt, at, r, &before, err) : run_eval(rt, at, r, &before, err);
	rt_snap_release(&before);
	r->wall_ms = now_ms() - t0;
	return ret;
}
