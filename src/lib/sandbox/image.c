/* image.c - the image store: references, image.json, list, resolve, remove, and the host image's cached digest
 *
 * Layout: STORE/NAME/<64 hex>/rootfs (read-only) and STORE/NAME/<64 hex>/image.json
 * (name, digest, created, source, packages, files, bytes). The directory name
 * is the digest, so two builds of one name sit side by side ("rotation": a
 * rebuild adds a digest, runs recorded with the old one still name it). The
 * digest is computed once, when the image is built; `sandeval image verify`
 * recomputes it.
 */
#define _GNU_SOURCE
#include "sandbox/image-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define INFO_MAX (1 << 20)
#define HEX "0123456789abcdef"

int image_store_dir(char *buf, size_t size, bool create, struct sd_error *err)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME"), *own = getenv("SANDEVAL_IMAGES");
	int n;

	if (own && own[0] == '/')
		n = snprintf(buf, size, "%s", own);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "/var/lib/sandeval/images");
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/sandeval/images", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.local/share/sandeval/images", home);
	else
		return sd_error_set(err, ENOENT, "no image store: set HOME or XDG_DATA_HOME");
	if (n < 0 || (size_t)n >= size)
		return sd_error_set(err, ENAMETOOLONG, "image store path too long");
	if (create) {
		for (char *p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
			if (p)
				*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
				int e = errno;

				if (p)
					*p = '/';
				return sd_error_errno(err, e, "cannot create '%s'", buf);
			}
			if (!p)
				break;
			*p = '/';
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ image.json */

void image_info_release(struct image_info *info)
{
	for (size_t i = 0; i < info->n_packages; i++)
		free(info->packages[i]);
	free(info->packages);
	info->packages = NULL;
	info->n_packages = 0;
}

static int copy_field(json_t *o, const char *key, char *dst, size_t size, bool required, struct sd_error *err)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			return sd_error_set(err, EINVAL, "image.json: no '%s'", key);
		dst[0] = '\0';
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) >= size || strlen(json_string_value(v)) != json_string_length(v))
		return sd_error_set(err, EINVAL, "image.json: '%s' is not a string of at most %zu bytes", key, size - 1);
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

int image_info_parse(const char *text, size_t len, struct image_info *info, struct sd_error *err)
{
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *pk, *v;
	struct image_info in = { 0 };
	struct image_ref ref;
	int ret = -1;

	if (!o)
		return sd_error_set(err, EINVAL, "image.json:%d:%d: %s", je.line, je.column, je.text);
	if (!json_is_object(o)) {
		sd_error_set(err, EINVAL, "image.json: not an object");
		goto out;
	}
	if (copy_field(o, "name", in.name, sizeof(in.name), true, err) < 0 ||
	    copy_field(o, "digest", in.digest, sizeof(in.digest), true, err) < 0 ||
	    copy_field(o, "created", in.created, sizeof(in.created), false, err) < 0 ||
	    copy_field(o, "source", in.source, sizeof(in.source), false, err) < 0)
		goto out;
	{
		char full[IMAGE_NAME_MAX + IMAGE_DIGEST_SIZE + 2];

		snprintf(full, sizeof(full), "%s@%s", in.name, in.digest);
		if (image_ref_parse(full, &ref, err) < 0) {
			sd_error_wrap(err, "image.json");
			goto out;
		}
	}
	if ((v = json_object_get(o, "files")) && json_is_integer(v) && json_integer_value(v) >= 0)
		in.files = (uint64_t)json_integer_value(v);
	if ((v = json_object_get(o, "bytes")) && json_is_integer(v) && json_integer_value(v) >= 0)
		in.bytes = (uint64_t)json_integer_value(v);
	pk = json_object_get(o, "packages");
	if (pk) {
		if (!json_is_array(pk) || json_array_size(pk) > 4096) {
			sd_error_set(err, EINVAL, "image.json: 'packages' is not an array of at most 4096 strings");
			goto out;
		}
		in.packages = calloc(json_array_size(pk) + 1, sizeof(char *));
		if (!in.packages) {
			sd_error_errno(err, ENOMEM, "image.json");
			goto out;
		}
		for (size_t i = 0; i < json_array_size(pk); i++) {
			json_t *s = json_array_get(pk, i);

			if (!json_is_string(s) || strlen(json_string_value(s)) != json_string_length(s)) {
				sd_error_set(err, EINVAL, "image.json: packages[%zu] is not a string", i);
				goto out;
			}
			if (!(in.packages[in.n_packages] = strdup(json_string_value(s)))) {
				sd_error_errno(err, ENOMEM, "image.json");
				goto out;
			}
			in.n_packages++;
		}
	}
	*info = in;
	memset(&in, 0, sizeof(in));
	ret = 0;
out:
	image_info_release(&in);
	json_decref(o);
	return ret;
}

