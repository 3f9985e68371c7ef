/* redteam-internal.h - shared by redteam.c and redteam-host.c: the host side of an attack (what is watched, snapshots, checks) */
#ifndef SANDEVAL_REDTEAM_INTERNAL_H
#define SANDEVAL_REDTEAM_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

#define RT_WATCHED 24	/* host files whose contents must not change */

/* What the host offers an attack to aim at, for the whole session. */
struct rt_host {
	char dir[PATH_MAX];		/* a host directory of its own (mode 0700): canary, secret */
	char token[33];			/* random, in every path the attacks try to create */
	char secret[65];		/* the secret file's text: must never appear in an output */
	char shadow_hash[160];		/* a password hash of the host's /etc/shadow, or "" */
	int tcp_fd, udp_fd, unix_fd;	/* listeners: 127.0.0.1:tcp_port, 127.0.0.1:udp_port, @abstract */
	int tcp_port, udp_port;
	char abstract[64];
	pid_t sentinel;			/* a host process of ours that must survive every attack */
	int rec_fd;			/* the session's record (runrec.h): gc removes DIR if we die */
	char *rec_path;
};

/* The host's state before an attack. */
struct rt_snap {
	char *text[RT_WATCHED];		/* contents of the watched files (NULL: absent) */
	char *mounts;			/* the host's mount table (/proc/self/mountinfo), or NULL */
};

int rt_host_open(struct rt_host *h, struct sd_error *err);
void rt_host_close(struct rt_host *h);
/* The environment the attack program gets (NAME=VALUE strings, static in H's lifetime). */
size_t rt_host_env(const struct rt_host *h, char env[][PATH_MAX + 32], size_t cap);
void rt_snap_take(const struct rt_host *h, struct rt_snap *s);
void rt_snap_release(struct rt_snap *s);
/* Compare the host with BEFORE after the attack ran as sandbox ID (HOST_UID:
 * the uid its processes had on the host, 0 when unknown) with output OUT (its
 * stdout and stderr together, LEN bytes). Appends what it found to WHY
 * (CAP bytes); true when nothing changed and nothing was reached. */
bool rt_host_check(struct rt_host *h, const struct rt_snap *before, const char *id, unsigned long host_uid,
		   const char *out, size_t len, char *why, size_t cap);

#endif
