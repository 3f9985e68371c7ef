/* fuzz-gvisor-strace.c - fuzz target: tripwires read from gVisor's debug log (gvisor-strace.c), text the program influences
 *
 * The first input byte picks what the rest is:
 *   0  a whole log file, read by gvstrace_read (JSON records, long lines,
 *      no final newline): no crash, and no line counts more than once;
 *   1  one message after the program started: at most one count, and what
 *      is counted is well formed (destinations "ip:port" or "[ip6]:port",
 *      refused calls by a known name or syscall_N);
 *   2  the path of an open for reading that worked: nothing counts,
 *      whatever the path holds (newlines, fake seccomp lines, fake tails);
 *   3  the task name (up to 15 bytes) of a real connect line: exactly that
 *      connect counts, once, with its destination (a name that reads as a
 *      strace line neither hides nor adds a count);
 *   4  one message before the program started, or of init (pid 1): nothing
 *      counts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "sandbox/gvisor-strace.h"
#include "sandbox/sysfilter.h"

static const char started[] = "[   2:   2] Allocating stack with size of 8388608 bytes";

static uint64_t counts(const struct tripwires *t)
{
	uint64_t n = (uint64_t)t->network_attempts + t->writes_denied + t->lingering_processes;

	for (uint32_t i = 0; i < t->n_denied; i++)
		n += t->denied[i].count;
	return n;
}

static void check_well_formed(const struct tripwires *t)
{
	FUZZ_CHECK(t->metadata_probes <= t->network_attempts);
	FUZZ_CHECK(t->n_destinations <= TRIPWIRE_DESTS && t->n_denied <= TRIPWIRE_NAMES);
	for (uint32_t i = 0; i < t->n_destinations; i++) {
		char ip[TRIPWIRE_DEST_LEN];
		const char *d = t->destinations[i], *colon;
		unsigned char bin[16];

		if (d[0] == '[') {
			const char *close = strchr(d, ']');

			FUZZ_CHECK(close && close[1] == ':');
			memcpy(ip, d + 1, (size_t)(close - d - 1));
			ip[close - d - 1] = '\0';
			FUZZ_CHECK(inet_pton(AF_INET6, ip, bin) == 1);
			colon = close + 1;
		} else {
			colon = strchr(d, ':');
			FUZZ_CHECK(colon);
			memcpy(ip, d, (size_t)(colon - d));
			ip[colon - d] = '\0';
			FUZZ_CHECK(inet_pton(AF_INET, ip, bin) == 1);
		}
		FUZZ_CHECK(colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) && atol(colon + 1) <= 65535);
	}
	for (uint32_t i = 0; i < t->n_denied; i++) {
		const char *name = t->denied[i].name;

		FUZZ_CHECK(strncmp(name, "syscall_", 8) == 0 || strcmp(name, "other") == 0 || strspn(name,
			   "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(name));
	}
}

/* MSG (N bytes) copied NUL-terminated, as gvstrace_msg wants it. */
static void msg(struct gvstrace *g, const char *text, size_t n)
{
	char *copy = malloc(n + 1);

	FUZZ_CHECK(copy != NULL);
	memcpy(copy, text, n);
	copy[n] = '\0';
	gvstrace_msg(g, copy, n);
	free(copy);
}

static void whole_file(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz-gvisor-strace-XXXXXX";
	int fd = mkstemp(path);
	struct tripwires t;
	struct sd_error err = { 0 };
	size_t lines = 1;

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);
	tripwires_init(&t);
	FUZZ_CHECK(gvstrace_read(path, &t, &err) == 0);
	unlink(path);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	FUZZ_CHECK(counts(&t) <= lines);
	check_well_formed(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;
	struct tripwires t;
	struct gvstrace g;
	char *line;
	int len;

	if (size == 0)
		return 0;
	tripwires_init(&t);
	gvstrace_init(&g, &t);
	switch (data[0] % 5) {
	case 0:
		whole_file(data + 1, n);
		return 0;
	case 1:
		msg(&g, started, strlen(started));
		msg(&g, text, n);
		FUZZ_CHECK(counts(&t) <= 1);
		check_well_formed(&t);
		return 0;
	case 2:
		msg(&g, started, strlen(started));
		line = malloc(n + 128);
		FUZZ_CHECK(line != NULL);
		len = snprintf(line, 128, "[   3:   3] p X openat(AT_FDCWD /, 0x7f01 ");
		memcpy(line + len, text, n);
		strcpy(line + len + n, ", O_RDONLY|O_CLOEXEC, 0o0) = 3 (0x3) (1µs)");
		msg(&g, line, strlen(line + len + n) + len + n);
		free(line);
		FUZZ_CHECK(counts(&t) == 0);
		return 0;
	case 3: {
		size_t comm = n > 15 ? 15 : n;

		msg(&g, started, strlen(started));
		line = malloc(256);
		FUZZ_CHECK(line != NULL);
		len = snprintf(line, 256, "[   3:   3] ");
		memcpy(line + len, text, comm);
		strcpy(line + len + comm, " E connect(0x3 socket:[1], 0x7f0e0b5e37a0 {Family: AF_INET, Addr: 10.0.0.1, Port: 443}, 0x10)");
		msg(&g, line, strlen(line + len + comm) + len + comm);
		free(line);
		FUZZ_CHECK(counts(&t) == 1 && t.network_attempts == 1);
		FUZZ_CHECK(t.n_destinations == 1 && strcmp(t.destinations[0], "10.0.0.1:443") == 0);
		return 0;
	}
	default:
		msg(&g, text, n);	/* not started */
		line = malloc(n + 16);
		FUZZ_CHECK(line != NULL);
		len = snprintf(line, 16, "[   1:   1] ");
		memcpy(line + len, text, n);
		msg(&g, started, strlen(started));
		msg(&g, line, (size_t)len + n);
		free(line);
		FUZZ_CHECK(counts(&t) == 0);
		return 0;
	}
}
