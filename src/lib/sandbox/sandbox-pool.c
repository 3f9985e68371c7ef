/* sandbox-pool.c - pre-started gVisor sandboxes: the next sample's sandbox boots while this one runs; each serves one sample, then is destroyed
 *
 * runsc's start (its three processes, the Sentry's boot) is most of a gVisor
 * sample's cost, and it needs nothing of the sample: the bundle holds only
 * the image, the init and its FIFOs, and init waits for its request
 * (sandbox-gvisor.c). So a pool keeps up to AHEAD such sandboxes started,
 * each provisioned as sandbox_run would (its own id, gc record and lock,
 * cgroup, state directory, runsc processes), with the configuration of the
 * sample that was being assigned when it was started as a template: only
 * its image, platform, cgroup root, state directory and log matter, and a
 * sample whose differ never gets it (the entry is destroyed, the sample
 * starts its own). When a sample comes, the oldest matching entry is
 * rebound to it: its id and start events become the sample's (event times
 * before the assignment are negative), the memory and pids limits and the
 * reported limits become the sample's, and its request brings the rest.
 * Each entry serves one sample and is then destroyed: a sandbox is never
 * reused, since a program could leave processes, files or state in it, and
 * the Sentry's log, where the tripwires are read, would mix two samples'
 * calls. Once a sample's program has ended and nothing of the sample runs
 * (init killed what it left; runsc may still be tearing down, inside its
 * cgroups), sandbox_run hands it back (sandbox_pool_retire) and returns
 * the result: the pool
 * destroys it while the next sample's program runs, after starting the one
 * ahead, so that the teardown (cgroups, state directory, gc record) is not
 * in the run's wait for a sample. At most RETIRED_MAX wait; the oldest is
 * destroyed at once when another comes.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-pool.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/sandbox-gvisor-internal.h"
#include "sandbox/sandbox-supervise.h"

struct entry {
	struct sandbox_ctx ctx;
	struct sandbox_result res;	/* its id, events and platform until a sample takes it */
	struct sandbox_config cfg;	/* the template: the strings below */
	char *image, *platform, *cgroup_root, *state_dir, *log_path;
};

/* A used sandbox, waiting for its destruction: the sample's context, now
 * with a result and a configuration of its own (its id, for the log). */
struct retired {
	struct sandbox_ctx ctx;
	struct sandbox_result res;
	struct sandbox_config cfg;
};

#define RETIRED_MAX 4

struct sandbox_pool {
	pid_t owner;
	bool preinject;			/* put the run's shared files in ahead (off once a sample's differed) */
	size_t ahead, n, n_retired;
	struct entry **e;		/* oldest first */
	struct retired *retired[RETIRED_MAX];	/* oldest first */
	const struct sandbox_config *cur;	/* the sample being assigned: the template */
};

static const struct sandbox_backend *const be = &sandbox_gvisor_backend;

struct sandbox_pool *sandbox_pool_new(size_t ahead)
{
	struct sandbox_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->ahead = ahead < 1 ? 1 : ahead;
	p->e = calloc(p->ahead, sizeof(*p->e));
	if (!p->e) {
		free(p);
		return NULL;
	}
	p->owner = getpid();
	p->preinject = true;
	return p;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether E can serve CFG; a difference in the files put in ahead turns
 * that off in P (a run whose samples do not share them, such as tests and
 * lint alternating, would otherwise never be served). */
static bool matches(struct sandbox_pool *p, const struct entry *e, const struct sandbox_config *cfg)
{
	if (!same(e->image, cfg->image) || !same(e->platform, cfg->platform) ||
	    !same(e->cgroup_root, cfg->cgroup_root) || !same(e->state_dir, cfg->state_dir) ||
	    !same(e->log_path, cfg->log_path))
		return false;
	if (e->ctx.backend_data && !gvisor_pre_matches(e->ctx.backend_data, cfg)) {
		p->preinject = false;
		return false;
	}
	return true;
}

static void entry_free(struct entry *e)
{
	free(e->image);
	free(e->platform);
	free(e->cgroup_root);
	free(e->state_dir);
	free(e->log_path);
	sandbox_result_release(&e->res);
	free(e);
}

static void entry_destroy(struct entry *e)
{
	sandbox_ctx_end(&e->ctx, be);
	entry_free(e);
}

/* Start one sandbox on the template CUR (with its shared files when
 * PREINJECT); NULL when it could not be. */
static struct entry *prestart(const struct sandbox_config *cur, bool preinject)
{
	struct entry *e = calloc(1, sizeof(*e));
	struct sd_error err = { 0 };

