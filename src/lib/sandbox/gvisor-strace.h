/* gvisor-strace.h - tripwires on gVisor: the Sentry's debug log (strace of the watched calls, seccomp refusals, task exits), read after the run */
#ifndef SANDEVAL_GVISOR_STRACE_H
#define SANDEVAL_GVISOR_STRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/tripwire.h"

/* Longest log line (one JSON record) read; a longer one is skipped whole. */
#define GVSTRACE_LINE_MAX (256 * 1024)

/* runsc's --strace-syscalls: only these calls are traced (the rest run
 * untraced); the seccomp refusals and task exits come from --debug. */
#define GVSTRACE_SYSCALLS \
	"connect,sendto,sendmsg,open,openat,creat,mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2," \
	"link,linkat,symlink,symlinkat,truncate,mknod,mknodat,chmod,fchmodat,chown,lchown,fchownat"

/* A reader's state between lines. */
struct gvstrace {
	struct tripwires *t;	/* where the counts go */
	bool started;		/* the program was executed: lines before are init's */
	bool ending;		/* init ended: processes that end now were left running */
	/* The files the sandbox staged read-only under /work, normalised
	 * (NULL-terminated, owned by gvstrace_read_staged; NULL: none): a write
	 * refused at one of them, or in a directory made for them, is no write
	 * outside (outside_writable). */
	char **staged;
};

void gvstrace_init(struct gvstrace *g, struct tripwires *t);
/* One line of the log (a JSON record {"msg": ..., "level": ..., "time": ...}
 * written with --debug-log-format=json); anything else is ignored. */
void gvstrace_line(struct gvstrace *g, const char *line, size_t len);
/* One record's message, as in the text log: "[ TGID: TID] ..."; MSG[LEN] is readable (a NUL). */
void gvstrace_msg(struct gvstrace *g, const char *msg, size_t len);
/* Read the log at PATH line by line into T. 0, or -1 with *err when it
 * cannot be read (T then holds what was read). */
int gvstrace_read(const char *path, struct tripwires *t, struct sd_error *err);
/* The same, with STAGED the files the sandbox staged read-only under /work
 * (NULL-terminated absolute paths; NULL: none), normalised once here into
 * struct gvstrace's staged. */
int gvstrace_read_staged(const char *path, const char *const *staged, struct tripwires *t, struct sd_error *err);

#endif
