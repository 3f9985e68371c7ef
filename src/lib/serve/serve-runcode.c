/* serve-runcode.c - SandboxFusion's /run_code: its request checked, one program run in fresh sandboxes, its response
 *
 * A request names a language, the code and its limits. Interpreted
 * languages run in one sandbox (`python3 main.py`). C and C++ take two: the
 * compiler runs in the first, which writes the binary on its stdout (the
 * compiler's own messages go to its stderr); the binary is injected into a
 * second, fresh sandbox, which runs it. Each sandbox is sandbox_run(), as
 * `sandeval exec` runs one, with the request's limits (docs/serve.md has the
 * mapping). With fetch_files, the program runs under /bin/sh, which prints
 * the files on stderr after a random marker once the program has ended; the
 * marker and what follows are taken off stderr here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/jsonl.h"
#include "base/utf8.h"
#include "base/util.h"
#include "sandbox/sandbox.h"
#include "serve/serve-internal.h"

#define RC_MAX_FILES 64
#define RC_PATH_MAX 255
#define RC_DEFAULT_TIMEOUT 10.0		/* SandboxFusion's default, both timeouts */
#define RC_MIN_MEMORY (16ull << 20)
#define RC_COMPILE_MEMORY (1ull << 30)	/* at least this for a compiler (cc1plus on <bits/stdc++.h>) */
#define RC_BINARY_MAX (64ull << 20)	/* the compiled program, through the compile sandbox's stdout */
#define RC_FETCH_MAX (8ull << 20)	/* fetched files, base64, on top of the output cap */

struct rc_lang {
	const char *name;
	const char *alias[3];
	const char *source;		/* the code's file in /work */
	const char *compile;		/* sh -c script that writes the binary on stdout; NULL: interpreted */
	const char *run;		/* the command, as sh would read it (fixed words, no quoting) */
};

/* SandboxFusion's names first; the commands are those SandboxFusion runs, in the sandbox's /work. */
static const struct rc_lang langs[] = {
	{ "python", { "python3" }, "main.py", NULL, "python3 main.py" },
	{ "cpp", { "c++" }, "main.cpp",
	  "g++ -std=c++17 -O2 -o /tmp/main main.cpp -lpthread -lm >&2 && exec cat /tmp/main", "/work/main" },
	{ "c", { 0 }, "main.c", "gcc -std=gnu11 -O2 -o /tmp/main main.c -lpthread -lm >&2 && exec cat /tmp/main",
	  "/work/main" },
	{ "nodejs", { "js", "javascript" }, "main.js", NULL, "node main.js" },
	{ "bash", { "sh" }, "main.sh", NULL, "bash main.sh" },
};

const char *rc_languages(void)
{
	return "python, cpp, c, nodejs (js), bash";
}

static const struct rc_lang *find_lang(const char *name)
{
	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++) {
		if (strcmp(langs[i].name, name) == 0)
			return &langs[i];
		for (size_t j = 0; j < 3 && langs[i].alias[j]; j++)
			if (strcmp(langs[i].alias[j], name) == 0)
				return &langs[i];
	}
	return NULL;
}

/* ---- the request ---- */


/* A path under /work as SandboxFusion's clients give them: relative (or
 * under /work), no "..", no empty or "." component, printable. */
