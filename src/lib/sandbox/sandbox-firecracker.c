/* sandbox-firecracker.c - the firecracker backend: refused at once, naming what is missing (design in docs/sandbox.md)
 *
 * A Firecracker microVM per run would boot a guest kernel with the image as
 * its read-only root disk, run an agent on vsock that executes the program
 * with the same supervisor logic, and map the limits to the VM's size and to
 * cgroups inside the guest. It needs /dev/kvm and a firecracker binary; these
 * machines have neither (Debian ships no firecracker), so the backend is a
 * usage error until then.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char dirs[4096], buf[4200], *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/usr/local/bin", path ? path : "");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", d, prog);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

static int firecracker_check(const struct sandbox_config *cfg, struct sd_error *err)
{
	bool kvm = access("/dev/kvm", R_OK | W_OK) == 0, fc = on_path("firecracker");

	(void)cfg;
	if (!kvm || !fc)
		return sd_error_set(err, ENOSYS, "backend 'firecracker' cannot run here: %s%s%s "
				    "(see docs/sandbox.md; --backend gvisor is the second boundary available)",
				    kvm ? "" : "no /dev/kvm (KVM)", !kvm && !fc ? " and " : "",
				    fc ? "" : "no firecracker binary (Debian ships none)");
	return sd_error_set(err, ENOSYS, "backend 'firecracker' is designed (docs/sandbox.md) but not implemented");
}

static int firecracker_provision(struct sandbox_ctx *ctx, struct sd_error *err)
{
	return firecracker_check(ctx->cfg, err);
}

static int firecracker_execute(struct sandbox_ctx *ctx, struct sd_error *err)
{
	return firecracker_check(ctx->cfg, err);
}

static void firecracker_destroy(struct sandbox_ctx *ctx)
{
	(void)ctx;
}

const struct sandbox_backend sandbox_firecracker_backend = {
	.name = "firecracker",
	.check = firecracker_check,
	.provision = firecracker_provision,
	.execute = firecracker_execute,
	.destroy = firecracker_destroy,
};
