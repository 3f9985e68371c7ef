/* zygote.c - warm starts: the supervisor's requests and the zygote's serve loop
 *
 * Both halves live here because they share the wire format. The supervisor
 * links the first half; `make` builds the second, with sandbox-child.c and
 * what it needs, into runners/sandeval-zygote.so for zygote.py.
 *
 * Wire. A SOCK_SEQPACKET pair, used only by the process that started the
 * zygote. Request: one record, struct wire then NUL-terminated strings (the
 * files' destinations and sources, argv, env), with the descriptors in one
 * SCM_RIGHTS message: sync, msg, status, stdin, stdout, stderr, the socket
 * that carries the cgroup grant in and the seccomp listener back, the
 * injected files. Reply: one record, an int32, init's pid or
 * -errno. The zygote's first record is "ready", or an error text.
 */
#define _GNU_SOURCE
#include "sandbox/zygote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox-child.h"
#include "base/util.h"

#define WIRE_MAGIC 0x5a594733u	/* "ZYG3" */
#define MAX_FILES 64
#define MAX_STRINGS 256
#define BASE_FDS 7		/* sync, msg, status, stdin, stdout, stderr, notify */
#define MAX_FDS (BASE_FDS + MAX_FILES)
_Static_assert(MAX_FDS <= SEND_FDS_MAX, "a request's descriptors fit one send_fds");
#define MAX_RECORD (1 << 16)
#define START_TIMEOUT_MS 10000

struct wire {
	uint32_t magic, n_files, n_argv, n_env;
	uint8_t as_root;
	double cpu_time, wall_time;
	uint64_t memory, file_size, tmpfs, output;
	int64_t pids, fds;
};

struct zygote {
	pid_t pid, owner;
	int sock;
};

struct zygote *zygote_start(const char *runners_dir, const char *name, struct sd_error *err)
{
	/* absolute: the zygote starts in / */
	cleanup_free char *abs_dir = realpath(runners_dir, NULL);
	cleanup_free char *script = xasprintf("%s/%s", abs_dir ? abs_dir : runners_dir, name);
	struct zygote *z = calloc(1, sizeof(*z));
	int sp[2];
	pid_t parent = getpid();

	if (!z || !script) {
		free(z);
		sd_error_errno(err, ENOMEM, "zygote");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		free(z);
		sd_error_errno(err, errno, "zygote: socketpair");
		return NULL;
	}
	z->pid = fork();
	if (z->pid < 0) {
		sd_error_errno(err, errno, "zygote: fork");
		close(sp[0]);
		close(sp[1]);
		free(z);
		return NULL;
	}
	if (z->pid == 0) {
		char *argv[] = { "python3", "-I", "-S", script, "3", NULL };
		/* The socket out of the way first: with stdio closed, it or
		 * /dev/null may have any number below 4. */
		int sock = fcntl(sp[1], F_DUPFD_CLOEXEC, 10);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* It dies with its supervisor, which may be gone already. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || sock < 0 || null < 0)
			_exit(127);
		for (int fd = 0; fd < 3; fd++)
			if (fd == null ? fcntl(fd, F_SETFD, 0) < 0 : dup2(null, fd) < 0)
				_exit(127);
		if (dup2(sock, 3) < 0 || chdir("/") < 0)
			_exit(127);
		close_range(4, ~0U, 0);
		/* As a python3 executed from a clean shell starts: a session of
		 * its own (no terminal's signals), default handlers, nothing
		 * blocked. Ours may differ (the run's workers ignore SIGINT, a
		 * command may block what it reads from a signalfd), and the
		 * interpreter keeps an ignored SIGINT ignored, which a warm
		 * program would inherit. */
		setsid();
		child_default_signals();
		{
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		/* The sandbox's environment and its python3: the first on the
		 * sandbox's PATH (child_base_env), not ours. */
		for (char *const *e = child_base_env; *e; e++) {
			if (strncmp(*e, "PATH=", 5) != 0)
				continue;
			for (const char *dir = *e + 5; *dir; dir += strcspn(dir, ":"), dir += *dir == ':') {
				char exe[256];

				snprintf(exe, sizeof(exe), "%.*s/%s", (int)strcspn(dir, ":"), dir, argv[0]);
				execve(exe, argv, child_base_env);
			}
		}
		_exit(127);
	}
	close(sp[1]);
	z->sock = sp[0];
	z->owner = parent;

