/* sandbox-pool.h - pre-started gVisor sandboxes: the next sample's sandbox boots while this one runs; each serves one sample, then is destroyed */
#ifndef SANDEVAL_SANDBOX_POOL_H
#define SANDEVAL_SANDBOX_POOL_H

#include <stddef.h>

struct sandbox_pool;

/* A pool that keeps AHEAD (>= 1) gVisor sandboxes started ahead of their
 * samples, for the process that uses it first (a forked copy starts its
 * own). Nothing is started before the first sample: sandbox_run with
 * cfg->pool takes one (or starts one then) and, once the sample's request
 * reached it, starts the next with that sample's image, platform, state
 * directory and log. A used sandbox is destroyed while the next sample's
 * program runs, after sandbox_run returned its result. NULL on ENOMEM. */
struct sandbox_pool *sandbox_pool_new(size_t ahead);
/* Destroy now the used sandboxes whose destruction waits for the next
 * sample (for a caller that looks at the host before another sample
 * comes: sandbox_run returned with its sandbox still there). NULL: nothing. */
void sandbox_pool_settle(struct sandbox_pool *p);
/* Destroy what was started and not taken, and the used sandboxes whose
 * destruction waited for the next sample (in this process: a forked copy's
 * are its parent's, left alone), and free P. */
void sandbox_pool_free(struct sandbox_pool *p);

#endif
