/* replay.c - main() for the fuzz targets under gcc: replay a corpus, then a bounded, seeded smoke run
 *
 * Every tests/fuzz/fuzz-*.c defines LLVMFuzzerTestOneInput() (fuzz.h). Two builds:
 *
 *   gcc (the Makefile's rule): the target is linked with this file.
 *       make tests/fuzz/fuzz-utf8
 *       ./tests/fuzz/fuzz-utf8 tests/fuzz/corpus/utf8     replay the corpus, then mutate it
 *       FUZZ_ITERATIONS=0 ./tests/fuzz/fuzz-utf8 crash-fuzz-utf8-123   replay one file
 *       ./tests/fuzz/fuzz-utf8                             random inputs only
 *     Each FILE argument, and each regular file in each DIR argument (in name
 *     order), is run once. Then FUZZ_ITERATIONS (default 20000; 0: replay only)
 *     inputs are generated from the seed FUZZ_SEED (default fixed, so runs are
 *     reproducible): random bytes, runs of tokens that parsers care about, and,
 *     when files were given, mutations of them. An input that crashes is saved
 *     as crash-<target>-<n> in the current directory (as libFuzzer does) when
 *     the crash is a signal or a sanitizer report. Build with
 *     make SANITIZE=address,undefined B=build-asan build-asan/tests/fuzz/fuzz-utf8
 *     to make memory errors crash.
 *
 *   clang with libFuzzer: this file is omitted; libFuzzer brings main():
 *       make CC=clang SANITIZE=fuzzer-no-link,address,undefined B=build-fuzz build-fuzz/libsandeval.a
 *       clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc/lib -o fuzz-utf8 tests/fuzz/fuzz-utf8.c \
 *           build-fuzz/libsandeval.a -ljansson -lsqlite3 -lz -lcrypto -lseccomp -lm
 *       mkdir -p /tmp/new && ./fuzz-utf8 -max_total_time=60 /tmp/new tests/fuzz/corpus/utf8
 *     libFuzzer adds the inputs it finds to the first directory: keep the seed
 *     corpus second (or fold finds into it with -merge=1). Every target runs
 *     unchanged under both builds.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define GEN_MAX 4096		/* generated and mutated inputs */
#define FILE_MAX (1 << 20)	/* corpus files read */

/* Called by ASan/UBSan before they exit, when linked with them. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *corpus;
static size_t n_corpus;
static const char *target = "fuzz";

/* The input being run, for the crash handler. */
static const uint8_t *cur_data;
static size_t cur_size;
static long cur_iter = -1;

static const char *const dict[] = {
	"0", "1", "9", "42", "512", "4096", "18446744073709551615", "18446744073709551616",
	"9223372036854775807", "1e30", "1e-400", "-", "+", ".", "e", "E", "x", "0x", "p",
	"inf", "nan", " ", "\t", "\n", "=", ":", "::", "0::/", "/", "//", ".", "..", "./",
	"K", "M", "G", "T", "B", "KB", "KiB", "MiB", "iB", "max",
	"memory", "pids", "cpuacct", "cpu,cpuacct", "freezer", "name=systemd",
	"sandeval-supervisor", "oom_kill ", "oom_kill_disable ", "usage_usec ",
	"/work/", "/work", "a", "a.py",
	"\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x80\x80\x80",
	"\xef\xbf\xbd", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x80", "\xbf", "\xff", "\xfe",
	"\xc2", "\xe2\x82", "\xf0\x9f\x98",
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void save_crash(void)
{
	char name[256];
	int fd, n;

	if (cur_iter < 0 || !cur_data)
		return;		/* a corpus file: it is already on disk */
	n = snprintf(name, sizeof(name), "crash-%s-%ld", target, cur_iter);
	if (n < 0 || (size_t)n >= sizeof(name))
		return;
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, cur_data, cur_size) == (ssize_t)cur_size) {
		static const char msg[] = "replay: the crashing input was saved as ";
		ssize_t w = write(2, msg, sizeof(msg) - 1);

		if (w > 0)
			w = write(2, name, (size_t)n);
		if (w > 0)
			w = write(2, "\n", 1);
		(void)w;
	}
	close(fd);
	cur_data = NULL;
}

static void on_fatal_signal(int sig)
{
	save_crash();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run(const uint8_t *data, size_t size, long iter)
{
	cur_data = data;
	cur_size = size;
	cur_iter = iter;
	LLVMFuzzerTestOneInput(data, size);
	cur_data = NULL;
}

static int read_input(const char *path, struct input *in)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	uint8_t *buf;

	if (fd < 0)
		return -1;
	buf = malloc(FILE_MAX);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (used < FILE_MAX) {
		ssize_t n = read(fd, buf + used, FILE_MAX - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	/* exactly size bytes, so that the sanitizers see any overread */
	in->data = malloc(used ? used : 1);
	if (!in->data) {
		free(buf);
		return -1;
	}
	memcpy(in->data, buf, used);
	in->size = used;
	free(buf);
	return 0;
}

static int add_file(const char *path)
{
	struct input *grown = realloc(corpus, (n_corpus + 1) * sizeof(*corpus));

	if (!grown)
		return -1;
	corpus = grown;
	if (read_input(path, &corpus[n_corpus]) < 0) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	n_corpus++;
	return 0;
}

static int add_path(const char *path)
{
	struct stat sb;
	struct dirent **names;
	int n, ret = 0;

	if (stat(path, &sb) < 0) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode))
		return add_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *p = NULL;

		if (ret == 0 && names[i]->d_name[0] != '.' && asprintf(&p, "%s/%s", path, names[i]->d_name) >= 0 &&
		    stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
			ret = add_file(p);
		free(p);
		free(names[i]);
	}
	free(names);
	return ret;
}

