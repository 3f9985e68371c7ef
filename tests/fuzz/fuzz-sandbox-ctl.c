/* fuzz-sandbox-ctl.c - fuzz target: init's control lines (sandbox-ctl.c), as both backends read them
 *
 * The first input byte picks how the bytes arrive and are read: as the
 * native backend reads its message pipe (every line handled, "S" ignored)
 * or as the gVisor backend reads its ctl FIFO (stopping at each "X" and
 * "S"), in chunks of one of a few sizes, from memory or through a real
 * non-blocking pipe; and whether the rest is the stream as it is, or with
 * runs (0xfe N C: C repeated 16 (N + 1) times), so that short inputs make
 * lines longer than the buffer. A model of the protocol
 * (sandbox-ctl.h) reads the whole stream at once, and the reader must agree
 * with it exactly:
 *   - only complete lines count: the bytes after the last newline never do,
 *     so a status ("S") is never taken from a line still being written;
 *   - a line longer than the buffer is dropped whole: none of its bytes
 *     starts a line of its own;
 *   - a line holding a NUL byte is not init's: dropped;
 *   - events ("I phase<TAB>detail") only of the backend's phases, in order,
 *     with the detail as sent; "L" only as two integers; "S" only as one,
 *     or as two, the second >= 0 (the lingering processes, the last such
 *     counts), and only when the caller wants a status; "E" sets failed, its first
 *     message is the error; "X" sets exec_seen, and exec_ns to its text
 *     when that is only digits making a positive int64 (else 0; the last
 *     "X" counts);
 *   - the buffer never holds more than CTL_LINE_MAX bytes (and ASan sees
 *     every access to it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "sandbox/sandbox-ctl.h"

#define MAX_EXPECT 4096

static const char *const native_phases[] = { "provision", "inject", "constrain", NULL };
static const char *const gvisor_phases[] = { "inject", "constrain", NULL };

struct expect {
	const char *phase[MAX_EXPECT];
	const char *detail[MAX_EXPECT];	/* into the input: not NUL-terminated */
	size_t detail_len[MAX_EXPECT];
	size_t n_events;
	int status[MAX_EXPECT];
	size_t n_status;
	bool exec_seen, failed;
	int64_t exec_ns;
	const char *error;		/* the first "E" line's text */
	size_t error_len;
	int abi, syscalls;
	int lingering;			/* the last "S STATUS N"'s N, -1 before one */
};

