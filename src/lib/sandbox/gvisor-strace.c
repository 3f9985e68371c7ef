/* gvisor-strace.c - tripwires on gVisor: the Sentry's debug log (strace of the watched calls, seccomp refusals, task exits), read after the run
 *
 * runsc runs with --strace --strace-syscalls=GVSTRACE_SYSCALLS --debug
 * --debug-command=boot --debug-log-format=json --debug-log=DIR/sentry.log:
 * the Sentry (gVisor's kernel, outside the program's reach) writes one JSON
 * record per line into the run's directory on the host, which the program
 * can neither see nor write. Its messages that count:
 *
 *   [   2:   2] Syscall 165: killed by seccomp       a fatal call (denied_syscalls)
 *   [   2:   2] Syscall 425: denied by seccomp       a refused call (denied_syscalls)
 *   [   2:   2] probe E connect(0x3 socket:[1], 0x7f.. {Family: AF_INET, Addr: 169.254.169.254, Port: 80}, 0x10)
 *   [   2:   2] probe X openat(AT_FDCWD /work, 0x7f.. /usr/x, O_WRONLY|O_CREAT, 0o644) = 0 (0x0) errno=13 (permission denied) (103µs)
 *   [   1:   1] Transitioning from exit state TaskExitNone to TaskExitInitiated
 *   [   1:   1] Init process terminating, killing namespace
 *   [   4:   4] Transitioning from exit state TaskExitNone to TaskExitInitiated
 *
 * The program influences parts of these lines: its name (comm, up to 15
 * bytes), paths (printed raw, newlines included), buffers (quoted). So:
 *   - records are JSON (a newline in a path is "\n" inside one record: it
 *     cannot start a record of its own), and only messages that start with
 *     the task prefix count;
 *   - seccomp and exit lines are matched whole; they hold no text of the
 *     program's;
 *   - a strace line's call name is found after the task's name, which may
 *     itself read as " E connect(": each reading whose name part is at most
 *     15 bytes is tried, and the first that counts is the line's one count
 *     (strace_line: a made-up reading neither adds a count nor hides one);
 *   - the address of connect and sendto, and the result of a write, are read
 *     from the end of the line, which gVisor writes after every path;
 *   - lines of init (pid 1), and of pid 2 before it executes the program,
 *     are sandeval's own and do not count.
 * Semantics against the native backend (docs/sandbox.md#tripwires): network
 * attempts are connect and sendto towards an inet or inet6 address, and
 * sendmsg with an address (its destination is not in the log: counted,
 * unnamed); a socket() of a refused family is a denied "socket" (the log
 * does not say the family); a write outside the writable directories is a
 * path call that failed with EACCES, EPERM or EROFS (open and openat only
 * with flags that write) whose path, as printed, is outside where writes may
 * go (tripwire_path_writable, the native rule: /work, /tmp, the harmless
 * devices, descriptors reopened through /proc/PID/fd), or inside /work or
 * /tmp but not at a file the sandbox staged (outside_writable).
 */
#define _GNU_SOURCE
#include "sandbox/gvisor-strace.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/sandbox-tripwire.h"
#include "sandbox/sysfilter.h"

#define COMM_MAX 15	/* gVisor's task names: TASK_COMM_LEN - 1 */

void gvstrace_init(struct gvstrace *g, struct tripwires *t)
{
	*g = (struct gvstrace){ .t = t };
}

/* A span of the message: not NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

static bool starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static bool equals(struct span s, const char *text)
{
	return s.n == strlen(text) && memcmp(s.p, text, s.n) == 0;
}

static bool ends(struct span s, const char *suffix)
{
	size_t n = strlen(suffix);

	return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

/* Decimal digits at *S (at most 9), advanced past them; false if none. */
static bool number(struct span *s, long *v)
{
	size_t i = 0;

	*v = 0;
	while (i < s->n && i < 9 && s->p[i] >= '0' && s->p[i] <= '9')
		*v = *v * 10 + (s->p[i++] - '0');
	if (i == 0 || (i < s->n && s->p[i] >= '0' && s->p[i] <= '9'))
		return false;
	s->p += i;
	s->n -= i;
	return true;
}

/* How many bytes at the start of S are in SET. */
static size_t span_in(struct span s, const char *set)
{
	size_t i = 0;

	while (i < s.n && s.p[i] && strchr(set, s.p[i]))
		i++;
	return i;
}