static void insert(uint8_t *buf, size_t *len, size_t at, const void *src, size_t n)
{
	if (*len + n > GEN_MAX)
		n = GEN_MAX - *len;
	memmove(buf + at + n, buf + at, *len - at);
	memcpy(buf + at, src, n);
	*len += n;
}

static void mutate(uint8_t *buf, size_t *len)
{
	static const uint8_t special[] = { 0, 0xff, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0x7f,
					   '\n', ':', '/', ',', '.', ' ', '0', '9', '-' };
	int rounds = 1 + (int)below(8);

	for (int r = 0; r < rounds; r++) {
		size_t at = below(*len + 1), n;

		switch (below(9)) {
		case 0:		/* flip a bit */
			if (*len)
				buf[below(*len)] ^= (uint8_t)(1u << below(8));
			break;
		case 1:		/* a random byte */
			if (*len)
				buf[below(*len)] = (uint8_t)rnd();
			break;
		case 2:		/* a byte parsers care about */
			if (*len)
				buf[below(*len)] = special[below(sizeof(special))];
			break;
		case 3: {	/* insert random bytes */
			uint8_t tmp[16];

			n = 1 + below(sizeof(tmp));
			for (size_t i = 0; i < n; i++)
				tmp[i] = (uint8_t)rnd();
			insert(buf, len, at, tmp, n);
			break;
		}
		case 4:		/* delete a range */
			n = below(*len - at + 1);
			memmove(buf + at, buf + at + n, *len - at - n);
			*len -= n;
			break;
		case 5: {	/* insert a token */
			const char *t = dict[below(sizeof(dict) / sizeof(dict[0]))];

			insert(buf, len, at, t, strlen(t) ? strlen(t) : 1);
			break;
		}
		case 6: {	/* duplicate a range */
			uint8_t tmp[64];
			size_t from = below(*len + 1);

			n = below(*len - from + 1);
			if (n > sizeof(tmp))
				n = sizeof(tmp);
			memcpy(tmp, buf + from, n);
			insert(buf, len, at, tmp, n);
			break;
		}
		case 7:		/* splice in part of another corpus file */
			if (n_corpus) {
				const struct input *o = &corpus[below(n_corpus)];
				size_t from = below(o->size + 1);

				insert(buf, len, at, o->data + from, below(o->size - from + 1));
			}
			break;
		default:	/* truncate */
			*len = at;
			break;
		}
	}
}

/* One generated input in buf (GEN_MAX bytes); returns its length. */
static size_t generate(uint8_t *buf)
{
	size_t len = 0;

	switch (n_corpus ? below(4) : below(2)) {
	case 0: {	/* random bytes, mostly short */
		size_t n = below(8) ? below(64) : below(GEN_MAX + 1);

		for (; len < n; len++)
			buf[len] = (uint8_t)rnd();
		break;
	}
	case 1: {	/* a run of tokens */
		size_t n = 1 + below(12);

		for (size_t i = 0; i < n; i++) {
			const char *t = dict[below(sizeof(dict) / sizeof(dict[0]))];

			insert(buf, &len, len, t, strlen(t) ? strlen(t) : 1);
		}
		if (below(2))
			mutate(buf, &len);
		break;
	}
	default: {	/* a mutated corpus file */
		const struct input *o = &corpus[below(n_corpus)];

		len = o->size < GEN_MAX ? o->size : GEN_MAX;
		memcpy(buf, o->data, len);
		mutate(buf, &len);
		break;
	}
	}
	return len;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 0);
	if (*end || n < 0) {
		fprintf(stderr, "replay: %s must be a number >= 0, not '%s'\n", name, v);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	long iterations = env_long("FUZZ_ITERATIONS", 20000);
	uint64_t seed = (uint64_t)env_long("FUZZ_SEED", 20240601);
	uint8_t *buf = malloc(GEN_MAX), *exact;
	const char *slash = strrchr(argv[0], '/');

	target = slash ? slash + 1 : argv[0];
	if (!buf)
		return 2;
	/* Sanitizers report memory errors themselves (their own SIGSEGV handler
	 * included), then call the death callback; abort() is ours to catch. */
	if (__sanitizer_set_death_callback) {
		__sanitizer_set_death_callback(save_crash);
	} else {
		signal(SIGSEGV, on_fatal_signal);
		signal(SIGBUS, on_fatal_signal);
		signal(SIGFPE, on_fatal_signal);
		signal(SIGILL, on_fatal_signal);
	}
	signal(SIGABRT, on_fatal_signal);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: %s [FILE|DIR]...\n"
			       "Run each FILE and each file in each DIR through the fuzz target, then\n"
			       "FUZZ_ITERATIONS (default 20000) inputs generated from FUZZ_SEED.\n", target);
			return 0;
		}
		if (add_path(argv[i]) < 0)
			return 2;
	}
	for (size_t i = 0; i < n_corpus; i++)
		run(corpus[i].data, corpus[i].size, -1);

	rng_state = seed;
	for (long it = 0; it < iterations; it++) {
		size_t len = generate(buf);

		/* an exact-size copy, so that the sanitizers see any overread */
		exact = malloc(len ? len : 1);
		if (!exact)
			return 2;
		memcpy(exact, buf, len);
		run(exact, len, it);
		free(exact);
	}
	printf("%s: %zu corpus inputs replayed, %ld generated inputs run (seed %llu): ok\n",
	       target, n_corpus, iterations, (unsigned long long)seed);

	for (size_t i = 0; i < n_corpus; i++)
		free(corpus[i].data);
	free(corpus);
	free(buf);
	return 0;
}
