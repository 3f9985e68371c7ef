/* test-tripwire.c - unit tests of tripwire.c: counting, merging, the bounds on names and destinations, the JSON form both ways */
#include "fixture.h"

#include "base/tripwire.h"

static char *dump(const struct tripwires *t)
{
	json_t *o = tripwires_to_json(t);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return s;
}

static void test_zero_is_all_zero(void **state)
{
	struct tripwires t;
	char *s;

	(void)state;
	tripwires_init(&t);
	assert_int_equal(tripwires_total(&t), 0);
	assert_int_equal(tripwires_escapes(&t), 0);
	s = dump(&t);
	assert_string_equal(s, "{\"network_attempts\":0,\"destinations\":[],\"metadata_probes\":0,"
			       "\"denied_syscalls\":{},\"writes_denied\":0,\"limit_hits\":[],\"lingering_processes\":0}");
	free(s);
}

static void test_counts_and_escapes(void **state)
{
	struct tripwires t;

	(void)state;
	tripwires_init(&t);
	tripwires_network(&t, "127.0.0.1:9", false);
	tripwires_network(&t, "169.254.169.254:80", true);
	tripwires_network(&t, "169.254.169.254:80", true);	/* the same destination once */
	tripwires_denied(&t, "mount");
	tripwires_denied(&t, "mount");
	tripwires_denied(&t, "bpf");
	t.writes_denied = 4;
	t.limit_hits = TW_LIMIT_PIDS | TW_LIMIT_CPU;
	t.lingering_processes = 1;
	assert_int_equal(t.network_attempts, 3);
	assert_int_equal(t.metadata_probes, 2);
	assert_int_equal(t.n_destinations, 2);
	assert_int_equal(t.n_denied, 2);
	assert_int_equal(t.denied[0].count, 2);
	/* escapes: 3 denied calls, 2 metadata probes, 4 writes */
	assert_int_equal(tripwires_escapes(&t), 9);
	/* total: 3 denied + 4 writes + 3 network + 1 lingering + 2 limits */
	assert_int_equal(tripwires_total(&t), 13);
	assert_string_equal(tripwire_limit_name(TW_LIMIT_PIDS), "pids");
	assert_null(tripwire_limit_name(3));
}

static void test_bounded(void **state)
{
	struct tripwires t;
	char name[32], dest[32];

	(void)state;
	tripwires_init(&t);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "call%d", i);
		tripwires_denied(&t, name);
		snprintf(dest, sizeof(dest), "10.0.0.%d:1", i);
		tripwires_network(&t, dest, false);
	}
	assert_int_equal(t.n_denied, TRIPWIRE_NAMES);
	assert_string_equal(t.denied[TRIPWIRE_NAMES - 1].name, "other");
	assert_int_equal(t.denied[TRIPWIRE_NAMES - 1].count, 40 - (TRIPWIRE_NAMES - 1));
	assert_int_equal(tripwires_escapes(&t), 40);
	assert_int_equal(t.n_destinations, TRIPWIRE_DESTS);
	assert_string_equal(t.destinations[0], "10.0.0.0:1");
	assert_int_equal(t.network_attempts, 40);
}

static void test_merge(void **state)
{
	struct tripwires a, b;

	(void)state;
	tripwires_init(&a);
	tripwires_init(&b);
	tripwires_denied(&a, "mount");
	tripwires_denied(&b, "mount");
	tripwires_denied(&b, "ptrace");
	tripwires_network(&b, "[::1]:9", false);
	b.limit_hits = TW_LIMIT_MEMORY;
	b.uncounted = TW_LINGERING;
	tripwires_merge(&a, &b);
	assert_int_equal(a.n_denied, 2);
	assert_int_equal(a.denied[0].count, 2);
	assert_int_equal(a.network_attempts, 1);
	assert_string_equal(a.destinations[0], "[::1]:9");
	assert_int_equal(a.limit_hits, TW_LIMIT_MEMORY);
	assert_int_equal(a.uncounted, TW_LINGERING);
}

