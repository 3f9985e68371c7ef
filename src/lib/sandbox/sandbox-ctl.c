/* sandbox-ctl.c - the control lines init sends the supervisor from inside the sandbox, read alike by every backend
 *
 * The native backend reads them from the message pipe until the program is
 * executed (sandbox-native.c), the gVisor backend from the ctl FIFO until
 * the program's status (sandbox-gvisor.c). Init writes them; the program
 * never holds the descriptor. Still, they cross from inside the sandbox, so
 * they are parsed as untrusted text (tests/fuzz/fuzz-sandbox-ctl.c).
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-ctl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sandbox_ctl_init(struct sandbox_ctl *c, struct sandbox_ctx *ctx, const char *const *phases)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->phases = phases;
	c->lingering = -1;
}

ssize_t sandbox_ctl_read(struct sandbox_ctl *c, int fd)
{
	ssize_t n = read(fd, c->line + c->len, sizeof(c->line) - c->len);

	if (n > 0)
		c->len += (size_t)n;
	return n;
}

size_t sandbox_ctl_feed(struct sandbox_ctl *c, const void *data, size_t n)
{
	if (n > sizeof(c->line) - c->len)
		n = sizeof(c->line) - c->len;
	memcpy(c->line + c->len, data, n);
	c->len += n;
	return n;
}

/* TEXT, up to END, as one int: an optional '-' and decimal digits. */
static bool parse_int(const char *text, const char *end, int *out)
{
	char *e;
	long v;

	if (text == end || !(isdigit((unsigned char)*text) || (*text == '-' && isdigit((unsigned char)text[1]))))
		return false;
	errno = 0;
	v = strtol(text, &e, 10);
	if (e != end || errno || v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* TEXT, up to END, as a positive int64, else 0. */
static int64_t parse_stamp(const char *text, const char *end)
{
	char *e;
	long long v;

	if (text == end || !isdigit((unsigned char)*text))
		return 0;
	errno = 0;
	v = strtoll(text, &e, 10);
	return e == end && !errno && v > 0 ? (int64_t)v : 0;
}

static void event(struct sandbox_ctl *c, char *text)
{
	char *tab = strchr(text, '\t');

	if (!tab)
		return;
	*tab = '\0';
	for (size_t i = 0; c->phases && c->phases[i]; i++)
		if (strcmp(text, c->phases[i]) == 0)
			sandbox_event(c->ctx, c->phases[i], "%s", tab + 1);
}

/* One complete line of N bytes, its newline replaced by a NUL. */
static enum sandbox_ctl_stop line(struct sandbox_ctl *c, char *l, size_t n, int *wstatus, struct sd_error *err)
{
	char *text = l + 1, *end = l + n, *sp;
	int a, b;

	if (n == 0 || memchr(l, '\0', n))
		return CTL_ALL_READ;	/* not init's */
	switch (l[0]) {
	case CTL_EVENT:
		event(c, text);
		break;
	case CTL_INFO:
		sp = strchr(text, ' ');
		if (sp && parse_int(text, sp, &a) && parse_int(sp + 1, end, &b)) {
			c->ctx->res->landlock_abi = a;
			c->ctx->res->seccomp_syscalls = b;
		}
		break;
	case CTL_EXEC:
		c->exec_seen = true;
		c->exec_ns = parse_stamp(text, end);
		return CTL_GOT_EXEC;
	case CTL_ERROR:
		if (!c->failed)
			sd_error_set(err, EIO, "%s", text);
		c->failed = true;
		break;
	case CTL_FILE_SIZE:
		c->file_size = true;
		break;
	case CTL_STATUS:
		/* "S STATUS" or "S STATUS LINGERING" */
		sp = strchr(text, ' ');
		if (wstatus && sp && parse_int(text, sp, wstatus) && parse_int(sp + 1, end, &b) && b >= 0) {
			c->lingering = b;
			return CTL_GOT_STATUS;
		}
		if (wstatus && !sp && parse_int(text, end, wstatus))
			return CTL_GOT_STATUS;
		break;
	}
	return CTL_ALL_READ;
}

enum sandbox_ctl_stop sandbox_ctl_lines(struct sandbox_ctl *c, int *wstatus, struct sd_error *err)
{
	enum sandbox_ctl_stop ret = CTL_ALL_READ;
	char *nl;

	while (ret == CTL_ALL_READ && (nl = memchr(c->line, '\n', c->len))) {
		size_t n = (size_t)(nl - c->line);

		*nl = '\0';
		if (c->dropping)
			c->dropping = false;	/* the end of an overlong line */
		else
			ret = line(c, c->line, n, wstatus, err);
		c->len -= n + 1;
		memmove(c->line, nl + 1, c->len);
	}
	if (c->len == sizeof(c->line)) {
		/* an overlong line: dropped, and the rest of it when it comes */
		c->len = 0;
		c->dropping = true;
	}
	return ret;
}
