/* sandbox-supervise.c - what every backend does outside the sandbox: capped capture, stdin feed, clock and CPU polling, the verdict
 *
 * The backend starts the sandbox and hands over the program's stdout, stderr
 * and stdin and a status descriptor; supervise_loop() then owns the clock:
 * it kills the sandbox (through the backend's kill) at the wall-clock
 * deadline, when the cgroup's CPU time passes the limit and when an output
 * buffer overflows. The backend reaps what it started, and
 * supervise_finish() turns the accounting and the wait status into the
 * result. Native and gVisor runs are judged by this one code.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

#define DRAIN_TIMEOUT_MS 2000

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void supervise_init(struct supervise *sv, struct sandbox_ctx *ctx)
{
	memset(sv, 0, sizeof(*sv));
	sv->ctx = ctx;
	sv->out_fd = sv->err_fd = sv->in_w = sv->in_src = sv->status_fd = sv->watch_fd = -1;
	sv->out.fd = sv->err.fd = -1;
	sv->t_exec = sv->t_end = -1;
	sv->cpu_seen_ms = -1;
}

/* Of /proc/PID/stat: the parent's pid and utime + stime + cutime + cstime
 * in clock ticks (what the process and the children it reaped used). -1 when gone. */
static int stat_read(const char *pid, pid_t *ppid, int64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst;
	int pp, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* after the command's closing parenthesis (the command may hold any byte): state is field 3 */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &pp, &ut, &st, &cut,
		   &cst) != 5)
		return -1;
	*ppid = pp;
	*ticks = (int64_t)(ut + st + cut + cst);
	return 0;
}

