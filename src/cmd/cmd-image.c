/* cmd-image.c - `sandeval image`: build, list, remove and digest the root filesystems sandboxes run on */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "sandbox/image.h"
#include "base/util.h"

static const char image_usage[] =
	"usage: sandeval image build NAME [--packages PKG,...] [--suite SUITE] [--mirror URL]\n"
	"       sandeval image build NAME --from-host PATH,...\n"
	"       sandeval image ls [--json]\n"
	"       sandeval image rm NAME[@sha256:HEX]\n"
	"       sandeval image digest host|NAME[@sha256:HEX]\n"
	"\n"
	"Images are read-only root filesystems for `sandeval exec --image NAME[@sha256:HEX]`.\n"
	"\n"
	"  build      debootstrap a minimal Debian (--variant=minbase) with the listed\n"
	"             packages (root only; Debian's mirror by default), or copy host files\n"
	"             (--from-host: programs with their shared libraries, or whole\n"
	"             directories); store it read-only under its content digest and print\n"
	"             NAME@sha256:HEX. Building a name again adds a new digest beside the old.\n"
	"  ls         every build, newest first per name, and the host image\n"
	"  rm         remove every build of NAME, or the one with that digest\n"
	"  digest     host: compute the host image's digest (all of /usr: slow) and cache it\n"
	"             for results to report; NAME: recompute and compare with the stored one\n"
	"\n"
	"Exit status: 0 on success, 1 when `digest` finds an image changed, 2 for errors.\n";

#define fail(...) cmd_fail("image", __VA_ARGS__)

/* Split "a,b,c" in place into a NULL-terminated array (malloc'd). */
static char **split_list(char *s, size_t *n)
{
	size_t cap = 1;
	char **v, *save = NULL;

	for (const char *c = s; *c; c++)
		cap += *c == ',';
	v = calloc(cap + 1, sizeof(char *));
	*n = 0;
	if (!v)
		return NULL;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save))
		v[(*n)++] = t;
	return v;
}

