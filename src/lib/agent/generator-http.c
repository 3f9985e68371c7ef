/* generator-http.c - candidates from an OpenAI-compatible chat completions endpoint (vLLM, llama-server, Ollama), through libcurl
 *
 * libcurl is loaded with dlopen when the first HTTP generator is made, as
 * the PostgreSQL store loads libpq and `serve` libmicrohttpd: every other
 * command (above all `exec`, whose start-up is measured) then pays nothing
 * for it and the TLS library behind it. Its header (libcurl4-openssl-dev)
 * gives the types and constants.
 *
 * K candidates are K requests, with seeds SEED, SEED + 1, ... (every
 * server named takes `seed`; not every one takes `n`). Each request is
 * bounded by the timeout; 429, 5xx and connection errors are retried up to
 * `retries` times, waiting `backoff` seconds doubled each time (or the
 * server's Retry-After, when shorter than a minute). The API key goes in
 * an Authorization header and nowhere else: messages name the URL and the
 * HTTP status, never the headers, and any echo of the key by the server is
 * masked.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/generator-internal.h"
#include "base/util.h"

#define CURL_SONAME "libcurl.so.4"

struct curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption o, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO i, ...);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode e);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

static struct curl_api api;
static bool api_loaded;

static int curl_load(struct sd_error *err)
{
	static const struct { const char *name; size_t off; } syms[] = {
#define SYM(field, name) { name, offsetof(struct curl_api, field) }
		SYM(global_init, "curl_global_init"),
		SYM(easy_init, "curl_easy_init"),
		SYM(easy_setopt, "curl_easy_setopt"),
		SYM(easy_perform, "curl_easy_perform"),
		SYM(easy_getinfo, "curl_easy_getinfo"),
		SYM(easy_cleanup, "curl_easy_cleanup"),
		SYM(easy_strerror, "curl_easy_strerror"),
		SYM(slist_append, "curl_slist_append"),
		SYM(slist_free_all, "curl_slist_free_all"),
#undef SYM
	};
	void *lib;

	if (api_loaded)
		return 0;
	lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return sd_error_set(err, ENOENT, "cannot load libcurl (%s): %s (Debian: apt-get install libcurl4)",
				    CURL_SONAME, dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(lib, syms[i].name);

		if (!p)
			return sd_error_set(err, ENOENT, "libcurl (%s) has no %s", CURL_SONAME, syms[i].name);
		memcpy((char *)&api + syms[i].off, &p, sizeof(p));
	}
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return sd_error_set(err, EIO, "libcurl: curl_global_init failed");
	api_loaded = true;	/* stays loaded: its TLS library's destructors run at exit */
	return 0;
}

struct http {
	struct generator base;
	char *endpoint;			/* {url}/chat/completions */
	char *model;
	char *auth;			/* "Authorization: Bearer KEY", or NULL */
	const char *key;		/* inside auth */
	double timeout, backoff;
	int retries;
};

struct body {
	char *buf;
	size_t len, cap;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t add = size * n;

	if (b->len + add > GENERATOR_ANSWER_MAX) {
		b->too_big = true;
		return 0;
	}
	if (b->len + add + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 14;
		char *nb;

		while (cap < b->len + add + 1)
			cap *= 2;
		if (!(nb = realloc(b->buf, cap)))
			return 0;
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, add);
	b->len += add;
	b->buf[b->len] = '\0';
	return add;
}

