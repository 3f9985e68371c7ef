/* fuzz-image.c - fuzz target: the image reference parser (NAME@sha256:HEX) and the image.json reader */
#include <string.h>

#include "fuzz.h"
#include "sandbox/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct image_ref ref;
	struct image_info info;
	struct sd_error err;

	FUZZ_CHECK(s != NULL);
	memcpy(s, data, size);
	s[size] = '\0';

	memset(&err, 0, sizeof(err));
	if (image_ref_parse(s, &ref, &err) == 0) {
		/* accepted: a valid name, and a digest only in full */
		size_t n = strlen(ref.name);

		FUZZ_CHECK(n > 0 && n <= IMAGE_NAME_MAX);
		FUZZ_CHECK(strspn(ref.name, "abcdefghijklmnopqrstuvwxyz0123456789._-") == n);
		FUZZ_CHECK(ref.digest[0] == '\0' || (strlen(ref.digest) == 71 && strncmp(ref.digest, "sha256:", 7) == 0 &&
						      strspn(ref.digest + 7, "0123456789abcdef") == 64));
		FUZZ_CHECK(strncmp(s, ref.name, n) == 0 && (s[n] == '\0' || s[n] == '@'));
	} else {
		FUZZ_CHECK(err.msg[0] != '\0');
	}

	memset(&err, 0, sizeof(err));
	if (image_info_parse((const char *)data, size, &info, &err) == 0) {
		char full[IMAGE_NAME_MAX + IMAGE_DIGEST_SIZE + 2];

		snprintf(full, sizeof(full), "%s@%s", info.name, info.digest);
		FUZZ_CHECK(image_ref_parse(full, &ref, NULL) == 0 && ref.digest[0]);
		for (size_t i = 0; i < info.n_packages; i++)
			FUZZ_CHECK(info.packages[i] != NULL);
		image_info_release(&info);
	} else {
		FUZZ_CHECK(err.msg[0] != '\0');
	}
	image_ref_parse(s, &ref, NULL);
	free(s);
	return 0;
}