static bool path_ok(const char *p, size_t len)
{
	if (len > 6 && strncmp(p, "/work/", 6) == 0) {
		p += 6;
		len -= 6;
	}
	if (len == 0 || len > RC_PATH_MAX || p[0] == '/' || strlen(p) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\')
			return false;
	for (const char *c = p; c;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = slash ? slash + 1 : NULL;
	}
	return true;
}

static const char *rel(const char *p)
{
	return strncmp(p, "/work/", 6) == 0 ? p + 6 : p;
}

/* A timeout field: a positive number of seconds (default when absent or null), clamped to MAX. */
static int timeout_field(json_t *root, const char *key, double max, double *out, struct sd_error *err)
{
	json_t *v = json_object_get(root, key);
	double d;

	*out = RC_DEFAULT_TIMEOUT;
	if (!v || json_is_null(v))
		d = RC_DEFAULT_TIMEOUT;
	else if (!json_is_number(v))
		return sd_error_set(err, EINVAL, "field '%s': expected a number of seconds, got %s", key, json_type_phrase(v));
	else
		d = json_number_value(v);
	if (!(d > 0) || !isfinite(d))
		return sd_error_set(err, EINVAL, "field '%s': expected a positive number of seconds, got %g", key, d);
	*out = d > max ? max : d;
	return 0;
}

static int parse_files(json_t *root, struct rc_request *rq, struct sd_error *err)
{
	json_t *files = json_object_get(root, "files"), *v;
	const char *key;
	size_t n = 0;

	if (!files || json_is_null(files))
		return 0;
	if (!json_is_object(files))
		return sd_error_set(err, EINVAL, "field 'files': expected an object of path: base64 content, got %s",
				    json_type_phrase(files));
	if (json_object_size(files) > RC_MAX_FILES)
		return sd_error_set(err, EINVAL, "field 'files': more than %d files", RC_MAX_FILES);
	rq->files = calloc(json_object_size(files) + 1, sizeof(*rq->files));
	if (!rq->files)
		return sd_error_set(err, ENOMEM, "out of memory");
	json_object_foreach(files, key, v) {
		struct rc_file *f = &rq->files[n];
		size_t bad = 0;
		int r;

		if (!path_ok(key, strlen(key)))
			return sd_error_set(err, EINVAL, "field 'files[\"%.255s\"]': expected a path relative to the "
					    "working directory, without '..'", key);
		if (rq->lang && (strcmp(rel(key), rq->lang->source) == 0 || (rq->lang->compile && strcmp(rel(key), "main") == 0)))
			return sd_error_set(err, EINVAL, "field 'files[\"%s\"]': the name of the %s, reserved", key,
					    strcmp(rel(key), "main") == 0 ? "compiled program" : "code's own file");
		if (json_is_null(v))
			continue;	/* as SandboxFusion: a file without content is skipped */
		if (!json_is_string(v))
			return sd_error_set(err, EINVAL, "field 'files[\"%.255s\"]': expected base64 text, got %s", key,
					    json_type_phrase(v));
		r = base64_decode(json_string_value(v), json_string_length(v), &f->data, &f->len, &bad);
		if (r == -2)
			return sd_error_set(err, ENOMEM, "out of memory");
		if (r < 0)
			return sd_error_set(err, EINVAL, "field 'files[\"%.255s\"]': not base64 (at character %zu)", key, bad);
		f->path = strdup(key);
		if (!f->path)
			return sd_error_set(err, ENOMEM, "out of memory");
		rq->n_files = ++n;
	}
	return 0;
}

static int parse_fetch(json_t *root, struct rc_request *rq, struct sd_error *err)
{
	json_t *a = json_object_get(root, "fetch_files"), *v;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return sd_error_set(err, EINVAL, "field 'fetch_files': expected an array of paths, got %s", json_type_phrase(a));
	if (json_array_size(a) > RC_MAX_FILES)
		return sd_error_set(err, EINVAL, "field 'fetch_files': more than %d paths", RC_MAX_FILES);
	rq->fetch = calloc(json_array_size(a) + 1, sizeof(*rq->fetch));
	if (!rq->fetch)
		return sd_error_set(err, ENOMEM, "out of memory");
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return sd_error_set(err, EINVAL, "field 'fetch_files[%zu]': expected a path, got %s", i, json_type_phrase(v));
		if (!path_ok(json_string_value(v), json_string_length(v)))
			return sd_error_set(err, EINVAL, "field 'fetch_files[%zu]': expected a path relative to the working "
					    "directory, without '..'", i);
		rq->fetch[rq->n_fetch++] = (char *)json_string_value(v);
	}
	return 0;
}

int rc_parse(const char *body, size_t len, const struct serve_options *o, struct rc_request *rq,
	     struct sd_error *err)
{
	json_error_t jerr;
	json_t *root, *v;
	const char *lang;

