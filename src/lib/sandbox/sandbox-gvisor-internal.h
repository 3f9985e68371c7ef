/* sandbox-gvisor-internal.h - what sandbox-gvisor.c and sandbox-gvisor-bundle.c share */
#ifndef SANDEVAL_SANDBOX_GVISOR_INTERNAL_H
#define SANDEVAL_SANDBOX_GVISOR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sandbox/sandbox-ctl.h"
#include "sandbox/sandbox-gvisor.h"

struct gvisor {
	pid_t helper;		/* runsc run */
	bool ended;		/* the program ended and nothing of the sample runs (runsc may, tearing down) */
	char *dir;		/* <state dir>/<id>.gvisor */
	char runsc[4096];
	char container[64];	/* sandeval-<id> */
	int ctl_r, out_r, err_r, in_w, in_src;
	int req_w;		/* the request FIFO, read-write: held until init took it */
	bool cg_memory, cg_pids, cg_cpu;
	struct sandbox_cg has;	/* what the cgroup enforces (pids: gVisor does) */
	int64_t t_start;	/* monotonic ms: runsc was started */
	struct sandbox_ctl ctl;	/* init's lines on the ctl FIFO */
	/* the run's shared files, in /work before the sample came (gvisor_preinject): copies */
	struct sandbox_file *pre;
	size_t n_pre;
	uint64_t pre_tmpfs;
};

/* Build DIR/bundle (config.json, the root directory) and DIR/ctl (the init,
 * the FIFOs) for a sandbox on IMAGE_DIR (NULL: the host image): nothing of
 * a sample, which may not be known yet. */
int gvisor_build_bundle(struct sandbox_ctx *ctx, const char *image_dir, struct sd_error *err);
/* Copy what IN holds from where it stands into PATH, a new file (O_EXCL:
 * never through a link) of mode MODE. 0 or -1. */
int gvisor_copy_fd(int in, const char *path, mode_t mode, struct sd_error *err);
/* Close the supervisor's ends of the FIFOs (and the stdin source) that are still open. */
void gvisor_close_fds(struct gvisor *gv);
/* The sample (ctx->cfg) for init: its program, environment, limits and
 * files' names, then the files' contents, written to REQ_FD (the request
 * FIFO, non-blocking) before DEADLINE (monotonic ms). 0 or -1; 0 too when
 * init spoke on ctl before it took everything (its error is there). */
int gvisor_request(struct sandbox_ctx *ctx, int req_fd, int64_t deadline, struct sd_error *err);
/* Before its sample: TEMPLATE's shared files (the run's runner, the same
 * for every sample) into the sandbox's /work, in a request without a
 * program that init serves at once (the tmpfs is made for it), written
 * whole into the request FIFO's buffer (enlarged for it) so that nothing
 * waits. A copy of each is kept: the sandbox then serves only a sample
 * with exactly these files (gvisor_pre_matches), and its request carries
 * the others only. 0 (nothing to put in, or the FIFO could not hold it: an
 * event says so, nothing was written), -1 (written in part: the sandbox
 * must not serve). */
int gvisor_preinject(struct sandbox_ctx *ctx, const struct sandbox_config *tmpl, struct sd_error *err);
/* Whether the sandbox of GV can serve CFG: every file put in before the
 * sample is one of CFG's (same place, mode and contents) and the tmpfs
 * has CFG's size; true when nothing was put in. */
bool gvisor_pre_matches(const struct gvisor *gv, const struct sandbox_config *cfg);
void gvisor_pre_free(struct gvisor *gv);

#endif
