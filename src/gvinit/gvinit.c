/* gvinit.c - pid 1 inside a gVisor sandbox: waits for its one request, builds /work, hands the program its FIFOs, drops to uid 1000, reports its wait status
 *
 * A static program: sandeval embeds it and the gVisor backend binds it into
 * every sandbox at /.sandeval/init (see sandbox-gvisor.c for the whole
 * picture). It runs as root of the sandbox (gVisor's emulated root, never the
 * host's) and talks to the supervisor only through host FIFOs in /.sandeval:
 *   ctl  (write) lines: "I phase\tdetail", "L landlock seccomp", "X" (the
 *        program was executed), "E message" (setup failed), "S wstatus N"
 *        (the program's status, then the N processes it left, which init
 *        killed before saying so)
 *   req  (read) the one request: "LEN\n", then LEN bytes of NUL-terminated
 *        arguments (below), then the contents of each -f file in their
 *        order; it comes when a sample is assigned to the
 *        sandbox, which may have been started long before (a pre-started
 *        sandbox of the pool): nothing of the sample is known until then.
 *        A pre-started sandbox may get first a request of files only (-t
 *        and -f, no "--"): the run's runner, the same for every sample,
 *        injected at once; the sample's request then has the same -t
 *   in, out, err  the program's stdin, stdout and stderr
 * The request's arguments: [-p NPROC] [-t BYTES] [-r RES:SOFT:HARD]...
 * [-e NAME=VALUE]... [-f SIZE:MODE:DEST]... -- PROGRAM [ARG...]
 *   -p NPROC   the program's RLIMIT_NPROC, set after it became uid 1000
 *   -t BYTES   the size of the one tmpfs of /work and /tmp
 *   -r R:S:H   the program's rlimit number R (RLIMIT_*), soft S, hard H
 *   -e N=V     the program's environment (nothing else)
 *   -f SIZE:MODE:DEST  the next SIZE bytes after the arguments are the file
 *              /work/DEST, mode MODE (octal), put behind a read-only bind
 *              mount; nothing of the host's is opened for it
 * Order: open the FIFOs -> fork the program's process, which drops the
 * bounding set, groups, uid/gid (to 1000), capabilities, sets no_new_privs,
 * loads sandeval's seccomp filter and waits (a fork and each call are dear
 * inside gVisor: a pre-started sandbox does them before its sample) -> read
 * the request -> one tmpfs (/.sandeval-scratch) of -t bytes, bound at /work
 * and /tmp -> injected files (first a request of files only, if one came:
 * then the tmpfs is made for it, and the sample's request adds its files)
 * -> detach /.sandeval -> the program's limits,
 * environment and arguments to it on a pipe: it sets its rlimits, changes
 * into /work and executes. Init reaps everything and exits when the program
 * ends, which ends the sandbox: one request, one program, one sandbox.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/filesize.h"
#include "sandbox/sysfilter.h"

#define DIR_CTL "/.sandeval"
#define SCRATCH "/.sandeval-scratch"
#define UID 1000
#define GID 1000
#define REQUEST_MAX (64u << 20)
#define MAX_RLIMITS 8

static int ctl = -1;

/* What the request sets (besides the files and the program). */
struct limits {
	long nproc;			/* -1: not set */
	int n_rl;
	int rl_res[MAX_RLIMITS];
	struct rlimit rl[MAX_RLIMITS];
};

/* What init sends the program's process on its pipe, before LEN bytes of
 * NUL-terminated strings: the environment's, an empty one, the arguments. */
struct go {
	struct limits lim;
	size_t len;
};

static struct {
	struct limits lim;		/* the program's, sent to it as they are */
	unsigned long long tmpfs;
	char **env;
	int n_env;
} req = { .lim.nproc = -1, .tmpfs = 4096 };

