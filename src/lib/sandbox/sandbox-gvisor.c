/* sandbox-gvisor.c - the gvisor backend: the same contract under runsc, a user-space kernel between the program and the host
 *
 * Theory of operation
 *
 * Processes. sandeval (the supervisor) stays on the host and forks one helper
 * that joins the run's cgroups, gets a parent-death signal and executes
 * `runsc --root DIR/state --network=none --platform=P --ignore-cgroups
 * --host-fifo=open run --bundle DIR/bundle sandeval-ID`. runsc starts its
 * gofer (file proxy) and the sandbox process (the Sentry, gVisor's kernel,
 * with its ptrace stubs or KVM vCPUs), all children of the helper and so in
 * the run's cgroups. Inside the sandbox, pid 1 is sandeval's own static init
 * (src/gvinit/gvinit.c, embedded in sandeval and bound in at /.sandeval/init);
 * it forks the program (pid 2), which drops to uid 1000, loses every
 * capability, sets no_new_privs, loads the same seccomp filter as the native
 * backend (enforced by gVisor) and executes.
 *
 * The bundle (config.json, the run's root directory, the init, the FIFOs)
 * and the request are built by sandbox-gvisor-bundle.c.
 *
 * Start and assignment. provision starts runsc on a bundle that holds
 * nothing of a sample (it may run long before its sample is known: a
 * pre-started sandbox of a pool, sandbox-pool.c); init opens its FIFOs and
 * waits. execute is the assignment: the sample's cgroup limits and one
 * request on the req FIFO with its program, environment, rlimits, tmpfs
 * size and files, their contents following the arguments
 * (gvisor_request). One sandbox serves one sample, then is destroyed.
 *
 * Pipes. Five host FIFOs in DIR/ctl, bound into the sandbox at /.sandeval and
 * opened by init (runsc --host-fifo=open), then hidden (init detaches that
 * mount before the program starts): ctl (init -> supervisor: events, "X"
 * once the program was executed, "E" for a setup failure, "S wstatus" when
 * it ended: the program never holds it, so it cannot forge it), req
 * (supervisor -> init: the request), and in, out, err, the program's only
 * descriptors. runsc's own stdio go to /dev/null and
 * its log to DIR/runsc.log, never into the program's output. The Sentry's
 * debug log (strace of the watched calls, seccomp refusals, task ends) goes
 * to DIR/sentry.log, read after the run for the tripwires (gvisor-strace.c).
 *
 * Who kills whom. The supervisor owns the clock, exactly as for native
 * (sandbox-supervise.c): wall clock, output caps and the cgroup's CPU time,
 * which includes the Sentry's work for the program. Killing means freezing
 * and killing the cgroups (every runsc process at once), or without cgroups
 * `runsc delete --force`. When init exits the container ends and runsc tears
 * the sandbox down. Limits: memory is the run's memory cgroup around the
 * whole sandbox (gVisor's own ~20 MiB included; the host OOM killer kills
 * the Sentry and the cgroup's oom_kill count names memory_limit); pids is
 * RLIMIT_NPROC, enforced by gVisor per sandbox (the host pids cgroup is only a
 * backstop for runsc's own threads); fds, file size and core are rlimits
 * enforced by gVisor; /work and /tmp share one gVisor tmpfs of --tmpfs
 * bytes. Without cgroup CPU and memory control the backend refuses to run:
 * gVisor does not enforce RLIMIT_CPU, and its ptrace stubs leave our process
 * tree (the rootless path is kept for delegated cgroups).
 *
 * Residue. DIR (<state dir>/<id>.gvisor: bundle, runsc state, FIFOs, copies
 * of the --file sources, the request's copy, runsc's and the Sentry's logs) is noted in the run's gc record with
 * the runsc binary; destroy, or `sandeval gc` after a SIGKILL, kills the
 * cgroups, runs `runsc delete --force` and removes DIR. runsc makes no
 * cgroups of its own (--ignore-cgroups) and no mounts outside its sandbox.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-gvisor-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/gvisor-strace.h"
#include "sandbox/runrec.h"
#include "sandbox/sandbox-ctl.h"
#include "sandbox/sandbox-supervise.h"
#include "sandbox/sandbox-tripwire.h"

#define SETUP_TIMEOUT_MS 30000
#define TEARDOWN_TIMEOUT_MS 5000
/* Host tasks runsc itself needs (Sentry and gofer threads, ptrace stubs). */
#define GVISOR_TASKS 256
#define KVM_VERIFIED "gvisor-kvm-works"
#define RECORD_TAG "runsc"		/* its lines in run records (runrec.h) */
#define SENTRY_LOG "sentry.log"		/* the Sentry's debug log: tripwires */