	memset(rq, 0, sizeof(*rq));
	root = rq->root = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!root)
		return sd_error_set(err, EINVAL, "the body is not JSON: %s (line %d, column %d)", jerr.text, jerr.line,
				    jerr.column);
	if (!json_is_object(root))
		return sd_error_set(err, EINVAL, "the body: expected a JSON object, got %s", json_type_phrase(root));
	v = json_object_get(root, "code");
	if (!v || json_is_null(v))
		return sd_error_set(err, EINVAL, "field 'code': missing");
	if (!json_is_string(v))
		return sd_error_set(err, EINVAL, "field 'code': expected a string, got %s", json_type_phrase(v));
	rq->code = json_string_value(v);
	rq->code_len = json_string_length(v);
	v = json_object_get(root, "language");
	if (!v || json_is_null(v))
		return sd_error_set(err, EINVAL, "field 'language': missing");
	if (!json_is_string(v))
		return sd_error_set(err, EINVAL, "field 'language': expected a string, got %s", json_type_phrase(v));
	lang = json_string_value(v);
	snprintf(rq->language, sizeof(rq->language), "%s", lang);
	rq->lang = strlen(lang) == json_string_length(v) ? find_lang(lang) : NULL;
	if (timeout_field(root, "compile_timeout", o->max_time, &rq->compile_timeout, err) < 0 ||
	    timeout_field(root, "run_timeout", o->max_time, &rq->run_timeout, err) < 0)
		return -1;
	rq->memory = o->memory;
	v = json_object_get(root, "memory_limit_MB");
	if (v && !json_is_null(v)) {
		double mb;

		if (!json_is_number(v))
			return sd_error_set(err, EINVAL, "field 'memory_limit_MB': expected a number of MiB, got %s",
					    json_type_phrase(v));
		mb = json_number_value(v);
		if (mb > 0) {	/* SandboxFusion's -1 (and anything not positive): the server's default */
			if (mb * 1048576.0 < (double)RC_MIN_MEMORY)
				return sd_error_set(err, EINVAL, "field 'memory_limit_MB': at least 16, got %g", mb);
			rq->memory = mb * 1048576.0 >= (double)o->max_memory ? o->max_memory : (uint64_t)(mb * 1048576.0);
		}
	}
	v = json_object_get(root, "stdin");
	if (v && !json_is_null(v)) {
		if (!json_is_string(v))
			return sd_error_set(err, EINVAL, "field 'stdin': expected a string, got %s", json_type_phrase(v));
		rq->stdin_data = json_string_value(v);
		rq->stdin_len = json_string_length(v);
	}
	return parse_files(root, rq, err) < 0 || parse_fetch(root, rq, err) < 0 ? -1 : 0;
}

void rc_release(struct rc_request *rq)
{
	for (size_t i = 0; rq->files && i < rq->n_files; i++) {
		free(rq->files[i].path);
		free(rq->files[i].data);
	}
	free(rq->files);
	free(rq->fetch);
	json_decref(rq->root);
	memset(rq, 0, sizeof(*rq));
}

static char *dump(json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;

	json_decref(o);
	return text;
}

static json_t *response(const char *status, const char *message)
{
	return json_pack("{s:s, s:o, s:n, s:n, s:n, s:{}}", "status", status, "message", json_text(message),
			 "compile_result", "run_result", "executor_pod_name", "files");
}

char *rc_unknown_language(const struct rc_request *rq)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "unknown language '%s': this server runs %s", rq->language, rc_languages());
	return dump(response("SandboxError", msg));
}

/* ---- running it ---- */

static json_t *text_value(const char *buf, size_t len)
{
	size_t n;
	cleanup_free char *clean = utf8_sanitize(buf ? buf : "", buf ? len : 0, &n);

	return clean ? json_stringn(clean, n) : json_null();
}

/* SandboxFusion's CommandRunResult of one sandbox, plus sandeval's own account
 * of it ("sandeval": the fields of `sandeval exec`'s result but the output). */
static json_t *command_result(const struct sandbox_result *res, const char *out, size_t out_len,
			      const char *errs, size_t err_len)
{
	const char *status = res->status == SB_CPU_LIMIT || res->status == SB_WALL_LIMIT ? "TimeLimitExceeded" :
			     res->status == SB_SANDBOX_ERROR ? "Error" : "Finished";
	json_t *rc = res->status == SB_CPU_LIMIT || res->status == SB_WALL_LIMIT || res->status == SB_SANDBOX_ERROR ?
			     json_null() : res->exit_code >= 0 ? json_integer(res->exit_code) :
			     res->signal > 0 ? json_integer(-res->signal) : json_null();
	cleanup_free char *text = sandbox_result_json(res);
	json_t *own = text ? json_loads(text, 0, NULL) : NULL;

	if (own) {
		json_object_del(own, "stdout");
		json_object_del(own, "stderr");
		json_object_del(own, "events");
	}
	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:o}", "status", status, "execution_time", res->wall_ms / 1000.0,
			 "return_code", rc, "stdout", text_value(out, out_len),
			 "stderr", text_value(errs, err_len), "sandeval", own ? own : json_null());
}

