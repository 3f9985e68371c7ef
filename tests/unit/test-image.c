/* test-image.c - unit tests of the image module: digest canonicalisation, references, image.json, the store */
#include "fixture.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/image.h"
#include "base/util.h"

static char *dir;	/* a fresh temp directory per test */

/* Stored images are read-only: give the owner write access back to remove them. */
static int writable(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D || type == FTW_DNR)
		chmod(path, (sb->st_mode & 07777) | 0700);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	dir = fx_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(dir, writable, 32, FTW_PHYS);
	fx_rm_rf(dir);
	free(dir);
	return 0;
}

/* A small tree: a dir, two files, a symlink, a FIFO. */
static char *make_tree(const char *name)
{
	char *root = fx_str("%s/%s", dir, name);
	char *p;

	assert_int_equal(mkdir(root, 0755), 0);
	p = fx_str("%s/bin", root);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	fx_write_in(root, "bin/tool", "#!/bin/sh\necho hi\n");
	p = fx_str("%s/bin/tool", root);
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	fx_write_in(root, "data", "contents\n");
	p = fx_str("%s/link", root);
	assert_int_equal(symlink("bin/tool", p), 0);
	free(p);
	p = fx_str("%s/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	return root;
}

static void digest_of(const char *root, char out[IMAGE_DIGEST_SIZE])
{
	struct sd_error err = { 0 };

	if (image_digest_tree(root, out, NULL, NULL, &err) < 0)
		fail_msg("image_digest_tree('%s'): %s", root, err.msg);
	assert_int_equal(strlen(out), 71);
	assert_memory_equal(out, "sha256:", 7);
}

static void test_digest_same_tree_same_digest(void **state)
{
	char *a = make_tree("a"), *b = make_tree("b");
	char da[IMAGE_DIGEST_SIZE], db[IMAGE_DIGEST_SIZE], da2[IMAGE_DIGEST_SIZE];
	uint64_t files = 0, bytes = 0;
	struct sd_error err = { 0 };

	(void)state;
	digest_of(a, da);
	digest_of(b, db);
	digest_of(a, da2);
	assert_string_equal(da, db);	/* same content elsewhere, made at another time */
	assert_string_equal(da, da2);
	assert_int_equal(image_digest_tree(a, da2, &files, &bytes, &err), 0);
	assert_int_equal(files, 6);	/* /, bin, bin/tool, data, fifo, link */
	assert_int_equal(bytes, strlen("#!/bin/sh\necho hi\n") + strlen("contents\n"));
	/* times and owners are not part of it */
	{
		char *p = fx_str("%s/data", a);
		struct timespec t[2] = { { 1, 0 }, { 1, 0 } };

		assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
		free(p);
	}
	digest_of(a, da2);
	assert_string_equal(da, da2);
	free(a);
	free(b);
}

/* Each change, made to a fresh copy, must change the digest. */
static void test_digest_any_change_changes_it(void **state)
{
	static const char *const changes[] = {
		"content", "mode", "link target", "type", "name", "new file", "removed file", "empty dir",
	};
	char *base = make_tree("base");
	char d0[IMAGE_DIGEST_SIZE], seen[8][IMAGE_DIGEST_SIZE];

	(void)state;
	digest_of(base, d0);
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		char *name = fx_str("t%zu", i), *t = make_tree(name), *p;

		switch (i) {
		case 0:
			fx_rm_rf(p = fx_str("%s/data", t));
			fx_write_in(t, "data", "Contents\n");
			break;
		case 1:
			assert_int_equal(chmod(p = fx_str("%s/data", t), 0600), 0);
			break;
		case 2:
			unlink(p = fx_str("%s/link", t));
			assert_int_equal(symlink("data", p), 0);
			break;
		case 3:	/* the symlink becomes a file holding its target */
			unlink(p = fx_str("%s/link", t));
			fx_write(p, "bin/tool");
			break;
		case 4:
			p = fx_str("%s/data", t);
			{
				char *q = fx_str("%s/datb", t);

				assert_int_equal(rename(p, q), 0);
				free(q);
			}
			break;
		case 5:
			fx_write(p = fx_str("%s/extra", t), "");
			break;
		case 6:
			unlink(p = fx_str("%s/fifo", t));
			break;
		default:
			assert_int_equal(mkdir(p = fx_str("%s/empty", t), 0755), 0);
			break;
		}
		free(p);
		digest_of(t, seen[i]);
		if (strcmp(seen[i], d0) == 0)
			fail_msg("a change of %s left the digest as it was", changes[i]);
		for (size_t k = 0; k < i; k++)
			if (strcmp(seen[i], seen[k]) == 0)
				fail_msg("changes of %s and %s give one digest", changes[i], changes[k]);
		free(t);
		free(name);
	}
	free(base);
}

/* Names are length-prefixed in the listing: a name holding a newline and
 * what looks like a record is one entry, not two. */
static void test_digest_unambiguous_names(void **state)
{
	char *a = fx_str("%s/a", dir), *b = fx_str("%s/b", dir);
	char da[IMAGE_DIGEST_SIZE], db[IMAGE_DIGEST_SIZE];

	(void)state;
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	fx_write_in(a, "x 0:\nf 0644 2:y", "");
	fx_write_in(b, "x 0:", "");
	fx_write_in(b, "y", "");
	digest_of(a, da);
	digest_of(b, db);
	assert_string_not_equal(da, db);
	free(a);
	free(b);
}