int64_t supervise_tree_cpu_ms(pid_t init)
{
	enum { IN_MAX = 4096 };
	struct proc { pid_t pid, ppid; int64_t ticks; bool in; } *v = NULL;
	pid_t in[IN_MAX];
	size_t n = 0, cap = 0, n_in = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int64_t ticks = 0;
	struct dirent *de;
	bool grew;
	DIR *d;

	/* The sandbox's processes are init and its descendants (orphans are
	 * given to init, the namespace's reaper): found by their parents in one
	 * read of every /proc/PID/stat, which needs no access to the processes
	 * (their ns links do, and the sandbox is not dumpable). */
	if (hz <= 0 || !(d = opendir("/proc")))
		return -1;
	while ((de = readdir(d)) && n < 65536) {
		struct proc p = { 0 };

		if (de->d_name[0] < '1' || de->d_name[0] > '9' || stat_read(de->d_name, &p.ppid, &p.ticks) < 0)
			continue;
		p.pid = (pid_t)atoi(de->d_name);
		p.in = p.pid == init;
		if (n == cap) {
			struct proc *nv = realloc(v, (cap = cap ? 2 * cap : 512) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = p;
	}
	closedir(d);
	/* the members so far, by pid: few (the sandbox's pids limit), looked up for each process's parent */
	for (size_t i = 0; i < n; i++)
		if (v[i].in && n_in < IN_MAX)
			in[n_in++] = v[i].pid;
	do {
		grew = false;
		for (size_t i = 0; i < n && n_in < IN_MAX; i++) {
			if (v[i].in)
				continue;
			for (size_t k = 0; k < n_in; k++) {
				if (in[k] == v[i].ppid) {
					v[i].in = grew = true;
					in[n_in++] = v[i].pid;
					break;
				}
			}
		}
	} while (grew);
	for (size_t i = 0; i < n; i++)
		if (v[i].in)
			ticks += v[i].ticks;
	free(v);
	return ticks * 1000 / hz;
}

static bool capture_read(struct capture *c)
{
	/* Straight into the buffer (cap + 1 bytes): one byte past the cap is
	 * the output limit. No bounce buffer on the stack: a 64 KiB frame costs
	 * 16 page faults of its own in each new supervisor (stack probes). */
	size_t room = c->cap - c->len;
	ssize_t n = read(c->fd, c->buf + c->len, room < 65536 ? room + 1 : 65536);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	if (n <= 0) {
		close_fd(&c->fd);
		return false;
	}
	if ((size_t)n > room) {
		/* The limit: the sandbox is killed; what more it wrote is not
		 * read (a byte at a time, now) but dropped with the pipe. */
		c->truncated = true;
		c->len = c->cap;
		close_fd(&c->fd);
		return true;
	}
	c->len += (size_t)n;
	return false;
}

#define IN_BUF 65536

/* Feed the --stdin file into the program's stdin as it makes room: the pipe
 * is non-blocking, so a write may take part of a chunk (or none, EAGAIN);
 * the rest waits in in_buf for the next POLLOUT. */
static void feed_stdin(struct supervise *sv)
{
	ssize_t n;

	if (sv->in_off == sv->in_len) {
		n = read(sv->in_src, sv->in_buf, IN_BUF);
		if (n < 0 && errno == EINTR)
			return;
		if (n <= 0)
			goto done;
		sv->in_off = 0;
		sv->in_len = (size_t)n;
	}
	n = write(sv->in_w, sv->in_buf + sv->in_off, sv->in_len - sv->in_off);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0)
		goto done;
	sv->in_off += (size_t)n;
	return;
done:
	close_fd(&sv->in_src);
	close_fd(&sv->in_w);
}

/* the sandbox's CPU time so far: cpuacct.usage or cpu.stat alone (read at
 * every wake-up of the loop; the memory figures are read once, at the end) */
static uint64_t cpu_ns(struct sandbox_ctx *ctx)
{
	uint64_t ns = 0;

	if (!ctx->cg || cgroup_cpu_ns(ctx->cg, &ns) < 0)
		return 0;
	return ns;
}

static enum sandbox_status classify(struct sandbox_ctx *ctx, int wstatus, bool have_status, bool file_size,
				    enum sandbox_status fired, uint64_t oom_kills, int64_t cpu_ms)
{
	struct sandbox_result *res = ctx->res;

	if (have_status) {
		if (WIFEXITED(wstatus))
			res->exit_code = WEXITSTATUS(wstatus);
		else if (WIFSIGNALED(wstatus))
			res->signal = WTERMSIG(wstatus);
	} else if (fired != SB_OK || oom_kills > 0) {
		res->signal = SIGKILL;	/* ended by the sandbox's destruction */
	}
	if (fired != SB_OK)
		return fired;
	if (oom_kills > 0)
		return SB_MEMORY_LIMIT;
	if (file_size)	/* however it ended: SIGXFSZ, or EFBIG and an exit */
		return SB_FILE_SIZE_LIMIT;
	if (!have_status)
		return SB_SIGNALED;
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus) == 0 ? SB_OK : SB_NONZERO_EXIT;
	switch (WTERMSIG(wstatus)) {
	case SIGXCPU:
		return SB_CPU_LIMIT;
	case SIGXFSZ:
		return SB_FILE_SIZE_LIMIT;
	case SIGSYS:
		return SB_SECCOMP_VIOLATION;
	case SIGKILL:	/* RLIMIT_CPU's hard limit */
		if (cpu_ms >= 0 && cpu_ms >= (int64_t)(ctx->cfg->cpu_time * 1000))
			return SB_CPU_LIMIT;
		return SB_SIGNALED;
	default:
		return SB_SIGNALED;
	}
}

