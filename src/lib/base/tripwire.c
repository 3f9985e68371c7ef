/* tripwire.c - what a sandboxed program tried that it may not: counters kept by the supervisor, their JSON */
#include "base/tripwire.h"

#include <stdio.h>
#include <string.h>

static const char *const limit_names[] = { "cpu", "memory", "pids", "output", "file_size" };
#define N_LIMITS (sizeof(limit_names) / sizeof(limit_names[0]))

void tripwires_init(struct tripwires *t)
{
	memset(t, 0, sizeof(*t));
}

static void add_dest(struct tripwires *t, const char *dest)
{
	if (!dest)
		return;
	for (uint32_t i = 0; i < t->n_destinations; i++)
		if (strcmp(t->destinations[i], dest) == 0)
			return;
	if (t->n_destinations < TRIPWIRE_DESTS)
		snprintf(t->destinations[t->n_destinations++], TRIPWIRE_DEST_LEN, "%s", dest);
}

void tripwires_network(struct tripwires *t, const char *dest, bool metadata)
{
	t->network_attempts++;
	if (metadata)
		t->metadata_probes++;
	add_dest(t, dest);
}

/* Cloud metadata services by name: Google (metadata.google.internal,
 * metadata.goog, and the bare "metadata" its guests resolve), AWS
 * (instance-data, instance-data.ec2.internal), Azure (metadata.azure.com),
 * Equinix Metal (metadata.packet.net, metadata.platformequinix.com). The
 * addresses (169.254.169.254, fd00:ec2::254) are counted as addresses. */
const char *const tripwire_metadata_names[] = {
	"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
	"instance-data.ec2.internal", "metadata.azure.com", "metadata.packet.net",
	"metadata.platformequinix.com", NULL,
};

bool tripwires_dns_metadata(const void *payload, size_t len)
{
	const unsigned char *p = payload;
	char name[256];
	size_t at = 12, out = 0;

	/* header: QR (the top bit of byte 2) clear, opcode 0 (a standard query), QDCOUNT >= 1 */
	if (!p || len < 12 + 1 + 4 || (p[2] & 0xf8) != 0 || (p[4] == 0 && p[5] == 0))
		return false;
	for (;;) {
		size_t n;

		if (at >= len)
			return false;
		n = p[at++];
		if (n == 0)
			break;
		if (n > 63 || at + n > len || out + n + 1 >= sizeof(name))
			return false;	/* a pointer (0xc0) or a longer label: not a plain question */
		if (out)
			name[out++] = '.';
		for (size_t i = 0; i < n; i++) {
			unsigned char c = p[at + i];

			if (c == '.' || c == '\0')
				return false;
			name[out++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		}
		at += n;
	}
	if (at + 4 > len || out == 0)
		return false;	/* QTYPE and QCLASS must follow */
	name[out] = '\0';
	for (size_t i = 0; tripwire_metadata_names[i]; i++)
		if (strcmp(name, tripwire_metadata_names[i]) == 0)
			return true;
	return false;
}

static void add_denied(struct tripwires *t, const char *name, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < t->n_denied; i++)
		if (strcmp(t->denied[i].name, name) == 0)
			break;
	if (i == t->n_denied) {
		if (t->n_denied == TRIPWIRE_NAMES) {
			/* the last slot becomes "other" */
			i = TRIPWIRE_NAMES - 1;
			snprintf(t->denied[i].name, TRIPWIRE_NAME_LEN, "other");
		} else {
			snprintf(t->denied[i].name, TRIPWIRE_NAME_LEN, "%s", name);
			t->n_denied++;
		}
	}
	t->denied[i].count += count;
}

void tripwires_denied(struct tripwires *t, const char *name)
{
	add_denied(t, name, 1);
}

void tripwires_merge(struct tripwires *dst, const struct tripwires *src)
{
	dst->uncounted |= src->uncounted;
	dst->network_attempts += src->network_attempts;
	dst->metadata_probes += src->metadata_probes;
	for (uint32_t i = 0; i < src->n_destinations; i++)
		add_dest(dst, src->destinations[i]);
	for (uint32_t i = 0; i < src->n_denied; i++)
		add_denied(dst, src->denied[i].name, src->denied[i].count);
	dst->writes_denied += src->writes_denied;
	dst->limit_hits |= src->limit_hits;
	dst->lingering_processes += src->lingering_processes;
}

uint64_t tripwires_escapes(const struct tripwires *t)
{
	uint64_t n = (uint64_t)t->metadata_probes + t->writes_denied;

	for (uint32_t i = 0; i < t->n_denied; i++)
		n += t->denied[i].count;
	return n;
}

