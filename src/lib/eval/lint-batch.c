/* lint-batch.c - lint a run's programs many to a sandbox, before its samples are evaluated: the reports go into the cache
 *
 * One lint sandbox per sample costs about as much as the sample's tests
 * (docs/lint.md, "Cost"). Before a run evaluates its samples, the pool's
 * process gathers the programs it will lint (lint_source), leaves out those
 * whose report is in its cache already and the repeats, and lints the rest in
 * batches: one lint sandbox per batch, built as a sample's is, whose driver
 * (runners/lint/lint.py, batch mode) first runs flake8 once and bandit once
 * over all the batch's files, each file's report cut back to exactly what it
 * alone would get (lint.py's together(); any doubt and nothing of that run is
 * used), then lints each file that run did not account for in turn, with the
 * tools and arguments it would use for a sample alone, after taking away what
 * the previous file could have left (the sandbox's other processes killed,
 * /work and /tmp emptied, the injected files written again, linecache
 * cleared), and prints one envelope per file. The batches go through
 * the pipeline's pool (pool.h), --jobs at a time; each envelope comes back
 * to the pool's process and is kept in its cache under the program's key
 * (lint_key: the same key lint_sample computes), with the batch's sandbox id.
 * The workers that then evaluate the samples are forked with a copy of that
 * cache: lint_sample finds each report there and judges it as it judges any
 * cached envelope (with the sample's own threshold and prompt lines).
 *
 * Nothing here decides a verdict, and nothing is kept that a sandbox of the
 * sample's own would not have printed: an envelope is kept only when its
 * batch's sandbox ended normally and every tool in it ran and was
 * understood (a sample `passed` or `failed`), exactly the envelopes the
 * cache keeps from a sample's own sandbox. A file whose envelope is missing
 * (its tools could not be run), a batch that failed
 * (out of memory, out of time, the driver killed), a program that is not
 * text jansson can carry: those samples find nothing in the cache and are
 * linted alone, in a sandbox of their own, as without batches. Why a hostile
 * file cannot change another file's findings: docs/lint.md, "Many samples
 * to a lint sandbox".
 */
#define _GNU_SOURCE
#include "eval/evaluator-internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "eval/lint.h"
#include "eval/pool.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

#define BATCH_MAX 32			/* files per lint sandbox */
#define BATCH_BYTES (1u << 20)		/* bytes of programs per lint sandbox */

struct item {
	size_t order;			/* its place among the run's */
	const char *language;
	const json_t *lang;
	char *code;
	unsigned char key[LINT_KEY_LEN];
};

struct batch {
	size_t first, n;		/* items[first .. first + n) */
};

struct batches {
	struct evaluator *ev;
	struct item *items;
	size_t n_items;
	struct batch *v;
	size_t n;
	size_t kept;			/* envelopes put in the cache */
	char warm_why[256];		/* a worker could not lint warm: why */
};

static int by_language(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->language, y->language);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* In a worker: lint batch JOB; *LINE: {"id": SANDBOX, "e": [ENVELOPE|null, ...], "warm": WHY}. */
void lint_batch_split(const char *out, size_t len, json_t *env)
{
	size_t n = json_array_size(env);

	for (const char *p = out, *end = out ? out + len : NULL; p && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		size_t idx = 0;
		const char *d;

		if (!nl)
			break;	/* a last line without its newline was cut short */
		sp = memchr(p, ' ', (size_t)(nl - p));
		/* INDEX: decimal digits only (no sign, no blanks, no overflow past N) */
		for (d = p; sp && d < sp && *d >= '0' && *d <= '9' && idx <= n; d++)
			idx = idx * 10 + (size_t)(*d - '0');
		if (sp && d == sp && sp > p && idx < n && json_is_null(json_array_get(env, idx))) {
			json_t *s = json_stringn(sp + 1, (size_t)(nl - sp - 1));	/* NULL: not UTF-8 */

			if (s)
				json_array_set_new(env, idx, s);
		}
		p = nl + 1;
	}
}

