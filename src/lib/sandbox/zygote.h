/* zygote.h - warm starts: a running Python interpreter forks each sandbox's program
 *
 * A cold start executes python3 in every fresh sandbox: ~20 ms of CPU for the
 * interpreter and the driver's imports before any test runs. A zygote is one
 * python3 per supervisor process (runners/zygote.py) that has imported the
 * driver once and then waits in sandeval_zygote_serve(). For each sandbox the
 * supervisor sends it the sandbox's arguments and descriptors; the zygote
 * clone()s with CLONE_PARENT, so init is the supervisor's own child, exactly
 * as on a cold start, and the new process builds the same fresh sandbox
 * (sandbox-child.c: namespaces, root, cgroup, rlimits, capabilities,
 * Landlock, seccomp). Only the last step differs: instead of executing the
 * program, the program process returns into the warm interpreter, which runs
 * the driver. The zygote never holds a plan, a test or a candidate's code:
 * those reach the program on its stdin and in /work only.
 */
#ifndef SANDEVAL_ZYGOTE_H
#define SANDEVAL_ZYGOTE_H

#include <sys/types.h>

#include "base/error.h"

struct zygote;
struct child_args;

/* Start python3 (the sandbox's PATH) on RUNNERS_DIR/SCRIPT ("zygote.py": the
 * tests' driver; "lint/zygote.py": lint's, runners/lint/zygote.py) and wait
 * until it has loaded what it preloads; NULL with *err when it could not. */
struct zygote *zygote_start(const char *runners_dir, const char *script, struct sd_error *err);
/* The process that started Z, which alone can use it (init becomes its child). */
pid_t zygote_owner(const struct zygote *z);
void zygote_stop(struct zygote *z);

/* Have Z create a sandbox's init with A (as the native backend's clone()
 * would, A->cfg's image "host" only). Returns init's pid, a child of the
 * caller, or -1 with *err (Z is then unusable: zygote_stop it). */
pid_t zygote_spawn(struct zygote *z, const struct child_args *a, struct sd_error *err);

/* In the zygote process (sandeval-zygote.so, called by zygote.py through
 * ctypes): serve spawn requests on SOCK. Returns 0 in each sandbox's program
 * process, ready to run the driver, 1 when the supervisor hung up. */
int sandeval_zygote_serve(int sock);
/* The program's argv[I] and environment entry I (NULL past the end). */
const char *sandeval_zygote_arg(int i);
const char *sandeval_zygote_env(int i);

#endif
