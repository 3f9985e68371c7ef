/* sandbox-internal.h - what sandbox.c shares with the backends: context, events, the backend table */
#ifndef SANDEVAL_SANDBOX_INTERNAL_H
#define SANDEVAL_SANDBOX_INTERNAL_H

#include <sys/types.h>

#include "sandbox/cgroup.h"
#include "sandbox/sandbox.h"

/* The uid and gid the program has inside its user namespace. */
#define SANDBOX_UID 1000
#define SANDBOX_GID 1000

/* The /etc files every sandbox gets (host root, gVisor's, images without
 * their own). /etc/hosts names the cloud metadata services as clouds' own
 * images do (base/tripwire.h's tripwire_metadata_names, on the address
 * they all answer on): a program that looks one up and connects is a
 * metadata probe at its connect, on every backend, with no DNS query to
 * read (docs/sandbox.md#tripwires). */
#define SANDBOX_ETC_PASSWD "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:1000:1000:sandbox:/work:/bin/sh\n" \
			   "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
#define SANDBOX_ETC_GROUP "root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n"
#define SANDBOX_ETC_HOSTNAME "sandbox\n"
#define SANDBOX_ETC_HOSTS "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost\n" \
			  "169.254.169.254\tmetadata.google.internal metadata.goog metadata instance-data " \
			  "instance-data.ec2.internal metadata.azure.com metadata.packet.net metadata.platformequinix.com\n"

struct sandbox_ctx {
	const struct sandbox_config *cfg;
	struct sandbox_result *res;
	int64_t t0_ms;			/* start of the run, for event times */
	int log_fd;			/* --log, or -1 */
	int lock_fd;			/* gc lock held for the whole run */
	char *lock_path;
	struct cgroup *cg;		/* NULL: rlimits only */
	bool as_root;			/* host euid 0: map a dedicated host uid */
	uid_t host_uid;
	gid_t host_gid;
	void *backend_data;
	/* Called once, with ASSIGNED_ARG, when the program runs and its clock
	 * and CPU are counted (supervise_loop); NULL: nothing. The pool starts
	 * the next sandbox then (sandbox-pool.c), while this one's program runs. */
	void (*assigned)(void *arg);
	void *assigned_arg;
};

struct sandbox_backend {
	const char *name;
	/* Usage errors particular to the backend (NULL: none); nothing is run. */
	int (*check)(const struct sandbox_config *cfg, struct sd_error *err);
	/* Everything outside the sandbox: cgroups, mappings, state. */
	int (*provision)(struct sandbox_ctx *ctx, struct sd_error *err);
	/* Inject, constrain, execute and supervise to the end; fills ctx->res. */
	int (*execute)(struct sandbox_ctx *ctx, struct sd_error *err);
	/* Kill whatever is left and remove every trace; must be safe after any failure. */
	void (*destroy)(struct sandbox_ctx *ctx);
	/* gc: the tag of the backend's lines in run records (runrec_note_tagged;
	 * NULL: it writes none), and the sweep of such a line of a dead run
	 * (FIELDS: what follows the tag and its tab). 1 when something was
	 * removed, 0 when the line names nothing of ours, -1 on failure. */
	const char *record_tag;
	int (*sweep)(const char *state_dir, char *fields, struct sd_error *err);
};

/* What sandbox_run does around a backend's execute, for the pool too
 * (sandbox-pool.c). CTX has cfg, res and t0_ms set, log_fd and lock_fd -1.
 * Begin: a fresh id and the --log file (-1: nothing can run). Provision:
 * the gc lock and record, then BE's provision (-1: a sandbox error). End:
 * BE's destroy, the lock and the log dropped; safe after any failure. */
int sandbox_ctx_begin(struct sandbox_ctx *ctx, struct sd_error *err);
int sandbox_ctx_provision(struct sandbox_ctx *ctx, const struct sandbox_backend *be, struct sd_error *err);
void sandbox_ctx_end(struct sandbox_ctx *ctx, const struct sandbox_backend *be);
/* sandbox-pool.c: a pre-started sandbox for CTX's configuration, rebound to
 * it (ctx->res gets its id and start events), or a fresh one provisioned;
 * ctx->assigned then starts the next. 0, or -1 as sandbox_ctx_provision. */
int sandbox_pool_take(struct sandbox_pool *p, struct sandbox_ctx *ctx, struct sd_error *err);
/* After CTX's sample ended (nothing of it runs): true when P took CTX over,
 * to destroy it once the next sample's program runs (or at
 * sandbox_pool_free), so that the run has the result without waiting for
 * the teardown; false (CTX still the caller's) when it could not. */
bool sandbox_pool_retire(struct sandbox_pool *p, struct sandbox_ctx *ctx);

extern const struct sandbox_backend sandbox_native_backend;
extern const struct sandbox_backend sandbox_gvisor_backend;
extern const struct sandbox_backend sandbox_firecracker_backend;

/* Record a lifecycle event (and append it to --log). */
void sandbox_event(struct sandbox_ctx *ctx, const char *phase, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sandbox_add_limit(struct sandbox_result *res, const char *name, double value,
		       const char *unit, const char *mechanism);

/* What the run's cgroup controls (all false without one). */
struct sandbox_cg {
	bool memory, pids, cpu;
};
/* Create the run's cgroup "sandeval-<id>" beneath sandeval's own (from one of
 * SPARES parked ones where there is one: cgroup_create), record it for gc, set
 * the memory ceiling and PIDS_MAX; fills *has and res->limits_note. No usable
 * cgroup is not an error: ctx->cg stays NULL and *why says why. */
int sandbox_provision_cgroup(struct sandbox_ctx *ctx, long pids_max, unsigned want, int spares,
			     struct sandbox_cg *has,
			     struct sd_error *why, struct sd_error *err);
/* Report every limit with the mechanism that enforces it. */
void sandbox_add_limits(struct sandbox_ctx *ctx, const struct sandbox_cg *has);

#endif