static int work(void *arg, size_t job, int stop_fd, char **line, struct sd_error *err)
{
	struct batches *b = arg;
	const struct batch *bt = &b->v[job];
	const json_t *lang = b->items[bt->first].lang;
	size_t n_tools = json_array_size(json_object_get(lang, "tools"));
	json_t *texts = json_array(), *env = json_array(), *answer;
	cleanup_free char *plan = NULL;
	struct sandbox_result sr;
	struct sd_error e = { 0 };
	double per = b->ev->o.lint_tool_timeout * (double)n_tools + 5.0;
	const char *why;
	bool ran = false;

	for (size_t i = 0; texts && env && i < bt->n; i++) {
		json_array_append_new(texts, json_string(b->items[bt->first + i].code));
		json_array_append_new(env, json_null());
	}
	if (!texts || !env || json_array_size(texts) != bt->n || !(plan = lint_plan(b->ev, lang, texts))) {
		json_decref(texts);
		json_decref(env);
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	}
	json_decref(texts);
	evaluator_set_cancel_fd(b->ev, stop_fd);	/* this worker's copy */
	if (lint_run_sandbox(b->ev, lang, NULL, plan, per * (double)bt->n + 10.0, &sr, &e) == 0) {
		ran = true;
		/* only from a batch that ended normally */
		if (sr.status == SB_OK)
			lint_batch_split(sr.stdout_buf, sr.stdout_len, env);
	} else if (e.code == EINTR) {
		json_decref(env);
		return sd_error_set(err, EINTR, "interrupted");
	}
	why = evaluator_lint_warm_error(b->ev);
	answer = json_pack("{s:s, s:o, s:s}", "id", ran ? sr.id : "", "e", env, "warm", why ? why : "");
	if (ran)
		sandbox_result_release(&sr);
	*line = answer ? json_dumps(answer, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(answer);
	return *line ? 0 : sd_error_set(err, ENOMEM, "lint: out of memory");
}

/* In the pool's process: keep batch JOB's envelopes that judge as passed or failed. */
static int done(void *arg, size_t job, const char *line, size_t len, struct sd_error *err)
{
	struct batches *b = arg;
	const struct batch *bt = &b->v[job];
	json_t *o = json_loadb(line, len, 0, NULL), *env = json_object_get(o, "e"), *t;
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *why = json_string_value(json_object_get(o, "warm"));
	size_t i;
	int ret = 0;

	if (why && *why && !b->warm_why[0])
		snprintf(b->warm_why, sizeof(b->warm_why), "%s", why);
	json_array_foreach(env, i, t) {
		struct item *it;
		struct sample_result r = { 0 };

		if (i >= bt->n || !json_is_string(t))
			continue;
		it = &b->items[bt->first + i];
		if (lint_read_envelope(json_string_value(t), json_string_length(t), "batch", it->lang,
				       b->ev->o.lint_threshold, 1, &r, err) < 0) {
			ret = -1;
		} else if (r.lint == LINT_PASSED || r.lint == LINT_FAILED) {
			if (lint_cache_put(b->ev->lint_cache, it->key, json_string_value(t), json_string_length(t),
					   id && *id ? id : "?") < 0)
				ret = sd_error_set(err, ENOMEM, "lint: out of memory");
			else
				b->kept++;
		}
		sample_result_release(&r);
		if (ret < 0)
			break;
	}
	json_decref(o);
	return ret;
}

static void worker_exit(void *arg)
{
	struct batches *b = arg;

	evaluator_free(b->ev);	/* this worker's copy: its lint zygote */
	b->ev = NULL;
}

/* The programs of ITEMS to lint: each once, none the cache has. */
static int gather(struct batches *b, const struct evaluator_item *items, size_t n, struct sd_error *err)
{
	struct evaluator *ev = b->ev;
	struct lint_cache *seen = lint_cache_new();

	if (!seen || !(b->items = calloc(n + 1, sizeof(*b->items)))) {
		lint_cache_free(seen);
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const char *language = items[i].task->language ? items[i].task->language : "python";
		const json_t *lang = lint_lang(ev, language);
		struct item *it = &b->items[b->n_items];
		cleanup_free char *plan = NULL;
		json_t *probe;
		size_t len;

		if (!lang || strcmp(language, "python") != 0)
			continue;	/* no linter (lint_sample says so), or not Python: linted alone (docs/lint.md) */
		plan = lint_plan(ev, lang, NULL);
		it->code = lint_source(items[i].task, items[i].sample);
		if (!plan || !it->code) {
			free(it->code);
			lint_cache_free(seen);
			return sd_error_set(err, ENOMEM, "lint: out of memory");
		}
		probe = json_string(it->code);	/* not UTF-8 text: not in a batch */
		if (!probe || strlen(it->code) > BATCH_BYTES || lint_key(ev, lang, plan, it->code, it->key) < 0 ||
		    lint_cache_get(ev->lint_cache, it->key, &len, NULL) || lint_cache_get(seen, it->key, &len, NULL)) {
			json_decref(probe);
			free(it->code);
			it->code = NULL;
			continue;
		}
		json_decref(probe);
		if (lint_cache_put(seen, it->key, "", 0, NULL) < 0) {
			free(it->code);
			lint_cache_free(seen);
			return sd_error_set(err, ENOMEM, "lint: out of memory");
		}
		it->order = b->n_items;
		it->language = language;
		it->lang = lang;
		b->n_items++;
	}
	lint_cache_free(seen);
	return 0;
}

/* Cut the items, sorted by language, into batches of one language, at most
 * BATCH_MAX files and BATCH_BYTES each, and at least two per worker when
 * there are that many files (so that the workers finish together). */
static int cut(struct batches *b, size_t workers, struct sd_error *err)
{
	size_t want, n_want, size;

	if (!b->n_items)
		return 0;
	qsort(b->items, b->n_items, sizeof(*b->items), by_language);
	want = (b->n_items + 2 * workers - 1) / (2 * workers);
	want = want < 1 ? 1 : want > BATCH_MAX ? BATCH_MAX : want;
	n_want = (b->n_items + want - 1) / want;
	size = (b->n_items + n_want - 1) / n_want;	/* even batches */
	if (!(b->v = calloc(b->n_items, sizeof(*b->v))))
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	for (size_t i = 0; i < b->n_items;) {
		struct batch *bt = &b->v[b->n++];
		size_t bytes = 0;

		bt->first = i;
		while (i < b->n_items && bt->n < size && strcmp(b->items[i].language, b->items[bt->first].language) == 0 &&
		       (bt->n == 0 || bytes + strlen(b->items[i].code) <= BATCH_BYTES)) {
			bytes += strlen(b->items[i].code);
			bt->n++;
			i++;
		}
	}
	return 0;
}

int evaluator_lint_batches(struct evaluator *ev, const struct evaluator_item *items, size_t n, size_t workers,
			   struct evaluator_batch_info *info, struct sd_error *err)
{
	static const struct pool_ops ops = { .work = work, .done = done, .worker_exit = worker_exit };
	struct batches b = { .ev = ev };
	size_t *jobs = NULL;
	int ret = 0;

	memset(info, 0, sizeof(*info));
	if (!ev->o.lint || !ev->o.lint_cache || n == 0)
		return 0;
	if (lint_load(ev, err) < 0)
		return -1;
	if (!ev->lint_cache && !(ev->lint_cache = lint_cache_new()))
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	if (gather(&b, items, n, err) < 0 || cut(&b, workers ? workers : 1, err) < 0 ||
	    !(jobs = calloc(b.n + 1, sizeof(*jobs)))) {
		ret = err->msg[0] ? -1 : sd_error_set(err, ENOMEM, "lint: out of memory");
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		jobs[i] = i;
	info->programs = b.n_items;
	info->batches = b.n;
	if (b.n && pool_run(&ops, &b, jobs, b.n, workers, ev->cancel_fd, err) < 0) {
		if (err->code == EINTR) {
			ret = -1;	/* interrupted: the caller stops */
			goto out;
		}
		/* not the run's failure: what did not come back is linted sample by sample */
		snprintf(info->failed, sizeof(info->failed), "%s", err->msg);
		memset(err, 0, sizeof(*err));
	}
	info->kept = b.kept;
	snprintf(info->warm_why, sizeof(info->warm_why), "%s", b.warm_why);
out:
	for (size_t i = 0; i < b.n_items; i++)
		free(b.items[i].code);
	free(b.items);
	free(b.v);
	free(jobs);
	return ret;
}
