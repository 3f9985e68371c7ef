/* fuzz-cgroup-file.c - fuzz target: parsing /proc/self/cgroup (cgroup_own_path) and "key value" cgroup files (cgroup_read_key)
 *
 * The input is written to a file in a private temp directory. Nothing here
 * kills anything: cgroup_kill_procs() and the sweep are deliberately not
 * fuzzed, as they would signal whatever pids the input names.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/cgroup-internal.h"
#include "fuzz.h"

static char dir[4096];	/* private temp directory */
static char *file;	/* dir/input */
static char *fsroot;	/* dir/none: a missing hierarchy root */
static int fd = -1;	/* file, kept open */

static void cleanup(void)
{
	close(fd);
	unlink(file);
	rmdir(dir);
	free(file);
	free(fsroot);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	if (file)
		return;
	/* Memory, if possible: ext4 flushes a file truncated to 0 at each close. */
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/sandeval-fuzz-cgroup.XXXXXX", tmp);
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	FUZZ_CHECK(asprintf(&file, "%s/input", dir) > 0);
	FUZZ_CHECK(asprintf(&fsroot, "%s/none", dir) > 0);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0);
	atexit(cleanup);
}

/* true if the NUL-terminated S occurs in DATA */
static int occurs(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const controllers[] = { "", "memory", "pids", "cpuacct", "cpu", "freezer", "name=systemd" };
	static const char *const keys[] = { "oom_kill", "usage_usec", "oom", "max" };
	char *slash, *dirpart;

	setup();
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	FUZZ_CHECK(ftruncate(fd, (off_t)size) == 0);

	for (size_t i = 0; i < sizeof(controllers) / sizeof(controllers[0]); i++) {
		char *path = cgroup_own_path(file, controllers[i]);

		/* the path is copied from the input, never made up */
		if (path) {
			FUZZ_CHECK(strlen(path) <= size);
			FUZZ_CHECK(occurs(data, size, path));
			FUZZ_CHECK(strchr(path, '\n') == NULL);
			free(path);
		}
	}

	/* the hierarchy is missing, so this is only the parsing of the file */
	cgroup_free_list(cgroup_parent_dirs(fsroot, file));

	dirpart = strdup(file);
	FUZZ_CHECK(dirpart != NULL);
	slash = strrchr(dirpart, '/');
	*slash = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t v = 0;

		if (cgroup_read_key(dirpart, slash + 1, keys[i], &v) == 0) {
			char *line = NULL;

			/* the key starts a line and a space follows it */
			FUZZ_CHECK(asprintf(&line, "%s ", keys[i]) > 0);
			FUZZ_CHECK(occurs(data, size, line));
			free(line);
		}
	}
	{
		uint64_t v = 0;

		cgroup_read_u64(dirpart, slash + 1, &v);
	}
	free(dirpart);
	return 0;
}
