/* fuzz-file-dest.c - fuzz target: sandbox_config_check() on untrusted --file destinations, --env, --image and --backend
 *
 * Whatever it accepts as a destination must name a file strictly beneath
 * /work: no "..", "." or empty components, no trailing '/'.
 */
#include <string.h>

#include "fuzz.h"
#include "sandbox/image.h"
#include "sandbox/sandbox.h"

/* An independent statement of the rule. */
static int dest_ok(const char *dest)
{
	const char *p = dest;

	if (strncmp(p, "/work/", 6) == 0)
		p += 6;
	if (*p == '/' || *p == '\0' || strlen(p) > 1024)
		return 0;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p == '\0')
			return 1;
		p++;	/* past '/': another component must follow */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *argv[] = { (char *)"/bin/true", NULL };
	char *s = malloc(size + 1);
	struct sandbox_config cfg;
	struct sandbox_file file;
	struct sd_error err;
	char *env[1];
	int r;

	FUZZ_CHECK(s != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	sandbox_config_init(&cfg);
	cfg.argv = argv;

	file.dest = s;
	file.src = "/dev/null";
	cfg.files = &file;
	cfg.n_files = 1;
	memset(&err, 0, sizeof(err));
	r = sandbox_config_check(&cfg, &err);
	FUZZ_CHECK((r == 0) == dest_ok(s));
	if (r < 0)
		FUZZ_CHECK(strncmp(err.msg, "file destination '", 18) == 0);

	cfg.n_files = 0;
	env[0] = s;
	cfg.env = env;
	cfg.n_env = 1;
	r = sandbox_config_check(&cfg, NULL);
	FUZZ_CHECK((r == 0) == (strchr(s, '=') != NULL && s[0] != '='));

	cfg.n_env = 0;
	cfg.image = s;
	r = sandbox_config_check(&cfg, NULL);
	{
		struct image_ref ref;

		FUZZ_CHECK((r == 0) == (strcmp(s, "host") == 0 || s[0] == '/' || image_ref_parse(s, &ref, NULL) == 0));
	}
	cfg.image = "host";
	cfg.backend = s;
	r = sandbox_config_check(&cfg, NULL);
	if (r == 0) {
		bool known = false;

		for (const char *const *b = sandbox_backends(); *b; b++)
			known |= strcmp(*b, s) == 0;
		FUZZ_CHECK(known);
	}
	free(s);
	return 0;
}
