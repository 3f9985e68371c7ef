/* lint.c - lint one candidate in a fresh sandbox and judge it; a run's lint figures
 *
 * Which linters run for a language, with which arguments, is data:
 * runners/lint/lint.json. The sandbox's main program is runners/lint/lint.py,
 * a small trusted driver that runs each linter on the candidate's file and
 * prints one JSON envelope with every tool's exit status, stdout and stderr.
 * The sandbox is the one the tests run in (sandbox_run: host image read-only,
 * no network, memory, time, pids and output limits), because the candidate's
 * text is hostile input to the linters too. This file builds the plan, runs
 * the sandbox, and turns the envelope into findings (lint-parse.c parses
 * each tool's output) and a status: a linter that is not installed makes the
 * sample `unavailable`, one that fails makes it `error`; neither is a pass.
 *
 * Each sandbox is cloned from the process's lint zygote when it can be
 * (runners/lint/zygote.py: flake8 and bandit loaded once; the driver runs
 * them warm), and a program linted before in this process is not linted
 * again: the envelope kept for its key (lint_key, lint-cache.c) is judged
 * anew. docs/lint.md, "Warm linters, and reports reused".
 */
#define _GNU_SOURCE
#include "eval/lint.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/evaluator-internal.h"
#include "sandbox/sandbox.h"
#include "score/score.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "base/util.h"

#define LINT_DIR "/work/.sandeval"
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define TOOL_OUTPUT (256u << 10)	/* bytes of each tool's stdout and stderr the driver reports */
#define MAX_FILES 8

int lint_first_line(const struct task *task, const struct sample *sample)
{
	int n = 1;

	if (task->format == TASK_HUMANEVAL && sample->is_completion && task->prompt)
		for (const char *p = task->prompt; *p && n < INT_MAX; p++)
			n += *p == '\n';
	return n;	/* a prompt without a final newline shares its last line with the completion */
}

char *lint_source(const struct task *task, const struct sample *sample)
{
	/* a completion is linted with the prompt it completes (HumanEval, HumanEval+, and the
	 * program tasks' prompt, without their tests) */
	if ((task->format == TASK_HUMANEVAL || task->format == TASK_EVALPLUS || task->format == TASK_PROGRAM) &&
	    sample->is_completion && task->prompt)
		return xasprintf("%s%s", task->prompt, sample->code ? sample->code : "");
	return strdup(sample->code ? sample->code : "");
}

/* --- runners/lint: lint.json and the files it injects, read once per evaluator --- */

struct lint_file {
	char *name, *text;
	size_t len;
};

struct lint_conf {
	json_t *def;
	struct lint_file files[MAX_FILES];
	size_t n_files;
};

void lint_conf_free(struct lint_conf *c)
{
	if (!c)
		return;
	json_decref(c->def);
	for (size_t i = 0; i < c->n_files; i++) {
		free(c->files[i].name);
		free(c->files[i].text);
	}
	free(c);
}

static int load_conf(struct lint_conf *conf, const char *dir, struct sd_error *err)
{
	cleanup_free char *path = xasprintf("%s/lint/lint.json", dir);
	json_error_t je;
	json_t *files, *f, *v;
	const char *key;
	size_t i;

	if (!path)
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	conf->def = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!conf->def)
		return sd_error_set(err, ENOENT, "cannot read '%s': %d:%d: %s (set SANDEVAL_RUNNERS)", path,
				    je.line, je.column, je.text);
	files = json_object_get(conf->def, "files");
	if (!json_is_array(files) || json_array_size(files) > MAX_FILES)
		goto bad;
	json_array_foreach(files, i, f) {
		const char *name = json_string_value(f);
		cleanup_free char *fp = name ? xasprintf("%s/lint/%s", dir, name) : NULL;
		struct lint_file *lf = &conf->files[conf->n_files];

		if (!name || !*name || strchr(name, '/'))
			goto bad;
		if (!fp || read_file(fp, 1 << 20, &lf->text, &lf->len, err) < 0)
			return sd_error_wrap(err, "'%s'", path);
		lf->name = strdup(name);
		conf->n_files++;
		if (!lf->name)
			goto oom;
	}
	json_object_foreach(conf->def, key, v) {
		json_t *tools = json_object_get(v, "tools"), *t;

		if (!json_is_object(v))
			continue;	/* "comment", "files" */
		if (!json_is_string(json_object_get(v, "source")) || !json_is_array(tools))
			goto bad;
		json_array_foreach(tools, i, t) {
			const char *name = json_string_value(json_object_get(t, "name"));
			json_t *argv = json_object_get(t, "argv");
			bool known = false;

			for (size_t k = 0; name && lint_tools[k]; k++)
				known = known || strcmp(name, lint_tools[k]) == 0;
			if (!known) {
				return sd_error_set(err, EINVAL, "%s: %s.tools[%zu]: \"name\" must be one of flake8, "
						    "bandit, cppcheck, clang-tidy, eslint", path, key, i);
			}
			if (!json_is_array(argv) || json_array_size(argv) == 0)
				goto bad;
		}
	}
	return 0;
