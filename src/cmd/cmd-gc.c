/* cmd-gc.c - `sandeval gc`: remove the cgroups and records that killed runs left behind */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "sandbox/gc.h"
#include "sandbox/runrec.h"

static const char gc_usage[] =
	"usage: sandeval gc [--quiet]\n"
	"\n"
	"Kill whatever still runs in the cgroups of sandeval runs that died (their\n"
	"supervisor was killed), remove those cgroups and the runs' records. Runs that\n"
	"are still alive are left alone. Every 'sandeval exec' does this first.\n"
	"'sandeval gc' also removes the spares: emptied cgroups that runs keep for the\n"
	"next ones on cgroup v1 (SANDEVAL_CGROUP_SPARES, docs/sandbox.md).\n";

static int sweep(bool quiet, bool full)
{
	struct sd_error err = { 0 };
	struct gc_stats st;
	char dir[4096];

	if (runrec_state_dir(dir, sizeof(dir), &err) < 0 ||
	    gc_sweep(dir, full ? "/sys/fs/cgroup" : NULL, &st, &err) < 0) {
		cmd_error("gc: %s", err.msg);
		return -1;
	}
	if (!quiet)
		printf("swept %d dead run(s), removed %d cgroup(s), %d director(ies), %d failed\n", st.runs, st.cgroups,
		       st.dirs, st.failed);
	return st.failed ? -1 : 0;
}

int cmd_auto_gc(void)
{
	return sweep(true, false);
}

int cmd_gc(int argc, char **argv)
{
	bool quiet = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(gc_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--quiet") == 0) {
			quiet = true;
		} else {
			cmd_error("gc: unknown option '%s'", argv[i]);
			fputs(gc_usage, stderr);
			return EXIT_USAGE;
		}
	}
	return sweep(quiet, true) < 0 ? EXIT_USAGE : 0;
}