static void msg(char type, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	line[0] = type;
	va_start(ap, fmt);
	n = vsnprintf(line + 1, sizeof(line) - 2, fmt, ap);
	va_end(ap);
	if (n < 0 || ctl < 0)
		return;
	n = n + 1 > (int)sizeof(line) - 2 ? (int)sizeof(line) - 2 : n + 1;
	for (int i = 1; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	write_all(ctl, line, (size_t)n);
}

__attribute__((format(printf, 1, 2)))
static _Noreturn void die(const char *fmt, ...)
{
	char text[1536];
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	msg('E', "%s: %s", text, strerror(e));
	_exit(127);
}

static int open_fifo(const char *name, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), DIR_CTL "/%s", name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		die("cannot open '%s'", path);
	return fd;
}

static long long number(const char *s, char stop, const char **end);

/* PATH's parent directories under /work, made for uid 1000. Each call is a
 * trip through the Sentry: the directories made are remembered (the first
 * MADE_MAX), and most files share one. */
#define MADE_MAX 16
static void mkdirs(char *path)
{
	static char *made[MADE_MAX];
	static int n_made;
	char *slash = strrchr(path, '/');

	*slash = '\0';
	for (int i = 0; i < n_made; i++)
		if (strcmp(made[i], path) == 0) {
			*slash = '/';
			return;
		}
	if (n_made < MADE_MAX && (made[n_made] = strdup(path)))
		n_made++;
	*slash = '/';
	for (char *p = strchr(path + strlen("/work/"), '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("cannot create '%s'", path);
		if (chown(path, UID, GID) < 0)
			die("cannot chown '%s'", path);
		*p = '/';
	}
}

/* -f SIZE:MODE:DEST: the file's SIZE bytes from the request FD into /work, behind a read-only bind. */
static unsigned long long inject(int fd, const char *spec)
{
	char dst[4200];
	const char *p = spec, *rel;
	unsigned long long size, left;
	mode_t mode;
	int out;

	size = (unsigned long long)number(p, ':', &p);
	mode = (mode_t)strtoul(p, (char **)&rel, 8);
	if (rel == p || *rel != ':' || (mode & ~0777u))
		die("bad -f '%s'", spec);
	rel++;
	if (strncmp(rel, "/work/", 6) == 0)
		rel += 6;
	snprintf(dst, sizeof(dst), "/work/%s", rel);
	mkdirs(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0)
		die("cannot create '%s' (given twice, or its parent is a file?)", dst);
	for (left = size; left > 0;) {
		char buf[65536];
		ssize_t n = read(fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("cannot read '%s' from the request", dst);
		if (write_all(out, buf, (size_t)n) < 0)
			die("cannot copy into '%s' (does it fit in --tmpfs?)", dst);
		left -= (unsigned long long)n;
	}
	close(out);
	if (mount(dst, dst, NULL, MS_BIND | MS_RDONLY, NULL) < 0)
		die("cannot bind '%s'", dst);
	return size;
}

static void scratch(void)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "mode=755,size=%llu", req.tmpfs);
	if (mount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		die("cannot mount the /work and /tmp tmpfs (%s)", opts);
	if (mkdir(SCRATCH "/work", 0755) < 0 || chown(SCRATCH "/work", UID, GID) < 0 ||
	    mkdir(SCRATCH "/tmp", 01777) < 0 || chmod(SCRATCH "/tmp", 01777) < 0)
		die("cannot prepare the /work and /tmp tmpfs");
	if (mount(SCRATCH "/work", "/work", NULL, MS_BIND, NULL) < 0 ||
	    mount(SCRATCH "/tmp", "/tmp", NULL, MS_BIND, NULL) < 0)
		die("cannot bind the /work and /tmp tmpfs");
	/* as on the native backend, /dev/shm is /tmp */
	if (access("/dev/shm", F_OK) == 0 && mount(SCRATCH "/tmp", "/dev/shm", NULL, MS_BIND, NULL) < 0)
		die("cannot bind /tmp at /dev/shm");
	if (umount2(SCRATCH, MNT_DETACH) < 0)
		die("cannot detach '%s'", SCRATCH);
}

static void set_caps_zero(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		die("capset");
}

static void read_all(int fd, char *buf, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("cannot read the request");
		buf += r;
		n -= (size_t)r;
	}
}