oom:
	return sd_error_set(err, ENOMEM, "lint: out of memory");
bad:
	return sd_error_set(err, EINVAL, "%s: needs \"files\" (at most %d names) and, per language, "
			    "\"source\" and \"tools\" with \"name\" and \"argv\"", path, MAX_FILES);
}

int lint_load(struct evaluator *ev, struct sd_error *err)
{
	struct lint_conf *c;

	if (ev->lint)
		return 0;
	if (!(c = calloc(1, sizeof(*c))))
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	if (load_conf(c, ev->runners_dir, err) < 0) {
		lint_conf_free(c);
		return -1;
	}
	ev->lint = c;
	return 0;
}

/* --- the plan, the sandbox, the envelope --- */

/* A lint.json argument with {dir} and {source} filled in. */
static json_t *fill(const char *in, const char *source)
{
	char buf[2048];
	size_t n = 0;

	while (in && *in && n < sizeof(buf) - 300) {
		if (strncmp(in, "{dir}", 5) == 0) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", LINT_DIR);
			in += 5;
		} else if (strncmp(in, "{source}", 8) == 0) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "/work/%s", source);
			in += 8;
		} else {
			buf[n++] = *in++;
		}
	}
	buf[n] = '\0';
	return json_string(buf);
}

static const char *tool_path(const struct evaluator_options *o)
{
	const char *env = getenv("SANDEVAL_LINT_PATH");

	if (o->lint_tool_path)
		return o->lint_tool_path;
	return env && *env ? env : DEFAULT_PATH;
}

const json_t *lint_lang(const struct evaluator *ev, const char *language)
{
	const json_t *lang = json_object_get(ev->lint->def, language ? language : "python");

	return json_is_object(lang) && json_array_size(json_object_get(lang, "tools")) ? lang : NULL;
}

char *lint_plan(const struct evaluator *ev, const json_t *lang, json_t *batch)
{
	const struct evaluator_options *o = &ev->o;
	const char *source = json_string_value(json_object_get(lang, "source"));
	json_t *tools = json_array(), *t, *plan;
	size_t i;
	char *text;

	json_array_foreach(json_object_get(lang, "tools"), i, t) {
		json_t *argv = json_array(), *a;
		size_t j;

		json_array_foreach(json_object_get(t, "argv"), j, a)
			json_array_append_new(argv, fill(json_string_value(a), source));
		json_array_append_new(tools, json_pack("{s:O, s:o, s:o}", "name", json_object_get(t, "name"),
						       "argv", argv, "env",
						       json_is_object(json_object_get(t, "env")) ?
						       json_deep_copy(json_object_get(t, "env")) : json_object()));
	}
	plan = json_pack("{s:s, s:f, s:I, s:o}", "path", tool_path(o), "timeout", o->lint_tool_timeout,
			 "max_output", (json_int_t)TOOL_OUTPUT, "tools", tools);
	if (plan && batch) {	/* lint.py's batch mode: these texts, one after the other, each at /work/SOURCE */
		json_object_set(plan, "batch", batch);
		json_object_set_new(plan, "source", fill("{source}", source));
	}
	text = plan ? json_dumps(plan, JSON_COMPACT) : NULL;
	json_decref(plan);
	return text;
}

