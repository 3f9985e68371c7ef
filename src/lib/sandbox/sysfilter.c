/* sysfilter.c - install the seccomp allowlist every sandboxed program runs under */
#define _GNU_SOURCE
#include "sandbox/sysfilter-internal.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Generated at build time by tools/gen-sysfilter.c from sysfilter-build.c. */
#include "sysfilter-bpf.h"

const struct sysfilter *sysfilter_prebuilt(void)
{
	static const struct sysfilter prebuilt = {
		.prog = { .len = sizeof(sysfilter_bpf) / sizeof(sysfilter_bpf[0]),
			  .filter = (struct sock_filter *)sysfilter_bpf },
		.allowed = sysfilter_bpf_ALLOWED,
	};

	return &prebuilt;
}

const struct sysfilter *sysfilter_prebuilt_notify(void)
{
	static const struct sysfilter prebuilt = {
		.prog = { .len = sizeof(sysfilter_notify_bpf) / sizeof(sysfilter_notify_bpf[0]),
			  .filter = (struct sock_filter *)sysfilter_notify_bpf },
		.allowed = sysfilter_notify_bpf_ALLOWED,
	};

	return &prebuilt;
}

const char *sysfilter_syscall_name(long nr)
{
	if (nr < 0 || nr >= (long)(sizeof(sysfilter_names) / sizeof(sysfilter_names[0])))
		return NULL;
	return sysfilter_names[nr];
}

int sysfilter_allowed(const struct sysfilter *f)
{
	return f->allowed;
}

int sysfilter_install(const struct sysfilter *f, struct sd_error *err)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &f->prog) < 0)
		return sd_error_errno(err, errno, "cannot load the seccomp filter");
	return 0;
}

int sysfilter_install_listener(const struct sysfilter *f, struct sd_error *err)
{
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &f->prog);

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot load the seccomp filter with a listener");
	return (int)fd;
}