	if (!e)
		return NULL;
	sandbox_config_init(&e->cfg);
	e->cfg.backend = be->name;
	e->image = strdup(cur->image);
	e->platform = cur->platform ? strdup(cur->platform) : NULL;
	e->cgroup_root = cur->cgroup_root ? strdup(cur->cgroup_root) : NULL;
	e->state_dir = cur->state_dir ? strdup(cur->state_dir) : NULL;
	e->log_path = cur->log_path ? strdup(cur->log_path) : NULL;
	e->cfg.image = e->image;
	e->cfg.platform = e->platform;
	e->cfg.cgroup_root = e->cgroup_root;
	e->cfg.state_dir = e->state_dir;
	e->cfg.log_path = e->log_path;
	/* until a sample's limits replace them */
	e->cfg.memory = cur->memory;
	e->cfg.pids = cur->pids;
	e->res.exit_code = -1;
	e->res.cpu_ms = e->res.peak_memory_bytes = -1;
	e->res.backend = be->name;
	e->ctx = (struct sandbox_ctx){ .cfg = &e->cfg, .res = &e->res, .t0_ms = now_ms(), .log_fd = -1,
				       .lock_fd = -1 };
	if (!e->image || (cur->platform && !e->platform) || (cur->cgroup_root && !e->cgroup_root) ||
	    (cur->state_dir && !e->state_dir) || (cur->log_path && !e->log_path) ||
	    sandbox_ctx_begin(&e->ctx, &err) < 0 || sandbox_ctx_provision(&e->ctx, be, &err) < 0 ||
	    (preinject && gvisor_preinject(&e->ctx, cur, &err) < 0)) {
		entry_destroy(e);
		return NULL;
	}
	return e;
}

static void retired_destroy(struct retired *r)
{
	sandbox_ctx_end(&r->ctx, be);
	sandbox_result_release(&r->res);
	free(r);
}

/* Destroy the retired sandboxes, oldest first. */
static void bury(struct sandbox_pool *p)
{
	for (size_t i = 0; i < p->n_retired; i++)
		retired_destroy(p->retired[i]);
	p->n_retired = 0;
}

/* ctx->assigned: the sample's program runs; start the next ones, then
 * destroy the used ones. */
static void refill(void *arg)
{
	struct sandbox_pool *p = arg;

	while (p->cur && p->n < p->ahead) {
		struct entry *e = prestart(p->cur, p->preinject);

		if (!e)
			break;	/* the next sample starts its own, and says why if that fails too */
		p->e[p->n++] = e;
	}
	bury(p);
}

void sandbox_pool_settle(struct sandbox_pool *p)
{
	if (p && p->owner == getpid())
		bury(p);
}

bool sandbox_pool_retire(struct sandbox_pool *p, struct sandbox_ctx *ctx)
{
	struct gvisor *gv = ctx->backend_data;
	struct retired *r;

	/* only a sandbox whose program ended and nothing of the sample runs
	 * (runsc may still be tearing down, within its cgroups) */
	if (p->owner != getpid() || !gv || !gv->ended || !(r = calloc(1, sizeof(*r))))
		return false;
	if (p->n_retired == RETIRED_MAX) {
		retired_destroy(p->retired[0]);
		memmove(p->retired, p->retired + 1, --p->n_retired * sizeof(*p->retired));
	}
	sandbox_event(ctx, "destroy", "deferred: the sandbox's program has ended and nothing of the sample runs; "
		      "the pool destroys it while the next sample's program runs");
	sandbox_config_init(&r->cfg);
	r->cfg.backend = be->name;
	memcpy(r->res.id, ctx->res->id, sizeof(r->res.id));
	r->res.backend = be->name;
	r->ctx = *ctx;
	r->ctx.cfg = &r->cfg;
	r->ctx.res = &r->res;
	r->ctx.assigned = NULL;
	p->retired[p->n_retired++] = r;
	return true;
}

/* In a forked copy: close CTX's descriptors (a held stdin writer would
 * keep the parent's program from its EOF); the parent destroys it. */
static void forget_ctx(struct sandbox_ctx *ctx)
{
	struct gvisor *gv = ctx->backend_data;

	if (gv)
		gvisor_close_fds(gv);
	close_fd(&ctx->log_fd);
	close_fd(&ctx->lock_fd);
}

static void forget(struct entry *e)
{
	forget_ctx(&e->ctx);
	free(e);
}

/* A forked copy's: the entries and the retired are the parent's. */
static void forget_all(struct sandbox_pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		forget(p->e[i]);
	for (size_t i = 0; i < p->n_retired; i++) {
		forget_ctx(&p->retired[i]->ctx);
		free(p->retired[i]);
	}
	p->n = p->n_retired = 0;
}

/* Whether E's runsc still runs (it ended: init failed, or was killed). */
static bool alive(struct entry *e)
{
	struct gvisor *gv = e->ctx.backend_data;
	int ws;

	if (!gv || gv->helper <= 0)
		return false;
	if (waitpid(gv->helper, &ws, WNOHANG) == gv->helper) {
		gv->helper = -1;
		return false;
	}
	return true;
}

/* Move E into CTX, whose cfg, res and t0_ms are the sample's. */
static void rebind(struct entry *e, struct sandbox_ctx *ctx)
{
	struct sandbox_result *res = ctx->res;
	const struct sandbox_config *cfg = ctx->cfg;
	int64_t t0 = ctx->t0_ms;
	struct gvisor *gv;

	memcpy(res->id, e->res.id, sizeof(res->id));
	res->platform = e->res.platform;
	res->host_uid = e->res.host_uid;
	memcpy(res->limits_note, e->res.limits_note, sizeof(res->limits_note));
	res->events = steal_pointer(&e->res.events);
	res->n_events = e->res.n_events;
	e->res.n_events = 0;
	for (size_t i = 0; i < res->n_events; i++)
		res->events[i].t_ms += e->ctx.t0_ms - t0;
	res->pooled = true;
	*ctx = e->ctx;
	ctx->cfg = cfg;
	ctx->res = res;
	ctx->t0_ms = t0;
	gv = ctx->backend_data;
	gv->ctl.ctx = ctx;
	e->ctx.lock_path = NULL;
	e->ctx.backend_data = NULL;
	entry_free(e);
}

int sandbox_pool_take(struct sandbox_pool *p, struct sandbox_ctx *ctx, struct sd_error *err)
{
	struct entry *got = NULL;
	size_t kept = 0;

	if (p->owner != getpid()) {
		forget_all(p);
		p->owner = getpid();
	}
	for (size_t i = 0; i < p->n; i++) {
		struct entry *e = p->e[i];

		bool fits = matches(p, e, ctx->cfg) && alive(e);

		if (!got && fits)
			got = e;
		else if (fits)
			p->e[kept++] = e;
		else
			entry_destroy(e);	/* another image, or dead: never to serve */
	}
	p->n = kept;
	p->cur = ctx->cfg;
	if (got)
		rebind(got, ctx);
	else if (sandbox_ctx_begin(ctx, err) < 0 || sandbox_ctx_provision(ctx, be, err) < 0)
		return -1;
	ctx->assigned = refill;
	ctx->assigned_arg = p;
	return 0;
}

void sandbox_pool_free(struct sandbox_pool *p)
{
	if (!p)
		return;
	if (p->owner != getpid())
		forget_all(p);
	bury(p);
	for (size_t i = 0; i < p->n; i++)
		entry_destroy(p->e[i]);
	free(p->e);
	free(p);
}