int lint_run_sandbox(struct evaluator *ev, const json_t *lang, const char *code, const char *plan, double wall,
		     struct sandbox_result *sr, struct sd_error *err)
{
	const struct evaluator_options *o = &ev->o;
	const struct lint_conf *conf = ev->lint;
	char *argv[] = { "python3", "-I", "-S", LINT_DIR "/lint.py", NULL };
	struct sandbox_file files[MAX_FILES + 1];
	char dests[MAX_FILES + 1][300];
	struct sandbox_config cfg;
	size_t n = 0;

	for (size_t i = 0; i < conf->n_files; i++, n++) {
		snprintf(dests[n], sizeof(dests[n]), ".sandeval/%s", conf->files[i].name);
		files[n] = (struct sandbox_file){ .dest = dests[n], .src = conf->files[i].name,
						  .data = conf->files[i].text, .len = conf->files[i].len,
						  .shared = true };
	}
	if (code) {
		snprintf(dests[n], sizeof(dests[n]), "%s", json_string_value(json_object_get(lang, "source")));
		files[n] = (struct sandbox_file){ .dest = dests[n], .src = dests[n], .data = code, .len = strlen(code) };
		n++;
	}
	sandbox_config_init(&cfg);
	cfg.backend = o->backend;
	cfg.argv = argv;
	cfg.files = files;
	cfg.n_files = n;
	cfg.stdin_data = plan;
	cfg.stdin_len = strlen(plan);
	cfg.memory = o->lint_memory;
	/* the driver holds each linter to its timeout; these are the backstops */
	cfg.wall_time = wall;
	cfg.cpu_time = cfg.wall_time;
	cfg.pids = 64;
	cfg.output = 8u << 20;
	cfg.zygote = evaluator_lint_zygote(ev);
	cfg.pool = evaluator_pool(ev);
	cfg.log_path = ev->o.log_path;
	cfg.cancel_fd = ev->cancel_fd;
	return eval_sandbox_run(&cfg, sr, err);
}

/* Append ", " and the formatted text to *buf (a growing detail message). */
__attribute__((format(printf, 2, 3)))
static void note(char **buf, const char *fmt, ...)
{
	char *add = NULL, *joined;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		add = NULL;
	va_end(ap);
	if (!add)
		return;
	joined = *buf ? xasprintf("%s; %s", *buf, add) : strdup(add);
	free(add);
	if (joined) {
		free(*buf);
		*buf = joined;
	}
}

