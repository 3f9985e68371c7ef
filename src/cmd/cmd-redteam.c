/* cmd-redteam.c - `sandeval redteam`: run the attack catalog against the sandbox, each attack contained and detected or exit 1 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "base/util.h"
#include "redteam/redteam.h"

static const char redteam_usage[] =
	"usage: sandeval redteam [--backend native|gvisor] [--json] [--junit FILE] [--only NAME,...] [--list]\n"
	"                        [--catalog FILE]\n"
	"\n"
	"Run the catalog of attacks shipped with sandeval (escape, exfiltration,\n"
	"metadata probes, denial of service, residue, tampering with the harness,\n"
	"forged verdicts, symlink tricks against the supervisor), each in a fresh\n"
	"sandbox with small limits, and judge each from the host: contained (the\n"
	"host's files, kernel settings, mounts, processes, cgroups and listeners are\n"
	"as before, no secret in the output) and detected (its tripwire counters\n"
	"moved, docs/redteam.md). Prints a table: attack, class, contained,\n"
	"detected, the counters seen.\n"
	"\n"
	"  --backend NAME   native (default) or gvisor\n"
	"  --json           print the outcomes as a JSON array instead of the table\n"
	"  --junit FILE     also write them as JUnit XML\n"
	"  --only NAMES     only these attacks (comma-separated); an unknown name is an error\n"
	"  --list           list the attacks (name, class, description) and run nothing\n"
	"  --catalog FILE   another catalog (default: the runners' redteam/catalog.json)\n"
	"\n"
	"Run it as root: the host checks read every process and cgroup, and the\n"
	"native backend counts fork bombs and lingering processes with cgroups.\n"
	"\n"
	"Exit status: 0 when every selected attack was contained and detected,\n"
	"1 otherwise, 2 for usage errors and when the harness itself failed.\n";

enum { OPT_BACKEND = 256, OPT_JSON, OPT_JUNIT, OPT_ONLY, OPT_LIST, OPT_CATALOG, OPT_HELP };

static const struct option options[] = {
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "catalog", required_argument, NULL, OPT_CATALOG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_redteam(int argc, char **argv)
{
	struct redteam_options o = { 0 };
	struct sd_error err = { 0 };
	struct redteam *rt;
	struct redteam_result *rs;
	const char *junit = NULL;
	bool json = false, list = false;
	size_t n, bad = 0;
	int opt, code = 0;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_BACKEND:
			o.backend = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_JUNIT:
			junit = optarg;
			break;
		case OPT_ONLY:
			o.only = optarg;
			break;
		case OPT_LIST:
			list = true;
			break;
		case OPT_CATALOG:
			o.catalog = optarg;
			break;
		case 'h':
		case OPT_HELP:
			fputs(redteam_usage, stdout);
			return 0;
		case ':':
			return cmd_fail("redteam", "option '%s' needs a value\nTry 'sandeval redteam --help'.",
					argv[optind - 1]);
		default:
			return cmd_fail("redteam", "unknown option '%s'\nTry 'sandeval redteam --help'.", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_fail("redteam", "unexpected argument '%s'\nTry 'sandeval redteam --help'.", argv[optind]);
	rt = redteam_open(&o, &err);
	if (!rt)
		return cmd_fail("redteam", "%s", err.msg);
	n = redteam_count(rt);
	if (list) {
		for (size_t i = 0; i < n; i++)
			printf("%-22s %-15s %s\n", redteam_name(rt, i), redteam_class(rt, i), redteam_description(rt, i));
		redteam_free(rt);
		return 0;
	}
	cmd_auto_gc();
	rs = calloc(n, sizeof(*rs));
	if (!rs) {
		redteam_free(rt);
		return cmd_fail("redteam", "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		if (redteam_run(rt, i, &rs[i], &err) < 0) {
			code = cmd_fail("redteam", "%s", err.msg);
			n = i;
			break;
		}
		if (!json)
			fprintf(stderr, "redteam: %-22s %s\n", rs[i].name,
				rs[i].contained && rs[i].detected ? "ok" : !rs[i].contained ? "NOT CONTAINED" : "not detected");
		bad += !(rs[i].contained && rs[i].detected);
	}
	if (json) {
		char *text = redteam_json(rs, n, o.backend ? o.backend : "native");

		if (text)
			puts(text);
		free(text);
	} else {
		redteam_print_table(stdout, rs, n);
	}
	if (junit && redteam_junit(junit, rs, n, o.backend ? o.backend : "native", &err) < 0)
		code = cmd_fail("redteam", "%s", err.msg);
	redteam_free(rt);
	free(rs);
	return code ? code : bad ? 1 : 0;
}