int supervise_loop(struct supervise *sv, struct sd_error *err)
{
	struct sandbox_ctx *ctx = sv->ctx;
	const struct sandbox_config *cfg = ctx->cfg;
	struct capture *out = &sv->out, *errc = &sv->err;
	int64_t kill_time = -1, deadline;
	bool cancelled = false;
	uint64_t cpu_limit_ns = (uint64_t)(cfg->cpu_time * 1e9);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (sv->t_exec < 0)
		sv->t_exec = now_ms();
	deadline = sv->t_exec + (int64_t)ceil(cfg->wall_time * 1000);
	sv->cpu0_ns = sv->cg_cpu ? cpu_ns(ctx) : 0;
	sv->fired = SB_OK;
	sandbox_event(ctx, "execute", "started '%s'", cfg->argv[0]);
	/* the program's clock and CPU run: the pool starts the next sandbox now */
	if (ctx->assigned) {
		ctx->assigned(ctx->assigned_arg);
		ctx->assigned = NULL;
	}
	*out = (struct capture){ .fd = steal_fd(&sv->out_fd), .cap = cfg->output };
	*errc = (struct capture){ .fd = steal_fd(&sv->err_fd), .cap = cfg->output };
	out->buf = malloc(out->cap + 1);
	errc->buf = malloc(errc->cap + 1);
	if (!out->buf || !errc->buf)
		return sd_error_errno(err, ENOMEM, "output buffers");
	if (sv->in_src >= 0 && !(sv->in_buf = malloc(IN_BUF)))
		return sd_error_errno(err, ENOMEM, "the stdin buffer");
	while (sv->status_fd >= 0 || out->fd >= 0 || errc->fd >= 0) {
		struct pollfd pfd[6];
		int nfds = 0, timeout;
		int64_t now = now_ms();
		uint64_t used = 0;	/* CPU ns since the start, read once a wake-up */

		if (sv->fired == SB_OK && now >= deadline) {
			sv->fired = SB_WALL_LIMIT;
			sandbox_event(ctx, "limit", "wall_limit: %.3f s passed", cfg->wall_time);
		}
		if (sv->fired == SB_OK && sv->cg_cpu) {
			used = cpu_ns(ctx) - sv->cpu0_ns;
			if (used >= cpu_limit_ns) {
				sv->fired = SB_CPU_LIMIT;
				sandbox_event(ctx, "limit", "cpu_limit: %.3f s of CPU used", (double)used / 1e9);
			}
		}
		if (sv->fired == SB_OK && cancelled && !sv->have_status) {
			sv->fired = SB_INTERRUPTED;
			sandbox_event(ctx, "execute", "interrupted: the caller stopped the run");
		}
		if (sv->fired != SB_OK && kill_time < 0) {
			sv->kill(ctx);
			kill_time = now;
			if (sv->t_end < 0)
				sv->t_end = now;
		}
		if (kill_time >= 0 && now - kill_time > DRAIN_TIMEOUT_MS)
			break;	/* cannot happen unless a descriptor leaked outside */
		timeout = (int)((kill_time >= 0 ? kill_time + DRAIN_TIMEOUT_MS : deadline) - now);
		if (sv->fired == SB_OK && sv->cg_cpu) {
			/* The soonest the CPU budget can run out on all cores. */
			int64_t left_ms = used >= cpu_limit_ns ? 1 :
				(int64_t)((cpu_limit_ns - used) / 1000000) / (ncpu > 0 ? ncpu : 1);

			if (left_ms < 1)
				left_ms = 1;
			if (left_ms > 100)
				left_ms = 100;
			if (left_ms < timeout)
				timeout = (int)left_ms;
		}
		if (timeout < 0)
			timeout = 0;
		if (out->fd >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = out->fd, .events = POLLIN };
		if (errc->fd >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = errc->fd, .events = POLLIN };
		if (sv->status_fd >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = sv->status_fd, .events = POLLIN };
		if (sv->in_w >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = sv->in_w, .events = POLLOUT };
		if (sv->watch_fd >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = sv->watch_fd, .events = POLLIN };
		if (sv->fired == SB_OK && !cancelled && cfg->cancel_fd >= 0)	/* once: it stays ready */
			pfd[nfds++] = (struct pollfd){ .fd = cfg->cancel_fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)nfds, timeout) < 0) {
			if (errno == EINTR)
				continue;
			sv->kill(ctx);
			return sd_error_errno(err, errno, "poll");
		}
		for (int i = 0; i < nfds; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == out->fd || pfd[i].fd == errc->fd) {
				struct capture *c = pfd[i].fd == out->fd ? out : errc;

				if (capture_read(c) && sv->fired == SB_OK) {
					sv->fired = SB_OUTPUT_LIMIT;
					sandbox_event(ctx, "limit", "output_limit: more than %llu bytes on %s",
						      (unsigned long long)c->cap, c == out ? "stdout" : "stderr");
				}
			} else if (pfd[i].fd == sv->status_fd) {
				int ws = 0, r = sv->read_status(sv, &ws);

				if (r == 1) {
					sv->wstatus = ws;
					sv->have_status = true;
				}
				if (r != 0) {
					close_fd(&sv->status_fd);
					if (sv->t_end < 0)
						sv->t_end = now_ms();
				}
			} else if (pfd[i].fd == cfg->cancel_fd) {
				cancelled = true;	/* acted on at the top of the loop */
			} else if (pfd[i].fd == sv->watch_fd) {
				sv->watch(sv, pfd[i].revents);
			} else if (pfd[i].fd == sv->in_w) {
				if (pfd[i].revents & (POLLERR | POLLHUP)) {
					close_fd(&sv->in_w);
					close_fd(&sv->in_src);
				} else {
					feed_stdin(sv);
				}
			}
		}
	}
	if (sv->t_end < 0)
		sv->t_end = now_ms();
	close_fd(&out->fd);
	close_fd(&errc->fd);
	close_fd(&sv->in_w);
	return 0;
}