/* The first line of a tool's stderr, at most 200 bytes, for messages. */
static void first_line(const char *s, char *out, size_t cap)
{
	size_t n = s ? strcspn(s, "\n") : 0;

	if (n > 200)
		n = 200;
	snprintf(out, cap, "%.*s", (int)n, s ? s : "");
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

struct outcome {
	char *missing, *failed, *ran;
};

/* Read the envelope into FS and the outcome lists. */
static void read_envelope(const char *text, size_t len, const char *fate, const json_t *lang,
			  struct lint_findings *fs, struct outcome *oc)
{
	json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
	json_t *tools = json_object_get(doc, "tools"), *want = json_object_get(lang, "tools"), *decl;
	const char *source = json_string_value(json_object_get(lang, "source"));
	cleanup_free char *path = xasprintf("/work/%s", source ? source : "");
	size_t i;

	if (!json_is_object(doc) || !json_is_array(tools) || json_array_size(tools) != json_array_size(want)) {
		note(&oc->failed, "the lint driver did not finish (%s)", fate ? fate : "its report does not parse");
		json_decref(doc);
		return;
	}
	json_array_foreach(want, i, decl) {
		json_t *t = json_array_get(tools, i);
		const char *name = json_string_value(json_object_get(decl, "name"));
		const char *pkg = json_string_value(json_object_get(decl, "package"));
		json_t *exit_code = json_object_get(t, "exit");
		json_t *jout = json_object_get(t, strcmp(name ? name : "", "cppcheck") == 0 ? "stderr" : "stdout");
		char line[256];
		struct sd_error e = { 0 };

		if (!name)
			continue;
		first_line(json_string_value(json_object_get(t, "stderr")), line, sizeof(line));
		if (!json_is_object(t) || !json_is_string(json_object_get(t, "name")) ||
		    strcmp(json_string_value(json_object_get(t, "name")), name) != 0) {
			note(&oc->failed, "%s: no report from the lint driver", name);
		} else if (json_is_true(json_object_get(t, "missing"))) {
			note(&oc->missing, "%s is not installed (Debian package %s)", name, pkg ? pkg : name);
		} else if (json_is_true(json_object_get(t, "timed_out"))) {
			note(&oc->failed, "%s timed out", name);
		} else if (!json_is_integer(exit_code) || json_integer_value(exit_code) < 0 ||
			   json_integer_value(exit_code) > 255) {
			note(&oc->failed, "%s was killed by signal %lld", name,
			     (long long)json_integer_value(json_object_get(t, "signal")));
		} else if (lint_parse(name, json_string_value(jout), json_string_length(jout),
				      (int)json_integer_value(exit_code), path, fs, &e) < 0) {
			note(&oc->failed, "%s%s%s", e.msg, line[0] ? ": " : "", line);
		} else {
			json_int_t files = json_integer_value(json_object_get(t, "files"));

			/* lint.py's batch mode ran the tool once over many files: this is one file's share */
			if (files > 1)
				note(&oc->ran, "%s %.2f s (its share of one run over %lld files)", name,
				     json_number_value(json_object_get(t, "seconds")), (long long)files);
			else
				note(&oc->ran, "%s %.2f s", name, json_number_value(json_object_get(t, "seconds")));
		}
	}
	json_decref(doc);
}

/* Leave out of FS the findings on lines before FIRST_LINE; their count. */
static size_t drop_before(struct lint_findings *fs, int first_line)
{
	size_t kept = 0, gone = 0;

	for (size_t i = 0; i < fs->n; i++) {
		if (fs->v[i].line > 0 && fs->v[i].line < first_line) {
			fs->n_by_severity[fs->v[i].severity]--;
			lint_finding_release(&fs->v[i]);
			gone++;
		} else {
			fs->v[kept++] = fs->v[i];
		}
	}
	fs->n = kept;
	return gone;
}

int lint_read_envelope(const char *text, size_t len, const char *fate, const json_t *lang,
		       enum lint_severity threshold, int first_line, struct sample_result *r, struct sd_error *err)
{
	struct lint_findings fs = { 0 };
	struct outcome oc = { 0 };
	size_t kept, on_task;

	read_envelope(text, len, fate, lang, &fs, &oc);
	on_task = drop_before(&fs, first_line);
	free(r->lint_detail);
	r->lint_detail = NULL;
	if (oc.missing) {
		r->lint = LINT_UNAVAILABLE;
		r->lint_detail = oc.failed ? xasprintf("%s; %s", oc.missing, oc.failed) : strdup(oc.missing);
	} else if (oc.failed) {
		r->lint = LINT_ERROR;
		r->lint_detail = strdup(oc.failed);
	} else {
		size_t total = fs.n + fs.dropped, above = 0;

		for (int s = (int)threshold; s <= LINT_SEV_ERROR; s++)
			above += fs.n_by_severity[s];
		r->lint = lint_judge(&fs, threshold);
		char task_lines[96] = "";

		if (on_task)
			snprintf(task_lines, sizeof(task_lines), "; %zu more on the task's own lines (its prompt), "
				 "not counted", on_task);
		r->lint_detail = xasprintf("%s; %zu finding%s, %zu at or above %s%s%s", oc.ran ? oc.ran : "no linter ran",
					   total, total == 1 ? "" : "s", above, lint_severity_name(threshold),
					   total > LINT_MAX_KEPT ? " (the most severe 100 kept)" : "", task_lines);
	}
	free(oc.missing);
	free(oc.failed);
	free(oc.ran);
	if (r->lint_detail) {
		/* tool messages cut at a byte count: valid UTF-8 again, for JSON, and no control bytes */
		size_t dl;
		char *clean = utf8_sanitize(r->lint_detail, strlen(r->lint_detail), &dl);

		free(r->lint_detail);
		r->lint_detail = clean;
		for (char *c = clean; c && *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
	}

	/* the most severe LINT_MAX_KEPT findings are recorded, each severity in
	 * the order the tools reported them (tool by tool, mostly by line) */
	kept = fs.n < LINT_MAX_KEPT ? fs.n : LINT_MAX_KEPT;
	for (size_t i = 0; i < r->n_findings; i++)
		lint_finding_release(&r->findings[i]);
	free(r->findings);
	r->findings = NULL;
	r->n_findings = 0;
	if (kept) {
		r->findings = calloc(kept, sizeof(*r->findings));
		if (!r->findings) {
			lint_findings_release(&fs);
			return sd_error_set(err, ENOMEM, "lint: out of memory");
		}
		for (int sev = LINT_SEV_ERROR; sev >= LINT_SEV_STYLE; sev--) {
			for (size_t i = 0; i < fs.n; i++) {
				if ((int)fs.v[i].severity != sev || !fs.v[i].tool)
					continue;
				if (r->n_findings < kept) {
					r->findings[r->n_findings++] = fs.v[i];
					memset(&fs.v[i], 0, sizeof(fs.v[i]));	/* moved */
				}
			}
		}
	}
	lint_findings_release(&fs);
	if (!r->lint_detail)
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	return 0;
}

/* --- the cache's key (lint-cache.c) --- */

/* What identifies the executable NAME on PATH now: its real path, device,
 * inode, size and modification time (a linter upgraded mid-run is another
 * linter), or "absent". */
static void key_tool(struct sha256_ctx *ctx, const char *name, const char *path)
{
	char buf[PATH_MAX + 128] = "absent";
	bool direct = name && strchr(name, '/');	/* a path: looked up as it is, once */

	for (const char *dir = direct ? "" : path; name && (direct || *dir);
	     dir += strcspn(dir, ":"), dir += *dir == ':') {
		char exe[PATH_MAX], real[PATH_MAX];
		struct stat st;

		if (direct)
			snprintf(exe, sizeof(exe), "%s", name);
		else
			snprintf(exe, sizeof(exe), "%.*s/%s", (int)strcspn(dir, ":"), dir, name);
		direct = false;
		if (access(exe, X_OK) == 0 && realpath(exe, real) && stat(real, &st) == 0) {
			snprintf(buf, sizeof(buf), "%s %llu %llu %lld %lld.%09ld", real, (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
				 st.st_mtim.tv_nsec);
			break;
		}
	}
	hash_update_lp(ctx, buf, strlen(buf));
}

/* KEY: SHA-256 over everything the envelope depends on: the plan (tools,
 * argv, env, PATH, timeout, output cap), the injected files, the file name,
 * each linter's identity, the program. 0, or -1 (no key: do not cache). */
int lint_key(const struct evaluator *ev, const json_t *lang, const char *plan, const char *code,
	     unsigned char *key)
{
	struct sha256_ctx sha, *ctx = &sha;
	const char *source = json_string_value(json_object_get(lang, "source"));
	json_t *t;
	size_t i;

	sha256_init(ctx);
	hash_update_lp(ctx, "sandeval lint 1", 15);
	hash_update_lp(ctx, plan, strlen(plan));
	for (i = 0; i < ev->lint->n_files; i++) {
		hash_update_lp(ctx, ev->lint->files[i].name, strlen(ev->lint->files[i].name));
		hash_update_lp(ctx, ev->lint->files[i].text, ev->lint->files[i].len);
	}
	hash_update_lp(ctx, source, source ? strlen(source) : 0);
	json_array_foreach(json_object_get(lang, "tools"), i, t)
		key_tool(ctx, json_string_value(json_array_get(json_object_get(t, "argv"), 0)), tool_path(&ev->o));
	hash_update_lp(ctx, code, strlen(code));
	sha256_digest(ctx, LINT_KEY_LEN, key);
	return 0;
}

int lint_sample(struct evaluator *ev, const struct task *task, const struct sample *sample,
		struct sample_result *r, struct sd_error *err)
{
	const char *language = task->language ? task->language : "python";
	cleanup_free char *code = lint_source(task, sample);
	cleanup_free char *plan = NULL;
	struct sandbox_result sr;
	struct sd_error e = { 0 };
	char fate[1400], why[256];
	unsigned char key[LINT_KEY_LEN];
	const char *text, *origin = NULL, *id;
	const json_t *lang;
	size_t n_tools, len;
	bool cached, ran = false;
	int ret;

	free(r->lint_detail);
	r->lint_detail = NULL;
	if (!code)
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	if (lint_load(ev, err) < 0)
		return -1;
	if (!(lang = lint_lang(ev, language))) {
		r->lint = LINT_UNAVAILABLE;
		r->lint_detail = xasprintf("no linter for language '%s' (%s/lint/lint.json)", language, ev->runners_dir);
		return r->lint_detail ? 0 : sd_error_set(err, ENOMEM, "lint: out of memory");
	}
	n_tools = json_array_size(json_object_get(lang, "tools"));
	plan = lint_plan(ev, lang, NULL);
	if (!plan)
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	if (ev->o.lint_cache && !ev->lint_cache && !(ev->lint_cache = lint_cache_new()))
		return sd_error_set(err, ENOMEM, "lint: out of memory");
	cached = ev->o.lint_cache && lint_key(ev, lang, plan, code, key) == 0;
	if (cached && (text = lint_cache_get(ev->lint_cache, key, &len, &origin)) != NULL) {
		if (lint_read_envelope(text, len, "cached", lang, ev->o.lint_threshold, lint_first_line(task, sample),
				       r, err) < 0)
			return -1;
		if (origin) {
			note(&r->lint_detail, "linted in a batch (lint sandbox %s)", origin);
			id = origin;
		} else {
			note(&r->lint_detail, "an identical program's report (linted earlier in this process)");
			id = NULL;
		}
		ret = r->lint_detail ? 0 : sd_error_set(err, ENOMEM, "lint: out of memory");
		goto ids;
	}
	if (lint_run_sandbox(ev, lang, code, plan, ev->o.lint_tool_timeout * (double)n_tools + 10.0, &sr, &e) < 0) {
		if (e.code == EINTR)
			return sd_error_set(err, EINTR, "%s", e.msg);
		r->lint = LINT_ERROR;
		r->lint_detail = xasprintf("lint sandbox: %s", e.msg);
		return r->lint_detail ? 0 : sd_error_set(err, ENOMEM, "lint: out of memory");
	}
	ran = true;
	evaluator_add_costs(r, &sr);
	first_line(sr.stderr_buf, why, sizeof(why));
	snprintf(fate, sizeof(fate), "%s%s%s%s%s", sandbox_status_name(sr.status),
		 sr.status == SB_SANDBOX_ERROR ? ": " : "", sr.status == SB_SANDBOX_ERROR ? sr.error : "",
		 why[0] ? "; " : "", why);
	ret = lint_read_envelope(sr.stdout_buf, sr.stdout_len, fate, lang, ev->o.lint_threshold,
				 lint_first_line(task, sample), r, err);
	/* only a report every tool of which ran and was understood is kept */
	if (ret == 0 && cached && sr.status == SB_OK && (r->lint == LINT_PASSED || r->lint == LINT_FAILED) &&
	    lint_cache_put(ev->lint_cache, key, sr.stdout_buf, sr.stdout_len, NULL) < 0)
		ret = sd_error_set(err, ENOMEM, "lint: out of memory");
	id = sr.id;
ids:
	if (id && id[0]) {
		char *ids = r->sandbox_ids && *r->sandbox_ids ? xasprintf("%s,%s", r->sandbox_ids, id) : strdup(id);

		if (ids) {
			free(r->sandbox_ids);
			r->sandbox_ids = ids;
		}
	}
	if (ran)
		sandbox_result_release(&sr);
	return ret;
}
