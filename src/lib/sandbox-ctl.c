/* sandbox-ctl.c - the control lines init sends the supervisor from inside the sandbox, read alike by every backend
 *
 * The native backend reads them from the message pipe until the program is
 * executed (sandbox-native.c), the gVisor backend from the ctl FIFO until
 * the program's status (sandbox-gvisor.c). Init writes them; the program
 * never holds the descriptor. Still, they cross from inside the sandbox, so
 * they are parsed as untrusted text (tests/fuzz/fuzz-sandbox-ctl.c).
 */
#define _GNU_SOURCE
#include "sandbox-ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sandbox_ctl_init(struct sandbox_ctl *c, struct sandbox_ctx *ctx, const char *const *phases)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->phases = phases;
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

enum sandbox_ctl_stop sandbox_ctl_lines(struct sandbox_ctl *c, int *wstatus, struct sd_error *err)
{
	enum sandbox_ctl_stop ret = CTL_ALL_READ;
	char *nl;

	while ((nl = memchr(c->line, '\n', c->len))) {
		char *text = c->line + 1;

		*nl = '\0';
		switch (c->line[0]) {
		case CTL_EVENT:
			event(c, text);
			break;
		case CTL_INFO:
			sscanf(text, "%d %d", &c->ctx->res->landlock_abi, &c->ctx->res->seccomp_syscalls);
			break;
		case CTL_EXEC:
			c->exec_seen = true;
			ret = CTL_GOT_EXEC;
			break;
		case CTL_ERROR:
			if (!c->failed)
				sd_error_set(err, EIO, "%s", text);
			c->failed = true;
			break;
		case CTL_STATUS:
			if (wstatus && sscanf(text, "%d", wstatus) == 1)
				ret = CTL_GOT_STATUS;
			break;
		}
		c->len -= (size_t)(nl + 1 - c->line);
		memmove(c->line, nl + 1, c->len);
		if (ret != CTL_ALL_READ)
			break;
	}
	if (c->len == sizeof(c->line))
		c->len = 0;	/* an overlong line: drop it */
	return ret;
}
