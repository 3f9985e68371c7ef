/* cmd-exec.c - `sandeval exec`: run one program in a fresh sandbox, print the result as JSON */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

static const char exec_usage[] =
	"usage: sandeval exec [OPTIONS] -- PROGRAM [ARG...]\n"
	"\n"
	"Run PROGRAM in a fresh, isolated, resource-bounded sandbox, destroy the\n"
	"sandbox, and print the result as one JSON object on stdout.\n"
	"\n"
	"  --file DEST=SRC       copy host file SRC into the sandbox at DEST (under /work), read-only; repeatable\n"
	"  --stdin FILE          feed FILE to standard input (default: empty)\n"
	"  --env NAME=VALUE      set a variable; no host variable passes in otherwise; repeatable\n"
	"  --cpu-time SECONDS    CPU-time limit, fractions allowed (default 2)\n"
	"  --wall-time SECONDS   wall-clock limit, enforced from outside the sandbox (default 5)\n"
	"  --memory SIZE         memory ceiling including swap, e.g. 512M (default 512M)\n"
	"  --pids N              processes and threads (default 64)\n"
	"  --fds N               open file descriptors (default 64)\n"
	"  --file-size SIZE      largest file the program may write (default 16M)\n"
	"  --tmpfs SIZE          size of the writable /work and /tmp (default 64M)\n"
	"  --output SIZE         bytes kept of stdout and of stderr each (default 1M); past it the program is stopped\n"
	"  --image REF           root filesystem: host (default), a directory, or an image NAME[@sha256:HEX]\n"
	"                        (see 'sandeval image'); a pinned digest that does not match refuses to run\n"
	"  --backend NAME        the isolation mechanism: native (default), gvisor (runsc), firecracker (needs KVM)\n"
	"  --platform NAME       gvisor only: ptrace or kvm (default: the best that works here)\n"
	"  --log FILE            append lifecycle events as JSON lines\n"
	"\n"
	"Exit status: 0 when the program's status is \"ok\", 1 for any other outcome of\n"
	"the program, 2 for usage errors and when sandeval itself failed (sandbox_error);\n"
	"128 + the signal's number after SIGINT, SIGTERM or SIGHUP (status \"interrupted\":\n"
	"the program stopped and its sandbox destroyed first).\n";

enum {
	OPT_FILE = 256, OPT_STDIN, OPT_ENV, OPT_CPU, OPT_WALL, OPT_MEM, OPT_PIDS, OPT_FDS,
	OPT_FSIZE, OPT_TMPFS, OPT_OUTPUT, OPT_IMAGE, OPT_BACKEND, OPT_LOG, OPT_HELP, OPT_PLATFORM,
};

static const struct option options[] = {
	{ "file", required_argument, NULL, OPT_FILE },
	{ "stdin", required_argument, NULL, OPT_STDIN },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "cpu-time", required_argument, NULL, OPT_CPU },
	{ "wall-time", required_argument, NULL, OPT_WALL },
	{ "memory", required_argument, NULL, OPT_MEM },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "fds", required_argument, NULL, OPT_FDS },
	{ "file-size", required_argument, NULL, OPT_FSIZE },
	{ "tmpfs", required_argument, NULL, OPT_TMPFS },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static const char *option_name(int opt)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sandeval: exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'sandeval exec --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The result's JSON, made while the sandbox is torn down (sandbox_config.settled). */
struct early_json {
	json_t *o;
	size_t n_events;
};

static void settled(void *arg, const struct sandbox_result *res)
{
	struct early_json *e = arg;

	e->o = sandbox_result_object(res);
	e->n_events = res->n_events;
}

