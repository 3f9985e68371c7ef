/* sandbox-native.c - the native backend: namespaces, cgroups, seccomp and Landlock on the host kernel
 *
 * Theory of operation
 *
 * Processes. sandeval (the supervisor) stays on the host. It clone()s one child
 * into new user, pid, mount, network, ipc and uts namespaces; that child is
 * pid 1 of the sandbox ("init", sandbox-child.c). Init builds the root, then
 * vforks the program (pid 2), which constrains itself and executes. Nothing in
 * the sandbox runs as pid 1 but init, so the program's fatal signals work.
 * A warm start (cfg->zygote, zygote.h) differs in two places only: the
 * zygote makes that clone() (CLONE_PARENT: init is still our child), and the
 * program, forked, returns into the zygote's warm interpreter instead of
 * executing.
 *
 * Pipes. sync (supervisor -> init, one byte: "maps and cgroup are set"; kept
 * open so init sees the supervisor die); msg (init and program -> supervisor,
 * setup events and errors; close-on-exec, so EOF means the program was
 * executed); status (init -> supervisor, the program's wait status: the program
 * never holds it, so it cannot forge it); stdin, stdout, stderr (the only
 * descriptors the program has); notify (a socket pair: the program's process
 * sends the seccomp listener of its filter once, before it executes, and
 * keeps no copy; the supervisor answers it, sandbox-tripwire.c).
 *
 * Tripwires. The supervisor counts what the program tried through that
 * listener; when the program ends, init reports its status and waits, so the
 * supervisor can count the processes still alive in the cgroup before it
 * kills init (whose end then kills them all).
 *
 * Who kills whom. The supervisor owns the clock: it kills at the wall-clock
 * deadline, when the cgroup's CPU time passes the limit, and when an output
 * buffer overflows. Killing means SIGKILL to init (the kernel then kills every
 * process in the pid namespace; nothing can leave it) and cgroup.kill (v2) or
 * freeze + kill (v1). Init exits as soon as the program ends, with the same
 * effect. If the supervisor dies, init gets SIGKILL (parent-death signal) and
 * `sandeval gc` removes the cgroups from the run's lock file.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/sandbox-child.h"
#include "sandbox/sandbox-ctl.h"
#include "sandbox/sandbox-supervise.h"
#include "sandbox/sandbox-tripwire.h"
#include "sandbox/zygote.h"

/* Host uids for sandboxes started by root: a range no account uses, one
 * random uid per run so that concurrent sandboxes do not share one. */
#define HOST_UID_BASE 2000000000u
#define HOST_UID_SPAN (1u << 24)

#define SETUP_TIMEOUT_MS 10000

struct native {
	pid_t init;
	int sync_w, msg_r, status_r, in_w, out_r, err_r;
	int notify_r;		/* where the listener arrives */
	int in_src;		/* --stdin file, streamed into in_w */
	bool cg_memory, cg_pids, cg_cpu;
	int64_t cpu_seen_ms;	/* no CPU cgroup: the sandbox's CPU when first killed (-1: not) */
	cpu_set_t cpus;		/* the CPUs this process may use ... */
	bool spread;		/* ... two or more of them (spread_init) */
};

static int native_provision(struct sandbox_ctx *ctx, struct sd_error *err)
{
	struct sandbox_result *res = ctx->res;
	struct native *nt = calloc(1, sizeof(*nt));

	if (!nt)
		return sd_error_errno(err, ENOMEM, "provision");
	*nt = (struct native){ .init = -1, .sync_w = -1, .msg_r = -1, .status_r = -1,
			       .in_w = -1, .out_r = -1, .err_r = -1, .in_src = -1, .notify_r = -1,
			       .cpu_seen_ms = -1 };
	ctx->backend_data = nt;
	ctx->as_root = geteuid() == 0;
	if (ctx->as_root) {
		unsigned char r[4];
		char hex[9];

		if (random_hex(hex, sizeof(r), err) < 0)
			return -1;
		ctx->host_uid = HOST_UID_BASE + (uid_t)(strtoul(hex, NULL, 16) % HOST_UID_SPAN);
		ctx->host_gid = ctx->host_uid;
	} else {
		ctx->host_uid = geteuid();
		ctx->host_gid = getegid();
	}
	res->host_uid = ctx->host_uid;

	return 0;
}

/* Make the cgroup, while init builds the root, and send init the grant
 * (sandbox-child.h): the files through which it joins, and the rlimits
 * that stand in for what is missing. */