/* The program's argv: its command as words, or under sh with the fetch epilogue. */
static char **run_argv(const struct rc_request *rq, const char *marker)
{
	/* sh -c SCRIPT sh MARKER FILE...: the program runs, then each regular file
	 * is printed after "MARKER PATH" as base64; a program killed by a signal
	 * is mirrored by sh killing itself with it, so the sandbox sees the same fate. */
	static const char epilogue[] =
		"; s=$?; m=$1; shift; printf '\\n%s\\n' \"$m\" >&2; "
		"for f; do [ -f \"$f\" ] && [ -r \"$f\" ] && { printf '%s %s\\n' \"$m\" \"$f\" >&2; "
		"base64 -w0 -- \"$f\" >&2; printf '\\n' >&2; }; done; "
		"[ $s -gt 128 ] && [ $s -lt 160 ] && kill -$((s - 128)) $$; exit $s";
	char **argv = calloc(rq->n_fetch + 8, sizeof(*argv));
	size_t n = 0;

	if (!argv)
		return NULL;
	if (!rq->n_fetch) {
		char *copy = strdup(rq->lang->run), *save = NULL;

		if (!copy) {
			free(argv);
			return NULL;
		}
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			argv[n++] = w;	/* argv[0] owns the copy */
		return argv;
	}
	argv[n++] = xasprintf("%s%s", rq->lang->run, epilogue);	/* argv[0] owns the script, argv[2] */
	if (!argv[0]) {
		free(argv);
		return NULL;
	}
	argv[2] = argv[0];
	argv[0] = (char *)"/bin/sh";
	argv[1] = (char *)"-c";
	argv[3] = (char *)"sh";
	argv[4] = (char *)marker;
	n = 5;
	for (size_t i = 0; i < rq->n_fetch; i++)
		argv[n++] = (char *)rel(rq->fetch[i]);
	return argv;
}

static void free_argv(const struct rc_request *rq, char **argv)
{
	if (argv)
		free(rq->n_fetch ? argv[2] : argv[0]);
	free(argv);
}

/* Take the fetched files off the end of *ERRS (after "\nMARKER\n") into FILES. */
static void take_fetched(char *errs, size_t *err_len, const char *marker, json_t *files)
{
	char head[80];
	char *p, *end = errs + *err_len;

	snprintf(head, sizeof(head), "\n%s\n", marker);
	p = memmem(errs, *err_len, head, strlen(head));
	if (!p)
		return;	/* the program was stopped before sh got there, or stderr was cut */
	*err_len = (size_t)(p - errs);
	for (p += strlen(head); p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *nl2, *path;

		if (!nl || (size_t)(nl - p) < strlen(marker) + 2 || strncmp(p, marker, strlen(marker)) != 0)
			break;
		path = p + strlen(marker) + 1;
		nl2 = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
		if (!nl2)
			break;	/* cut: the file did not fit */
		*nl = '\0';
		json_object_set_new(files, path, text_value(nl + 1, (size_t)(nl2 - nl - 1)));
		p = nl2 + 1;
	}
}

static void add_file(struct sandbox_file *fs, size_t *n, const char *dest, const char *data, size_t len, bool x)
{
	fs[(*n)++] = (struct sandbox_file){ .dest = dest, .src = dest, .data = data, .len = len, .executable = x };
}

static void note_status(struct wire_done *done, const struct sandbox_result *res)
{
	if (done->n_statuses < sizeof(done->statuses))
		done->statuses[done->n_statuses++] = (uint8_t)res->status;
	if (res->status == SB_SANDBOX_ERROR)
		done->sandbox_error = 1;
}

/* One sandbox; a configuration refused by sandbox_run is reported as its sandbox_error. */
static void run_sandbox(struct sandbox_config *cfg, struct sandbox_result *res)
{
	struct sd_error err = { 0 };

	if (sandbox_run(cfg, res, &err) < 0) {
		memset(res, 0, sizeof(*res));
		res->status = SB_SANDBOX_ERROR;
		res->exit_code = -1;
		res->cpu_ms = res->peak_memory_bytes = -1;
		snprintf(res->error, sizeof(res->error), "%s", err.msg);
	}
}