static int image_build_cmd(int argc, char **argv, const char *store)
{
	static const struct option opts[] = {
		{ "packages", required_argument, NULL, 'p' }, { "from-host", required_argument, NULL, 'f' },
		{ "suite", required_argument, NULL, 's' }, { "mirror", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct image_build_opts o = { .log_fd = 2 };
	struct image_info info;
	struct sd_error err = { 0 };
	cleanup_free char **pk = NULL;
	cleanup_free char **fh = NULL;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			free(pk);
			pk = split_list(optarg, &o.n_packages);
			o.packages = (const char *const *)pk;
			break;
		case 'f':
			free(fh);
			fh = split_list(optarg, &o.n_from_host);
			o.from_host = (const char *const *)fh;
			break;
		case 's':
			o.suite = optarg;
			break;
		case 'm':
			o.mirror = optarg;
			break;
		case ':':
			return fail("build: option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("build: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return fail("build: give one NAME (usage: sandeval image build NAME [--packages PKG,...|--from-host PATH,...])");
	if ((o.packages && !pk) || (o.from_host && !fh))
		return fail("build: out of memory");
	if (o.n_packages && o.n_from_host)
		return fail("build: --packages and --from-host do not mix");
	o.name = argv[optind];
	if (image_build(store, &o, &info, &err) < 0)
		return fail("build: %s", err.msg);
	fprintf(stderr, "sandeval: image: built '%s' (%s): %llu entries, %llu bytes in files, read-only in '%s'\n",
		info.name, info.source, (unsigned long long)info.files, (unsigned long long)info.bytes, info.rootfs);
	printf("%s@%s\n", info.name, info.digest);
	image_info_release(&info);
	return 0;
}

static int image_ls_cmd(int argc, char **argv, const char *store)
{
	struct image_info *list;
	struct sd_error err = { 0 };
	char host[IMAGE_DIGEST_SIZE], cache[4200];
	bool as_json = argc == 2 && strcmp(argv[1], "--json") == 0;
	size_t n;

	if (argc > 2 || (argc == 2 && !as_json))
		return fail("ls: unknown argument '%s'", argv[1]);
	if (image_list(store, &list, &n, &err) < 0)
		return fail("ls: %s", err.msg);
	snprintf(cache, sizeof(cache), "%s/host.digest", store);
	image_host_digest(cache, false, host, NULL);
	if (as_json) {
		json_t *h = json_pack("{s:s, s:o, s:s}", "name", "host",
				      "digest", host[0] ? json_string(host) : json_null(), "source", "the host's own files");
		char *line = h ? json_dumps(h, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

		if (line)
			puts(line);
		free(line);
		json_decref(h);
		for (size_t i = 0; i < n; i++) {
			json_t *pk = json_array(), *o;

			for (size_t k = 0; k < list[i].n_packages; k++)
				json_array_append_new(pk, json_string(list[i].packages[k]));
			o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:s}", "name", list[i].name,
				      "digest", list[i].digest, "created", list[i].created, "source", list[i].source,
				      "packages", pk, "files", (json_int_t)list[i].files, "bytes", (json_int_t)list[i].bytes,
				      "rootfs", list[i].rootfs);
			line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
			if (line)
				puts(line);
			free(line);
			json_decref(o);
		}
	} else {
		printf("%-20s %-71s %-20s %s\n", "NAME", "DIGEST", "CREATED", "SOURCE");
		printf("%-20s %-71s %-20s %s\n", "host", host[0] ? host : "(not computed: sandeval image digest host)",
		       "-", "the host's own files");
		for (size_t i = 0; i < n; i++)
			printf("%-20s %-71s %-20.19s %s (%llu entries, %llu bytes)\n", list[i].name, list[i].digest,
			       list[i].created, list[i].source, (unsigned long long)list[i].files,
			       (unsigned long long)list[i].bytes);
	}
	image_list_free(list, n);
	return 0;
}

static int image_rm_cmd(int argc, char **argv, const char *store)
{
	struct image_ref ref;
	struct sd_error err = { 0 };
	int removed;

	if (argc != 2)
		return fail("rm: give one NAME[@sha256:HEX]");
	if (image_ref_parse(argv[1], &ref, &err) < 0)
		return fail("rm: %s", err.msg);
	removed = image_remove(store, &ref, &err);
	if (removed < 0)
		return fail("rm: %s", err.msg);
	fprintf(stderr, "sandeval: image: removed %d build(s) of '%s'\n", removed, ref.name);
	return 0;
}

static int image_digest_cmd(int argc, char **argv, const char *store)
{
	struct image_ref ref;
	struct image_info info;
	struct sd_error err = { 0 };
	char digest[IMAGE_DIGEST_SIZE], cache[4200];

	if (argc != 2)
		return fail("digest: give host or NAME[@sha256:HEX]");
	if (strcmp(argv[1], "host") == 0) {
		snprintf(cache, sizeof(cache), "%s/host.digest", store);
		if (image_host_digest(cache, true, digest, &err) < 0)
			return fail("digest: host: %s", err.msg);
		printf("host@%s\n", digest);
		return 0;
	}
	if (image_ref_parse(argv[1], &ref, &err) < 0 || image_resolve(store, &ref, &info, &err) < 0)
		return fail("digest: %s", err.msg);
	if (image_digest_tree(info.rootfs, digest, NULL, NULL, &err) < 0) {
		image_info_release(&info);
		return fail("digest: %s", err.msg);
	}
	printf("%s@%s\n", info.name, digest);
	if (strcmp(digest, info.digest) != 0) {
		fprintf(stderr, "sandeval: image: '%s' changed since it was built: stored as %s, now %s\n",
			info.name, info.digest, digest);
		image_info_release(&info);
		return EXIT_RESULT_OTHER;
	}
	image_info_release(&info);
	return 0;
}

int cmd_image(int argc, char **argv)
{
	struct sd_error err = { 0 };
	char store[4096];
	bool building = argc >= 2 && strcmp(argv[1], "build") == 0;

	if (argc < 2)
		return fail("no subcommand (usage: sandeval image build|ls|rm|digest ...)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(image_usage, stdout);
		return 0;
	}
	if (image_store_dir(store, sizeof(store), building || strcmp(argv[1], "digest") == 0, &err) < 0)
		return fail("%s", err.msg);
	if (building)
		return image_build_cmd(argc - 1, argv + 1, store);
	if (strcmp(argv[1], "ls") == 0)
		return image_ls_cmd(argc - 1, argv + 1, store);
	if (strcmp(argv[1], "rm") == 0)
		return image_rm_cmd(argc - 1, argv + 1, store);
	if (strcmp(argv[1], "digest") == 0)
		return image_digest_cmd(argc - 1, argv + 1, store);
	return fail("unknown subcommand '%s' (build, ls, rm, digest)", argv[1]);
}
