/* sandbox.h - run one program in a fresh, isolated, resource-bounded sandbox and destroy it */
#ifndef SANDEVAL_SANDBOX_H
#define SANDEVAL_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/tripwire.h"

enum sandbox_status {
	SB_OK,
	SB_NONZERO_EXIT,
	SB_SIGNALED,
	SB_CPU_LIMIT,
	SB_WALL_LIMIT,
	SB_MEMORY_LIMIT,
	SB_OUTPUT_LIMIT,
	SB_FILE_SIZE_LIMIT,
	SB_SECCOMP_VIOLATION,
	SB_SANDBOX_ERROR,
	SB_INTERRUPTED,		/* the caller's cancel_fd became readable: stopped, destroyed */
};

struct sandbox_file {
	const char *dest;	/* path under /work ("a/b.py" or "/work/a/b.py") */
	const char *src;	/* host path (with data: only a name for messages) */
	const char *data;	/* or the contents, from memory (NULL: read src) */
	size_t len;
	bool executable;	/* with data: mode 0555 instead of 0444 */
	bool shared;		/* with data: the same for every sample of the run (a runner's
				 * file): a pool may put it into a sandbox before its sample */
};

struct zygote;
struct sandbox_pool;
struct sandbox_result;
struct json_t;

struct sandbox_config {
	const char *backend;		/* "native", "gvisor" (or "firecracker": fails, no KVM here) */
	const char *platform;		/* gvisor: "ptrace", "kvm", or NULL for the best available */
	const char *image;		/* "host", a directory, or an image NAME[@sha256:HEX] (image.h) */
	char *const *argv;		/* program and arguments, NULL-terminated */
	const struct sandbox_file *files;
	size_t n_files;
	const char *stdin_path;		/* NULL: empty stdin (or stdin_data) */
	const char *stdin_data;		/* stdin from memory, when stdin_path is NULL */
	size_t stdin_len;
	char *const *env;		/* NAME=VALUE strings */
	size_t n_env;
	double cpu_time;		/* seconds */
	double wall_time;		/* seconds */
	uint64_t memory;		/* bytes, including swap */
	long pids;
	long fds;
	uint64_t file_size;		/* bytes */
	uint64_t tmpfs;			/* bytes of /work + /tmp together */
	uint64_t output;		/* bytes kept of stdout and of stderr each */
	const char *log_path;		/* NULL: no event log */
	const char *cgroup_root;	/* "/sys/fs/cgroup" */
	int cgroup_spares;		/* native, cgroup v1: emptied cgroups kept for the next
					 * runs (cgroup_release); 0: each run makes its own.
					 * SANDEVAL_CGROUP_SPARES, default 8; -1: malformed */
	const char *state_dir;		/* NULL: runrec_state_dir() */
	struct zygote *zygote;		/* native, image "host": start warm from it (zygote.h) */
	struct sandbox_pool *pool;	/* gvisor: take a pre-started sandbox from it (sandbox-pool.h) */
	int cancel_fd;			/* -1 (sandbox_config_init): none. Once it reads as ready
					 * (data, end of file, a hang-up: a signalfd, a pipe whose
					 * writer closed), the program is stopped and the sandbox
					 * destroyed as at a limit: status SB_INTERRUPTED. It is
					 * polled, never read. */
	/* Optional: called once, as soon as the result is final but for
	 * run_ms and the events still to come (destroy's), while the sandbox is
	 * torn down: with the native backend, while its init dies (0.7 ms on
	 * this project's machines, docs/benchmarks-exec.md), so that what the
	 * caller makes of the result overlaps that. Not called when the result
	 * is known only after the teardown (processes were left running, no
	 * cgroup, gVisor) or on an error. */
	void (*settled)(void *arg, const struct sandbox_result *res);
	void *settled_arg;
};

struct sandbox_event {
	int64_t t_ms;
	const char *phase;	/* provision|inject|constrain|execute|limit|destroy */
	char *detail;
};