static void test_ref_parse(void **state)
{
	static const char *const good[] = {
		"py", "python3.11", "a-b_c.d", "0abc",
		"py@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	};
	static const char *const bad[] = {
		"", "Py", "-py", ".py", "p/y", "py@", "py@sha256:", "py@sha512:00",
		"py@sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
		"py@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
		"py@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
		"@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	struct image_ref ref;
	struct sd_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (image_ref_parse(good[i], &ref, &err) < 0)
			fail_msg("'%s' refused: %s", good[i], err.msg);
	}
	assert_string_equal(ref.name, "py");
	assert_string_equal(ref.digest, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (image_ref_parse(bad[i], &ref, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
}

static void test_info_parse(void **state)
{
	static const char ok[] = "{\"name\":\"py\",\"digest\":\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
				 "\"created\":\"2026-01-01T00:00:00.000000000Z\",\"source\":\"host files\","
				 "\"packages\":[\"/bin/sh\"],\"files\":3,\"bytes\":10}";
	static const char *const bad[] = {
		"", "[]", "{}", "{\"name\":\"py\"}", "{\"name\":\"Py\",\"digest\":\"sha256:00\"}",
		"{\"name\":\"py\",\"digest\":\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\"packages\":[1]}",
		"{\"name\":\"py\",\"name\":\"py\"}",
	};
	struct image_info info;
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(image_info_parse(ok, strlen(ok), &info, &err), 0);
	assert_string_equal(info.name, "py");
	assert_int_equal(info.n_packages, 1);
	assert_string_equal(info.packages[0], "/bin/sh");
	assert_int_equal(info.files, 3);
	image_info_release(&info);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (image_info_parse(bad[i], strlen(bad[i]), &info, &err) == 0)
			fail_msg("image.json '%s' accepted", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
}

/* Build from host files twice with different contents: two digests, both
 * resolvable, the name alone meaning the newest; pins that do not match are refused. */
static void test_store_build_resolve_rotate_remove(void **state)
{
	char *store = fx_str("%s/store", dir), *src = fx_str("%s/src", dir), *f = fx_str("%s/src/file", dir);
	const char *paths[] = { src };
	struct image_build_opts o = { .name = "t", .from_host = paths, .n_from_host = 1, .log_fd = -1 };
	struct image_info a, b, r;
	struct image_ref ref;
	struct sd_error err = { 0 };
	char again[IMAGE_DIGEST_SIZE + 8];
	struct stat sb;

	(void)state;
	assert_int_equal(mkdir(store, 0755), 0);
	assert_int_equal(mkdir(src, 0755), 0);
	fx_write(f, "one\n");
	if (image_build(store, &o, &a, &err) < 0)
		fail_msg("image_build: %s", err.msg);
	/* stored read-only under its digest, and the digest is the tree's */
	assert_int_equal(stat(a.rootfs, &sb), 0);
	assert_int_equal(sb.st_mode & 0222, 0);
	digest_of(a.rootfs, again);
	assert_string_equal(again, a.digest);
	fx_rm_rf(f);
	fx_write(f, "two\n");
	if (image_build(store, &o, &b, &err) < 0)
		fail_msg("image_build: %s", err.msg);
	assert_string_not_equal(a.digest, b.digest);

	assert_int_equal(image_ref_parse("t", &ref, &err), 0);
	assert_int_equal(image_resolve(store, &ref, &r, &err), 0);
	assert_string_equal(r.digest, b.digest);	/* the newest */
	image_info_release(&r);
	snprintf(again, sizeof(again), "t@%s", a.digest);
	assert_int_equal(image_ref_parse(again, &ref, &err), 0);
	assert_int_equal(image_resolve(store, &ref, &r, &err), 0);
	assert_string_equal(r.digest, a.digest);	/* the old one, still there */
	image_info_release(&r);
	assert_int_equal(image_ref_parse("t@sha256:0000000000000000000000000000000000000000000000000000000000000000",
					 &ref, &err), 0);
	assert_int_equal(image_resolve(store, &ref, &r, &err), -1);
	assert_contains(err.msg, "pinned");

	snprintf(again, sizeof(again), "t@%s", a.digest);
	assert_int_equal(image_ref_parse(again, &ref, &err), 0);
	assert_int_equal(image_remove(store, &ref, &err), 1);
	assert_int_equal(image_resolve(store, &ref, &r, &err), -1);
	assert_int_equal(image_ref_parse("t", &ref, &err), 0);
	assert_int_equal(image_remove(store, &ref, &err), 1);
	assert_int_equal(image_resolve(store, &ref, &r, &err), -1);
	assert_contains(err.msg, "no image 't'");
	image_info_release(&a);
	image_info_release(&b);
	free(store);
	free(src);
	free(f);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_digest_same_tree_same_digest),
		FX(test_digest_any_change_changes_it),
		FX(test_digest_unambiguous_names),
		FX(test_ref_parse),
		FX(test_info_parse),
		FX(test_store_build_resolve_rotate_remove),
	};

	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
