/* cmd-breaker.c - `sandeval breaker status|reset`: the store's circuit breaker, its history, and the human re-enable */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "eval/breaker.h"
#include "store/store.h"

static const char breaker_usage[] =
	"usage: sandeval breaker status [--db PATH|URL] [--json]\n"
	"       sandeval breaker reset --by NAME --reason TEXT [--db PATH|URL]\n"
	"\n"
	"The store's circuit breaker (docs/run.md#circuit-breaker). A run whose\n"
	"candidates' escape attempts (denied system calls, metadata probes, writes\n"
	"outside) reach --breaker-threshold trips it; while it is tripped every run and\n"
	"gate on the store, and the service's evaluations, are refused.\n"
	"\n"
	"  status        whether it is tripped, and every trip and reset (who, when, why)\n"
	"  reset         re-enable: both --by (who) and --reason (why) are required\n"
	"  --db PATH|URL the store: an SQLite file or a postgresql:// URL; default\n"
	"                $SANDEVAL_DB, else sandeval.db\n"
	"  --json        status as JSON\n"
	"\n"
	"Exit status: status: 0 when not tripped, 1 when tripped, 2 on error; reset: 0\n"
	"when re-enabled, 2 when refused (a field missing, not tripped) or on error.\n";

#define fail(...) cmd_fail("breaker", __VA_ARGS__)

static int status(struct store *st, bool json)
{
	struct breaker_event *v;
	struct sd_error err = { 0 };
	size_t n;
	bool tripped;
	char when[64];

	if (store_breaker_history(st, &v, &n, &err) < 0)
		return fail("%s", err.msg);
	tripped = n > 0 && v[n - 1].trip;
	if (json) {
		json_t *o = json_object(), *h = json_array();
		char *text;

		for (size_t i = 0; i < n; i++)
			json_array_append_new(h, json_pack("{s:s, s:s, s:I, s:s?, s:s?, s:s}",
				"event", v[i].trip ? "trip" : "reset",
				"at", breaker_time(v[i].at_ms, when, sizeof(when)), "at_ms", (json_int_t)v[i].at_ms,
				"run_id", v[i].trip ? v[i].run_id : NULL, "by", v[i].by, "reason", v[i].reason));
		json_object_set_new(o, "tripped", json_boolean(tripped));
		json_object_set_new(o, "history", h);
		text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(2));
		puts(text ? text : "{}");
		free(text);
		json_decref(o);
	} else {
		printf("circuit breaker of '%s': %s\n", store_name(st),
		       tripped ? "TRIPPED: runs on this store are refused" : "closed: runs go on");
		if (tripped)
			printf("  re-enable: sandeval breaker reset --by NAME --reason TEXT\n");
		for (size_t i = 0; i < n; i++) {
			if (v[i].trip)
				printf("%s  trip   run %s: %s\n", breaker_time(v[i].at_ms, when, sizeof(when)), v[i].run_id,
				       v[i].reason);
			else
				printf("%s  reset  by %s: %s\n", breaker_time(v[i].at_ms, when, sizeof(when)), v[i].by,
				       v[i].reason);
		}
		if (!n)
			printf("  (it never tripped)\n");
	}
	breaker_events_free(v, n);
	return tripped ? 1 : 0;
}

int cmd_breaker(int argc, char **argv)
{
	const char *db = cmd_default_db(), *by = NULL, *reason = NULL, *action = NULL;
	struct sd_error err = { 0 };
	struct store *st;
	bool json = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_value = i + 1 < argc;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(breaker_usage, stdout);
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if ((strcmp(a, "--db") == 0 || strcmp(a, "--by") == 0 || strcmp(a, "--reason") == 0) && has_value) {
			const char *v = argv[++i];

			if (strcmp(a, "--db") == 0)
				db = v;
			else if (strcmp(a, "--by") == 0)
				by = v;
			else
				reason = v;
		} else if (a[0] != '-' && !action) {
			action = a;
		} else {
			cmd_error("breaker: unknown option or missing value '%s'", a);
			fputs(breaker_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!action || (strcmp(action, "status") != 0 && strcmp(action, "reset") != 0)) {
		cmd_error("breaker: expected 'status' or 'reset'%s%s", action ? ", not " : "", action ? action : "");
		fputs(breaker_usage, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(action, "reset") == 0 && (!by || !*by || !reason || !*reason))
		return fail("reset needs who (--by NAME) and why (--reason TEXT): the breaker stays as it is");
	st = strcmp(action, "status") == 0 ? store_open_existing(db, &err) : store_open(db, &err);
	if (!st)
		return fail("%s", err.msg);
	if (strcmp(action, "status") == 0) {
		ret = status(st, json);
	} else if (breaker_reset(st, by, reason, &err) < 0) {
		ret = fail("%s", err.msg);
	} else {
		printf("circuit breaker of '%s' reset by %s: runs go on\n", store_name(st), by);
		ret = 0;
	}
	store_close(st);
	return ret;
}
