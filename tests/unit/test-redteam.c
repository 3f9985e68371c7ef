/* test-redteam.c - unit tests of redteam.c's catalog: the shipped one reads, selection by name, and every malformed entry refused with a message naming it (nothing is run) */
#include "fixture.h"

#include "redteam/redteam.h"

/* The shipped catalog, from the checkout (tests run from its root). */
#define SHIPPED "runners/redteam/catalog.json"

static struct redteam *open_catalog(const char *path, const char *only, const char *backend, struct sd_error *err)
{
	struct redteam_options o = { .catalog = path, .only = only, .backend = backend };

	return redteam_open(&o, err);
}

static void test_shipped_catalog(void **state)
{
	struct sd_error err = { 0 };
	struct redteam *rt;
	const char *classes[] = { "escape", "exfiltration", "metadata", "dos", "residue", "tamper",
				  "reward-hacking", "symlink", "benign" };

	(void)state;
	for (int b = 0; b < 2; b++) {
		rt = open_catalog(SHIPPED, NULL, b ? "gvisor" : "native", &err);
		assert_non_null(rt);
		assert_true(redteam_count(rt) >= 30);
		for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
			bool seen = false;

			for (size_t i = 0; i < redteam_count(rt); i++)
				seen |= strcmp(redteam_class(rt, i), classes[c]) == 0;
			assert_true(seen);
		}
		redteam_free(rt);
	}
}

static void test_only(void **state)
{
	struct sd_error err = { 0 };
	struct redteam *rt;

	(void)state;
	rt = open_catalog(SHIPPED, "benign,mount,benign", NULL, &err);
	assert_non_null(rt);
	assert_int_equal(redteam_count(rt), 2);	/* a name given twice runs once, in the order given */
	assert_string_equal(redteam_name(rt, 0), "benign");
	assert_string_equal(redteam_name(rt, 1), "mount");
	redteam_free(rt);
	assert_null(open_catalog(SHIPPED, "mount,nope,also-not", NULL, &err));
	assert_non_null(strstr(err.msg, "unknown attack 'nope', 'also-not'"));
	assert_null(open_catalog(SHIPPED, ",", NULL, &err));
	assert_null(open_catalog(SHIPPED, NULL, "firecracker", &err));
	assert_non_null(strstr(err.msg, "unknown backend 'firecracker'"));
}

/* A catalog with the one attack ATTACK (a JSON object) is refused with a message holding WANT. */
static void refused(const char *dir, const char *attack, const char *want)
{
	char *path = fx_str("%s/catalog.json", dir);
	char *text = fx_str("{\"attacks\": [%s]}", attack);
	struct sd_error err = { 0 };
	struct redteam *rt;

	fx_write(path, text);
	rt = open_catalog(path, NULL, NULL, &err);
	if (rt || !strstr(err.msg, want))
		fail_msg("catalog %s: %s, want an error with '%s'", attack, rt ? "accepted" : err.msg, want);
	free(path);
	free(text);
}

static void test_malformed(void **state)
{
	char *dir = fx_tmpdir();
	char *path = fx_str("%s/catalog.json", dir);
	struct sd_error err = { 0 };
	struct redteam *rt;

	(void)state;
	refused(dir, "{\"name\": \"a\", \"class\": \"escape\"}", "needs name, class and description");
	refused(dir, "{\"name\": \"a\", \"class\": \"magic\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"clean\": true}}",
		"unknown class 'magic'");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"expect\": {\"clean\": true}}",
		"needs one of 'program' and 'eval'");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\"}",
		"not an object with what must be seen");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {}}",
		"not an object with what must be seen");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"denied\": 1}}",
		"unknown member 'denied'");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"network_attempts\": 0}}",
		"'network_attempts' is not a count of at least 1");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"status\": 3}}",
		"'status' is not a name");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"limit_hits\": \"wall\"}}",
		"no limit 'wall'");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"any\": []}}",
		"'any' is not a non-empty array");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"clean\": false}}",
		"'clean' can only be true");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"eval\": {\"task\": {}}, \"expect\": {\"verdict\": \"failed\"}}",
		"'eval' needs a task and a sample");
	refused(dir, "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"clean\": true}},"
		     "{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\", \"expect\": {\"clean\": true}}",
		"attack 'a' listed twice");
	/* the backend's own expectation is the one checked */
	fx_write(path, "{\"attacks\": [{\"name\": \"a\", \"class\": \"dos\", \"description\": \"x\", \"program\": \"p\","
		       " \"expect\": {\"clean\": true}, \"gvisor\": {\"expect\": {\"bogus\": 1}}}]}");
	rt = open_catalog(path, NULL, "native", &err);
	assert_non_null(rt);
	redteam_free(rt);
	assert_null(open_catalog(path, NULL, "gvisor", &err));
	assert_non_null(strstr(err.msg, "unknown member 'bogus'"));
	/* not a catalog at all */
	fx_write(path, "[1, 2]");
	assert_null(open_catalog(path, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "'attacks' is not an array"));
	assert_null(open_catalog("/nonexistent/catalog.json", NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "cannot read catalog"));
	free(path);
	fx_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_catalog),
		cmocka_unit_test(test_only),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