static void skip_spaces(struct span *s)
{
	while (s->n && s->p[0] == ' ') {
		s->p++;
		s->n--;
	}
}

/* "[ TGID: TID] " */
static bool task_prefix(struct span *s, long *tgid, long *tid)
{
	if (!starts(*s, "["))
		return false;
	s->p++, s->n--;
	skip_spaces(s);
	if (!number(s, tgid) || !starts(*s, ":"))
		return false;
	s->p++, s->n--;
	skip_spaces(s);
	if (!number(s, tid) || !starts(*s, "] "))
		return false;
	s->p += 2, s->n -= 2;
	return true;
}

static const char *call_name(long nr, char *buf, size_t size)
{
	const char *name = sysfilter_syscall_name(nr);

	if (name)
		return name;
	snprintf(buf, size, "syscall_%ld", nr);
	return buf;
}

static bool quiet(const char *name)
{
	for (size_t i = 0; sysfilter_quiet_names[i]; i++)
		if (strcmp(name, sysfilter_quiet_names[i]) == 0)
			return true;
	return false;
}

/* "Syscall N: denied by seccomp" or "... killed by seccomp", whole. */
static bool seccomp_line(struct gvstrace *g, struct span s)
{
	char buf[TRIPWIRE_NAME_LEN];
	const char *name;
	bool killed;
	long nr;

	if (!starts(s, "Syscall "))
		return false;
	s.p += 8, s.n -= 8;
	if (!number(&s, &nr))
		return false;
	if (equals(s, ": killed by seccomp"))
		killed = true;
	else if (equals(s, ": denied by seccomp"))
		killed = false;
	else
		return false;
	name = call_name(nr, buf, sizeof(buf));
	/* clone3 is answered ENOSYS so that libc falls back to clone: no refusal */
	if (!killed && strcmp(name, "clone3") == 0)
		return true;
	if (killed || !quiet(name))
		tripwires_denied(g->t, name);
	return true;
}

/* The last occurrence of C in S, or NULL. */
static const char *last_char(struct span s, char c)
{
	return memrchr(s.p, c, s.n);
}

/* The last ", " in S: S is cut before it, *AFTER gets what follows. */
static bool cut_last_arg(struct span *s, struct span *after)
{
	for (size_t i = s->n; i >= 2; i--) {
		if (s->p[i - 2] == ',' && s->p[i - 1] == ' ') {
			after->p = s->p + i;
			after->n = s->n - i;
			s->n = i - 2;
			return true;
		}
	}
	return false;
}

/* connect and sendto: "..., 0xADDR {Family: AF_INET, Addr: A, Port: P}, 0xLEN)" */
static bool note_destination(struct gvstrace *g, struct span args)
{
	struct span len, in;
	const char *open, *fam;
	char ip[INET6_ADDRSTRLEN + 1], canon[INET6_ADDRSTRLEN], dest[TRIPWIRE_DEST_LEN];
	unsigned char bin[sizeof(struct in6_addr)];
	size_t alen;
	long port;
	int af;

	if (!ends(args, ")"))
		return false;
	args.n--;
	if (!cut_last_arg(&args, &len) || !starts(len, "0x") || len.n < 3 ||
	    span_in((struct span){ len.p + 2, len.n - 2 }, "0123456789abcdef") != len.n - 2 || !ends(args, "}"))
		return false;
	args.n--;
	open = last_char(args, '{');
	if (!open)
		return false;
	in.p = open + 1;
	in.n = args.n - (size_t)(in.p - args.p);
	if (starts(in, "Family: AF_INET, Addr: ")) {
		af = AF_INET;
		fam = "Family: AF_INET, Addr: ";
	} else if (starts(in, "Family: AF_INET6, Addr: ")) {
		af = AF_INET6;
		fam = "Family: AF_INET6, Addr: ";
	} else {
		return false;
	}
	in.p += strlen(fam), in.n -= strlen(fam);
	alen = span_in(in, "0123456789abcdefABCDEF.:");
	if (alen == 0 || alen >= sizeof(ip))
		return false;
	memcpy(ip, in.p, alen);
	ip[alen] = '\0';
	in.p += alen, in.n -= alen;
	if (!starts(in, ", Port: "))
		return false;
	in.p += 8, in.n -= 8;
	if (!number(&in, &port) || in.n != 0 || port > 65535 || inet_pton(af, ip, bin) != 1 ||
	    !inet_ntop(af, bin, canon, sizeof(canon)))
		return false;
	if (af == AF_INET) {
		snprintf(dest, sizeof(dest), "%s:%ld", canon, port);
		tripwires_network(g->t, dest, strcmp(canon, "169.254.169.254") == 0);
		return true;
	}
	snprintf(dest, sizeof(dest), "[%s]:%ld", canon, port);
	tripwires_network(g->t, dest, strcmp(canon, "fd00:ec2::254") == 0 || strcmp(canon, "::ffff:169.254.169.254") == 0);
	return true;
}