/* A short, printable excerpt of a server's error body, the key masked. */
static void excerpt(const struct http *h, const struct body *b, char *out, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < b->len && j + 1 < n && i < 300; i++)
		out[j++] = (b->buf[i] >= 0x20 && b->buf[i] < 0x7f) ? b->buf[i] : ' ';
	out[j] = '\0';
	if (h->key && *h->key) {
		size_t kl = strlen(h->key);

		for (char *p = strstr(out, h->key); p; p = strstr(p + kl, h->key))
			memset(p, '*', kl);
	}
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One request with its retries: the answer's body in *b, 0; or -1. */
static int post(struct http *h, const char *text, struct body *b, int *attempts, struct sd_error *err)
{
	double wait = h->backoff;

	for (int attempt = 0;; attempt++) {
		CURL *c = api.easy_init();
		struct curl_slist *hdr = NULL;
		CURLcode rc;
		long status = 0;
		curl_off_t retry_after = -1;
		bool retry;
		char why[400];

		if (!c)
			return sd_error_set(err, ENOMEM, "libcurl: cannot make a handle");
		free(b->buf);
		memset(b, 0, sizeof(*b));
		hdr = api.slist_append(hdr, "Content-Type: application/json");
		if (h->auth)
			hdr = api.slist_append(hdr, h->auth);
		api.easy_setopt(c, CURLOPT_URL, h->endpoint);
		api.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
		api.easy_setopt(c, CURLOPT_POSTFIELDS, text);
		api.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(text));
		api.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		api.easy_setopt(c, CURLOPT_WRITEDATA, b);
		api.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(h->timeout * 1000));
		api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(h->timeout < 10 ? h->timeout * 1000 : 10000));
		api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
		api.easy_setopt(c, CURLOPT_USERAGENT, "sandeval-agent");
		rc = api.easy_perform(c);
		api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		api.easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry_after);
		api.easy_cleanup(c);
		api.slist_free_all(hdr);
		(*attempts)++;
		if (rc == CURLE_OK && status >= 200 && status < 300)
			return 0;
		if (b->too_big)
			return sd_error_set(err, EFBIG, "POST %s: the answer is longer than %u MiB", h->endpoint,
					    GENERATOR_ANSWER_MAX >> 20);
		if (rc != CURLE_OK) {
			retry = rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_RECV_ERROR ||
				rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE;
			snprintf(why, sizeof(why), "%s", api.easy_strerror(rc));
		} else {
			char ex[320];

			retry = status == 429 || status >= 500;
			excerpt(h, b, ex, sizeof(ex));
			snprintf(why, sizeof(why), "HTTP %ld%s%s", status, ex[0] ? ": " : "", ex);
		}
		if (!retry || attempt >= h->retries)
			return sd_error_set(err, rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : EPROTO,
					    "POST %s: %s (%d attempt%s)", h->endpoint, why, attempt + 1,
					    attempt ? "s" : "");
		sleep_s(retry_after >= 0 && retry_after < 60 && (double)retry_after > wait ? (double)retry_after : wait);
		wait *= 2;
	}
}

static int http_generate(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
			 struct sd_error *err)
{
	struct http *h = (struct http *)g;

	for (int j = 0; j < rq->k; j++) {
		json_t *body = generator_chat_body(rq, h->model, rq->seed + j);
		char *text = body ? json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
		struct body b = { 0 };
		size_t before = a->n;
		int ret;

		json_decref(body);
		if (!text)
			return sd_error_set(err, ENOMEM, "out of memory");
		ret = post(h, text, &b, &a->requests, err);
		free(text);
		if (ret == 0 && generator_parse_chat(b.buf ? b.buf : "", b.len, a, err) < 0)
			ret = sd_error_wrap(err, "POST %s", h->endpoint);
		free(b.buf);
		if (ret < 0)
			return -1;
		/* a server that ignores the seed may answer n choices: keep one a request */
		while (a->n > before + 1)
			free(a->completions[--a->n]);
	}
	return 0;
}

static void http_free(struct generator *g)
{
	struct http *h = (struct http *)g;

	free(h->endpoint);
	free(h->model);
	if (h->auth) {
		explicit_bzero(h->auth, strlen(h->auth));
		free(h->auth);
	}
	free(h);
}

static const struct generator_ops http_ops = { "http", http_generate, http_free, NULL };

struct generator *generator_http_new(const struct generator_http_options *o, struct sd_error *err)
{
	struct http *h;
	size_t n;

	if (!o->url || (strncmp(o->url, "http://", 7) != 0 && strncmp(o->url, "https://", 8) != 0)) {
		sd_error_set(err, EINVAL, "--model-url '%s': expected an http:// or https:// URL", o->url ? o->url : "");
		return NULL;
	}
	if (curl_load(err) < 0)
		return NULL;
	if (!(h = calloc(1, sizeof(*h)))) {
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	h->base.ops = &http_ops;
	n = strlen(o->url);
	while (n && o->url[n - 1] == '/')
		n--;
	h->endpoint = xasprintf("%.*s/chat/completions", (int)n, o->url);
	h->model = strdup(o->model ? o->model : "");
	if (o->api_key && *o->api_key) {
		h->auth = xasprintf("Authorization: Bearer %s", o->api_key);
		h->key = h->auth ? h->auth + strlen("Authorization: Bearer ") : NULL;
	}
	if (!h->endpoint || !h->model || (o->api_key && *o->api_key && !h->auth)) {
		http_free(&h->base);
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	h->timeout = o->timeout > 0 ? o->timeout : 120;
	h->retries = o->retries >= 0 ? o->retries : 4;
	h->backoff = o->backoff > 0 ? o->backoff : 1;
	return &h->base;
}