/* The model's integer: an optional '-' and digits making an int, nothing else. */
static bool model_int(const char *s, size_t n, int *out)
{
	long long v = 0;
	bool neg = n > 0 && s[0] == '-';
	size_t i = neg;

	if (i == n)
		return false;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > (long long)INT_MAX + 1)
			v = (long long)INT_MAX + 2;	/* too big, whatever follows */
	}
	v = neg ? -v : v;
	if (v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* The model's stamp: digits only, a positive int64, else 0. */
static int64_t model_stamp(const char *s, size_t n)
{
	uint64_t v = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		/* too big, whatever follows (checked before it could wrap) */
		if (v > ((uint64_t)INT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return (int64_t)v;
}

static void model_line(const char *l, size_t n, const char *const *phases, bool want_status, struct expect *e)
{
	const char *text = l + 1, *sp, *tab;
	size_t tn = n - 1;

	if (n == 0 || memchr(l, '\0', n))
		return;
	switch (l[0]) {
	case 'I':
		tab = memchr(text, '\t', tn);
		if (!tab)
			return;
		for (size_t i = 0; phases[i]; i++) {
			if (strlen(phases[i]) == (size_t)(tab - text) && memcmp(phases[i], text, (size_t)(tab - text)) == 0) {
				FUZZ_CHECK(e->n_events < MAX_EXPECT);
				e->phase[e->n_events] = phases[i];
				e->detail[e->n_events] = tab + 1;
				e->detail_len[e->n_events++] = tn - (size_t)(tab + 1 - text);
			}
		}
		break;
	case 'L':
		sp = memchr(text, ' ', tn);
		if (sp) {
			int a, b;

			if (model_int(text, (size_t)(sp - text), &a) && model_int(sp + 1, tn - (size_t)(sp + 1 - text), &b)) {
				e->abi = a;
				e->syscalls = b;
			}
		}
		break;
	case 'X':
		e->exec_seen = true;
		e->exec_ns = model_stamp(text, tn);
		break;
	case 'E':
		if (!e->failed) {
			e->error = text;
			e->error_len = tn;
		}
		e->failed = true;
		break;
	case 'S':
		if (want_status) {
			const char *blank = memchr(text, ' ', tn);
			int ws, left = -1;

			if (blank ? model_int(text, (size_t)(blank - text), &ws) &&
				    model_int(blank + 1, tn - (size_t)(blank + 1 - text), &left) && left >= 0
				  : model_int(text, tn, &ws)) {
				FUZZ_CHECK(e->n_status < MAX_EXPECT);
				e->status[e->n_status++] = ws;
				if (blank)
					e->lingering = left;
			}
		}
		break;
	}
}

/* Every complete line of the stream that fits the buffer, in order. */
static void model(const char *s, size_t n, const char *const *phases, bool want_status, struct expect *e)
{
	size_t pos = 0;

	memset(e, 0, sizeof(*e));
	e->lingering = -1;
	while (pos < n) {
		const char *nl = memchr(s + pos, '\n', n - pos);
		size_t len;

		if (!nl)
			break;	/* still being written */
		len = (size_t)(nl - (s + pos));
		if (len + 1 <= CTL_LINE_MAX)
			model_line(s + pos, len, phases, want_status, e);
		pos += len + 1;
	}
}

struct got {
	int status[MAX_EXPECT];
	size_t n_status;
};

/* Handle what is buffered, as the backend would. */
static void drain(struct sandbox_ctl *c, bool gvisor, struct got *g, struct sd_error *err)
{
	enum sandbox_ctl_stop r;
	int ws = 0;

	do {
		r = sandbox_ctl_lines(c, gvisor ? &ws : NULL, err);
		FUZZ_CHECK(c->len <= CTL_LINE_MAX);
		if (r == CTL_GOT_STATUS) {
			FUZZ_CHECK(gvisor);
			FUZZ_CHECK(g->n_status < MAX_EXPECT);
			g->status[g->n_status++] = ws;
		}
	} while (r != CTL_ALL_READ);
}

/* The stream: the input, or with runs expanded. */
static char *stream(const uint8_t *p, size_t n, bool runs, size_t *len)
{
	size_t cap = n + 1, o = 0;
	char *s = malloc(cap);

	FUZZ_CHECK(s != NULL);
	for (size_t i = 0; i < n; i++) {
		size_t k = 1;
		char c = (char)p[i];

		if (runs && p[i] == 0xfe && i + 2 < n) {
			k = 16 * ((size_t)p[i + 1] + 1);
			c = (char)p[i + 2];
			i += 2;
		}
		if (o + k >= cap) {
			cap = 2 * (o + k) + 1;
			s = realloc(s, cap);
			FUZZ_CHECK(s != NULL);
		}
		memset(s + o, c, k);
		o += k;
	}
	*len = o;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[] = { 1, 3, 64, 1000, 4095, 4096, 5000, 65536 };
	static struct expect e;
	static struct got g;
	unsigned flags = size ? data[0] : 0;
	bool gvisor = flags & 1, use_pipe = flags & 2;
	size_t chunk = chunks[(flags >> 2) % 8];	/* bits 2-4 */
	size_t n, pos = 0;
	char *s = stream(size ? data + 1 : data, size ? size - 1 : 0, flags & 0x80, &n);
	const char *const *phases = gvisor ? gvisor_phases : native_phases;
	struct sandbox_result res;
	struct sandbox_ctx ctx;
	struct sandbox_ctl c;
	struct sd_error err = { 0 };
	int p[2] = { -1, -1 };

	memset(&res, 0, sizeof(res));
	memset(&ctx, 0, sizeof(ctx));
	ctx.res = &res;
	ctx.log_fd = -1;
	memset(&g, 0, sizeof(g));
	sandbox_ctl_init(&c, &ctx, phases);
	if (use_pipe)
		FUZZ_CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
	while (pos < n) {
		size_t k = n - pos < chunk ? n - pos : chunk;

		if (use_pipe) {
			ssize_t w = write(p[1], s + pos, k);

			FUZZ_CHECK(w > 0);
			pos += (size_t)w;
			for (;;) {
				ssize_t r = sandbox_ctl_read(&c, p[0]);

				FUZZ_CHECK(c.len <= CTL_LINE_MAX);
				if (r < 0) {
					FUZZ_CHECK(errno == EAGAIN);
					break;
				}
				FUZZ_CHECK(r > 0);	/* no EOF while the write end is open */
				drain(&c, gvisor, &g, &err);
			}
		} else {
			pos += sandbox_ctl_feed(&c, s + pos, k);
			FUZZ_CHECK(c.len <= CTL_LINE_MAX);
			drain(&c, gvisor, &g, &err);
		}
	}
	if (use_pipe) {
		close(p[1]);
		FUZZ_CHECK(sandbox_ctl_read(&c, p[0]) == 0);	/* EOF: all was read */
		close(p[0]);
	}

	model(s, n, phases, gvisor, &e);
	FUZZ_CHECK(res.n_events == e.n_events);
	for (size_t i = 0; i < e.n_events; i++) {
		FUZZ_CHECK(strcmp(res.events[i].phase, e.phase[i]) == 0);
		FUZZ_CHECK(strlen(res.events[i].detail) == e.detail_len[i]);
		FUZZ_CHECK(memcmp(res.events[i].detail, e.detail[i], e.detail_len[i]) == 0);
	}
	FUZZ_CHECK(g.n_status == e.n_status);
	for (size_t i = 0; i < e.n_status; i++)
		FUZZ_CHECK(g.status[i] == e.status[i]);
	FUZZ_CHECK(c.lingering == e.lingering);
	FUZZ_CHECK(c.exec_seen == e.exec_seen);
	FUZZ_CHECK(c.exec_ns == e.exec_ns);
	FUZZ_CHECK(c.failed == e.failed);
	if (e.failed) {
		size_t want = e.error_len < sizeof(err.msg) - 1 ? e.error_len : sizeof(err.msg) - 1;

		FUZZ_CHECK(err.code == EIO);
		FUZZ_CHECK(strlen(err.msg) == want && memcmp(err.msg, e.error, want) == 0);
	} else {
		FUZZ_CHECK(err.code == 0 && err.msg[0] == '\0');
	}
	FUZZ_CHECK(res.landlock_abi == e.abi && res.seccomp_syscalls == e.syscalls);

	for (size_t i = 0; i < res.n_events; i++)
		free(res.events[i].detail);
	free(res.events);
	free(s);
	return 0;
}