int image_info_write(const char *dir, const struct image_info *info, struct sd_error *err)
{
	cleanup_free char *path = xasprintf("%s/image.json", dir);
	json_t *pk = json_array(), *o;
	int r;

	for (size_t i = 0; pk && i < info->n_packages; i++)
		json_array_append_new(pk, json_string(info->packages[i]));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:I}", "name", info->name, "digest", info->digest,
		      "created", info->created, "source", info->source, "packages", pk ? pk : json_array(),
		      "files", (json_int_t)info->files, "bytes", (json_int_t)info->bytes);
	if (!o || !path) {
		json_decref(o);
		return sd_error_errno(err, ENOMEM, "image.json");
	}
	r = json_dump_file(o, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (r < 0 || chmod(path, 0444) < 0)
		return sd_error_errno(err, errno ? errno : EIO, "cannot write '%s'", path);
	return 0;
}

static int read_info(const char *dir, struct image_info *info, struct sd_error *err)
{
	cleanup_free char *path = xasprintf("%s/image.json", dir);
	cleanup_free char *text = NULL;
	size_t len = 0;

	if (!path)
		return sd_error_errno(err, ENOMEM, "image.json");
	if (read_file(path, INFO_MAX, &text, &len, err) < 0)
		return -1;
	if (image_info_parse(text, len, info, err) < 0)
		return sd_error_wrap(err, "'%s'", path);
	snprintf(info->rootfs, sizeof(info->rootfs), "%s/rootfs", dir);
	return 0;
}

/* ------------------------------------------------------------------ store */

static int newest_first(const void *a, const void *b)
{
	const struct image_info *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(y->created, x->created);
}

/* The builds of one name, or of all names when NAME is NULL. */
static int collect(const char *store, const char *name, struct image_info **list, size_t *n, struct sd_error *err)
{
	DIR *top = opendir(store);
	struct dirent *e;
	size_t cap = 0;

	*list = NULL;
	*n = 0;
	if (!top)
		return errno == ENOENT ? 0 : sd_error_errno(err, errno, "cannot open '%s'", store);
	while ((e = readdir(top))) {
		cleanup_free char *ndir = NULL;
		DIR *d;
		struct dirent *b;

		if (!image_name_ok(e->d_name, strlen(e->d_name)) || (name && strcmp(name, e->d_name) != 0))
			continue;
		ndir = xasprintf("%s/%s", store, e->d_name);
		d = ndir ? opendir(ndir) : NULL;
		if (!d)
			continue;
		while ((b = readdir(d))) {
			cleanup_free char *bdir = NULL;
			struct image_info info = { 0 };

			if (strlen(b->d_name) != 64 || strspn(b->d_name, HEX) != 64)
				continue;
			bdir = xasprintf("%s/%s", ndir, b->d_name);
			if (!bdir || read_info(bdir, &info, NULL) < 0)
				continue;	/* a half-built or damaged entry: not an image */
			if (strcmp(info.name, e->d_name) != 0 || strcmp(info.digest + 7, b->d_name) != 0) {
				image_info_release(&info);
				continue;
			}
			if (*n == cap) {
				struct image_info *grown = realloc(*list, (cap = cap ? 2 * cap : 8) * sizeof(**list));

				if (!grown) {
					image_info_release(&info);
					closedir(d);
					closedir(top);
					return sd_error_errno(err, ENOMEM, "image list");
				}
				*list = grown;
			}
			(*list)[(*n)++] = info;
		}
		closedir(d);
	}
	closedir(top);
	if (*n)
		qsort(*list, *n, sizeof(**list), newest_first);
	return 0;
}

