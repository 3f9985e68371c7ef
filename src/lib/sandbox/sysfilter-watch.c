/* sysfilter-watch.c - the calls the seccomp filter refuses outright and those the supervisor looks at (tripwires) */
#include "sandbox/sysfilter.h"

#include <stddef.h>

/* Only an escape or an attack on the host needs these: the process dies. */
const char *const sysfilter_fatal_names[] = {
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns",
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "syslog",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "vhangup", "lookup_dcookie", "personality",
	"fanotify_init", "nfsservctl", "uselib", "_sysctl", "create_module",
	"get_kernel_syms", "query_module", NULL,
};

/* Calls that create, remove or change a file by path: allowed, but the
 * notifying filter shows each to the supervisor first, which counts those
 * aimed outside the writable directories (the mounts and Landlock refuse
 * them). Argument indexes of the directory descriptor (-1: the working
 * directory) and of the path, for up to two paths. open and openat are
 * watched only when their flags write (sysfilter-build.c). */
const struct sysfilter_path_call sysfilter_path_calls[] = {
	{ "open", { -1, -1 }, { 0, -1 } },
	{ "creat", { -1, -1 }, { 0, -1 } },
	{ "openat", { 0, -1 }, { 1, -1 } },
	{ "openat2", { 0, -1 }, { 1, -1 } },
	{ "mkdir", { -1, -1 }, { 0, -1 } },
	{ "mkdirat", { 0, -1 }, { 1, -1 } },
	{ "rmdir", { -1, -1 }, { 0, -1 } },
	{ "unlink", { -1, -1 }, { 0, -1 } },
	{ "unlinkat", { 0, -1 }, { 1, -1 } },
	{ "rename", { -1, -1 }, { 0, 1 } },
	{ "renameat", { 0, 2 }, { 1, 3 } },
	{ "renameat2", { 0, 2 }, { 1, 3 } },
	{ "link", { -1, -1 }, { 1, -1 } },
	{ "linkat", { 2, -1 }, { 3, -1 } },
	{ "symlink", { -1, -1 }, { 1, -1 } },
	{ "symlinkat", { 1, -1 }, { 2, -1 } },
	{ "truncate", { -1, -1 }, { 0, -1 } },
	{ "mknod", { -1, -1 }, { 0, -1 } },
	{ "mknodat", { 0, -1 }, { 1, -1 } },
	{ "chmod", { -1, -1 }, { 0, -1 } },
	{ "fchmodat", { 0, -1 }, { 1, -1 } },
	{ "chown", { -1, -1 }, { 0, -1 } },
	{ "lchown", { -1, -1 }, { 0, -1 } },
	{ "fchownat", { 0, -1 }, { 1, -1 } },
	{ NULL, { -1, -1 }, { -1, -1 } },
};

/* Refused calls that ordinary runtimes probe at start and do without
 * (node asks for a memory protection key): answered EPERM, not counted. */
const char *const sysfilter_quiet_names[] = { "pkey_alloc", "pkey_free", "pkey_mprotect", NULL };
