/* tripwire.h - what a sandboxed program tried that it may not: counters kept by the supervisor, their JSON */
#ifndef SANDEVAL_TRIPWIRE_H
#define SANDEVAL_TRIPWIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRIPWIRE_DESTS 4	/* destinations kept of network attempts (the first ones) */
#define TRIPWIRE_DEST_LEN 64
#define TRIPWIRE_NAMES 16	/* distinct denied system calls named; the rest count as "other" */
#define TRIPWIRE_NAME_LEN 24

/* Limits that fired (a bit each). */
enum tripwire_limit {
	TW_LIMIT_CPU = 1 << 0,		/* the whole CPU budget used */
	TW_LIMIT_MEMORY = 1 << 1,
	TW_LIMIT_PIDS = 1 << 2,		/* a fork or clone refused at the pids limit (fork bomb) */
	TW_LIMIT_OUTPUT = 1 << 3,	/* output flood */
	TW_LIMIT_FILE_SIZE = 1 << 4,
};

/* Counters a backend could not keep (a bit each); they show as null. */
enum tripwire_counter {
	TW_NETWORK = 1 << 0,		/* network_attempts, destinations, metadata_probes */
	TW_SYSCALLS = 1 << 1,		/* denied_syscalls */
	TW_WRITES = 1 << 2,		/* writes_denied */
	TW_LINGERING = 1 << 3,		/* lingering_processes */
};

struct tripwires {
	unsigned uncounted;		/* enum tripwire_counter bits */
	uint32_t network_attempts;
	uint32_t metadata_probes;
	uint32_t n_destinations;
	char destinations[TRIPWIRE_DESTS][TRIPWIRE_DEST_LEN];
	uint32_t n_denied;
	struct { char name[TRIPWIRE_NAME_LEN]; uint32_t count; } denied[TRIPWIRE_NAMES];
	uint32_t writes_denied;
	unsigned limit_hits;		/* enum tripwire_limit bits */
	uint32_t lingering_processes;
};

void tripwires_init(struct tripwires *t);
/* Count one network attempt towards DEST (a text such as "169.254.169.254:80";
 * NULL: not known, none kept); METADATA: a metadata probe. */
void tripwires_network(struct tripwires *t, const char *dest, bool metadata);
/* Whether the LEN bytes at PAYLOAD are a DNS query (RFC 1035: a header with
 * QR clear and at least one question) whose first question names a cloud
 * metadata host (tripwire_metadata_names, in any letter case). Reads at
 * most LEN bytes; anything else is false. */
bool tripwires_dns_metadata(const void *payload, size_t len);
/* The names that count, NULL-terminated. */
extern const char *const tripwire_metadata_names[];
/* Count one refused call of system call NAME. */
void tripwires_denied(struct tripwires *t, const char *name);
/* Add SRC's counts to DST (a sample's sandboxes together). */
void tripwires_merge(struct tripwires *dst, const struct tripwires *src);
/* Escape-class events: denied system calls, metadata probes, writes outside
 * the writable directories (what the circuit breaker counts). */
uint64_t tripwires_escapes(const struct tripwires *t);
/* Every counter together (0: a clean run). */
uint64_t tripwires_total(const struct tripwires *t);
/* Names of the limits in enum tripwire_limit order, and a limit's bit by name (0: none). */
const char *tripwire_limit_name(unsigned bit);

/* As a JSON object: {network_attempts, destinations, metadata_probes,
 * denied_syscalls {name: count}, writes_denied, limit_hits [names],
 * lingering_processes}; uncounted ones null. NULL on ENOMEM. */
json_t *tripwires_to_json(const struct tripwires *t);
/* From that object (NULL or not an object: all zero). 0, or -1 when a member has the wrong type. */
int tripwires_from_json(const json_t *o, struct tripwires *t);
/* The object as compact text (malloc'd; NULL on ENOMEM), and back (NULL text: all zero). */
char *tripwires_to_text(const struct tripwires *t);
int tripwires_from_text(const char *text, struct tripwires *t);

#endif
