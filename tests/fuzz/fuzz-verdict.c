/* fuzz-verdict.c - fuzz target: no line that does not authenticate in sequence ever yields a pass
 *
 * The input is a script of what reaches the verdict channel: lines the
 * driver signs (this target holds the key, as the driver does; the JSON is a
 * test verdict, "done", a compile or harness error, or any bytes of the
 * input), and what else the candidate could do to the channel -- bytes of
 * its own, a replayed, reordered, dropped, cut or bit-flipped line, a line
 * signed under another key or for another place, NULs, carriage returns,
 * stray newlines. An independent model of the rule (docs/verdicts.md) then
 * splits the bytes into lines by length and checks each with OpenSSL's
 * one-shot HMAC(): the k-th non-empty line must be "hex(HMAC(key, k:JSON))
 * JSON". Properties:
 *   - verdict_next() returns exactly the JSON texts the model authenticates,
 *     in order, and says tampered exactly when the model does;
 *   - every line the model authenticates at place k is one this target
 *     signed for place k (nothing else can forge a MAC);
 *   - verdict_read(): when anything did not authenticate, every verdict is a
 *     crash, and there is at least one; otherwise every passed test was
 *     reported passed, under its name, by an authenticated line.
 * What authenticated lines say is the driver's word: their order and
 * meaning are tests/unit/test-verdict.c's to check.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "eval/verdict.h"

#define HEXKEY "5a0d1c4f2e3b6a7988a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607"
#define MAX_LINES 48

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* Up to N bytes of the input. */
static size_t take(struct input *in, size_t n, const uint8_t **out)
{
	if (n > in->left)
		n = in->left;
	*out = in->p;
	in->p += n;
	in->left -= n;
	return n;
}

struct buf {
	char *p;
	size_t len;
};

static void append(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->len + n + 1);
	FUZZ_CHECK(b->p != NULL);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void unhex_key(const char *hex, unsigned char *key)
{
	for (size_t i = 0; i < VERDICT_KEY_BYTES; i++)
		FUZZ_CHECK(sscanf(hex + 2 * i, "%2hhx", &key[i]) == 1);
}

static void hmac(const unsigned char *key, unsigned long seq, const char *json, size_t len, unsigned char mac[32])
{
	struct buf msg = { 0 };
	char head[32];
	unsigned int n = 0;

	snprintf(head, sizeof(head), "%lu:", seq);
	append(&msg, head, strlen(head));
	append(&msg, json, len);
	FUZZ_CHECK(HMAC(EVP_sha256(), key, VERDICT_KEY_BYTES, (const unsigned char *)msg.p, msg.len, mac, &n) != NULL);
	FUZZ_CHECK(n == 32);
	free(msg.p);
}

/* A line as the driver writes it: "MAC JSON\n". */
static struct buf sign(const unsigned char *key, unsigned long seq, const struct buf *json)
{
	unsigned char mac[32];
	struct buf line = { 0 };
	char hex[66];

	hmac(key, seq, json->p, json->len, mac);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	hex[64] = ' ';
	append(&line, hex, 65);
	append(&line, json->p, json->len);
	append(&line, "\n", 1);
	return line;
}

static void append_json_string(struct buf *b, const uint8_t *p, size_t n)
{
	json_t *s = json_stringn_nocheck((const char *)p, n);
	char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;

	if (text)
		append(b, text, strlen(text));
	else
		append(b, "\"?\"", 3);	/* jansson refuses what is not UTF-8 */
	free(text);
	json_decref(s);
}

/* A JSON text the driver might send, chosen by the input. */
static struct buf driver_json(struct input *in)
{
	static const char *const status[] = { "passed", "passed", "passed", "failed", "error", "timeout",
					      "crash", "harness_error", "won" };
	struct buf j = { 0 };
	char text[128];
	const uint8_t *p;
	size_t n;
	unsigned kind = byte(in) % 8, test = byte(in) % 4;	/* in this order: the corpus depends on it */
	const char *st = status[byte(in) % (sizeof(status) / sizeof(status[0]))];

	switch (kind) {
	case 0:
	case 1:
		snprintf(text, sizeof(text), "{\"test\":\"t%u\",\"status\":\"%s\"}", test, st);
		append(&j, text, strlen(text));
		break;
	case 2:
		snprintf(text, sizeof(text), "{\"test\":\"t%u\",\"status\":\"passed\",\"in_process\":true}", test);
		append(&j, text, strlen(text));
		break;
	case 3:
		append(&j, "{\"done\":true}", 13);
		break;
	case 4: {
		const char *e = test % 2 ? "{\"compile\":\"compile_error\",\"detail\":\"a.c:1: error\"}" :
				"{\"harness_error\":\"Traceback\"}";

		append(&j, e, strlen(e));
		break;
	}
	case 5:		/* any bytes: the driver's JSON is what it is */
		n = take(in, byte(in) % 64, &p);
		append(&j, p, n);
		break;
	case 6:		/* a pass whose name comes from the input */
		append(&j, "{\"test\":", 8);
		n = take(in, byte(in) % 24, &p);
		append_json_string(&j, p, n);
		append(&j, ",\"status\":\"passed\"}", 19);
		break;
	default:	/* a verdict with a detail from the input */
		snprintf(text, sizeof(text), "{\"test\":\"t%u\",\"status\":\"%s\",\"detail\":", test, st);
		append(&j, text, strlen(text));
		n = take(in, byte(in) % 32, &p);
		append_json_string(&j, p, n);
		append(&j, "}", 1);
		break;
	}
	return j;
}