/* The NUL-terminated strings of BODY (LEN bytes, BODY[LEN] a NUL) as a
 * NULL-terminated array, after FIRST when it is not NULL. */
static char **split(char *body, size_t len, const char *first)
{
	char **v = calloc(len + 2, sizeof(char *));
	size_t k = 0;

	if (!v)
		die("cannot hold the request");
	if (first)
		v[k++] = (char *)first;
	for (size_t off = 0; off < len; off += strlen(body + off) + 1)
		v[k++] = body + off;
	return v;
}

/* The program's process, forked before the request comes (while a
 * pre-started sandbox waits for its sample): it constrains itself, then
 * reads from GO, once init built /work, a struct go and its strings, sets
 * the limits and executes. Errors go to ctl as E lines. */
static _Noreturn void program(int go, int fds[3])
{
	extern char **environ;

	struct sd_error err = { 0 };
	const struct sysfilter *filter = sysfilter_prebuilt();
	char **argv, **env, *body;
	struct go g;
	size_t k;
	sigset_t none;

	/* init ignores SIGPIPE and handles nothing: the one disposition an
	 * execve would keep (each call is a trip through the Sentry) */
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			die("dup2");
	/* up to the last capability the kernel knows (EINVAL after it) */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap) < 0) {
			if (errno == EINVAL && cap > CAP_SETFCAP)
				break;
			die("cannot drop capability %d from the bounding set", cap);
		}
	if (setgroups(0, NULL) < 0 || setresgid(GID, GID, GID) < 0 || setresuid(UID, UID, UID) < 0)
		die("cannot become uid %d", UID);
	set_caps_zero();
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("cannot set no_new_privs");
	if (sysfilter_install(filter, &err) < 0) {
		msg('E', "%s", err.msg);
		_exit(127);
	}
	/* ready: from here on, what the sample asks */
	read_all(go, (char *)&g, sizeof(g));
	if (g.lim.n_rl < 0 || g.lim.n_rl > MAX_RLIMITS || g.len > REQUEST_MAX || !(body = malloc(g.len + 1)))
		die("bad request");
	read_all(go, body, g.len);
	body[g.len] = '\0';
	for (int i = 0; i < g.lim.n_rl; i++)
		if (setrlimit((__rlimit_resource_t)g.lim.rl_res[i], &g.lim.rl[i]) < 0)
			die("cannot set rlimit %d", g.lim.rl_res[i]);
	if (g.lim.nproc >= 0) {
		struct rlimit rl = { (rlim_t)g.lim.nproc, (rlim_t)g.lim.nproc };

		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			die("cannot set RLIMIT_NPROC");
	}
	env = split(body, g.len, NULL);
	for (k = 0; env[k] && env[k][0]; k++)
		;
	if (!env[k] || !env[k + 1])
		die("no program");
	env[k] = NULL;
	argv = env + k + 1;
	if (chdir("/work") < 0)
		die("chdir /work");
	msg('I', "constrain\tcapabilities dropped (bounding set too), no_new_privs, "
	    "seccomp allowlist of %d calls inside gVisor, rlimits; uid %d", sysfilter_allowed(filter), UID);
	msg('L', "0 %d", sysfilter_allowed(filter));
	environ = env;	/* execvp's PATH is the program's, as it was runsc's */
	execvp(argv[0], argv);
	die("cannot execute '%s'", argv[0]);
}

/* What the program's process waits for on GO (a struct go, its strings),
 * from ARGV's index ARGI on; GO is closed. A write fails (EPIPE) only when
 * the program is gone already: its status tells. */
