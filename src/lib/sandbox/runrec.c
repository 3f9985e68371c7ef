/* runrec.c - a run's record: a lock file held for the sandbox's lifetime, naming what gc must remove should it die */
#define _GNU_SOURCE
#include "sandbox/runrec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

int runrec_state_dir(char *buf, size_t size, struct sd_error *err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat sb;
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, size, "/run/sandeval");
	else if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
		n = snprintf(buf, size, "%s/sandeval", xdg);
	else
		n = snprintf(buf, size, "/tmp/sandeval-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= size)
		return sd_error_set(err, ENAMETOOLONG, "state directory name too long");
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return sd_error_errno(err, errno, "cannot create '%s'", buf);
	/* Records name cgroups to kill: a directory someone else made (e.g. in
	 * /tmp, before us) must not be trusted. */
	if (lstat(buf, &sb) < 0)
		return sd_error_errno(err, errno, "cannot stat '%s'", buf);
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077))
		return sd_error_set(err, EPERM, "refusing state directory '%s': not a directory of uid %u with mode 0700",
				    buf, (unsigned)geteuid());
	return 0;
}

int runrec_take(const char *state_dir, const char *id, char **path, struct sd_error *err)
{
	cleanup_free char *tmp = xasprintf("%s/%s.tmp", state_dir, id);
	cleanup_free char *final = xasprintf("%s/%s.lock", state_dir, id);
	cleanup_close int fd = -1;

	if (!tmp || !final)
		return sd_error_errno(err, ENOMEM, "run record");
	/* Lock under a name the sweep ignores, then publish it: the sweep never
	 * sees an unlocked record of a live run. */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return sd_error_errno(err, errno, "cannot create '%s'", tmp);
	if (flock(fd, LOCK_EX) < 0 || rename(tmp, final) < 0) {
		int e = errno;

		unlink(tmp);
		return sd_error_errno(err, e, "cannot lock '%s'", final);
	}
	*path = steal_pointer(&final);
	return steal_fd(&fd);
}

int runrec_note(int fd, const char *dir, struct sd_error *err)
{
	cleanup_free char *line = xasprintf("%s\n", dir);

	if (!line || write_all(fd, line, strlen(line)) < 0)
		return sd_error_errno(err, errno, "cannot record '%s'", dir);
	return 0;
}

int runrec_note_tagged(int fd, const char *tag, const char *const *fields, size_t n, struct sd_error *err)
{
	size_t len = strlen(tag) + 2;
	cleanup_free char *line = NULL;
	char *p;

	for (size_t i = 0; i < n; i++) {
		if (strpbrk(fields[i], "\t\n"))
			return sd_error_set(err, EINVAL, "cannot record '%s': tab or newline in a name", fields[i]);
		len += strlen(fields[i]) + 1;
	}
	if (!(line = malloc(len)))
		return sd_error_errno(err, ENOMEM, "cannot record a %s line", tag);
	p = stpcpy(line, tag);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(stpcpy(p, "\t"), fields[i]);
	p = stpcpy(p, "\n");
	if (write_all(fd, line, (size_t)(p - line)) < 0)
		return sd_error_errno(err, errno, "cannot record a %s line", tag);
	return 0;
}

bool runrec_scratch_ok(const char *dir)
{
	const char *base;

	if (strncmp(dir, "/var/tmp/", 9) == 0)
		base = dir + 9;
	else if (strncmp(dir, "/tmp/", 5) == 0)
		base = dir + 5;
	else
		return false;
	return strncmp(base, "sandeval-", 9) == 0 && !strchr(base, '/') && !strstr(base, "..");
}

int runrec_note_scratch(int fd, const char *dir, struct sd_error *err)
{
	if (!runrec_scratch_ok(dir))
		return sd_error_set(err, EINVAL, "cannot record '%s': not a sandeval-* directory under /var/tmp or /tmp", dir);
	return runrec_note_tagged(fd, RUNREC_SCRATCH_TAG, (const char *const[]){ dir }, 1, err);
}

void runrec_drop(int fd, char *path)
{
	if (path)
		unlink(path);
	if (fd >= 0)
		close(fd);
	free(path);
}

bool runrec_alive(const char *state_dir, const char *id)
{
	cleanup_free char *p = xasprintf("%s/%s.lock", state_dir, id);
	cleanup_close int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return false;
}