/* What this target signed: place and JSON. */
struct signed_line {
	unsigned long seq;
	struct buf json;
};

struct script {
	struct buf lines[MAX_LINES];
	size_t n;
	struct signed_line sig[MAX_LINES];
	size_t n_sig;
};

static void add_line(struct script *s, struct buf line)
{
	if (s->n == MAX_LINES) {
		free(line.p);
		return;
	}
	s->lines[s->n++] = line;
}

static void note_signed(struct script *s, unsigned long seq, const struct buf *json)
{
	struct buf copy = { 0 };

	if (s->n_sig == MAX_LINES)
		return;
	append(&copy, json->p, json->len);
	s->sig[s->n_sig++] = (struct signed_line){ seq, copy };
}

/* The channel's bytes as the input's script has them. */
static void play(struct input *in, const unsigned char *key, struct script *s)
{
	unsigned long seq = 0;	/* the driver's count */

	while (in->left && s->n < MAX_LINES) {
		unsigned op = byte(in) % 16;
		struct buf j, line = { 0 };
		const uint8_t *p;
		size_t n;

		if (op < 6) {		/* the driver's next line */
			j = driver_json(in);
			note_signed(s, seq, &j);
			add_line(s, sign(key, seq++, &j));
			free(j.p);
		} else if (op == 6) {	/* bytes of the candidate's own */
			n = take(in, byte(in) % 80, &p);
			append(&line, p, n);
			add_line(s, line);
		} else if (op == 7) {	/* a line seen before, again */
			if (s->n) {
				const struct buf *o = &s->lines[byte(in) % s->n];

				append(&line, o->p, o->len);
				add_line(s, line);
			}
		} else if (op == 8) {	/* a line signed for another place */
			unsigned d = byte(in) % 4;
			unsigned long at = d == 3 ? (seq ? seq - 1 : 7) : seq + 1 + d;

			j = driver_json(in);
			note_signed(s, at, &j);
			add_line(s, sign(key, at, &j));
			free(j.p);
		} else if (op == 9) {	/* the driver's line lost */
			seq++;
		} else if (op == 10) {	/* signed under another key */
			unsigned char other[VERDICT_KEY_BYTES];
			unsigned at = byte(in) % VERDICT_KEY_BYTES, x = 1 + byte(in) % 255;

			memcpy(other, key, sizeof(other));
			other[at] ^= (unsigned char)x;
			j = driver_json(in);
			add_line(s, sign(other, seq, &j));
			free(j.p);
		} else if (op == 11) {	/* a byte of the last line changed */
			if (s->n && s->lines[s->n - 1].len) {
				struct buf *l = &s->lines[s->n - 1];
				size_t at = byte(in) % l->len;

				l->p[at] ^= (char)(1 + byte(in) % 255);
			}
		} else if (op == 12) {	/* the last two lines swapped */
			if (s->n >= 2) {
				struct buf t = s->lines[s->n - 1];

				s->lines[s->n - 1] = s->lines[s->n - 2];
				s->lines[s->n - 2] = t;
			}
		} else if (op == 13) {	/* the last line cut short */
			if (s->n) {
				struct buf *l = &s->lines[s->n - 1];
				size_t cut = 1 + byte(in) % 96;

				l->len = cut < l->len ? l->len - cut : 0;
			}
		} else if (op == 14) {	/* a byte parsers care about, somewhere in the last line */
			static const char special[] = { '\n', '\0', '\r', ' ', '\t', '"', '\\', 'A' };

			if (s->n) {
				struct buf *l = &s->lines[s->n - 1], tail = { 0 };
				size_t at = l->len ? byte(in) % (l->len + 1) : 0;
				char c = special[byte(in) % sizeof(special)];

				append(&tail, l->p + at, l->len - at);
				l->len = at;
				append(l, &c, 1);
				append(l, tail.p, tail.len);
				free(tail.p);
			}
		} else {		/* the MAC's hex digits in upper case (the same MAC) */
			if (s->n) {
				struct buf *l = &s->lines[s->n - 1];

				for (size_t i = 0; i < 64 && i < l->len; i++)
					l->p[i] = (char)toupper((unsigned char)l->p[i]);
			}
		}
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The model: does LINE (LEN bytes, no newline) authenticate at place SEQ? */
static bool authentic(const unsigned char *key, unsigned long seq, const char *line, size_t len)
{
	unsigned char mac[32], want[32];

	if (len < 66 || line[64] != ' ' || memchr(line, '\0', len))
		return false;
	for (size_t i = 0; i < 32; i++) {
		int hi = hexval((unsigned char)line[2 * i]), lo = hexval((unsigned char)line[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		want[i] = (unsigned char)(hi << 4 | lo);
	}
	hmac(key, seq, line + 65, len - 65, mac);
	return memcmp(mac, want, 32) == 0;
}

struct model {
	struct buf json[MAX_LINES * 2];	/* what authenticated, in order */
	size_t n;
	bool tampered;
};

static void model_read(const unsigned char *key, const char *p, size_t len, struct model *m)
{
	size_t pos = 0;

	memset(m, 0, sizeof(*m));
	while (pos < len) {
		const char *nl = memchr(p + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - p) : len;

		if (end > pos) {
			if (authentic(key, m->n, p + pos, end - pos)) {
				FUZZ_CHECK(m->n < sizeof(m->json) / sizeof(m->json[0]));
				m->json[m->n] = (struct buf){ 0 };
				append(&m->json[m->n++], p + pos + 65, end - pos - 65);
			} else {
				m->tampered = true;
			}
		}
		pos = end + 1;
	}
}

/* Did an authenticated line report test NAME passed? */
static bool reported_passed(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++) {
		json_t *o = json_loadb(m->json[i].p, m->json[i].len, 0, NULL);
		bool yes = o && json_is_string(json_object_get(o, "test")) &&
			   strcmp(json_string_value(json_object_get(o, "test")), name) == 0 &&
			   json_is_string(json_object_get(o, "status")) &&
			   strcmp(json_string_value(json_object_get(o, "status")), "passed") == 0;

		json_decref(o);
		if (yes)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct task_test decl[] = {
		{ .name = (char *)"t0", .weight = 1.0 }, { .name = (char *)"t1", .weight = 1.0 },
		{ .name = (char *)"t2", .weight = 1.0 },
	};
	struct input in = { data, size };
	unsigned head = byte(&in);
	struct task t = { .id = (char *)"t", .tests = decl, .n_tests = head & 1 ? 3 : 0 };
	unsigned char key[VERDICT_KEY_BYTES];
	struct script s = { 0 };
	struct buf channel = { 0 }, copy = { 0 };
	struct verdict_reader vr;
	struct sandbox_result sr;
	struct sample_result r;
	struct model m;
	size_t k = 0;
	char *line;

	unhex_key(HEXKEY, key);
	play(&in, key, &s);
	append(&channel, "", 0);
	for (size_t i = 0; i < s.n; i++)
		append(&channel, s.lines[i].p, s.lines[i].len);
	model_read(key, channel.p, channel.len, &m);

	/* nothing authenticates that this target did not sign for its place */
	for (size_t i = 0; i < m.n; i++) {
		bool found = false;

		for (size_t j = 0; j < s.n_sig && !found; j++)
			found = s.sig[j].seq == i && s.sig[j].json.len == m.json[i].len &&
				memcmp(s.sig[j].json.p, m.json[i].p, m.json[i].len) == 0;
		FUZZ_CHECK(found);
	}

	/* the line reader: what the model authenticates, no more, no less */
	append(&copy, channel.p, channel.len);
	verdict_reader_open(&vr, copy.p, copy.len, HEXKEY);
	while ((line = verdict_next(&vr))) {
		FUZZ_CHECK(k < m.n);
		FUZZ_CHECK(strlen(line) == m.json[k].len && memcmp(line, m.json[k].p, m.json[k].len) == 0);
		k++;
	}
	FUZZ_CHECK(k == m.n);
	FUZZ_CHECK(vr.tampered == m.tampered);
	free(copy.p);

	/* the verdicts */
	memset(&sr, 0, sizeof(sr));
	memset(&r, 0, sizeof(r));
	sr.status = (enum sandbox_status)((head >> 1) % (SB_SANDBOX_ERROR + 1));
	snprintf(sr.error, sizeof(sr.error), "sandbox error");
	copy = (struct buf){ 0 };
	append(&copy, channel.p, channel.len);
	sr.stdout_buf = copy.p;
	sr.stdout_len = copy.len;
	verdict_read(&t, &sr, HEXKEY, &r);
	if (m.tampered) {
		FUZZ_CHECK(r.n_tests > 0);
		for (size_t i = 0; i < r.n_tests; i++)
			FUZZ_CHECK(r.tests[i].status == TS_CRASH);
	} else {
		for (size_t i = 0; i < r.n_tests; i++) {
			if (r.tests[i].status != TS_PASSED)
				continue;
			FUZZ_CHECK(reported_passed(&m, r.tests[i].name));
		}
	}
	sample_result_release(&r);
	free(copy.p);

	for (size_t i = 0; i < m.n; i++)
		free(m.json[i].p);
	for (size_t i = 0; i < s.n; i++)
		free(s.lines[i].p);
	for (size_t i = 0; i < s.n_sig; i++)
		free(s.sig[i].json.p);
	free(channel.p);
	return 0;
}