/* A Go-quoted string ("..." as strconv.Quote writes it) at the start of S:
 * its bytes into OUT (at most CAP, the rest dropped), their number; -1 when
 * S does not start with one. */
static long go_unquote(struct span s, unsigned char *out, size_t cap)
{
	size_t n = 0, i = 1;

	if (!starts(s, "\""))
		return -1;
	while (i < s.n && s.p[i] != '"') {
		unsigned long v;
		size_t digits = 0;
		char c = s.p[i++];

		if (c == '\\') {
			static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"''";
			const char *e;

			if (i >= s.n)
				return -1;
			c = s.p[i++];
			e = c ? strchr(simple, c) : NULL;
			if (e && (e - simple) % 2 == 0) {
				c = e[1];
			} else if (c == 'x' || c == 'u' || c == 'U') {
				digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
				v = 0;
				for (size_t k = 0; k < digits; k++, i++) {
					char h = i < s.n ? s.p[i] : '\0';

					if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
						return -1;
					v = v * 16 + (unsigned long)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
				}
				if (digits == 2) {
					c = (char)v;
				} else {
					/* a rune: its UTF-8 bytes (a DNS name has none that count) */
					unsigned char u[4];
					size_t k = 0;

					if (v > 0x10ffff)
						return -1;
					if (v < 0x80) {
						u[k++] = (unsigned char)v;
					} else if (v < 0x800) {
						u[k++] = (unsigned char)(0xc0 | (v >> 6));
						u[k++] = (unsigned char)(0x80 | (v & 0x3f));
					} else if (v < 0x10000) {
						u[k++] = (unsigned char)(0xe0 | (v >> 12));
						u[k++] = (unsigned char)(0x80 | ((v >> 6) & 0x3f));
						u[k++] = (unsigned char)(0x80 | (v & 0x3f));
					} else {
						u[k++] = (unsigned char)(0xf0 | (v >> 18));
						u[k++] = (unsigned char)(0x80 | ((v >> 12) & 0x3f));
						u[k++] = (unsigned char)(0x80 | ((v >> 6) & 0x3f));
						u[k++] = (unsigned char)(0x80 | (v & 0x3f));
					}
					for (size_t m = 0; m < k; m++)
						if (n < cap)
							out[n++] = u[m];
					continue;
				}
			} else {
				return -1;
			}
		}
		if (n < cap)
			out[n++] = (unsigned char)c;
	}
	return i < s.n ? (long)n : -1;
}

/* sendmsg: "(0xFD socket:[N], 0xADDR {name=0xNAME, namelen=N, iovecs=0xV
 * {base=0xB, len=L, "DATA"}, ..." The address is not in the log: with
 * N > 0 an attempt without a destination. The first buffer, quoted: a DNS
 * query for a metadata host name makes it a probe (also without an
 * address: a connected socket). The first header counts: only a descriptor
 * that is not a socket (its path printed) can come before it. */
static bool note_sendmsg(struct gvstrace *g, struct span args)
{
	static const char key[] = " {name=0x", iov[] = ", iovecs=0x";
	const char *p = memmem(args.p, args.n, key, sizeof(key) - 1);
	unsigned char data[512];
	struct span s;
	long n, got;
	bool dns = false;

	if (!p)
		return false;
	s.p = p + sizeof(key) - 1;
	s.n = args.n - (size_t)(s.p - args.p);
	s.p += span_in(s, "0123456789abcdef");
	s.n = args.n - (size_t)(s.p - args.p);
	if (!starts(s, ", namelen="))
		return false;
	s.p += 10, s.n -= 10;
	if (!number(&s, &n))
		return false;
	if (starts(s, iov)) {
		s.p += sizeof(iov) - 1, s.n -= sizeof(iov) - 1;
		s.p += span_in(s, "0123456789abcdef");
		s.n = args.n - (size_t)(s.p - args.p);
		if (starts(s, " {base=0x")) {
			s.p += 9, s.n -= 9;
			s.p += span_in(s, "0123456789abcdef");
			s.n = args.n - (size_t)(s.p - args.p);
			if (starts(s, ", len=0x") || starts(s, ", len=")) {
				long len;

				s.p += starts(s, ", len=0x") ? 8 : 6;
				s.n = args.n - (size_t)(s.p - args.p);
				if (number(&s, &len) && starts(s, ", ")) {
					s.p += 2, s.n -= 2;
					got = go_unquote(s, data, sizeof(data));
					dns = got > 0 && tripwires_dns_metadata(data, (size_t)got);
				}
			}
		}
	}
	if (n <= 0 && !dns)
		return false;
	tripwires_network(g->t, NULL, dns);
	return true;
}

