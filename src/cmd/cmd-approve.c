/* cmd-approve.c - `sandeval approve`: a person's decision on a candidate an agent run holds for approval */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent.h"
#include "cmd.h"
#include "store/store.h"

static const char approve_usage[] =
	"usage: sandeval approve AGENT_ID TASK_ID (--accept | --reject) --by NAME [--note TEXT] [--db PATH|URL]\n"
	"\n"
	"Record who accepts or rejects the candidate that agent run AGENT_ID chose for\n"
	"TASK_ID and holds for approval (--checkpoint, or a task with \"risk\": \"high\"),\n"
	"when, and why; 'sandeval agent --resume AGENT_ID' then goes on with the decision\n"
	"(docs/agent.md). A decision is recorded once.\n"
	"\n"
	"  --accept | --reject\n"
	"  --by NAME      who decides\n"
	"  --note TEXT    why\n"
	"  --db PATH|URL  the store (default $SANDEVAL_DB, else sandeval.db)\n";

enum { OPT_ACCEPT = 256, OPT_REJECT, OPT_BY, OPT_NOTE, OPT_DB, OPT_HELP };

static const struct option options[] = {
	{ "accept", no_argument, NULL, OPT_ACCEPT },
	{ "reject", no_argument, NULL, OPT_REJECT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "note", required_argument, NULL, OPT_NOTE },
	{ "db", required_argument, NULL, OPT_DB },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define fail(...) cmd_fail("approve", __VA_ARGS__)

int cmd_approve(int argc, char **argv)
{
	const char *by = NULL, *note = NULL, *db = cmd_default_db();
	int accept = -1, opt, ret;
	struct sd_error err = { 0 };
	struct store *st;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_ACCEPT:
		case OPT_REJECT:
			if (accept >= 0 && accept != (opt == OPT_ACCEPT))
				return fail("--accept or --reject, not both");
			accept = opt == OPT_ACCEPT;
			break;
		case OPT_BY: by = optarg; break;
		case OPT_NOTE: note = optarg; break;
		case OPT_DB: db = optarg; break;
		case 'h':
		case OPT_HELP:
			fputs(approve_usage, stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval approve --help')", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return fail("expected AGENT_ID TASK_ID (see 'sandeval approve --help')");
	if (accept < 0)
		return fail("--accept or --reject is required");
	if (!by || !*by)
		return fail("--by NAME is required: who decides is recorded");
	if (!(st = store_open_existing(db, &err)))
		return fail("%s", err.msg);
	ret = agent_approve(st, argv[optind], argv[optind + 1], accept == 1, by, note, &err) < 0 ? fail("%s", err.msg) : 0;
	if (ret == 0)
		printf("%s: task %s %s by %s\n", argv[optind], argv[optind + 1], accept ? "accepted" : "rejected", by);
	store_close(st);
	return ret;
}