int rc_execute(const struct rc_request *rq, const struct serve_options *o, char **out, struct wire_done *done)
{
	const struct rc_lang *lang = rq->lang;
	cleanup_free struct sandbox_file *fs = calloc(rq->n_files + 2, sizeof(*fs));
	struct sandbox_config cfg;
	struct sandbox_result cres = { 0 }, rres = { 0 };
	bool compiled = false, ran = false;
	json_t *resp = response("Success", ""), *files = json_object_get(resp, "files");
	char marker[48] = "sandeval-fetch-", hex[33];
	char **argv = NULL;
	size_t n = 0;
	/* SandboxFusion's timeouts are wall-clock time: the CPU limit is the
	 * whole machine's for that long, so that it never fires first (a program
	 * whose threads together pass its timeout in CPU, as node's do, is not
	 * stopped early); it still bounds what a sandbox can take. */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;

	*out = NULL;
	if (!fs || !resp || random_hex(hex, 16, NULL) < 0) {
		json_decref(resp);
		return -1;
	}
	strcat(marker, hex);
	for (size_t i = 0; i < rq->n_files; i++)
		add_file(fs, &n, rel(rq->files[i].path), rq->files[i].data, rq->files[i].len, false);
	add_file(fs, &n, lang->source, rq->code, rq->code_len, false);
	sandbox_config_init(&cfg);
	cfg.backend = o->backend;
	cfg.files = fs;
	cfg.n_files = n;
	if (lang->compile) {
		char *const cargv[] = { (char *)"/bin/sh", (char *)"-c", (char *)lang->compile, NULL };

		cfg.argv = cargv;
		cfg.wall_time = rq->compile_timeout;
		cfg.cpu_time = rq->compile_timeout * ncpu;
		cfg.memory = rq->memory > RC_COMPILE_MEMORY ? rq->memory : RC_COMPILE_MEMORY < o->max_memory ?
			     RC_COMPILE_MEMORY : o->max_memory;
		cfg.output = RC_BINARY_MAX;
		run_sandbox(&cfg, &cres);
		compiled = true;
		note_status(done, &cres);
		json_object_set_new(resp, "compile_result", command_result(&cres, "", 0, cres.stderr_buf,
				    cres.stderr_len > o->output ? o->output : cres.stderr_len));
	}
	if (!compiled || cres.status == SB_OK) {
		if (compiled) {
			fs[n - 1].dest = "main";	/* the source is no longer needed: the binary in its place */
			fs[n - 1].src = "main";
			fs[n - 1].data = cres.stdout_buf;
			fs[n - 1].len = cres.stdout_len;
			fs[n - 1].executable = true;
		}
		argv = run_argv(rq, marker);
		if (!argv) {
			json_decref(resp);
			sandbox_result_release(&cres);
			return -1;
		}
		sandbox_config_init(&cfg);
		cfg.backend = o->backend;
		cfg.files = fs;
		cfg.n_files = n;
		cfg.argv = argv;
		cfg.stdin_data = rq->stdin_data;
		cfg.stdin_len = rq->stdin_len;
		cfg.wall_time = rq->run_timeout;
		cfg.cpu_time = rq->run_timeout * ncpu;
		cfg.memory = rq->memory;
		cfg.output = o->output + (rq->n_fetch ? RC_FETCH_MAX : 0);
		run_sandbox(&cfg, &rres);
		ran = true;
		note_status(done, &rres);
		if (rq->n_fetch)
			take_fetched(rres.stderr_buf, &rres.stderr_len, marker, files);
		json_object_set_new(resp, "run_result", command_result(&rres, rres.stdout_buf,
				    rres.stdout_len > o->output ? o->output : rres.stdout_len, rres.stderr_buf,
				    rres.stderr_len > o->output ? o->output : rres.stderr_len));
	}
	/* SandboxFusion's verdict: an error of the sandbox first, then a time limit or a nonzero return code */
	{
		const struct sandbox_result *bad = compiled && cres.status == SB_SANDBOX_ERROR ? &cres :
						   ran && rres.status == SB_SANDBOX_ERROR ? &rres : NULL;

		if (bad) {
			json_object_set_new(resp, "status", json_string("SandboxError"));
			json_object_set_new(resp, "message", text_value(bad->error, strlen(bad->error)));
		} else if ((compiled && cres.status != SB_OK) || (ran && rres.status != SB_OK)) {
			json_object_set_new(resp, "status", json_string("Failed"));
		}
	}
	free_argv(rq, argv);
	sandbox_result_release(&cres);
	sandbox_result_release(&rres);
	done->http_status = 200;
	*out = dump(resp);
	return *out ? 0 : -1;
}