static int native_cgroup(struct sandbox_ctx *ctx, int sock, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct sandbox_result *res = ctx->res;
	struct native *nt = ctx->backend_data;
	struct sd_error cgerr = { 0 };
	struct sandbox_cg has;
	struct cgroup_grant g = { .magic = CGROUP_GRANT_MAGIC };
	int fds[CG_NCTL], n = 0, ret = -1;

	/* init is one more task than the program may have. No freezer: the
	 * pid namespace already ends every process at once when init dies,
	 * and none can leave it (cgroup v1: one directory fewer to make,
	 * join and remove). Spares: cgroup_release below. */
	if (sandbox_provision_cgroup(ctx, cfg->pids + 1, CG_ALL & ~(1u << CG_FREEZER), cfg->cgroup_spares,
				     &has, &cgerr, err) < 0)
		return -1;
	nt->cg_memory = has.memory;
	nt->cg_pids = has.pids;
	nt->cg_cpu = has.cpu;
	if (ctx->cg) {
		sandbox_event(ctx, "provision", "%s cgroup sandeval-%s%s (memory %s, pids %s, cpu %s)%s%s",
			      cgroup_mechanism(ctx->cg), res->id, cgroup_reused(ctx->cg) ? ", a spare" : "",
			      has.memory ? "yes" : "no", has.pids ? "yes" : "no", has.cpu ? "yes" : "no",
			      res->limits_note[0] ? "; " : "", res->limits_note);
	} else {
		snprintf(res->limits_note, sizeof(res->limits_note), "no cgroup, limits fall back to rlimits: %s", cgerr.msg);
		sandbox_event(ctx, "provision", "%s", res->limits_note);
	}
	sandbox_add_limits(ctx, &has);
	if (ctx->cg && (n = cgroup_open_procs(ctx->cg, fds, CG_NCTL, err)) < 0)
		return -1;
	g.rlimit_memory = !has.memory;
	g.rlimit_pids = !has.pids;
	g.rlimit_cpu_only = !has.cpu;
	if (send_fds(sock, &g, sizeof(g), fds, n, MSG_NOSIGNAL) == (ssize_t)sizeof(g) ||
	    errno == ECONNREFUSED)
		ret = 0;	/* refused: init is gone, and its message says why (wait_for_exec) */
	else
		sd_error_errno(err, errno, "cannot send init the cgroup");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return ret;
}

static int write_map(pid_t pid, const char *file, const char *text, struct sd_error *err)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	return write_file(path, text, err);
}