void supervise_account(struct supervise *sv)
{
	memset(&sv->stats, 0, sizeof(sv->stats));
	if (sv->ctx->cg)
		cgroup_stats(sv->ctx->cg, &sv->stats);
	sv->accounted = true;
}

void supervise_finish(struct supervise *sv, const struct rusage *ru)
{
	struct sandbox_ctx *ctx = sv->ctx;
	struct sandbox_result *res = ctx->res;
	struct cgroup_stats st;

	if (!sv->accounted)
		supervise_account(sv);
	st = sv->stats;
	if (st.has_cpu)
		res->cpu_ms = (int64_t)((st.cpu_ns - sv->cpu0_ns) / 1000000);
	else if (ru)
		res->cpu_ms = (int64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000 +
			      (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
	if (!st.has_cpu && sv->cpu_seen_ms > res->cpu_ms)
		res->cpu_ms = sv->cpu_seen_ms;	/* what init never reaped: killed at a limit */
	if (st.has_peak)
		res->peak_memory_bytes = (int64_t)st.peak_bytes;
	else if (ru)
		res->peak_memory_bytes = (int64_t)ru->ru_maxrss * 1024;
	res->wall_ms = sv->t_end - sv->t_exec;
	res->stdout_buf = steal_pointer(&sv->out.buf);
	res->stdout_len = sv->out.len;
	res->stdout_truncated = sv->out.truncated;
	res->stderr_buf = steal_pointer(&sv->err.buf);
	res->stderr_len = sv->err.len;
	res->stderr_truncated = sv->err.truncated;
	res->stdout_buf[res->stdout_len] = res->stderr_buf[res->stderr_len] = '\0';
	res->status = classify(ctx, sv->wstatus, sv->have_status, sv->file_size_reached, sv->fired, st.oom_kills,
			       res->cpu_ms);
	if (sv->fired == SB_OK && res->status != SB_OK && res->status != SB_NONZERO_EXIT && res->status != SB_SIGNALED)
		sandbox_event(ctx, "limit", "%s", sandbox_status_name(res->status));
	sandbox_event(ctx, "execute", "%s: exit %d, signal %d, %lld ms wall, %lld ms cpu",
		      sandbox_status_name(res->status), res->exit_code, res->signal,
		      (long long)res->wall_ms, (long long)res->cpu_ms);
}

void supervise_release(struct supervise *sv)
{
	close_fd(&sv->out_fd);
	close_fd(&sv->err_fd);
	close_fd(&sv->in_w);
	close_fd(&sv->in_src);
	close_fd(&sv->status_fd);
	close_fd(&sv->out.fd);
	close_fd(&sv->err.fd);
	free(sv->out.buf);
	free(sv->err.buf);
	sv->out.buf = sv->err.buf = NULL;
	free(sv->in_buf);
	sv->in_buf = NULL;
}