int image_list(const char *store, struct image_info **list, size_t *n, struct sd_error *err)
{
	return collect(store, NULL, list, n, err);
}

void image_list_free(struct image_info *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		image_info_release(&list[i]);
	free(list);
}

int image_resolve(const char *store, const struct image_ref *ref, struct image_info *info, struct sd_error *err)
{
	struct image_info *list;
	size_t n, pick = 0;
	int ret = 0;

	if (collect(store, ref->name, &list, &n, err) < 0)
		return -1;
	if (n == 0) {
		image_list_free(list, n);
		return sd_error_set(err, ENOENT, "no image '%s' in '%s' (sandeval image build %s ...)", ref->name, store,
				    ref->name);
	}
	if (ref->digest[0]) {
		for (pick = 0; pick < n && strcmp(list[pick].digest, ref->digest) != 0; pick++)
			;
		if (pick == n) {
			ret = sd_error_set(err, EINVAL, "image '%s' is pinned to %s, but its build%s %s%s%s: refusing to run "
					   "another image", ref->name, ref->digest, n > 1 ? "s are" : " is", list[0].digest,
					   n > 1 ? ", " : "", n > 1 ? "..." : "");
		}
	}
	if (ret == 0) {
		*info = list[pick];
		memset(&list[pick], 0, sizeof(list[pick]));
	}
	image_list_free(list, n);
	return ret;
}

