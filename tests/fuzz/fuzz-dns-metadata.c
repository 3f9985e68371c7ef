/* fuzz-dns-metadata.c - fuzz target: tripwires_dns_metadata (tripwire.c), the DNS question a sandboxed program sends, read by the supervisor
 *
 * Bytes the program chose, read from its memory: the parser reads only the
 * LEN bytes it is given (a copy of exactly that size, so ASan sees an
 * over-read), and it says "metadata" exactly when the model does: a header
 * with QR clear, opcode 0 and QDCOUNT > 0, then the labels of one of
 * tripwire_metadata_names (any letter case, no pointer) ending in the root
 * label, then QTYPE and QCLASS. The first input byte picks: 0, the input as
 * it is; 1, a well-formed query for the name that byte 2 picks, with the
 * letter case of the following bytes, which must count.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "base/tripwire.h"
#include "fuzz.h"

static bool model(const unsigned char *p, size_t len)
{
	if (len < 12 || (p[2] & 0xf8) || (p[4] == 0 && p[5] == 0))
		return false;
	for (size_t i = 0; tripwire_metadata_names[i]; i++) {
		const char *name = tripwire_metadata_names[i];
		size_t at = 12;
		bool ok = true;

		while (ok && *name) {
			size_t n = strcspn(name, ".");

			ok = at + 1 + n <= len && p[at] == n;
			for (size_t k = 0; ok && k < n; k++)
				ok = tolower(p[at + 1 + k]) == name[k];
			at += 1 + n;
			name += n + (name[n] == '.');
		}
		if (ok && at + 1 + 4 <= len && p[at] == 0)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf;
	size_t n = 0;

	if (size == 0)
		return 0;
	if (data[0] & 1) {
		size_t names = 0, at = 12;
		const char *name;

		while (tripwire_metadata_names[names])
			names++;
		name = tripwire_metadata_names[size > 1 ? data[1] % names : 0];
		buf = malloc(12 + strlen(name) + 2 + 4);
		FUZZ_CHECK(buf != NULL);
		memset(buf, 0, 12);
		buf[1] = 0x01;	/* RD */
		buf[5] = 1;	/* QDCOUNT */
		for (const char *l = name; *l;) {
			size_t k = strcspn(l, ".");

			buf[at++] = (unsigned char)k;
			for (size_t i = 0; i < k; i++, n++)
				buf[at++] = (unsigned char)(2 + n < size && (data[2 + n] & 1) ? toupper(l[i]) : l[i]);
			l += k + (l[k] == '.');
		}
		buf[at++] = 0;
		memcpy(buf + at, "\0\1\0\1", 4);
		at += 4;
		FUZZ_CHECK(tripwires_dns_metadata(buf, at));
		FUZZ_CHECK(!tripwires_dns_metadata(buf, at - 1));	/* QCLASS cut short */
		free(buf);
		return 0;
	}
	buf = calloc(1, size - 1 ? size - 1 : 1);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, data + 1, size - 1);
	FUZZ_CHECK(tripwires_dns_metadata(buf, size - 1) == model(buf, size - 1));
	free(buf);
	return 0;
}
