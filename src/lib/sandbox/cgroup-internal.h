/* cgroup-internal.h - the table of operations that differ between cgroup v1 and v2 */
#ifndef SANDEVAL_CGROUP_INTERNAL_H
#define SANDEVAL_CGROUP_INTERNAL_H

#include "sandbox/cgroup.h"

struct cgroup_ops {
	const char *name;
	const char *self_file;	/* where a task writes "0" to move itself in */
	int (*create)(struct cgroup *cg, const char *fsroot, const char *proc_cgroup,
		      const char *name, struct sd_error *err);
	int (*set_memory)(struct cgroup *cg, uint64_t bytes, struct sd_error *err);
	int (*set_pids)(struct cgroup *cg, long max, struct sd_error *err);
	int (*enter)(struct cgroup *cg, pid_t pid, struct sd_error *err);
	int (*stats)(struct cgroup *cg, struct cgroup_stats *st);
	int (*cpu_ns)(struct cgroup *cg, uint64_t *ns);
	int (*kill)(struct cgroup *cg, struct sd_error *err);
	char **(*parent_dirs)(const char *fsroot, const char *proc_cgroup);
	/* Reset the emptied cgroup and rename its directories into spare slots;
	 * those it parks are taken out of dir[]. How many it parked (NULL: never). */
	int (*park)(struct cgroup *cg);
};

struct cgroup {
	const struct cgroup_ops *ops;
	char *dir[CG_NCTL];		/* v1: one per controller; v2: all the same */
	bool has[CG_NCTL];
	unsigned want;			/* cgroup_create's WANT */
	int spares;			/* cgroup_create's SPARES: slots per parent */
	bool reused[CG_NCTL];		/* this directory was a spare */
	uint64_t mem_base;		/* a memory spare's charges when taken (cgroup-v1.c) */
	int cpu_fd;			/* cgroup_read_cpu_file's, or -1 */
	const char *list[CG_NCTL + 1];	/* distinct dirs, for cgroup_dirs() */
	char note[512];
};

extern const struct cgroup_ops cgroup_v1_ops;
extern const struct cgroup_ops cgroup_v2_ops;

/* Path of this process's cgroup for CONTROLLER ("" = the v2 line) in
 * /proc/self/cgroup, malloc'd, or NULL. */
char *cgroup_own_path(const char *proc_cgroup, const char *controller);
/* Write "1\n"-style text to DIR/FILE. */
int cgroup_write(const char *dir, const char *file, const char *text, struct sd_error *err);
int cgroup_read_u64(const char *dir, const char *file, uint64_t *out);
/* Value of KEY in a "key value" file (memory.events, cpu.stat, oom_control). */
int cgroup_read_key(const char *dir, const char *file, const char *key, uint64_t *out);
/* The same in TEXT, that file's contents. */
int cgroup_parse_key(const char *text, const char *key, uint64_t *out);
/* DIR/FILE of the CPU accounting into BUF (SIZE bytes, NUL-terminated),
 * through a descriptor opened once and kept until cgroup_free: the
 * supervisor reads it at every wake-up (~28 times a sandbox of `run`), and
 * the open and close were two of each read's three system calls. */
int cgroup_read_cpu_file(struct cgroup *cg, const char *dir, const char *file, char *buf, size_t size);
/* True when DIR/cgroup.procs lists no process (or cannot be read). */
bool cgroup_dir_empty(const char *dir);
/* SIGKILL every pid listed in DIR/cgroup.procs; returns how many were listed. */
int cgroup_kill_procs(const char *dir);
void cgroup_note_add(struct cgroup *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cgroup_file_exists(const char *dir, const char *file);

#endif