int image_remove(const char *store, const struct image_ref *ref, struct sd_error *err)
{
	struct image_info *list;
	size_t n;
	int removed = 0;

	if (collect(store, ref->name, &list, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *dir = NULL;
		char *slash;

		if (ref->digest[0] && strcmp(list[i].digest, ref->digest) != 0)
			continue;
		dir = xasprintf("%s", list[i].rootfs);
		if (!dir || !(slash = strrchr(dir, '/'))) {
			image_list_free(list, n);
			return sd_error_errno(err, ENOMEM, "image rm");
		}
		*slash = '\0';
		if (remove_tree(dir, err) < 0) {
			image_list_free(list, n);
			return -1;
		}
		removed++;
	}
	image_list_free(list, n);
	if (!removed)
		return sd_error_set(err, ENOENT, "no image '%s%s%s' in '%s'", ref->name, ref->digest[0] ? "@" : "",
				    ref->digest, store);
	/* the name's directory, once it holds no build */
	{
		cleanup_free char *ndir = xasprintf("%s/%s", store, ref->name);

		if (ndir)
			rmdir(ndir);
	}
	return removed;
}

/* ------------------------------------------------------------------ the host image */

const char *const *image_host_paths(void)
{
	/* sorted by path, as the digest wants them */
	static const char *const paths[] = {
		"/bin", "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
		"/etc/localtime", "/etc/mime.types", "/etc/nsswitch.conf", "/etc/os-release",
		"/etc/python3", "/etc/python3.11", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/usr", NULL,
	};

	return paths;
}

/* What must not change for a cached host digest to hold: dpkg's status file
 * (every package install) and the change times of the top directories. */
static int host_fingerprint(char *buf, size_t size)
{
	static const char *const watch[] = {
		"/var/lib/dpkg/status", "/usr", "/usr/bin", "/usr/lib", "/usr/local/bin", "/usr/local/lib",
		"/usr/lib/x86_64-linux-gnu", "/etc/ld.so.cache", "/etc/alternatives",
	};
	size_t off = 0;

	for (size_t i = 0; i < sizeof(watch) / sizeof(watch[0]); i++) {
		struct stat sb;
		int n;

		if (lstat(watch[i], &sb) < 0)
			memset(&sb, 0, sizeof(sb));
		n = snprintf(buf + off, size - off, "%lld.%09ld:%lld;", (long long)sb.st_ctim.tv_sec,
			     sb.st_ctim.tv_nsec, (long long)sb.st_size);
		if (n < 0 || (size_t)n >= size - off)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int image_host_digest(const char *cache, bool compute, char digest[IMAGE_DIGEST_SIZE], struct sd_error *err)
{
	char fp[1024];
	cleanup_free char *text = NULL;

	digest[0] = '\0';
	if (!compute) {
		char *nl;

		/* "<digest>\n<fingerprint>\n"; no cache (the usual case), no
		 * fingerprint to take: nine lstat calls fewer a run */
		if (read_file(cache, 4096, &text, NULL, NULL) < 0 || !(nl = strchr(text, '\n')) ||
		    nl - text != IMAGE_DIGEST_SIZE - 1 || strncmp(text, "sha256:", 7) != 0)
			return 0;
		if (host_fingerprint(fp, sizeof(fp)) < 0)
			return sd_error_set(err, EIO, "host fingerprint too long");
		if (strncmp(nl + 1, fp, strlen(fp)) != 0 || nl[1 + strlen(fp)] != '\n')
			return 0;	/* the host changed since */
		memcpy(digest, text, IMAGE_DIGEST_SIZE - 1);
		digest[IMAGE_DIGEST_SIZE - 1] = '\0';
		return 0;
	}
	if (host_fingerprint(fp, sizeof(fp)) < 0)
		return sd_error_set(err, EIO, "host fingerprint too long");
	{
		const char *const *all = image_host_paths();
		const char *have[32];
		size_t n = 0;
		cleanup_free char *tmp = xasprintf("%s.tmp", cache);
		cleanup_free char *line = NULL;
		struct stat sb;

		for (; *all && n < 32; all++)
			if (lstat(*all, &sb) == 0)
				have[n++] = *all;
		if (image_digest_entries(have, have, n, digest, NULL, NULL, err) < 0)
			return -1;
		line = xasprintf("%s\n%s\n", digest, fp);
		if (!tmp || !line)
			return sd_error_errno(err, ENOMEM, "host digest");
		/* a cache that cannot be written only costs the next caller the walk */
		{
			int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

			if (fd >= 0) {
				if (write_all(fd, line, strlen(line)) == 0 && close(fd) == 0)
					rename(tmp, cache);
				else
					unlink(tmp);
			}
		}
	}
	return 0;
}

int image_pin(const char *text, char *out, size_t size, struct sd_error *err)
{
	char store[4096];
	struct image_ref ref;
	struct image_info info;

	if (strcmp(text, "host") == 0 || text[0] == '/') {
		snprintf(out, size, "%s", text);	/* the host and directories have no builds to pin */
		return 0;
	}
	if (!image_ref_like(text))
		return sd_error_set(err, EINVAL, "image '%s': expected 'host', an absolute directory or "
				    "NAME[@sha256:HEX]", text);
	if (image_ref_parse(text, &ref, err) < 0 || image_store_dir(store, sizeof(store), false, err) < 0 ||
	    image_resolve(store, &ref, &info, err) < 0)
		return -1;
	if ((size_t)snprintf(out, size, "%s@%s", info.name, info.digest) >= size) {
		image_info_release(&info);
		return sd_error_set(err, ENAMETOOLONG, "image '%s': reference too long", text);
	}
	image_info_release(&info);
	return 0;
}
