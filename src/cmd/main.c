/* main.c - the sandeval program: the command table */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd.h"
#include "version.h"	/* generated: SANDEVAL_VERSION, from git describe */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "exec", cmd_exec, "run one program in a fresh sandbox and print the result as JSON" },
	{ "run", cmd_run, "score samples by running their tasks' tests, record and report" },
	{ "lint", cmd_lint, "lint samples in sandboxes (flake8, bandit, cppcheck, clang-tidy, eslint)" },
	{ "gc", cmd_gc, "remove what killed sandeval runs left behind" },
	{ "image", cmd_image, "build, list, remove and digest root filesystems (images)" },
	{ "gate", cmd_gate, "compare a candidate run with a baseline; exit 1 on a regression (CI)" },
	{ "export", cmd_export, "write a run as a versioned JSON document (a baseline for gate)" },
	{ "show", cmd_show, "the failing tests of a run's samples, as feedback (text or JSON)" },
	{ "report", cmd_report, "compare a run with the previous one; the HTML dashboard" },
	{ "agent", cmd_agent, "a code model in a generate -> evaluate -> retry loop, scored beside single-shot" },
	{ "approve", cmd_approve, "accept or reject a candidate an agent run holds for a person's approval" },
	{ "breaker", cmd_breaker, "the store's circuit breaker: its state and history; reset it (who, why)" },
	{ "metrics", cmd_metrics, "the store's records as Prometheus text: samples, tripwires, limits, the breaker" },
	{ "redteam", cmd_redteam, "run the attack catalog in fresh sandboxes: each attack contained and detected" },
	{ "serve", cmd_serve, "the evaluator as an HTTP service (SandboxFusion's /run_code, /v1/evaluate, metrics)" },
};

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sandeval: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *cmd_default_db(void)
{
	const char *db = getenv("SANDEVAL_DB");

	return db && *db ? db : "sandeval.db";
}

int cmd_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sandeval: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

static sigset_t interrupts_old;

int cmd_interrupts(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;
	int fd;

	/* One ignored from the start stays ignored (nohup; a shell's
	 * background job and SIGINT): blocked, Linux would queue it instead. */
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;

		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&set, sigs[i]);
	}
	if (sigprocmask(SIG_BLOCK, &set, &interrupts_old) < 0)
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		sigprocmask(SIG_SETMASK, &interrupts_old, NULL);
	return fd;
}

int cmd_interrupts_end(int fd)
{
	struct signalfd_siginfo si;
	int sig;

	if (fd < 0)
		return 0;
	sig = read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
	close(fd);
	sigprocmask(SIG_SETMASK, &interrupts_old, NULL);
	return sig;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sandeval COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'sandeval COMMAND --help' describes a command; docs/ has a page for each.\n");
}

/* End with the command's status once every stream is flushed, without
 * exit()'s teardown: sandeval registers no atexit handler, and walking the
 * loaded objects' destructors and freeing what the kernel frees anyway
 * touched pages for the first time (0.1 ms of each `sandeval exec`, in a
 * guest where a page fault costs 10-20 us: docs/benchmarks-exec.md).
 * LeakSanitizer reports at exit(): sanitizer builds keep it. */
static int finish(int status)
{
#if defined(__SANITIZE_ADDRESS__)
	return status;
#else
	fflush(NULL);
	_exit(status);
#endif
}

int main(int argc, char **argv)
{
	/* A program that closes its stdin early must not kill sandeval. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("sandeval %s\n", SANDEVAL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return finish(commands[i].fn(argc - 1, argv + 1));
	cmd_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
