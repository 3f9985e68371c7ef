/* landlock.h - filesystem write fence: writes only under /work and /tmp (Landlock LSM) */
#ifndef SANDEVAL_LANDLOCK_H
#define SANDEVAL_LANDLOCK_H

#include "base/error.h"

/* Highest Landlock ABI the running kernel supports, or 0 when it has none. */
int landlock_abi(void);

/* Restrict the calling thread (no_new_privs must be set): read and execute
 * everywhere, write only beneath the WRITABLE paths (NULL-terminated), and write
 * but not create beneath the DEVICE paths. On ABI 6 and later, also scope
 * signals and abstract unix sockets to the sandbox. Returns the ABI used (0 =
 * not supported, nothing done) or -1 on error. */
int landlock_restrict(const char *const *writable, const char *const *device, struct sd_error *err);

#endif
