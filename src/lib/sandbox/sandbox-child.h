/* sandbox-child.h - the native backend's in-sandbox half: init (pid 1) and the program's setup */
#ifndef SANDEVAL_SANDBOX_CHILD_H
#define SANDEVAL_SANDBOX_CHILD_H

#include <stdbool.h>
#include <stdint.h>

#include "sandbox/cgroup.h"
#include "sandbox/sandbox.h"
#include "sandbox/sysfilter.h"

struct child_args {
	const struct sandbox_config *cfg;
	bool as_root;		/* may call setgroups(0, NULL) */
	bool rlimit_memory;	/* no memory cgroup: RLIMIT_AS (set from the grant) */
	bool rlimit_pids;	/* no pids cgroup: RLIMIT_NPROC (set from the grant) */
	bool rlimit_cpu_only;	/* no CPU accounting: RLIMIT_CPU is the limit (set from the grant) */
	int sync_fd;		/* read: one byte once the id maps are written */
	int msg_fd;		/* write: control lines (sandbox-ctl.h) */
	int status_fd;		/* write: the program's wait status and whether it reached --file-size (int[2]) */
	int stdio[3];		/* the program's stdin, stdout, stderr */
	int notify_sock;	/* where init receives the cgroup grant, and the program sends the
				 * seccomp listener (tripwires) */
	int *file_fds;		/* one per cfg->files, read-only */
	int image_fd;		/* O_PATH of --image DIR (opened inside), or -1 for host */
	const struct sysfilter *filter;	/* built by the supervisor */
	bool warm;		/* in a zygote: the program returns instead of executing */
	/* The CPUs init may run on (a cpu_set_t of the supervisor's), taken
	 * back once the sync byte is read: until then the supervisor may keep
	 * init off its own CPU (sandbox-native.c, spread_init; when it did not,
	 * the taking back changes nothing). NULL: nothing. */
	const void *cpus;
};

/* The cgroup grant: what the supervisor sends init on NOTIFY_SOCK once it
 * has made the sandbox's cgroup, which it does while init builds the root
 * (the two overlap). With it, as SCM_RIGHTS, the cgroup's files through
 * which a task moves itself in (cgroup_open_procs: none without a cgroup);
 * init writes "0" to each before it forks the program, so that the
 * program and all it starts are inside, and takes the flags. */
#define CGROUP_GRANT_MAGIC 0x43475247u	/* "GRGC" */
struct cgroup_grant {
	uint32_t magic;
	uint8_t rlimit_memory, rlimit_pids, rlimit_cpu_only;
};

/* The environment every program starts with (NULL-terminated), before
 * cfg->env: the zygote (zygote.c) starts python3 with it, so that a warm
 * program's os.environ is what a cold one's would be. */
extern char *const child_base_env[];

/* Every signal's disposition back to SIG_DFL, glibc's own two (32, 33)
 * included: a cold program's before execve, the zygote's before python3. */
void child_default_signals(void);

/* Runs as pid 1 of the new namespaces. Returns only with A->warm, in the
 * program process, fully constrained, where a cold start would execute. */
void child_main(struct child_args *a);

#endif