int cmd_exec(int argc, char **argv)
{
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };
	cleanup_free struct sandbox_file *files = calloc((size_t)argc, sizeof(*files));
	cleanup_free char **env = calloc((size_t)argc, sizeof(char *));
	cleanup_free char *json = NULL;
	struct early_json early = { 0 };
	int opt, code, ran, sig;

	if (!files || !env)
		return usage_error("%s", "out of memory");
	sandbox_config_init(&cfg);
	cfg.files = files;
	cfg.env = env;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;
		double d;
		long n;

		err.msg[0] = '\0';
		switch (opt) {
		case OPT_FILE: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1])
				return usage_error("--file '%s' is not DEST=SRC", v);
			*eq = '\0';
			files[cfg.n_files++] = (struct sandbox_file){ .dest = optarg, .src = eq + 1 };
			break;
		}
		case OPT_STDIN:
			cfg.stdin_path = v;
			break;
		case OPT_ENV:
			env[cfg.n_env++] = optarg;
			break;
		case OPT_CPU:
		case OPT_WALL:
			if (parse_seconds(v, 86400, &d, &err) < 0)
				return usage_error("--%s: %s", option_name(opt), err.msg);
			*(opt == OPT_CPU ? &cfg.cpu_time : &cfg.wall_time) = d;
			break;
		case OPT_MEM:
		case OPT_FSIZE:
		case OPT_TMPFS:
		case OPT_OUTPUT: {
			uint64_t size;

			if (parse_size(v, &size, &err) < 0)
				return usage_error("--%s: %s", option_name(opt), err.msg);
			*(opt == OPT_MEM ? &cfg.memory : opt == OPT_FSIZE ? &cfg.file_size :
			  opt == OPT_TMPFS ? &cfg.tmpfs : &cfg.output) = size;
			break;
		}
		case OPT_PIDS:
		case OPT_FDS:
			if (parse_long(v, 1, 1 << 20, &n, &err) < 0)
				return usage_error("--%s: %s", option_name(opt), err.msg);
			*(opt == OPT_PIDS ? &cfg.pids : &cfg.fds) = n;
			break;
		case OPT_IMAGE:
			cfg.image = v;
			break;
		case OPT_BACKEND:
			cfg.backend = v;
			break;
		case OPT_PLATFORM:
			cfg.platform = v;
			break;
		case OPT_LOG:
			cfg.log_path = v;
			break;
		case 'h':
		case OPT_HELP:
			fputs(exec_usage, stdout);
			return 0;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no program given (usage: sandeval exec [OPTIONS] -- PROGRAM [ARG...])");
	cfg.argv = argv + optind;
	if (sandbox_config_check(&cfg, &err) < 0)
		return usage_error("%s", err.msg);
	cmd_auto_gc();
	/* Ctrl-C, SIGTERM or SIGHUP stop the program and destroy the sandbox,
	 * and the result says so ("interrupted"), with the output until then */
	cfg.cancel_fd = cmd_interrupts();
	cfg.settled = settled;
	cfg.settled_arg = &early;
	ran = sandbox_run(&cfg, &res, &err);
	sig = cmd_interrupts_end(cfg.cancel_fd);	/* or one that came as the program ended */
	if (ran < 0) {
		json_decref(early.o);
		return usage_error("%s", err.msg);
	}
	json = early.o ? sandbox_result_finish(early.o, early.n_events, &res) : sandbox_result_json(&res);
	if (!json) {
		sandbox_result_release(&res);
		cmd_error("exec: cannot format the result");
		return EXIT_USAGE;
	}
	puts(json);
	fflush(stdout);
	if (res.status == SB_SANDBOX_ERROR)
		cmd_error("exec: %s", res.error);
	if (res.status == SB_INTERRUPTED)
		cmd_error("exec: interrupted by SIG%s: the program was stopped and its sandbox destroyed",
			  sig && sigabbrev_np(sig) ? sigabbrev_np(sig) : "INT");
	code = sig ? 128 + sig : res.status == SB_INTERRUPTED ? 128 + SIGINT : res.status == SB_OK ? EXIT_RESULT_OK :
	       res.status == SB_SANDBOX_ERROR ? EXIT_USAGE : EXIT_RESULT_OTHER;
	sandbox_result_release(&res);
	return code;
}
