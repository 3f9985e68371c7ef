/* cmd-serve.c - `sandeval serve`: the evaluator as an HTTP service (the library's serve/serve.h) */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cmd.h"
#include "serve/serve.h"
#include "version.h"

static const char serve_usage[] =
	"usage: sandeval serve [--listen ADDR:PORT|unix:PATH] [--token-file FILE] [--max-concurrency N]\n"
	"                      [--queue N] [--db PATH|URL] [--backend native|gvisor] [--max-body SIZE]\n"
	"                      [--log FILE] [--suite NAME=PATH]... [--memory SIZE] [--max-memory SIZE]\n"
	"                      [--max-time SECONDS] [--output SIZE] [--drain-timeout SECONDS]\n"
	"                      [--store-metrics SECONDS]\n"
	"\n"
	"Serve the evaluator over HTTP until SIGTERM or SIGINT (docs/serve.md):\n"
	"  POST /run_code          SandboxFusion's API: run one program in fresh sandboxes\n"
	"  POST /v1/evaluate       score samples against tasks, as 'sandeval run' does; recorded\n"
	"  GET  /v1/runs/ID        a recorded run, the same document\n"
	"  GET  /v1/suites         the suites --suite named\n"
	"  GET  /healthz, /readyz  liveness; readiness (store, canaries, circuit breaker)\n"
	"  GET  /metrics           Prometheus text\n"
	"\n"
	"  --listen ADDR:PORT      where to listen (default 127.0.0.1:8080; port 0: any free port, printed);\n"
	"                          [IPV6]:PORT, or unix:PATH for a local socket. A non-loopback address\n"
	"                          needs --token-file\n"
	"  --token-file FILE       every request but /healthz needs 'Authorization: Bearer <token>', the\n"
	"                          file's one line (at least 16 characters); compared in constant time\n"
	"  --max-concurrency N     worker processes, so requests running at once (default: the CPUs)\n"
	"  --queue N               requests waiting for a worker (default 64); beyond: 503 and Retry-After\n"
	"  --db PATH|URL           the store of /v1/evaluate's runs: an SQLite file or a\n"
	"                          postgresql:// URL (docs/scale.md); default $SANDEVAL_DB,\n"
	"                          else sandeval.db\n"
	"  --backend NAME          native (default) or gvisor, for every sandbox\n"
	"  --max-body SIZE         largest request body (default 16M); larger: 413\n"
	"  --log FILE              append one JSON line per request (the access log)\n"
	"  --suite NAME=PATH       a task file or suite directory /v1/evaluate may name as \"tasks\"; repeatable\n"
	"  --memory SIZE           a program's memory when the request names none (default 512M)\n"
	"  --max-memory SIZE       the most memory_limit_MB may ask for (default 2G; more is clamped)\n"
	"  --max-time SECONDS      the longest run_timeout and compile_timeout (default 60; clamped)\n"
	"  --output SIZE           bytes kept of a program's stdout and of its stderr (default 1M)\n"
	"  --drain-timeout SECONDS how long SIGTERM waits for running requests (default 90)\n"
	"  --store-metrics SECONDS how old /metrics's figures of the store may be: a worker\n"
	"                          reads them again when a scrape finds them older (default 60;\n"
	"                          0: /metrics shows only the server's own)\n"
	"\n"
	"Exit status: 0 after SIGTERM or SIGINT; 2 when the server could not start.\n";

enum {
	OPT_LISTEN = 256, OPT_TOKEN, OPT_CONC, OPT_QUEUE, OPT_DB, OPT_BACKEND, OPT_MAX_BODY, OPT_LOG, OPT_SUITE,
	OPT_MEMORY, OPT_MAX_MEMORY, OPT_MAX_TIME, OPT_OUTPUT, OPT_DRAIN, OPT_STORE_METRICS, OPT_HELP,
};

static const struct option options[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "token-file", required_argument, NULL, OPT_TOKEN },
	{ "max-concurrency", required_argument, NULL, OPT_CONC },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "db", required_argument, NULL, OPT_DB },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "max-body", required_argument, NULL, OPT_MAX_BODY },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "suite", required_argument, NULL, OPT_SUITE },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "drain-timeout", required_argument, NULL, OPT_DRAIN },
	{ "store-metrics", required_argument, NULL, OPT_STORE_METRICS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define fail(...) cmd_fail("serve", __VA_ARGS__)

static const char *option_name(int opt)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

static void on_note(void *arg, const char *text)
{
	(void)arg;
	fprintf(stderr, "sandeval: serve: %s\n", text);
	fflush(stderr);
}

int cmd_serve(int argc, char **argv)
{
	struct serve_options o;
	struct sd_error err = { 0 };
	int opt;

	serve_options_init(&o);
	o.version = SANDEVAL_VERSION;
	o.db = cmd_default_db();
	o.note = on_note;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;
		long n;
		double d;

		switch (opt) {
		case OPT_LISTEN: o.listen = v; break;
		case OPT_TOKEN: o.token_file = v; break;
		case OPT_DB: o.db = v; break;
		case OPT_BACKEND: o.backend = v; break;
		case OPT_LOG: o.log_path = v; break;
		case OPT_CONC:
		case OPT_QUEUE:
			if (parse_long(v, opt == OPT_CONC ? 1 : 0, opt == OPT_CONC ? 256 : 100000, &n, &err) < 0)
				return fail("--%s: %s", option_name(opt), err.msg);
			*(opt == OPT_CONC ? &o.max_concurrency : &o.queue) = (size_t)n;
			break;
		case OPT_MAX_BODY:
		case OPT_MEMORY:
		case OPT_MAX_MEMORY:
		case OPT_OUTPUT: {
			uint64_t size;

			if (parse_size(v, &size, &err) < 0)
				return fail("--%s: %s", option_name(opt), err.msg);
			if ((opt == OPT_MEMORY || opt == OPT_MAX_MEMORY) && size < (16u << 20))
				return fail("--%s: at least 16M", option_name(opt));
			*(opt == OPT_MAX_BODY ? &o.max_body : opt == OPT_MEMORY ? &o.memory :
			  opt == OPT_MAX_MEMORY ? &o.max_memory : &o.output) = size;
			break;
		}
		case OPT_MAX_TIME:
		case OPT_DRAIN:
			if (parse_seconds(v, 86400, &d, &err) < 0)
				return fail("--%s: %s", option_name(opt), err.msg);
			*(opt == OPT_MAX_TIME ? &o.max_time : &o.drain_timeout) = d;
			break;
		case OPT_STORE_METRICS:
			if (strcmp(v, "0") == 0)
				o.store_metrics = 0;
			else if (parse_seconds(v, 86400, &d, &err) < 0)
				return fail("--%s: %s", option_name(opt), err.msg);
			else
				o.store_metrics = d;
			break;
		case OPT_SUITE: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1])
				return fail("--suite '%s' is not NAME=PATH", v);
			if (o.n_suites == SERVE_MAX_SUITES)
				return fail("--suite: at most %d", SERVE_MAX_SUITES);
			*eq = '\0';
			o.suites[o.n_suites++] = (struct serve_suite){ .name = optarg, .path = eq + 1 };
			break;
		}
		case 'h':
		case OPT_HELP:
			fputs(serve_usage, stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval serve --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval serve --help')", argv[optind]);
	if (o.memory > o.max_memory)
		return fail("--memory %llu is more than --max-memory %llu", (unsigned long long)o.memory,
			    (unsigned long long)o.max_memory);
	cmd_auto_gc();
	if (serve_run(&o, &err) < 0)
		return fail("%s", err.msg);
	return 0;
}