struct sandbox_limit {
	const char *name;	/* "memory", "pids", ... */
	double value;
	const char *unit;	/* "bytes", "seconds", "count" */
	const char *mechanism;	/* "cgroup-v1", "cgroup-v2", "rlimit", "supervisor", "tmpfs" */
};

struct sandbox_result {
	char id[33];			/* 128 random bits, hex */
	const char *backend;
	enum sandbox_status status;
	int exit_code;			/* -1 when the program did not exit */
	int signal;			/* 0 when the program was not signaled */
	int64_t wall_ms;
	int64_t cpu_ms;			/* -1 when unknown */
	int64_t run_ms;			/* sandbox_run's wall time: the sample's wait, destroy included */
	int64_t prestart_ms;		/* gvisor: how long its sandbox had been starting when it came */
	int64_t prestart_cpu_ms;	/* gvisor: host CPU its sandbox used before it came (-1 unknown) */
	int64_t sandbox_cpu_ms;		/* gvisor: host CPU of its whole sandbox, start included (-1 unknown) */
	bool pooled;			/* gvisor: a pre-started sandbox of a pool served it (sandbox-pool.h) */
	int64_t peak_memory_bytes;	/* -1 when unknown */
	char *stdout_buf, *stderr_buf;	/* raw bytes, NUL-terminated */
	size_t stdout_len, stderr_len;
	bool stdout_truncated, stderr_truncated;
	struct sandbox_limit limits[12];
	size_t n_limits;
	char limits_note[512];		/* why a limit fell back to rlimits */
	struct sandbox_event *events;
	size_t n_events;
	char error[1024];		/* sandbox_error: what failed */
	unsigned long host_uid;		/* the host uid the program ran as */
	int landlock_abi;		/* 0: kernel without Landlock */
	int seccomp_syscalls;		/* allowed system calls */
	const char *platform;		/* gvisor: the runsc platform that ran, else NULL */
	char image_name[128];		/* "host", a directory, or the image's name */
	char image_digest[72];		/* "sha256:<64 hex>", or "" when not known */
	struct tripwires tripwires;	/* what the program tried, counted by the supervisor */
};

void sandbox_config_init(struct sandbox_config *cfg);
/* The environment sandbox_config_init reads (SANDEVAL_CGROUP_SPARES) is
 * well-formed: for front ends to refuse at their start, before any sample. */
int sandbox_env_check(struct sd_error *err);
/* Check a configuration without running anything (usage errors). */
int sandbox_config_check(const struct sandbox_config *cfg, struct sd_error *err);

/* Provision, inject, constrain, execute, destroy. Returns 0 with *res filled
 * (status SB_SANDBOX_ERROR when sandeval itself failed), or -1 for a
 * configuration that cannot run at all (usage error, *err says why). */
int sandbox_run(const struct sandbox_config *cfg, struct sandbox_result *res, struct sd_error *err);
void sandbox_result_release(struct sandbox_result *res);

const char *sandbox_status_name(enum sandbox_status status);
/* The result as one JSON object (malloc'd text), or NULL on ENOMEM. */
char *sandbox_result_json(const struct sandbox_result *res);
/* The same in two steps, for sandbox_config.settled: the object of RES as it
 * is (NULL on ENOMEM), then, once sandbox_run returned, that object
 * completed from RES (run_ms, the events after its first N_EVENTS, the
 * error) and formatted; O is consumed. */
struct json_t *sandbox_result_object(const struct sandbox_result *res);
char *sandbox_result_finish(struct json_t *o, size_t n_events, const struct sandbox_result *res);

/* Names of the available backends, NULL-terminated. */
const char *const *sandbox_backends(void);

/* For gc (gc.h): LINE is a line of a dead run's record (runrec.h). When it
 * is a backend's (its record tag first), that backend removes what it names:
 * 1 (and *REMOVED whether anything was), or -1 on failure. 0 when no
 * backend's tag starts LINE (it names a cgroup directory). */
int sandbox_backend_sweep(const char *state_dir, char *line, bool *removed, struct sd_error *err);

#endif