uint64_t tripwires_total(const struct tripwires *t)
{
	uint64_t n = tripwires_escapes(t) - t->metadata_probes + t->network_attempts + t->lingering_processes;

	for (unsigned b = 0; b < N_LIMITS; b++)
		n += (t->limit_hits >> b) & 1;
	return n;
}

const char *tripwire_limit_name(unsigned bit)
{
	for (unsigned b = 0; b < N_LIMITS; b++)
		if (bit == 1u << b)
			return limit_names[b];
	return NULL;
}

static json_t *counter(const struct tripwires *t, unsigned what, uint32_t n)
{
	return (t->uncounted & what) ? json_null() : json_integer(n);
}

json_t *tripwires_to_json(const struct tripwires *t)
{
	json_t *o = json_object(), *dests = json_array(), *denied = json_object(), *limits = json_array();

	if (!o || !dests || !denied || !limits) {
		json_decref(o);
		json_decref(dests);
		json_decref(denied);
		json_decref(limits);
		return NULL;
	}
	for (uint32_t i = 0; i < t->n_destinations; i++)
		json_array_append_new(dests, json_string(t->destinations[i]));
	for (uint32_t i = 0; i < t->n_denied; i++)
		json_object_set_new(denied, t->denied[i].name, json_integer(t->denied[i].count));
	for (unsigned b = 0; b < N_LIMITS; b++)
		if (t->limit_hits & (1u << b))
			json_array_append_new(limits, json_string(limit_names[b]));
	json_object_set_new(o, "network_attempts", counter(t, TW_NETWORK, t->network_attempts));
	if (t->uncounted & TW_NETWORK) {
		json_decref(dests);
		json_object_set_new(o, "destinations", json_null());
	} else {
		json_object_set_new(o, "destinations", dests);
	}
	json_object_set_new(o, "metadata_probes", counter(t, TW_NETWORK, t->metadata_probes));
	if (t->uncounted & TW_SYSCALLS) {
		json_decref(denied);
		json_object_set_new(o, "denied_syscalls", json_null());
	} else {
		json_object_set_new(o, "denied_syscalls", denied);
	}
	json_object_set_new(o, "writes_denied", counter(t, TW_WRITES, t->writes_denied));
	json_object_set_new(o, "limit_hits", limits);
	json_object_set_new(o, "lingering_processes", counter(t, TW_LINGERING, t->lingering_processes));
	return o;
}

static int count(const json_t *o, const char *key, unsigned what, uint32_t *n, unsigned *uncounted)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (json_is_null(v)) {
		*uncounted |= what;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
		return -1;
	*n = (uint32_t)json_integer_value(v);
	return 0;
}

int tripwires_from_json(const json_t *o, struct tripwires *t)
{
	const json_t *dests = json_object_get(o, "destinations"), *denied = json_object_get(o, "denied_syscalls");
	const json_t *limits = json_object_get(o, "limit_hits"), *v;
	const char *key;
	size_t i;

	tripwires_init(t);
	if (!json_is_object(o))
		return 0;
	if (count(o, "network_attempts", TW_NETWORK, &t->network_attempts, &t->uncounted) < 0 ||
	    count(o, "metadata_probes", TW_NETWORK, &t->metadata_probes, &t->uncounted) < 0 ||
	    count(o, "writes_denied", TW_WRITES, &t->writes_denied, &t->uncounted) < 0 ||
	    count(o, "lingering_processes", TW_LINGERING, &t->lingering_processes, &t->uncounted) < 0)
		return -1;
	json_array_foreach(dests, i, v) {
		if (!json_is_string(v))
			return -1;
		add_dest(t, json_string_value(v));
	}
	if (json_is_null(denied))
		t->uncounted |= TW_SYSCALLS;
	json_object_foreach((json_t *)denied, key, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
			return -1;
		add_denied(t, key, (uint32_t)json_integer_value(v));
	}
	json_array_foreach(limits, i, v) {
		for (unsigned b = 0; b < N_LIMITS; b++)
			if (json_is_string(v) && strcmp(json_string_value(v), limit_names[b]) == 0)
				t->limit_hits |= 1u << b;
	}
	return 0;
}

char *tripwires_to_text(const struct tripwires *t)
{
	json_t *o = tripwires_to_json(t);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return text;
}

int tripwires_from_text(const char *text, struct tripwires *t)
{
	json_t *o;
	int r;

	if (!text) {
		tripwires_init(t);
		return 0;
	}
	o = json_loads(text, 0, NULL);
	r = o ? tripwires_from_json(o, t) : -1;
	json_decref(o);
	return r;
}
