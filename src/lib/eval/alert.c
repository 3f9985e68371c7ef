/* alert.c - anomaly alerts: a run whose rate of tripwire events jumps against the earlier runs of its suite */
#define _GNU_SOURCE
#include "eval/alert.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base/tripwire.h"

enum { K_NETWORK, K_METADATA, K_DENIED, K_CPU, K_FORKS, N_KINDS };

static const char *const kind_names[N_KINDS] = {
	"network_attempts", "metadata_probes", "denied_syscalls", "cpu_full_budget", "fork_bombs",
};

static const char *const kind_text[N_KINDS] = {
	"network attempts", "metadata probes", "denied system calls", "samples that used their whole CPU budget",
	"fork bombs (samples stopped at the pids limit)",
};

struct counts {
	double events[N_KINDS];
	double samples;
};

void alert_options_init(struct alert_options *o)
{
	*o = (struct alert_options){ .factor = ALERT_DEFAULT_FACTOR, .min_rate = ALERT_DEFAULT_MIN_RATE,
				     .baseline_runs = ALERT_DEFAULT_BASELINE_RUNS };
}

static int count_run(struct store *st, const char *run_id, struct counts *c, struct sd_error *err)
{
	struct sample_result *v;
	size_t n;

	if (store_samples_load(st, run_id, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct tripwires *t = &v[i].tripwires;

		if (v[i].harness_error)
			continue;	/* sandeval's failure: no candidate ran */
		c->samples++;
		c->events[K_NETWORK] += t->network_attempts;
		c->events[K_METADATA] += t->metadata_probes;
		c->events[K_DENIED] += (double)(tripwires_escapes(t) - t->metadata_probes - t->writes_denied);
		c->events[K_CPU] += (t->limit_hits & TW_LIMIT_CPU) != 0;
		c->events[K_FORKS] += (t->limit_hits & TW_LIMIT_PIDS) != 0;
	}
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
	return 0;
}

/* The earlier finished runs of RUN's suite, the last LIMIT of them, counted together. */
static int baseline(struct store *st, const struct run_info *run, size_t limit, struct counts *c, size_t *runs,
		    struct sd_error *err)
{
	char **ids = NULL;
	size_t n = 0, self = 0;
	int ret = 0;

	*runs = 0;
	if (store_runs_list(st, &ids, &n, err) < 0)
		return -1;
	while (self < n && strcmp(ids[self], run->id) != 0)
		self++;
	for (size_t i = self; i-- > 0 && *runs < limit && ret == 0;) {
		struct run_info r;

		if (store_run_get(st, ids[i], &r, err) < 0) {
			ret = -1;
			break;
		}
		if (r.finished_ms && r.suite_hash && run->suite_hash && strcmp(r.suite_hash, run->suite_hash) == 0) {
			ret = count_run(st, ids[i], c, err);
			(*runs)++;
		}
		run_info_release(&r);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return ret;
}

char *alert_json(const struct run_alert *a)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:f, s:f, s:s}", "alert", "sandeval", "run_id", a->run_id,
			      "at_ms", (json_int_t)a->at_ms, "kind", a->kind, "rate_per_1000", a->rate,
			      "baseline_per_1000", a->baseline, "message", a->message);
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(o);
	return text;
}

/* Hand A to COMMAND (sh -c) on its stdin; its failure goes to *cmd_err. */
static void run_command(const char *command, const struct run_alert *a, struct sd_error *cmd_err)
{
	char *text = alert_json(a);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	FILE *p = text ? popen(command, "w") : NULL;
	int st;

	if (!p) {
		sd_error_errno(cmd_err, text ? errno : ENOMEM, "alert command '%s' could not be started", command);
	} else {
		fputs(text, p);
		fputc('\n', p);
		st = pclose(p);
		if (st == -1)
			sd_error_errno(cmd_err, errno, "alert command '%s'", command);
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			sd_error_set(cmd_err, EIO, "alert command '%s' failed: exit %d", command, WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			sd_error_set(cmd_err, EIO, "alert command '%s' failed: signal %d", command, WTERMSIG(st));
	}
	signal(SIGPIPE, old);
	free(text);
}

int alerts_check(struct store *st, const char *run_id, const struct alert_options *o, struct run_alert **v,
		 size_t *n, struct sd_error *cmd_err, struct sd_error *err)
{
	struct counts now = { 0 }, base = { 0 };
	struct run_info run;
	struct timespec ts;
	size_t runs, cap = 0;
	int ret = 0;

	*v = NULL;
	*n = 0;
	if (store_run_get(st, run_id, &run, err) < 0)
		return -1;
	if (count_run(st, run_id, &now, err) < 0 ||
	    baseline(st, &run, o->baseline_runs, &base, &runs, err) < 0) {
		run_info_release(&run);
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (int k = 0; k < N_KINDS && runs > 0 && now.samples > 0 && base.samples > 0 && ret == 0; k++) {
		double rate = now.events[k] * 1000.0 / now.samples, was = base.events[k] * 1000.0 / base.samples;
		char msg[512];

		if (rate < o->min_rate || rate <= o->factor * was)
			continue;
		snprintf(msg, sizeof(msg), "run %s: %s jumped to %.1f per 1,000 samples (%.0f in %.0f samples), "
			 "against %.1f in the %zu earlier run%s of its suite", run_id, kind_text[k], rate,
			 now.events[k], now.samples, was, runs, runs == 1 ? "" : "s");
		if (*n == cap) {
			struct run_alert *nv = realloc(*v, (cap = cap ? 2 * cap : 4) * sizeof(*nv));

			if (!nv) {
				ret = sd_error_set(err, ENOMEM, "alerts: out of memory");
				break;
			}
			*v = nv;
		}
		(*v)[*n] = (struct run_alert){ .at_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
					       .rate = rate, .baseline = was, .message = strdup(msg) };
		snprintf((*v)[*n].run_id, sizeof((*v)[*n].run_id), "%s", run_id);
		snprintf((*v)[*n].kind, sizeof((*v)[*n].kind), "%s", kind_names[k]);
		if (!(*v)[(*n)++].message) {
			ret = sd_error_set(err, ENOMEM, "alerts: out of memory");
			break;
		}
		if (store_alert_add(st, &(*v)[*n - 1], err) < 0) {
			ret = -1;
			break;
		}
		if (o->command)
			run_command(o->command, &(*v)[*n - 1], cmd_err);
	}
	run_info_release(&run);
	if (ret < 0) {
		run_alerts_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return ret;
}
