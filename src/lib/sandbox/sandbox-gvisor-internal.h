/* sandbox-gvisor-internal.h - what sandbox-gvisor.c and sandbox-gvisor-bundle.c share */
#ifndef SANDEVAL_SANDBOX_GVISOR_INTERNAL_H
#define SANDEVAL_SANDBOX_GVISOR_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "sandbox/sandbox-ctl.h"
#include "sandbox/sandbox-gvisor.h"

struct gvisor {
	pid_t helper;		/* runsc run */
	char *dir;		/* <state dir>/<id>.gvisor */
	char runsc[4096];
	char container[64];	/* sandeval-<id> */
	int ctl_r, out_r, err_r, in_w, in_src;
	bool cg_memory, cg_pids, cg_cpu;
	struct sandbox_ctl ctl;	/* init's lines on the ctl FIFO */
};

/* Build DIR/bundle (config.json, the root directory) and DIR/ctl (the init,
 * the FIFOs, copies of the --file sources) for a run on IMAGE_DIR (NULL: the
 * host image). */
int gvisor_build_bundle(struct sandbox_ctx *ctx, const char *image_dir, struct sd_error *err);

#endif