static void release(int go, char **argv, int argi)
{
	struct go g = { .lim = req.lim, .len = 1 };
	char **arg = argv + argi + 1;

	for (int i = 0; i < req.n_env; i++)
		g.len += strlen(req.env[i]) + 1;
	for (int i = 0; arg[i]; i++)
		g.len += strlen(arg[i]) + 1;
	write_all(go, &g, sizeof(g));
	for (int i = 0; i < req.n_env; i++)
		write_all(go, req.env[i], strlen(req.env[i]) + 1);
	write_all(go, "", 1);
	for (int i = 0; arg[i]; i++)
		write_all(go, arg[i], strlen(arg[i]) + 1);
	close(go);
}

/* The request on FD: its arguments as an argv (NULL-terminated), *ARGC. */
static char **read_request(int fd, int *argc)
{
	char head[24], *body, **argv;
	size_t len = 0, n = 0;

	for (;;) {
		if (n == sizeof(head) - 1)
			die("bad request header");
		read_all(fd, head + n, 1);
		if (head[n] == '\n')
			break;
		if (head[n] < '0' || head[n] > '9')
			die("bad request header");
		len = len * 10 + (size_t)(head[n++] - '0');
		if (len > REQUEST_MAX)
			die("request too long");
	}
	body = malloc(len + 1);
	if (!body)
		die("cannot hold the request");
	read_all(fd, body, len);
	body[len] = '\0';
	if (len && body[len - 1] != '\0')
		die("bad request");
	argv = split(body, len, "init");
	for (*argc = 0; argv[*argc]; ++*argc)
		;
	return argv;
}

static long long number(const char *s, char stop, const char **end)
{
	char *e;
	long long v;

	errno = 0;
	v = strtoll(s, &e, 10);
	if (e == s || *e != stop || errno)
		die("bad number in '%s'", s);
	*end = e + (stop != '\0');
	return v;
}

static void rlimit_arg(const char *spec)
{
	const char *p = spec;
	int i = req.lim.n_rl;

	if (i == MAX_RLIMITS)
		die("too many -r");
	req.lim.rl_res[i] = (int)number(p, ':', &p);
	req.lim.rl[i].rlim_cur = (rlim_t)number(p, ':', &p);
	req.lim.rl[i].rlim_max = (rlim_t)number(p, '\0', &p);
	req.lim.n_rl++;
}

/* The limits and the environment; returns the index of "--", or ARGC
 * when there is none (a request of files only, before the sample's). */
static int parse_request(int argc, char **argv)
{
	const char *end;
	int argi = 1;

	req.env = calloc((size_t)argc + 1, sizeof(char *));
	if (!req.env)
		die("cannot hold the request");
	for (; argi < argc && strcmp(argv[argi], "--") != 0; argi += 2) {
		const char *opt = argv[argi], *v = argi + 1 < argc ? argv[argi + 1] : NULL;

		if (!v)
			die("bad argument '%s'", opt);
		if (strcmp(opt, "-p") == 0)
			req.lim.nproc = (long)number(v, '\0', &end);
		else if (strcmp(opt, "-t") == 0)
			req.tmpfs = (unsigned long long)number(v, '\0', &end);
		else if (strcmp(opt, "-r") == 0)
			rlimit_arg(v);
		else if (strcmp(opt, "-e") == 0 && *v)	/* never empty: the program's end of the environment */
			req.env[req.n_env++] = argv[argi + 1];
		else if (strcmp(opt, "-f") != 0)
			die("bad argument '%s'", opt);
	}
	if (argi + 1 == argc) {
		errno = EINVAL;
		die("no program");
	}
	return argi;
}

/* Each -f of ARGV before ARGI: its file from FD into /work; adds to *NFILES, *BYTES. */
static void inject_all(int fd, char **argv, int argi, int *nfiles, unsigned long long *bytes)
{
	for (int i = 1; i < argi; i += 2)
		if (strcmp(argv[i], "-f") == 0) {
			*bytes += inject(fd, argv[i + 1]);
			++*nfiles;
		}
}

/* Once the program ended: what still runs besides init (the processes it
 * left: zombies, ended already, are reaped first and not counted) killed
 * and reaped, so that nothing of the sample runs or calls once its status
 * is sent (the Sentry's log then holds all of its calls); their number. */