static int set_id_maps(struct sandbox_ctx *ctx, pid_t pid, struct sd_error *err)
{
	char map[64];

	snprintf(map, sizeof(map), "%d %u 1\n", SANDBOX_UID, (unsigned)ctx->host_uid);
	if (write_map(pid, "uid_map", map, err) < 0)
		return -1;
	/* Without CAP_SETGID on the host, gid_map needs setgroups denied first. */
	if (!ctx->as_root && write_map(pid, "setgroups", "deny", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%d %u 1\n", SANDBOX_GID, (unsigned)ctx->host_gid);
	return write_map(pid, "gid_map", map, err);
}

/* Keep init off the CPU this process runs on (of ALL). The kernel wakes a
 * task on its waker's CPU where it sees no cache shared between CPUs (a guest
 * that describes none, as this project's machines), and the woken task runs
 * at once: what init then does would wait for the supervisor's work, or
 * delay it, on one CPU while the other idles (docs/benchmarks-exec.md,
 * 2026-12-04). A hint only: nothing fails with it. Used twice:
 * - while init builds the root, the supervisor makes the cgroup (phase 1 of
 *   docs/sandbox.md): init may not run here until it has read the sync byte;
 *   then it takes back ALL itself (child_args.cpus), for the program;
 * - when init is killed (end_init): its end (0.7 ms here: its address space,
 *   the namespaces) runs elsewhere while the supervisor reads the accounting
 *   and frees the filter (native_supervise). */
static void spread_init(pid_t init, const cpu_set_t *all)
{
	cpu_set_t other = *all;
	int cpu = sched_getcpu();

	if (cpu < 0 || !CPU_ISSET(cpu, &other) || CPU_COUNT(&other) < 2)
		return;
	CPU_CLR(cpu, &other);
	sched_setaffinity(init, sizeof(other), &other);
}

/* SIGKILL to init ends the sandbox (the kernel kills every process in its
 * pid namespace), on another CPU than this one when there is one. */
static void end_init(struct native *nt)
{
	if (nt->spread)
		spread_init(nt->init, &nt->cpus);
	kill(nt->init, SIGKILL);
}

static void kill_sandbox(struct sandbox_ctx *ctx)
{
	struct native *nt = ctx->backend_data;

	if (nt->init > 0 && !nt->cg_cpu && nt->cpu_seen_ms < 0)
		nt->cpu_seen_ms = supervise_tree_cpu_ms(nt->init);
	if (nt->init > 0)
		end_init(nt);
	if (ctx->cg)
		cgroup_kill(ctx->cg, NULL);
}

/* Read the setup messages until EOF: the program was executed (at *EXEC_MS,
 * init's own time of it, when it sent one that can be true: between BORN,
 * before init was, and now; else -1), or setup failed. */
static int wait_for_exec(struct sandbox_ctx *ctx, int64_t born, int64_t *exec_ms, struct sd_error *err)
{
	static const char *const phases[] = { "provision", "inject", "constrain", NULL };
	struct native *nt = ctx->backend_data;
	int64_t deadline = now_ms() + SETUP_TIMEOUT_MS;
	struct sandbox_ctl ctl;

	sandbox_ctl_init(&ctl, ctx, phases);
	for (;;) {
		struct pollfd pfd = { .fd = nt->msg_r, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return sd_error_set(err, ETIMEDOUT, "sandbox setup took longer than %d ms", SETUP_TIMEOUT_MS);
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return sd_error_errno(err, errno, "poll");
		if (!pfd.revents)
			continue;
		n = sandbox_ctl_read(&ctl, nt->msg_r);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Handle complete lines as they come, so events carry their time;
		 * all of them ("E" may follow "X" when the exec failed). */
		while (sandbox_ctl_lines(&ctl, NULL, err) != CTL_ALL_READ)
			;
	}
	if (ctl.failed)
		return -1;
	if (!ctl.exec_seen)
		return sd_error_set(err, EIO, "sandbox init died during setup");
	*exec_ms = ctl.exec_ns / 1000000;
	if (*exec_ms < born || *exec_ms > now_ms())
		*exec_ms = -1;
	return 0;
}

/* The status pipe carries two ints from init: the program's wait status,
 * and whether a file in /work or /tmp reached --file-size. Init then
 * waits: count what still runs, then end init (and so them). */
static int native_read_status(struct supervise *sv, int *wstatus)
{
	struct sandbox_ctx *ctx = sv->ctx;
	struct native *nt = ctx->backend_data;
	int report[2];
	ssize_t n = read(sv->status_fd, report, sizeof(report));

	if (n == (ssize_t)sizeof(report)) {
		int left = tripwire_lingering(ctx);

		*wstatus = report[0];
		sv->file_size_reached = report[1] != 0;
		if (left < 0)
			ctx->res->tripwires.uncounted |= TW_LINGERING;
		else
			ctx->res->tripwires.lingering_processes = (uint32_t)left;
		end_init(nt);
		return 1;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	return -1;
}

static void native_watch(struct supervise *sv, short revents)
{
	struct tripwire_watch *w = sv->data;

	if (revents & POLLIN)
		tripwire_watch_handle(w);
	else
		sv->watch_fd = -1;	/* no process left under the filter */
}

/* Supervise the program to its end: sandbox-supervise.c's loop, fed by init's status pipe. */
static int native_supervise(struct sandbox_ctx *ctx, int64_t exec_ms, struct sd_error *err)
{
	struct native *nt = ctx->backend_data;
	struct tripwire_watch w;
	struct supervise sv;
	struct rusage ru;
	int ws, ret;

	/* the listener came before the program was executed (wait_for_exec) */
	if (tripwire_watch_init(&w, tripwire_recv_listener(nt->notify_r), &ctx->res->tripwires, err) < 0) {
		tripwire_watch_release(&w);
		return -1;
	}
	close_fd(&nt->notify_r);
	if (!ctx->cg)
		ctx->res->tripwires.uncounted |= TW_LINGERING;	/* nothing to count them in */
	supervise_init(&sv, ctx);
	sv.t_exec = exec_ms;
	sv.data = &w;
	sv.watch_fd = w.fd;
	sv.watch = native_watch;
	sv.out_fd = steal_fd(&nt->out_r);
	sv.err_fd = steal_fd(&nt->err_r);
	sv.in_w = steal_fd(&nt->in_w);
	sv.in_src = steal_fd(&nt->in_src);
	sv.status_fd = steal_fd(&nt->status_r);
	sv.cg_cpu = nt->cg_cpu;
	sv.read_status = native_read_status;
	sv.kill = kill_sandbox;
	ret = supervise_loop(&sv, err);
	if (ret == 0) {
		bool settled = false;

		/* While init dies (read_status killed it, end_init): when the
		 * program ended and nothing but init was left, the accounting is
		 * final (it leaves out init's own end), and with it the result
		 * (sandbox_config.settled); else both wait for the reap, when
		 * all that lingered is dead. */
		if (sv.have_status && !(ctx->res->tripwires.uncounted & TW_LINGERING) &&
		    ctx->res->tripwires.lingering_processes == 0) {	/* counted: in a cgroup */
			supervise_account(&sv);
			if (sv.stats.has_cpu && sv.stats.has_peak) {
				supervise_finish(&sv, NULL);
				tripwire_finish(ctx, &w, &sv.stats);
				settled = true;
			}
		}
		/* Nothing is read from the listener any more: closing it frees the
		 * filter (0.1 ms here), also while init dies. */
		close_fd(&w.fd);
		if (settled && ctx->cfg->settled)
			ctx->cfg->settled(ctx->cfg->settled_arg, ctx->res);
		/* Reap init: by then the kernel has killed and reaped the whole namespace,
		 * so destroy finds the cgroup empty and skips the freezer. */
		kill(nt->init, SIGKILL);
		while (wait4(nt->init, &ws, __WALL, &ru) < 0 && errno == EINTR)
			;
		nt->init = -1;
		if (!settled) {
			sv.cpu_seen_ms = nt->cpu_seen_ms;
			supervise_finish(&sv, &ru);
			tripwire_finish(ctx, &w, &sv.stats);
		}
	}
	supervise_release(&sv);
	tripwire_watch_release(&w);
	return ret;
}

/* A descriptor to read a file's contents from: the host file, opened with
 * the caller's rights, or a memfd holding DATA. */
static int open_source(const char *path, const char *data, size_t len, bool exec)
{
	int fd;

	if (!data)
		return open(path, O_RDONLY | O_CLOEXEC);
	fd = memfd_create("sandeval-inject", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    (exec && fchmod(fd, 0700) < 0)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A warm start: a zygote this process started, and a root it can give. */
static bool warm(const struct sandbox_ctx *ctx)
{
	const struct sandbox_config *cfg = ctx->cfg;

	return cfg->zygote && zygote_owner(cfg->zygote) == getpid() && strcmp(cfg->image, "host") == 0;
}

static int native_execute(struct sandbox_ctx *ctx, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct native *nt = ctx->backend_data;
	int sync_p[2] = { -1, -1 }, msg_p[2] = { -1, -1 }, st_p[2] = { -1, -1 };
	int in_p[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 }, nt_p[2] = { -1, -1 };
	cleanup_free int *file_fds = calloc(cfg->n_files + 1, sizeof(int));
	int ret = -1;
	struct child_args a;
	pid_t pid;
	char one = 1;
	int64_t born, exec_ms = -1;

	if (!file_fds)
		return sd_error_errno(err, ENOMEM, "execute");
	for (size_t i = 0; i < cfg->n_files; i++)
		file_fds[i] = -1;
	/* Open what the program may see with the caller's rights, before any namespace. */
	for (size_t i = 0; i < cfg->n_files; i++) {
		const struct sandbox_file *f = &cfg->files[i];

		file_fds[i] = open_source(f->src, f->data, f->len, f->executable);
		if (file_fds[i] < 0) {
			sd_error_errno(err, errno, "cannot open file source '%s'", cfg->files[i].src);
			goto out;
		}
	}
	if (cfg->stdin_path || cfg->stdin_data) {
		nt->in_src = open_source(cfg->stdin_path, cfg->stdin_data, cfg->stdin_len, false);
		if (nt->in_src < 0) {
			sd_error_errno(err, errno, "cannot open stdin file '%s'", cfg->stdin_path ? cfg->stdin_path : "(memory)");
			goto out;
		}
	}
	if (pipe2(sync_p, O_CLOEXEC) < 0 || pipe2(msg_p, O_CLOEXEC) < 0 || pipe2(st_p, O_CLOEXEC) < 0 ||
	    pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, nt_p) < 0) {
		sd_error_errno(err, errno, "pipe");
		goto out;
	}
	a = (struct child_args){
		.cfg = cfg, .as_root = ctx->as_root, .sync_fd = sync_p[0], .msg_fd = msg_p[1], .status_fd = st_p[1],
		.stdio = { in_p[0], out_p[1], err_p[1] }, .notify_sock = nt_p[1], .file_fds = file_fds, .image_fd = -1,
		.filter = sysfilter_prebuilt_notify(),
	};
	nt->spread = sched_getaffinity(0, sizeof(nt->cpus), &nt->cpus) == 0 && CPU_COUNT(&nt->cpus) > 1;
	born = now_ms();
	pid = -1;
	if (warm(ctx)) {
		/* The same child, cloned by the zygote (zygote.h); if that fails, cold. */
		struct sd_error zerr = { 0 };

		pid = zygote_spawn(cfg->zygote, &a, &zerr);
		if (pid > 0)
			sandbox_event(ctx, "execute", "warm start: the zygote cloned init (pid %d)", (int)pid);
		else
			sandbox_event(ctx, "execute", "cold start: %s", zerr.msg);
	}
	if (pid < 0) {
		if (nt->spread)
			a.cpus = &nt->cpus;
		pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET |
				     CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD, NULL, NULL, NULL, NULL);
		if (pid < 0) {
			sd_error_errno(err, errno, "cannot create the sandbox namespaces");
			goto out;
		}
		if (pid == 0) {
			child_main(&a);
			_exit(127);
		}
	}
	nt->init = pid;
	close_fd(&sync_p[0]);
	close_fd(&msg_p[1]);
	close_fd(&st_p[1]);
	close_fd(&in_p[0]);
	close_fd(&out_p[1]);
	close_fd(&err_p[1]);
	close_fd(&nt_p[1]);
	if (a.cpus)
		spread_init(pid, &nt->cpus);
	if (set_id_maps(ctx, pid, err) < 0 || write_all(sync_p[1], &one, 1) < 0) {
		sd_error_wrap(err, "cannot set up the sandbox");
		goto out;
	}
	if (native_cgroup(ctx, nt_p[0], err) < 0)
		goto out;
	nt->sync_w = steal_fd(&sync_p[1]);
	nt->msg_r = steal_fd(&msg_p[0]);
	nt->status_r = steal_fd(&st_p[0]);
	nt->in_w = steal_fd(&in_p[1]);
	nt->out_r = steal_fd(&out_p[0]);
	nt->err_r = steal_fd(&err_p[0]);
	nt->notify_r = steal_fd(&nt_p[0]);
	if (nt->in_src < 0)
		close_fd(&nt->in_w);	/* empty stdin: EOF at once */
	else
		fcntl(nt->in_w, F_SETFL, O_NONBLOCK);
	if (wait_for_exec(ctx, born, &exec_ms, err) < 0)
		goto out;
	ret = native_supervise(ctx, exec_ms, err);
out:
	for (size_t i = 0; i < cfg->n_files; i++)
		close_fd(&file_fds[i]);
	for (int i = 0; i < 2; i++) {
		close_fd(&sync_p[i]);
		close_fd(&msg_p[i]);
		close_fd(&st_p[i]);
		close_fd(&in_p[i]);
		close_fd(&out_p[i]);
		close_fd(&err_p[i]);
		close_fd(&nt_p[i]);
	}
	return ret;
}

static void native_destroy(struct sandbox_ctx *ctx)
{
	struct native *nt = ctx->backend_data;
	struct sd_error e = { 0 };
	int ws;

	if (nt) {
		if (nt->init > 0) {
			kill_sandbox(ctx);
			while (waitpid(nt->init, &ws, __WALL) < 0 && errno == EINTR)
				;
			nt->init = -1;
		}
		close_fd(&nt->sync_w);
		close_fd(&nt->msg_r);
		close_fd(&nt->status_r);
		close_fd(&nt->in_w);
		close_fd(&nt->out_r);
		close_fd(&nt->err_r);
		close_fd(&nt->in_src);
		close_fd(&nt->notify_r);
	}
	if (ctx->cg) {
		int r = cgroup_release(ctx->cg, &e);

		if (r < 0)
			sandbox_event(ctx, "destroy", "%s", e.msg);
		else
			sandbox_event(ctx, "destroy", "processes killed, cgroup %s, namespaces and tmpfs gone",
				      r ? "emptied, reset and kept as a spare" : "removed");
		cgroup_free(ctx->cg);
		ctx->cg = NULL;
	} else {
		sandbox_event(ctx, "destroy", "processes killed, namespaces and tmpfs gone");
	}
	free(nt);
	ctx->backend_data = NULL;
}

const struct sandbox_backend sandbox_native_backend = {
	.name = "native",
	.provision = native_provision,
	.execute = native_execute,
	.destroy = native_destroy,
};