static void test_json_round_trip(void **state)
{
	struct tripwires t, back;
	json_t *o;
	char *s1, *s2;

	(void)state;
	tripwires_init(&t);
	tripwires_network(&t, "169.254.169.254:80", true);
	tripwires_denied(&t, "keyctl");
	t.writes_denied = 2;
	t.limit_hits = TW_LIMIT_OUTPUT | TW_LIMIT_FILE_SIZE;
	t.uncounted = TW_LINGERING;
	o = tripwires_to_json(&t);
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(o, "lingering_processes")));
	assert_int_equal(tripwires_from_json(o, &back), 0);
	s1 = dump(&t);
	s2 = dump(&back);
	assert_string_equal(s1, s2);
	assert_int_equal(back.uncounted, TW_LINGERING);
	free(s1);
	free(s2);
	json_decref(o);
}

static void test_json_refused(void **state)
{
	struct tripwires t;
	json_t *o;

	(void)state;
	assert_int_equal(tripwires_from_json(NULL, &t), 0);	/* absent: zero */
	assert_int_equal(tripwires_total(&t), 0);
	o = json_loads("{\"network_attempts\": -1}", 0, NULL);
	assert_int_equal(tripwires_from_json(o, &t), -1);
	json_decref(o);
	o = json_loads("{\"denied_syscalls\": {\"mount\": \"x\"}}", 0, NULL);
	assert_int_equal(tripwires_from_json(o, &t), -1);
	json_decref(o);
	o = json_loads("{\"destinations\": [1]}", 0, NULL);
	assert_int_equal(tripwires_from_json(o, &t), -1);
	json_decref(o);
}

/* A DNS query for NAME (labels from its dots), header FLAGS, QDCOUNT QD, into BUF; its length. */
static size_t dns_query(unsigned char *buf, const char *name, unsigned flags, unsigned qd)
{
	size_t at = 12;

	memset(buf, 0, 12);
	buf[0] = 0x12;
	buf[2] = (unsigned char)(flags >> 8);
	buf[3] = (unsigned char)flags;
	buf[5] = (unsigned char)qd;
	while (*name) {
		size_t n = strcspn(name, ".");

		buf[at++] = (unsigned char)n;
		memcpy(buf + at, name, n);
		at += n;
		name += n + (name[n] == '.');
	}
	buf[at++] = 0;
	memcpy(buf + at, "\0\1\0\1", 4);
	return at + 4;
}

static void test_dns_metadata(void **state)
{
	unsigned char q[512];
	size_t n;

	(void)state;
	for (size_t i = 0; tripwire_metadata_names[i]; i++) {
		n = dns_query(q, tripwire_metadata_names[i], 0x0100, 1);
		assert_true(tripwires_dns_metadata(q, n));
		assert_false(tripwires_dns_metadata(q, n - 1));	/* QCLASS cut short */
	}
	n = dns_query(q, "Metadata.Google.Internal", 0x0100, 1);
	assert_true(tripwires_dns_metadata(q, n));
	/* other names, a name that only begins or ends like one, a response, no question, another opcode */
	n = dns_query(q, "example.com", 0x0100, 1);
	assert_false(tripwires_dns_metadata(q, n));
	n = dns_query(q, "metadata.google.internal.example.com", 0x0100, 1);
	assert_false(tripwires_dns_metadata(q, n));
	n = dns_query(q, "x.metadata.goog", 0x0100, 1);
	assert_false(tripwires_dns_metadata(q, n));
	n = dns_query(q, "metadata.goog", 0x8180, 1);
	assert_false(tripwires_dns_metadata(q, n));
	n = dns_query(q, "metadata.goog", 0x0100, 0);
	assert_false(tripwires_dns_metadata(q, n));
	n = dns_query(q, "metadata.goog", 0x2800, 1);	/* opcode 5: an update */
	assert_false(tripwires_dns_metadata(q, n));
	/* a label holding a dot is not two labels */
	n = dns_query(q, "metadata", 0x0100, 1);
	q[12] = 13;
	memcpy(q + 13, "metadata.goog", 13);
	memcpy(q + 26, "\0\0\1\0\1", 5);
	assert_false(tripwires_dns_metadata(q, 31));
	/* a compression pointer; nothing; too short */
	memcpy(q + 12, "\xc0\x0c\0\1\0\1", 6);
	assert_false(tripwires_dns_metadata(q, 18));
	assert_false(tripwires_dns_metadata(NULL, 0));
	assert_false(tripwires_dns_metadata(q, 12));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_is_all_zero),
		cmocka_unit_test(test_counts_and_escapes),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_refused),
		cmocka_unit_test(test_dns_metadata),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