static int reap_others(void)
{
	int n = 0, st;
	pid_t w;

	while (waitpid(-1, &st, WNOHANG | __WALL) > 0)
		;
	/* every process of the sandbox but init (ESRCH: none) */
	if (kill(-1, SIGKILL) < 0)
		return 0;
	while ((w = waitpid(-1, &st, __WALL)) > 0 || (w < 0 && errno == EINTR))
		if (w > 0)
			n++;
	return n;
}

int main(void)
{
	unsigned long long bytes = 0;
	int fds[3], argc, argi, nfiles = 0, npre = 0, reqfd, go[2], ex[2];
	char **argv, buf[1];
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	ctl = open_fifo("ctl", O_WRONLY);
	/* stdin: the supervisor holds a writer until the program started */
	fds[0] = open_fifo("in", O_RDONLY | O_NONBLOCK);
	if (fcntl(fds[0], F_SETFL, 0) < 0)
		die("fcntl");
	fds[1] = open_fifo("out", O_WRONLY);
	fds[2] = open_fifo("err", O_WRONLY);
	/* runsc's own stdio: nothing of ours goes there */
	for (int i = 0; i < 3; i++) {
		int fd = open("/dev/null", O_RDWR);

		if (fd < 0 || dup2(fd, i) < 0)
			die("cannot open /dev/null");
		if (fd > 2)
			close(fd);
	}
	/* The program's process, constrained before the sample comes: a fork
	 * and its first steps are dear inside gVisor (a new address space and
	 * a trip through the Sentry per call). EX: EOF once its execve closed
	 * its end (or it died trying). */
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("cannot fork the program");
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		program(go[0], fds);
	}
	close(go[0]);
	close(ex[1]);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	/* ready: everything above is the same for every sample; now wait for one */
	reqfd = open_fifo("req", O_RDONLY);
	argv = read_request(reqfd, &argc);
	argi = parse_request(argc, argv);
	if (argi == argc) {
		/* the run's shared files (its runner), sent before the sample: the
		 * tmpfs is made for them, the sample's request brings the rest */
		unsigned long long tmpfs = req.tmpfs;

		if (req.n_env || req.lim.n_rl || req.lim.nproc >= 0) {
			errno = EINVAL;
			die("a request without a program carries files only");
		}
		scratch();
		inject_all(reqfd, argv, argi, &nfiles, &bytes);
		npre = nfiles;
		argv = read_request(reqfd, &argc);
		argi = parse_request(argc, argv);
		if (argi == argc || req.tmpfs != tmpfs) {
			errno = EINVAL;
			die(argi == argc ? "no program" : "the sample's tmpfs differs from the one its files went into");
		}
	} else {
		scratch();
	}
	inject_all(reqfd, argv, argi, &nfiles, &bytes);
	close(reqfd);
	if (umount2(DIR_CTL, MNT_DETACH) < 0)
		die("cannot detach '%s'", DIR_CTL);
	msg('I', "inject\t%d file(s) (%d of them before the sample came), %llu bytes, read-only under /work; "
	    "/work and /tmp share one tmpfs", nfiles, npre, bytes);
	release(go[1], argv, argi);
	while (read(ex[0], buf, 1) < 0 && errno == EINTR)
		;
	close(ex[0]);
	msg('X', "%s", argv[argi + 1]);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);

		if (w == pid) {
			int lingering = reap_others();

			/* a file at the program's RLIMIT_FSIZE: it reached --file-size */
			for (int i = 0; i < req.lim.n_rl; i++)
				if (req.lim.rl_res[i] == RLIMIT_FSIZE && req.lim.rl[i].rlim_cur != RLIM_INFINITY &&
				    file_size_reached((uint64_t)req.lim.rl[i].rlim_cur))
					msg('F', "");
			msg('S', "%d %d", st, lingering);
			_exit(0);
		}
		if (w < 0 && errno != EINTR)
			_exit(1);
	}
}
