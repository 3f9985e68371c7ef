/* landlock.c - filesystem write fence: writes only under /work and /tmp (Landlock LSM) */
#define _GNU_SOURCE
#include "sandbox/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"

/* Debian 12's headers stop at ABI 2; the later bits are fixed kernel ABI. */
#define FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#define FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#define SCOPE_SIGNAL	(1ULL << 1)		/* ABI 6 */

struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_WRITE_V1 (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

static int add_rule(int ruleset, const char *path, uint64_t access, struct sd_error *err)
{
	struct landlock_path_beneath_attr attr = { .allowed_access = access };
	cleanup_close int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return sd_error_errno(err, errno, "landlock: cannot open '%s'", path);
	}
	attr.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) < 0)
		return sd_error_errno(err, errno, "landlock: cannot add a rule for '%s'", path);
	return 0;
}

int landlock_restrict(const char *const *writable, const char *const *device, struct sd_error *err)
{
	struct ruleset_attr attr = { 0 };
	size_t attr_size = sizeof(attr.handled_access_fs);
	cleanup_close int ruleset = -1;
	uint64_t write_all_access = FS_WRITE_V1, dev_access;
	int abi = landlock_abi();

	if (abi <= 0)
		return 0;
	if (abi >= 2)
		write_all_access |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		write_all_access |= FS_TRUNCATE;
	dev_access = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0);
	if (abi >= 5)
		dev_access |= FS_IOCTL_DEV;
	attr.handled_access_fs = FS_READ | write_all_access | (abi >= 5 ? FS_IOCTL_DEV : 0);
	if (abi >= 6) {
		attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset < 0)
		return sd_error_errno(err, errno, "landlock: cannot create a ruleset");
	if (add_rule(ruleset, "/", FS_READ, err) < 0)
		return -1;
	for (; writable && *writable; writable++)
		if (add_rule(ruleset, *writable, FS_READ | write_all_access | (abi >= 5 ? FS_IOCTL_DEV : 0), err) < 0)
			return -1;
	for (; device && *device; device++)
		if (add_rule(ruleset, *device, FS_READ | dev_access, err) < 0)
			return -1;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return sd_error_errno(err, errno, "landlock: cannot restrict");
	return abi;
}