	struct pollfd pfd = { .fd = z->sock, .events = POLLIN };
	char first[512];
	ssize_t n = 0;
	int r;

	while ((r = poll(&pfd, 1, START_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (r > 0)
		n = recv(z->sock, first, sizeof(first) - 1, 0);
	first[n > 0 ? n : 0] = '\0';
	if (r > 0 && n == 5 && memcmp(first, "ready", 5) == 0)
		return z;
	if (r == 0)
		sd_error_set(err, ETIMEDOUT, "zygote: %s did not start within %d ms", script, START_TIMEOUT_MS);
	else if (n > 0)
		sd_error_set(err, EIO, "zygote: %s", first);
	else
		sd_error_set(err, EIO, "zygote: python3 %s exited before it was ready", script);
	zygote_stop(z);
	return NULL;
}

pid_t zygote_owner(const struct zygote *z)
{
	return z->owner;
}

void zygote_stop(struct zygote *z)
{
	if (!z)
		return;
	close(z->sock);
	/* Only its starter can reap it; elsewhere the closed socket ends it. */
	if (getpid() == z->owner) {
		kill(z->pid, SIGKILL);
		while (waitpid(z->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(z);
}

/* Append S and its NUL to BUF at *LEN; -1 when it does not fit. */
static int put_string(char *buf, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;

	if (*len + n > MAX_RECORD)
		return -1;
	memcpy(buf + *len, s, n);
	*len += n;
	return 0;
}

pid_t zygote_spawn(struct zygote *z, const struct child_args *a, struct sd_error *err)
{
	const struct sandbox_config *cfg = a->cfg;
	size_t n_argv = 0, len = sizeof(struct wire);
	int fds[MAX_FDS], n_fds = 0;
	cleanup_free char *buf = malloc(MAX_RECORD);
	int32_t reply;
	ssize_t got;

	if (!buf)
		return sd_error_errno(err, ENOMEM, "zygote");
	if (getpid() != z->owner)
		return sd_error_set(err, EPERM, "zygote: used by a process that did not start it");
	if (cfg->n_files > MAX_FILES || a->image_fd >= 0)
		return sd_error_set(err, EINVAL, "zygote: more than %d files, or an image", MAX_FILES);
	if (a->notify_sock < 0)
		return sd_error_set(err, EINVAL, "zygote: no socket for the seccomp listener");
	while (cfg->argv[n_argv])
		n_argv++;
	*(struct wire *)buf = (struct wire){
		.magic = WIRE_MAGIC, .n_files = (uint32_t)cfg->n_files, .n_argv = (uint32_t)n_argv,
		.n_env = (uint32_t)cfg->n_env, .as_root = a->as_root, .cpu_time = cfg->cpu_time, .wall_time = cfg->wall_time,
		.memory = cfg->memory, .file_size = cfg->file_size, .tmpfs = cfg->tmpfs, .output = cfg->output,
		.pids = cfg->pids, .fds = cfg->fds,
	};
	for (size_t i = 0; i < cfg->n_files; i++)
		if (put_string(buf, &len, cfg->files[i].dest) < 0 ||
		    put_string(buf, &len, cfg->files[i].src ? cfg->files[i].src : cfg->files[i].dest) < 0)
			return sd_error_set(err, E2BIG, "zygote: request too large");
	for (size_t i = 0; i < n_argv; i++)
		if (put_string(buf, &len, cfg->argv[i]) < 0)
			return sd_error_set(err, E2BIG, "zygote: request too large");
	for (size_t i = 0; i < cfg->n_env; i++)
		if (put_string(buf, &len, cfg->env[i]) < 0)
			return sd_error_set(err, E2BIG, "zygote: request too large");
	if (n_argv + cfg->n_env > MAX_STRINGS - 2)
		return sd_error_set(err, E2BIG, "zygote: too many arguments");

	fds[n_fds++] = a->sync_fd;
	fds[n_fds++] = a->msg_fd;
	fds[n_fds++] = a->status_fd;
	for (int i = 0; i < 3; i++)
		fds[n_fds++] = a->stdio[i];
	fds[n_fds++] = a->notify_sock;
	for (size_t i = 0; i < cfg->n_files; i++)
		fds[n_fds++] = a->file_fds[i];
	if (send_fds(z->sock, buf, len, fds, n_fds, MSG_NOSIGNAL) < 0)
		return sd_error_errno(err, errno, "zygote: cannot send a request");
	while ((got = recv(z->sock, &reply, sizeof(reply), 0)) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(reply))
		return sd_error_set(err, EIO, "zygote: no answer (it died?)");
	if (reply <= 0)
		return sd_error_set(err, -reply, "zygote: cannot create the sandbox namespaces: %s", strerror(-reply));
	return (pid_t)reply;
}

/* ---- in the zygote process ---- */

/* Static: in the program process these outlive sandeval_zygote_serve(). */
static char record[MAX_RECORD];
static const char *z_argv[MAX_STRINGS], *z_env[MAX_STRINGS];
static struct sandbox_file z_files[MAX_FILES];
static int z_file_fds[MAX_FILES];
static struct sandbox_config z_cfg;

const char *sandeval_zygote_arg(int i)
{
	return i >= 0 && i < MAX_STRINGS ? z_argv[i] : NULL;
}

const char *sandeval_zygote_env(int i)
{
	return i >= 0 && i < MAX_STRINGS ? z_env[i] : NULL;
}

static const char *next_string(size_t *off, size_t len)
{
	const char *s = record + *off;
	const char *nul = *off < len ? memchr(s, '\0', len - *off) : NULL;

	if (!nul)
		return NULL;
	*off += (size_t)(nul - s) + 1;
	return s;
}

/* Parse RECORD (LEN bytes) and FDS into z_cfg and *A; -1 when malformed. */
static int parse_request(size_t len, const int *fds, int n_fds, struct child_args *a)
{
	struct wire w;
	size_t off = sizeof(w);

	if (len < sizeof(w))
		return -1;
	memcpy(&w, record, sizeof(w));
	if (w.magic != WIRE_MAGIC || w.n_files > MAX_FILES ||
	    w.n_argv < 1 || w.n_argv + w.n_env > MAX_STRINGS - 2 ||
	    n_fds != BASE_FDS + (int)w.n_files)
		return -1;
	memset(z_argv, 0, sizeof(z_argv));
	memset(z_env, 0, sizeof(z_env));
	for (uint32_t i = 0; i < w.n_files; i++) {
		z_files[i].dest = next_string(&off, len);
		z_files[i].src = next_string(&off, len);
		z_file_fds[i] = fds[BASE_FDS + i];
		if (!z_files[i].src)
			return -1;
	}
	for (uint32_t i = 0; i < w.n_argv; i++)
		if (!(z_argv[i] = next_string(&off, len)))
			return -1;
	for (uint32_t i = 0; i < w.n_env; i++)
		if (!(z_env[i] = next_string(&off, len)))
			return -1;
	memset(&z_cfg, 0, sizeof(z_cfg));
	z_cfg.backend = "native";
	z_cfg.image = "host";
	z_cfg.argv = (char *const *)z_argv;
	z_cfg.env = (char *const *)z_env;
	z_cfg.n_env = w.n_env;
	z_cfg.files = z_files;
	z_cfg.n_files = w.n_files;
	z_cfg.cpu_time = w.cpu_time;
	z_cfg.wall_time = w.wall_time;
	z_cfg.memory = w.memory;
	z_cfg.file_size = w.file_size;
	z_cfg.tmpfs = w.tmpfs;
	z_cfg.output = w.output;
	z_cfg.pids = (long)w.pids;
	z_cfg.fds = (long)w.fds;
	*a = (struct child_args){
		.cfg = &z_cfg, .as_root = w.as_root, .sync_fd = fds[0], .msg_fd = fds[1], .status_fd = fds[2],
		.stdio = { fds[3], fds[4], fds[5] }, .notify_sock = fds[6], .file_fds = z_file_fds, .image_fd = -1,
		.filter = sysfilter_prebuilt_notify(), .warm = true,
	};
	return 0;
}

/* Init shares our memory (CLONE_VM): cloning it copies no page table, and
 * its exit unmaps nothing, where a copy of this interpreter cost a fork and
 * an exit of 11.5 MB a sample. It runs on a stack of its own and reads our
 * memory (the request, A on our stack): once it is cloned we only close
 * our copies of the descriptors, send the reply and wait for it to exit
 * (its pidfd) before we read the next request, so one init at a time
 * and nothing it reads changes under it. */
#define INIT_STACK (1024 * 1024)
#define INIT_GUARD (64 * 1024)
static char *init_stack;
static jmp_buf program_resume;

static int init_entry(void *arg)
{
	sigset_t all;

	/* Our handlers are the interpreter's: one run by init would write to
	 * the zygote's memory. Init needs none; the program unblocks. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	child_main(arg);
	/* The program process, on a copy of init's stack: back on a copy of
	 * ours, out of sandeval_zygote_serve(), into the interpreter. */
	longjmp(program_resume, 1);
}

/* Wait until FD reads EOF (or anything). */
static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

int sandeval_zygote_serve(int sock)
{
	init_stack = mmap(NULL, INIT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (init_stack == MAP_FAILED || mprotect(init_stack, INIT_GUARD, PROT_NONE) < 0) {
		dprintf(sock, "cannot map init's stack: %s", strerror(errno));
		return 1;
	}
	if (write(sock, "ready", 5) != 5)
		return 1;
	for (;;) {
		int fds[MAX_FDS], n_fds, init_fd = -1;
		struct child_args a;
		int32_t reply;
		bool sent;
		ssize_t len = recv_fds(sock, record, sizeof(record), fds, MAX_FDS, &n_fds, 0);

		if (len == 0 || (len < 0 && errno != EPROTO))
			return 1;
		if (len < 0 || parse_request((size_t)len, fds, n_fds, &a) < 0) {
			reply = -EPROTO;
		} else {
			pid_t pid;

			/* The last init made our shared memory non-dumpable; a new
			 * one starts dumpable, as a copy of ours did: its id maps are
			 * written by the supervisor, which as an ordinary user could
			 * not open them otherwise. Init makes it non-dumpable again
			 * before the program exists. */
			prctl(PR_SET_DUMPABLE, 1);
			if (setjmp(program_resume))
				return 0;	/* the program process */
			/* init becomes the supervisor's child, as after its own clone() */
			pid = clone(init_entry, init_stack + INIT_STACK, CLONE_VM | CLONE_PIDFD | CLONE_PARENT |
				    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC |
				    CLONE_NEWUTS, &a, &init_fd);
			reply = pid > 0 ? (int32_t)pid : -errno;
		}
		for (int i = 0; i < n_fds; i++)
			close(fds[i]);
		sent = send(sock, &reply, sizeof(reply), MSG_NOSIGNAL) == (ssize_t)sizeof(reply);
		if (init_fd >= 0) {
			/* A, the statics and the heap are init's until it exits:
			 * even on our way out, the interpreter's exit would free
			 * memory init is using. */
			wait_readable(init_fd);
			close(init_fd);
		}
		if (!sent)
			return 1;
	}
}