/* An X line's tail "... = R (0xR) errno=N (text) (duration)": N, or 0 (success, or not that form). */
static long result_errno(struct span *s)
{
	const char *open;
	struct span e;
	long n;

	if (!ends(*s, ")") || !(open = last_char(*s, '(')) || open == s->p || open[-1] != ' ')
		return 0;
	s->n = (size_t)(open - 1 - s->p);	/* the duration */
	if (!ends(*s, ")") || !(open = last_char(*s, '(')) || open == s->p || open[-1] != ' ')
		return 0;
	e.p = s->p;
	e.n = (size_t)(open - 1 - s->p);	/* before " (text)" */
	for (size_t i = e.n; i > 0; i--) {
		if (e.p[i - 1] == ' ') {
			struct span num = { e.p + i, e.n - i };

			if (!starts(num, "errno="))
				return 0;
			num.p += 6, num.n -= 6;
			if (!number(&num, &n) || num.n != 0)
				return 0;
			s->n = i - 1;
			return n;
		}
	}
	return 0;
}

/* open and openat: whether the flags (the argument before the mode, from
 * the end of "...(ARGS) = R (0xR)") write. */
static bool flags_write(struct span s)
{
	static const char *const writing[] = { "O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC" };
	struct span mode, flags;
	size_t i;

	for (i = s.n; i >= 3; i--)
		if (memcmp(s.p + i - 3, " = ", 3) == 0)
			break;
	if (i < 3)
		return false;
	s.n = i - 3;
	if (!ends(s, ")"))
		return false;
	s.n--;
	if (!cut_last_arg(&s, &mode) || !starts(mode, "0o") || !cut_last_arg(&s, &flags))
		return false;
	if (span_in(flags, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_|0123456789abcdefx") < flags.n)
		return false;
	for (const char *p = flags.p, *end = flags.p + flags.n; p < end;) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t n = bar ? (size_t)(bar - p) : (size_t)(end - p);

		for (size_t k = 0; k < sizeof(writing) / sizeof(writing[0]); k++)
			if (n == strlen(writing[k]) && memcmp(p, writing[k], n) == 0)
				return true;
		p += n + 1;
	}
	return false;
}

static const struct sysfilter_path_call *path_call(const char *name, size_t n)
{
	for (size_t i = 0; sysfilter_path_calls[i].name; i++)
		if (strlen(sysfilter_path_calls[i].name) == n && memcmp(sysfilter_path_calls[i].name, name, n) == 0)
			return &sysfilter_path_calls[i];
	return NULL;
}

/* Whether a refused call's first path, as the log prints it ("DIRFD DIR, "
 * for the *at calls, then "0xPTR PATH"), is outside /work and /tmp, as the
 * native backend counts writes_denied (a write refused inside them, to a
 * read-only file the sandbox staged, is not one). Read lexically from the
 * start: a name holding ", " or ", 0x" is cut there, which can hide a
 * refusal of the program's own making, never add one it did not make.
 * A line whose place cannot be read does not count: a task name made to
 * look like a call ("a X mkdir(") must not turn a refused read into a
 * write; link and symlink, whose written path is not first, count every
 * refusal. */
static bool outside_writable(const struct gvstrace *g, const struct sysfilter_path_call *pc, struct span args)
{
	char full[8192], norm[8192];
	struct span dir = { NULL, 0 }, path;
	const char *p = args.p, *end = args.p + args.n, *q;
	size_t n;

	if (pc->path[0] != pc->dirfd[0] + 1 || pc->path[0] > 1)
		return true;	/* a path after other arguments (link, symlink): not read here, counted */
	if (pc->dirfd[0] == 0) {
		/* "AT_FDCWD /dir, " or "3 /dir, " */
		const char *sp = memchr(p, ' ', (size_t)(end - p));

		if (!sp)
			return false;
		for (q = sp + 1; q + 4 <= end && memcmp(q, ", 0x", 4) != 0; q++)
			;
		if (q + 4 > end)
			return false;
		dir = (struct span){ sp + 1, (size_t)(q - sp - 1) };
		p = q + 2;
	}
	/* "0xPTR PATH" */
	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return false;
	for (p += 2; p < end && strchr("0123456789abcdef", *p) && *p; p++)
		;
	if (p >= end || *p != ' ')
		return false;
	path.p = ++p;
	for (q = p; q < end && !(q + 1 < end && q[0] == ',' && q[1] == ' ') && *q != ')'; q++)
		;
	path.n = (size_t)(q - p);
	if (path.n > 0 && path.p[0] == '/')
		n = (size_t)snprintf(full, sizeof(full), "%.*s", (int)path.n, path.p);
	else if (dir.p && dir.n > 0 && dir.p[0] == '/')
		n = (size_t)snprintf(full, sizeof(full), "%.*s/%.*s", (int)dir.n, dir.p, (int)path.n, path.p);
	else
		return false;	/* relative to a directory the line does not name */
	if (n >= sizeof(full) || !tripwire_path_normalise(full, n, norm, sizeof(norm)))
		return false;
	if (!tripwire_path_writable(norm))
		return true;
	if (!tripwire_path_beneath(norm, "/work") && !tripwire_path_beneath(norm, "/tmp"))
		return false;	/* a device, a descriptor reopened through /proc: as natively */
	/* Inside, refused: the sandbox's own read-only files (and the directories
	 * made for them, /work itself not), or a link the program made that
	 * points out (the log shows the name given, not where it leads; native
	 * resolves it): only the first is no write outside. */
	for (size_t i = 0; g->staged && g->staged[i]; i++) {
		const char *f = g->staged[i], *slash;
		size_t dl;

		slash = strrchr(f, '/');
		dl = slash ? (size_t)(slash - f) : 0;

		if (strcmp(norm, f) == 0)
			return false;
		if (dl > 5 && strncmp(norm, f, dl) == 0 && (norm[dl] == '/' || norm[dl] == '\0'))
			return false;
	}
	return true;
}

/* One reading of a strace line: KIND 'E' or 'X', NAME (N bytes), ARGS
 * after "(". Whether it counted something. */
static bool strace_call(struct gvstrace *g, char kind, const char *name, size_t n, struct span args)
{
	const struct sysfilter_path_call *pc;

	if (kind == 'E' && ((n == 7 && memcmp(name, "connect", 7) == 0) || (n == 6 && memcmp(name, "sendto", 6) == 0)))
		return note_destination(g, args);
	if (kind == 'E' && n == 7 && memcmp(name, "sendmsg", 7) == 0)
		return note_sendmsg(g, args);
	if (kind == 'X' && (pc = path_call(name, n))) {
		struct span whole = args;
		long e = result_errno(&args);

		if (e != EACCES && e != EPERM && e != EROFS)
			return false;
		if (((n == 4 && memcmp(name, "open", 4) == 0) || (n == 6 && memcmp(name, "openat", 6) == 0)) &&
		    !flags_write(args))
			return false;
		if (!outside_writable(g, pc, whole))
			return false;
		g->t->writes_denied++;
		return true;
	}
	return false;
}

/* "COMM E name(args..." or "COMM X name(args...) = ...". COMM may itself
 * read as " E name(": each reading is tried, shortest name first, and the
 * first that counts is the line's one count. Every reading's arguments run
 * to the end of the line, and what counts is read from that end, so a
 * made-up reading finds what the real one would. */
static void strace_line(struct gvstrace *g, struct span s)
{
	for (size_t l = 0; l <= COMM_MAX && l + 3 < s.n; l++) {
		const char *p = s.p + l, *end = s.p + s.n, *name, *paren;
		struct span args;

		if (p[0] != ' ' || (p[1] != 'E' && p[1] != 'X') || p[2] != ' ')
			continue;
		name = p + 3;
		paren = name;
		while (paren < end && paren - name < 24 &&
		       ((*paren >= 'a' && *paren <= 'z') || (*paren >= '0' && *paren <= '9') || *paren == '_'))
			paren++;
		if (paren == name || paren >= end || *paren != '(')
			continue;
		args.p = paren + 1;
		args.n = (size_t)(end - args.p);
		if (strace_call(g, p[1], name, (size_t)(paren - name), args))
			return;
	}
}

void gvstrace_msg(struct gvstrace *g, const char *msg, size_t len)
{
	struct span s = { msg, len };
	long tgid, tid;

	if (!task_prefix(&s, &tgid, &tid))
		return;
	if (tgid == 1) {
		/* init ends only after the program did: whatever starts its
		 * exit from here on was still running then. Its first exit
		 * line, not only the "killing namespace" one that comes a few
		 * lines later, since a kill of the container (the gofer's end)
		 * may reach the others in between. */
		if (equals(s, "Transitioning from exit state TaskExitNone to TaskExitInitiated") ||
		    equals(s, "Init process terminating, killing namespace"))
			g->ending = true;
		return;
	}
	if (!g->started) {
		/* the loader, at the program's execve: pid 2 was init's until then */
		if (tgid == 2 && starts(s, "Allocating stack with size of "))
			g->started = true;
		return;
	}
	if (seccomp_line(g, s))
		return;
	if (equals(s, "Transitioning from exit state TaskExitNone to TaskExitInitiated")) {
		if (g->ending && tgid == tid)
			g->t->lingering_processes++;
		return;
	}
	strace_line(g, s);
}

void gvstrace_line(struct gvstrace *g, const char *line, size_t len)
{
	json_t *o, *msg;

	/* only the task's records: cheap test first */
	if (!memmem(line, len, "\"msg\":\"[", 8))
		return;
	o = json_loadb(line, len, 0, NULL);
	msg = json_object_get(o, "msg");
	if (json_is_string(msg))
		gvstrace_msg(g, json_string_value(msg), json_string_length(msg));
	json_decref(o);
}

int gvstrace_read(const char *path, struct tripwires *t, struct sd_error *err)
{
	return gvstrace_read_staged(path, NULL, t, err);
}

/* G->staged: the normalised copies of STAGED (those that normalise into
 * 8,192 bytes; NULL-terminated), made once for every refused write to be
 * compared against. -1 on ENOMEM. */
static int stage(struct gvstrace *g, const char *const *staged)
{
	size_t n = 0, k = 0;
	char norm[8192];

	if (!staged)
		return 0;
	while (staged[n])
		n++;
	g->staged = calloc(n + 1, sizeof(char *));
	if (!g->staged)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!tripwire_path_normalise(staged[i], strlen(staged[i]), norm, sizeof(norm)))
			continue;	/* too long to be the place of any write read */
		g->staged[k] = strdup(norm);
		if (!g->staged[k])
			return -1;
		k++;
	}
	return 0;
}