int gvisor_find_runsc(char *buf, size_t size)
{
	const char *path = getenv("PATH");
	char dirs[8192];
	char *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/sbin", path ? path : "");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (*d != '/')
			continue;
		if ((size_t)snprintf(buf, size, "%s/runsc", d) < size && access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* kvm is faster where it works, but a /dev/kvm that opens is no proof: under
 * nested virtualization (these machines: a Firecracker VM) runsc's kvm
 * platform hangs at start. So kvm is chosen only where its last trial here
 * succeeded (KVM_VERIFIED, written by a run with --platform kvm); else ptrace,
 * which works everywhere. */
const char *gvisor_best_platform(const char *state_dir)
{
	char path[4200];

	if (access("/dev/kvm", R_OK | W_OK) < 0 || !state_dir)
		return "ptrace";
	snprintf(path, sizeof(path), "%s/" KVM_VERIFIED, state_dir);
	return access(path, F_OK) == 0 ? "kvm" : "ptrace";
}

int gvisor_check(const struct sandbox_config *cfg, struct sd_error *err)
{
	char runsc[4096];

	if (gvisor_find_runsc(runsc, sizeof(runsc)) < 0)
		return sd_error_set(err, ENOENT, "backend 'gvisor' needs runsc, which is not installed "
				    "(Debian: apt-get install runsc)");
	if (cfg->platform && strcmp(cfg->platform, "ptrace") != 0 && strcmp(cfg->platform, "kvm") != 0)
		return sd_error_set(err, EINVAL, "unknown platform '%s' (gvisor has: ptrace, kvm; "
				    "Debian's runsc has no systrap)", cfg->platform);
	if (cfg->platform && strcmp(cfg->platform, "kvm") == 0 && access("/dev/kvm", R_OK | W_OK) < 0)
		return sd_error_errno(err, errno, "platform kvm needs '/dev/kvm'");
	return 0;
}

/* ------------------------------------------------------------------ phases */

static int gvisor_start(struct sandbox_ctx *ctx, struct sd_error *err);

static int gvisor_provision(struct sandbox_ctx *ctx, struct sd_error *err)
{
	static const char *const phases[] = { "inject", "constrain", NULL };	/* what gvinit reports */
	const struct sandbox_config *cfg = ctx->cfg;
	struct sandbox_result *res = ctx->res;
	struct gvisor *gv = calloc(1, sizeof(*gv));
	struct sd_error cgerr = { 0 };
	struct sandbox_cg has;

	if (!gv)
		return sd_error_errno(err, ENOMEM, "provision");
	gv->helper = -1;
	gv->ctl_r = gv->out_r = gv->err_r = gv->in_w = gv->in_src = gv->req_w = -1;
	sandbox_ctl_init(&gv->ctl, ctx, phases);
	ctx->backend_data = gv;
	ctx->as_root = geteuid() == 0;
	/* runsc runs its sandbox process as nobody when started by root, else as the caller */
	ctx->host_uid = ctx->as_root ? 65534 : geteuid();
	ctx->host_gid = ctx->as_root ? 65534 : getegid();
	res->host_uid = ctx->host_uid;
	{
		cleanup_free char *state_dir = xasprintf("%.*s", (int)(strrchr(ctx->lock_path, '/') - ctx->lock_path),
							 ctx->lock_path);

		res->platform = cfg->platform ? cfg->platform : gvisor_best_platform(state_dir);
	}
	if (gvisor_find_runsc(gv->runsc, sizeof(gv->runsc)) < 0)
		return sd_error_set(err, ENOENT, "runsc is not installed (Debian: apt-get install runsc)");
	snprintf(gv->container, sizeof(gv->container), "sandeval-%s", res->id);
	/* the run's directory sits beside its record */
	gv->dir = xasprintf("%.*s/%s.gvisor", (int)(strrchr(ctx->lock_path, '/') - ctx->lock_path), ctx->lock_path, res->id);
	if (!gv->dir)
		return sd_error_errno(err, ENOMEM, "provision");

	if (sandbox_provision_cgroup(ctx, 4 * cfg->pids + GVISOR_TASKS, CG_ALL, 0, &has, &cgerr, err) < 0)
		return -1;
	gv->cg_memory = has.memory;
	gv->cg_pids = has.pids;	/* only a backstop: gVisor enforces --pids itself */
	gv->cg_cpu = has.cpu;
	has.pids = false;
	gv->has = has;
	/* Without cgroups gVisor cannot keep the contract: it does not enforce
	 * RLIMIT_CPU, the ptrace stubs that run the program's code leave sandeval's
	 * process tree, and only a slow `runsc delete` could stop them. */
	if (!gv->cg_cpu || !gv->cg_memory)
		return sd_error_set(err, EPERM, "backend 'gvisor' needs cgroup CPU and memory control to enforce "
				    "the CPU time and memory limits, and none is usable here (%s); run as root, or in a "
				    "delegated cgroup (systemd-run --user --scope -p Delegate=yes)",
				    ctx->cg ? cgroup_note(ctx->cg) : cgerr.msg);
	/* noted before anything exists, so that gc finds whatever comes to exist */
	if (runrec_note_tagged(ctx->lock_fd, RECORD_TAG, (const char *const[]){ gv->dir, gv->runsc, gv->container }, 3,
			       err) < 0)
		return -1;
	if (mkdir(gv->dir, 0700) < 0)
		return sd_error_errno(err, errno, "cannot create '%s'", gv->dir);
	sandbox_event(ctx, "provision", "%s; runsc %s, platform %s, network none, state in '%s'",
		      ctx->cg ? cgroup_mechanism(ctx->cg) : "no cgroup", gv->runsc, res->platform, gv->dir);
	return gvisor_start(ctx, err);
}

/* Run `RUNSC --root DIR/state ARGS...` quietly and wait for it. */
static int runsc_quiet(const char *runsc, const char *dir, const char *const *args)
{
	const char *argv[16];
	cleanup_free char *root = xasprintf("%s/state", dir);
	size_t n = 0;
	pid_t pid;
	int ws;

	if (!root)
		return -1;
	argv[n++] = runsc;
	argv[n++] = "--root";
	argv[n++] = root;
	if (geteuid() != 0)
		argv[n++] = "--rootless";
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return true;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

int gvisor_remove_run(const char *dir, const char *runsc, const char *container, bool all_dead, struct sd_error *err)
{
	cleanup_free char *state = xasprintf("%s/state", dir);
	struct stat sb;

	if (!state)
		return sd_error_errno(err, ENOMEM, "gvisor_remove_run");
	if (lstat(dir, &sb) < 0)
		return errno == ENOENT ? 0 : sd_error_errno(err, errno, "cannot stat '%s'", dir);
	/* a container runsc still knows of: its sandbox and gofer may still run */
	if (!all_dead && !dir_empty(state))
		runsc_quiet(runsc, dir, (const char *const[]){ "delete", "--force", container, NULL });
	return remove_tree(dir, err);
}

/* gc: the record line "runsc\tDIR\tRUNSC\tCONTAINER" of a dead run. Only
 * DIR = STATE_DIR/<32 hex>.gvisor is removed, by the RUNSC it names. */
static int gvisor_sweep(const char *state_dir, char *fields, struct sd_error *err)
{
	char *dir = fields, *runsc, *container, *base;
	size_t n = strlen(state_dir);

	runsc = strchr(dir, '\t');
	if (!runsc)
		return 0;
	*runsc++ = '\0';
	container = strchr(runsc, '\t');
	if (!container)
		return 0;
	*container++ = '\0';
	base = dir + n + 1;
	if (strncmp(dir, state_dir, n) != 0 || dir[n] != '/' || strlen(base) != 32 + 7 ||
	    strspn(base, "0123456789abcdef") != 32 || strcmp(base + 32, ".gvisor") != 0 || runsc[0] != '/' ||
	    strchr(container, '/'))
		return 0;	/* not something a run of ours made: leave it */
	return gvisor_remove_run(dir, runsc, container, false, err) < 0 ? -1 : 1;
}

static void kill_sandbox(struct sandbox_ctx *ctx)
{
	struct gvisor *gv = ctx->backend_data;

	if (ctx->cg) {
		cgroup_kill(ctx->cg, NULL);
	} else if (gv->helper > 0) {
		runsc_quiet(gv->runsc, gv->dir, (const char *const[]){ "delete", "--force", gv->container, NULL });
		kill(gv->helper, SIGKILL);
	}
}

static _Noreturn void exec_runsc(struct sandbox_ctx *ctx, const int *cg_fds, int n_cg)
{
	struct gvisor *gv = ctx->backend_data;
	char root[4200], bundle[4200], log[4200], debug_log[4200], platform[64];
	const char *argv[24];
	size_t n = 0;
	int null;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(127);
	for (int i = 0; i < n_cg; i++)
		if (write(cg_fds[i], "0", 1) != 1)
			_exit(126);
	setsid();
	null = open("/dev/null", O_RDWR);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(126);
	close_range(3, ~0U, 0);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	snprintf(root, sizeof(root), "%s/state", gv->dir);
	snprintf(bundle, sizeof(bundle), "%s/bundle", gv->dir);
	snprintf(log, sizeof(log), "--log=%s/runsc.log", gv->dir);
	snprintf(debug_log, sizeof(debug_log), "--debug-log=%s/" SENTRY_LOG, gv->dir);
	snprintf(platform, sizeof(platform), "--platform=%s", ctx->res->platform);
	argv[n++] = gv->runsc;
	argv[n++] = "--root";
	argv[n++] = root;
	if (!ctx->as_root)
		argv[n++] = "--rootless";
	argv[n++] = "--network=none";
	argv[n++] = platform;
	argv[n++] = "--ignore-cgroups";
	argv[n++] = "--host-fifo=open";
	argv[n++] = log;
	/* tripwires: the Sentry logs the watched calls, seccomp's refusals and
	 * the tasks' ends into DIR, read once the run is over (gvisor-strace.c) */
	argv[n++] = "--strace";
	argv[n++] = "--strace-syscalls=" GVSTRACE_SYSCALLS;
	argv[n++] = "--debug";
	argv[n++] = "--debug-command=boot";
	argv[n++] = "--debug-log-format=json";
	argv[n++] = debug_log;
	argv[n++] = "run";
	argv[n++] = "--bundle";
	argv[n++] = bundle;
	argv[n++] = gv->container;
	argv[n] = NULL;
	execv(argv[0], (char **)argv);
	_exit(127);
}

/* Read ctl: -1 at EOF, 0 for nothing more yet, 1 with the status, 2 after "X". */
static int ctl_read(struct sandbox_ctx *ctx, int *wstatus, struct sd_error *err)
{
	struct gvisor *gv = ctx->backend_data;
	ssize_t n;
	int r = (int)sandbox_ctl_lines(&gv->ctl, wstatus, err);	/* lines left from the last read first */

	if (r == CTL_GOT_STATUS || (r == CTL_GOT_EXEC && !wstatus))
		return r;
	n = sandbox_ctl_read(&gv->ctl, gv->ctl_r);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	r = (int)sandbox_ctl_lines(&gv->ctl, wstatus, err);
	return r == CTL_GOT_EXEC && wstatus ? 0 : r;
}

static int gvisor_read_status(struct supervise *sv, int *wstatus)
{
	struct gvisor *gv = sv->ctx->backend_data;
	int r;

	gv->ctl_r = sv->status_fd;
	r = ctl_read(sv->ctx, wstatus, NULL);
	gv->ctl_r = -1;
	sv->file_size_reached = gv->ctl.file_size;
	return r == CTL_GOT_EXEC ? 0 : r;
}

static void runsc_log_error(struct gvisor *gv, struct sd_error *err)
{
	cleanup_free char *path = xasprintf("%s/runsc.log", gv->dir);
	cleanup_free char *text = NULL;
	size_t len = 0;

	if (path && read_file(path, 1 << 20, &text, &len, NULL) == 0 && len) {
		/* the last warning or error line says most */
		char *last = NULL, *save = NULL;

		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (l[0] == 'W' || l[0] == 'E')
				last = l;
		if (last)
			sd_error_wrap(err, "%s", last);
	}
}

static int wait_for_exec(struct sandbox_ctx *ctx, struct sd_error *err)
{
	struct gvisor *gv = ctx->backend_data;
	int64_t deadline = now_ms() + SETUP_TIMEOUT_MS;

	while (!gv->ctl.exec_seen && !gv->ctl.failed) {
		struct pollfd pfd = { .fd = gv->ctl_r, .events = POLLIN };
		int64_t left = deadline - now_ms();
		int ws, r;

		if (left <= 0)
			return sd_error_set(err, ETIMEDOUT, "gVisor sandbox setup took longer than %d ms", SETUP_TIMEOUT_MS);
		if (waitpid(gv->helper, &ws, WNOHANG) == gv->helper) {
			gv->helper = -1;
			/* what init said before runsc ended, then runsc's own words */
			ctl_read(ctx, NULL, err);
			if (gv->ctl.failed)
				return -1;
			sd_error_set(err, EIO, "runsc ended before the program started (%s %d)",
				     WIFEXITED(ws) ? "exit" : "signal", WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
			runsc_log_error(gv, err);
			return -1;
		}
		if (poll(&pfd, 1, left > 50 ? 50 : (int)left) < 0 && errno != EINTR)
			return sd_error_errno(err, errno, "poll");
		if (!pfd.revents)
			continue;
		r = ctl_read(ctx, NULL, err);
		if (r < 0 && !gv->ctl.exec_seen && !gv->ctl.failed)
			return sd_error_set(err, EIO, "gVisor init died during setup");
	}
	return gv->ctl.failed ? -1 : 0;
}

static int open_fifo(struct gvisor *gv, const char *name, int flags, struct sd_error *err)
{
	cleanup_free char *p = xasprintf("%s/ctl/%s", gv->dir, name);
	int fd = p ? open(p, flags | O_CLOEXEC | O_NONBLOCK) : -1;

	if (fd < 0)
		return sd_error_errno(err, p ? errno : ENOMEM, "cannot open the FIFO '%s'", p ? p : name);
	return fd;
}

static int open_stdin(const struct sandbox_config *cfg, struct sd_error *err)
{
	int fd;

	if (cfg->stdin_path) {
		fd = open(cfg->stdin_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return sd_error_errno(err, errno, "cannot open stdin file '%s'", cfg->stdin_path);
		return fd;
	}
	/* stdin from memory: an unlinked-at-birth file the feeder reads */
	fd = memfd_create("sandeval-stdin", MFD_CLOEXEC);
	if (fd < 0 || write_all(fd, cfg->stdin_data, cfg->stdin_len) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return sd_error_errno(err, e, "cannot stage stdin");
	}
	return fd;
}

/* SANDEVAL_GVISOR_LOGS=DIR: a copy of each sandbox's Sentry log, DIR/ID.log,
 * kept for whoever must see why a tripwire was counted or not (the run's
 * directory goes with the sandbox). A failure to copy is an event, never
 * the run's failure. */
static void keep_sentry_log(struct sandbox_ctx *ctx, const char *path)
{
	const char *dir = getenv("SANDEVAL_GVISOR_LOGS");
	cleanup_free char *dst = NULL;
	cleanup_close int in = -1;
	struct sd_error e = { 0 };

	if (!dir || !*dir)
		return;
	dst = xasprintf("%s/%s.log", dir, ctx->res->id);
	in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (!dst || in < 0)
		sd_error_errno(&e, errno, "cannot open '%s'", path);
	else if (gvisor_copy_fd(in, dst, 0600, &e) == 0)
		return;
	sandbox_event(ctx, "destroy", "the Sentry's log not kept in '%s': %s", dir, e.msg);
}

/* The Sentry serves every call, so no listener sees them: its debug log
 * does (gvisor-strace.c). Without it (runsc failed early) only the limits
 * and a fatal call that ended the program, unnamed, are counted. */
static void count_tripwires(struct sandbox_ctx *ctx)
{
	struct gvisor *gv = ctx->backend_data;
	struct tripwires *t = &ctx->res->tripwires;
	cleanup_free char *path = xasprintf("%s/" SENTRY_LOG, gv->dir);
	const struct sandbox_config *cfg = ctx->cfg;
	char **staged = calloc(cfg->n_files + 1, sizeof(char *));
	struct sd_error e = { 0 };
	uint64_t denied = 0;
	bool ok = path && staged;

	/* the files staged read-only under /work, as absolute paths */
	for (size_t i = 0; ok && i < cfg->n_files; i++) {
		const char *d = cfg->files[i].dest;

		staged[i] = !d ? strdup("") : d[0] == '/' ? strdup(d) : xasprintf("/work/%s", d);	/* normalized once by gvstrace_read_staged */
		ok = staged[i] != NULL;
	}
	if (path)
		keep_sentry_log(ctx, path);
	if (!ok || gvstrace_read_staged(path, (const char *const *)staged, t, &e) < 0) {
		sandbox_event(ctx, "destroy", "tripwires not counted: %s", ok ? e.msg : "out of memory");
		t->uncounted |= TW_NETWORK | TW_SYSCALLS | TW_WRITES | TW_LINGERING;
	}
	for (size_t i = 0; staged && i < cfg->n_files; i++)
		free(staged[i]);
	free(staged);
	for (uint32_t i = 0; i < t->n_denied; i++)
		denied += t->denied[i].count;
	if (ctx->res->status == SB_SECCOMP_VIOLATION && denied == 0)
		tripwires_denied(t, "unknown");
}

/* Start runsc on a bundle that holds nothing of a sample: init opens its
 * FIFOs and waits for its request (gvisor_execute). The supervisor's ends
 * are opened first, so that init's opens never wait on us. */
static int gvisor_start(struct sandbox_ctx *ctx, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct gvisor *gv = ctx->backend_data;
	const char *image_dir = strcmp(cfg->image, "host") != 0 ? cfg->image : NULL;
	int cg_fds[CG_NCTL], n_cg = 0;
	pid_t pid;

	gv->t_start = now_ms();
	if (gvisor_build_bundle(ctx, image_dir, err) < 0)
		return -1;
	if ((gv->ctl_r = open_fifo(gv, "ctl", O_RDONLY, err)) < 0 ||
	    (gv->out_r = open_fifo(gv, "out", O_RDONLY, err)) < 0 ||
	    (gv->err_r = open_fifo(gv, "err", O_RDONLY, err)) < 0)
		return -1;
	/* Read-write: never ENXIO, and closing it is the program's EOF. Held even
	 * for an empty stdin until init has opened its end: through the gofer,
	 * opening a FIFO waits for a writer, O_NONBLOCK or not. The request
	 * FIFO likewise: what is written waits there for init. */
	if ((gv->in_w = open_fifo(gv, "in", O_RDWR, err)) < 0 || (gv->req_w = open_fifo(gv, "req", O_RDWR, err)) < 0)
		return -1;
	if (ctx->cg && (n_cg = cgroup_open_procs(ctx->cg, cg_fds, CG_NCTL, err)) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		for (int i = 0; i < n_cg; i++)
			close(cg_fds[i]);
		return sd_error_errno(err, errno, "fork");
	}
	if (pid == 0)
		exec_runsc(ctx, cg_fds, n_cg);
	gv->helper = pid;
	for (int i = 0; i < n_cg; i++)
		close(cg_fds[i]);
	sandbox_event(ctx, "provision", "bundle: root '%s' read-only, init and FIFOs in '%s/ctl'; runsc started, "
		      "init waits for its request", cfg->image, gv->dir);
	return 0;
}

static int gvisor_execute(struct sandbox_ctx *ctx, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct gvisor *gv = ctx->backend_data;
	struct supervise sv;
	struct rusage ru = { 0 };
	struct cgroup_stats st = { 0 };
	int ret = -1, ws;

	/* the sample is assigned: its limits, its CPU from now on */
	ctx->res->prestart_ms = now_ms() - gv->t_start;
	ctx->res->prestart_cpu_ms = -1;
	ctx->res->sandbox_cpu_ms = -1;
	if (ctx->cg && cgroup_stats(ctx->cg, &st) == 0 && st.has_cpu)
		ctx->res->prestart_cpu_ms = (int64_t)(st.cpu_ns / 1000000);
	if (gv->has.memory && cgroup_set_memory(ctx->cg, cfg->memory, err) < 0)
		return sd_error_wrap(err, "memory limit");
	if (gv->cg_pids && cgroup_set_pids(ctx->cg, 4 * cfg->pids + GVISOR_TASKS, err) < 0)
		return sd_error_wrap(err, "pids limit");
	ctx->res->n_limits = 0;
	sandbox_add_limits(ctx, &gv->has);
	if ((cfg->stdin_path || cfg->stdin_data) && (gv->in_src = open_stdin(cfg, err)) < 0)
		return -1;
	if (gvisor_request(ctx, gv->req_w, now_ms() + SETUP_TIMEOUT_MS, err) < 0)
		return -1;
	sandbox_event(ctx, "inject", "request: the program, its environment and limits, %zu file(s) "
		      "with their contents (%zu more in the sandbox before); sandbox started %lld ms before",
		      cfg->n_files - gv->n_pre, gv->n_pre, (long long)ctx->res->prestart_ms);
	if (wait_for_exec(ctx, err) < 0)
		return -1;

	if (gv->in_src < 0)
		close_fd(&gv->in_w);	/* empty stdin: EOF at once */
	close_fd(&gv->req_w);
	supervise_init(&sv, ctx);
	sv.out_fd = steal_fd(&gv->out_r);
	sv.err_fd = steal_fd(&gv->err_r);
	sv.in_w = steal_fd(&gv->in_w);
	sv.in_src = steal_fd(&gv->in_src);
	sv.status_fd = steal_fd(&gv->ctl_r);
	sv.cg_cpu = gv->cg_cpu;
	sv.read_status = gvisor_read_status;
	sv.kill = kill_sandbox;
	ret = supervise_loop(&sv, err);
	/* init's "S" said how many processes the program left, all killed and
	 * reaped before: nothing of the sample runs or calls any more, and the
	 * Sentry's log holds all of its calls. runsc's own teardown (the
	 * Sentry's exit, the gofer's, its state: 10-25 ms) is then the
	 * destroy's, not the result's. */
	gv->ended = ret == 0 && sv.have_status && gv->ctl.lingering >= 0;
	if (ret == 0 && !gv->ended) {
		/* killed at a limit, or init said nothing: runsc tears the sandbox down */
		int64_t deadline = now_ms() + TEARDOWN_TIMEOUT_MS;
		pid_t w;

		while ((w = wait4(gv->helper, &ws, WNOHANG, &ru)) == 0 && now_ms() < deadline)
			usleep(1000);
		if (w != gv->helper) {
			kill_sandbox(ctx);
			kill(gv->helper, SIGKILL);
			while (wait4(gv->helper, &ws, 0, &ru) < 0 && errno == EINTR)
				;
		}
		gv->helper = -1;
		gv->ended = true;
	}
	if (ret == 0) {
		supervise_finish(&sv, &ru);
		if (sv.stats.has_cpu)
			ctx->res->sandbox_cpu_ms = (int64_t)(sv.stats.cpu_ns / 1000000);
		sandbox_event(ctx, "execute", "sandbox host CPU %lld ms, %lld ms of it before the sample came "
			      "(%s, started %lld ms before)", (long long)ctx->res->sandbox_cpu_ms,
			      (long long)ctx->res->prestart_cpu_ms, ctx->res->pooled ? "pre-started" : "started for it",
			      (long long)ctx->res->prestart_ms);
		count_tripwires(ctx);
		if (gv->ctl.lingering >= 0) {
			ctx->res->tripwires.lingering_processes = (uint32_t)gv->ctl.lingering;
			ctx->res->tripwires.uncounted &= ~TW_LINGERING;
		}
		tripwire_finish(ctx, NULL, &sv.stats);
		if (strcmp(ctx->res->platform, "kvm") == 0) {
			cleanup_free char *mark = xasprintf("%.*s/" KVM_VERIFIED,
				(int)(strrchr(ctx->lock_path, '/') - ctx->lock_path), ctx->lock_path);
			int fd = mark ? open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;

			if (fd >= 0)
				close(fd);
		}
	}
	supervise_release(&sv);
	return ret;
}

void gvisor_close_fds(struct gvisor *gv)
{
	close_fd(&gv->ctl_r);
	close_fd(&gv->out_r);
	close_fd(&gv->err_r);
	close_fd(&gv->in_w);
	close_fd(&gv->in_src);
	close_fd(&gv->req_w);
}

static void gvisor_destroy(struct sandbox_ctx *ctx)
{
	struct gvisor *gv = ctx->backend_data;
	struct sd_error e = { 0 };
	bool left = false, had_cg = ctx->cg != NULL;
	int ws;

	if (gv) {
		if (gv->helper > 0) {
			kill_sandbox(ctx);
			kill(gv->helper, SIGKILL);
			while (waitpid(gv->helper, &ws, 0) < 0 && errno == EINTR)
				;
			gv->helper = -1;
		}
		gvisor_close_fds(gv);
	}
	if (ctx->cg && gv) {
		struct cgroup_stats st = { 0 };

		if (cgroup_stats(ctx->cg, &st) == 0 && st.has_cpu)
			sandbox_event(ctx, "destroy", "sandbox host CPU %lld ms in all, runsc's teardown included",
				      (long long)(st.cpu_ns / 1000000));
	}
	if (ctx->cg) {
		if (cgroup_destroy(ctx->cg, &e) < 0) {
			sandbox_event(ctx, "destroy", "%s", e.msg);
			left = true;
		}
		cgroup_free(ctx->cg);
		ctx->cg = NULL;
	}
	if (gv && gv->dir) {
		/* with the cgroups gone, every runsc process is: no `runsc delete` needed */
		if (gvisor_remove_run(gv->dir, gv->runsc, gv->container, had_cg && !left, &e) < 0) {
			sandbox_event(ctx, "destroy", "%s", e.msg);
			left = true;
		}
	}
	if (!left)
		sandbox_event(ctx, "destroy", "gVisor sandbox and runsc processes killed, cgroup, bundle and runsc state removed");
	if (gv) {
		gvisor_pre_free(gv);
		free(gv->dir);
		free(gv);
	}
	ctx->backend_data = NULL;
}

const struct sandbox_backend sandbox_gvisor_backend = {
	.name = "gvisor",
	.check = gvisor_check,
	.provision = gvisor_provision,
	.execute = gvisor_execute,
	.destroy = gvisor_destroy,
	.record_tag = RECORD_TAG,
	.sweep = gvisor_sweep,
};