static void unstage(struct gvstrace *g)
{
	for (size_t i = 0; g->staged && g->staged[i]; i++)
		free(g->staged[i]);
	free(g->staged);
	g->staged = NULL;
}

int gvstrace_read_staged(const char *path, const char *const *staged, struct tripwires *t, struct sd_error *err)
{
	struct gvstrace g;
	char *buf;
	size_t have = 0;
	bool skipping = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path);
	gvstrace_init(&g, t);
	buf = malloc(GVSTRACE_LINE_MAX + 1);
	if (!buf || stage(&g, staged) < 0) {
		free(buf);
		unstage(&g);
		close(fd);
		return sd_error_errno(err, ENOMEM, "cannot read '%s'", path);
	}
	for (;;) {
		ssize_t r = read(fd, buf + have, GVSTRACE_LINE_MAX + 1 - have);
		size_t start = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			unstage(&g);
			close(fd);
			return sd_error_errno(err, e, "cannot read '%s'", path);
		}
		if (r == 0)
			break;
		have += (size_t)r;
		for (;;) {
			char *nl = memchr(buf + start, '\n', have - start);

			if (!nl)
				break;
			if (!skipping)
				gvstrace_line(&g, buf + start, (size_t)(nl - (buf + start)));
			skipping = false;
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have > GVSTRACE_LINE_MAX) {
			/* a line too long: dropped whole, to its newline */
			skipping = true;
			have = 0;
		}
	}
	/* the last line, unterminated: the Sentry was killed while writing it */
	free(buf);
	unstage(&g);
	close(fd);
	return 0;
}
