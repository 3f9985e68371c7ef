/* jsonl.c - read JSON Lines (plain or gzip) and JSON files, with file:line in every error
 *
 * zlib's gz* functions read both: a file that does not start with the gzip
 * magic bytes is copied through as is. Lines are assembled from 64 KiB chunks
 * into a buffer capped at JSONL_MAX_LINE; past the cap the rest of the line is
 * read and dropped, and the line is reported as too long. A read error (a
 * truncated or corrupt gzip stream, EIO) is reported once; the reader is at
 * end of file afterwards.
 */
#define _GNU_SOURCE
#include "base/jsonl.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/utf8.h"
#include "base/util.h"

#define CHUNK (32u << 10)
#define JSON_MAX_FILE (256u << 20)	/* json_load_path */

struct jsonl {
	char *path;
	gzFile gz;
	size_t line;			/* lines consumed so far */
	size_t last;			/* the line last returned (or failed) */
	unsigned char *chunk;
	size_t chunk_len, chunk_pos;
	char *buf;			/* the line being assembled */
	size_t len, cap;
	bool too_long;
	bool eof;
};

static gzFile open_gz(const char *path, struct sd_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	gzFile gz;

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path), NULL;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return sd_error_errno(err, ENOMEM, "cannot open '%s'", path), NULL;
	}
	gzbuffer(gz, 32u << 10);
	return gz;
}

/* After gzread() returned n (< 0, or 0 at what may be end of file): 0 at a
 * clean end of file, else -1 with a message naming PATH (and LINE if not 0). */
static int gz_check(gzFile gz, int n, const char *path, size_t line, struct sd_error *err)
{
	int zerr = Z_OK, code = errno ? errno : EIO;
	const char *msg = gzerror(gz, &zerr);
	char where[32] = "";

	if (n >= 0 && zerr == Z_OK)
		return 0;
	if (line)
		snprintf(where, sizeof(where), ":%zu", line);
	if (msg && msg[0] == '<' && strstr(msg, ">: "))
		msg = strstr(msg, ">: ") + 3;	/* gzdopen's "<fd:3>: " */
	if (zerr == Z_ERRNO)
		return line ? sd_error_errno(err, code, "%s%s: cannot read", path, where)
			    : sd_error_errno(err, code, "cannot read '%s'", path);
	return sd_error_set(err, EIO, "%s%s: %s gzip data (%s)", path, where,
			    zerr == Z_BUF_ERROR ? "truncated" : "corrupt", msg ? msg : "unknown error");
}

struct jsonl *jsonl_open(const char *path, struct sd_error *err)
{
	struct jsonl *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(path)) || !(r->chunk = malloc(CHUNK))) {
		jsonl_close(r);
		sd_error_errno(err, ENOMEM, "cannot open '%s'", path);
		return NULL;
	}
	r->gz = open_gz(path, err);
	if (!r->gz) {
		jsonl_close(r);
		return NULL;
	}
	return r;
}

void jsonl_close(struct jsonl *r)
{
	if (!r)
		return;
	if (r->gz)
		gzclose_r(r->gz);
	free(r->path);
	free(r->chunk);
	free(r->buf);
	free(r);
}

size_t jsonl_line(const struct jsonl *r)
{
	return r->last;
}

const char *jsonl_path(const struct jsonl *r)
{
	return r->path;
}

static int append(struct jsonl *r, const unsigned char *p, size_t n, struct sd_error *err)
{
	if (r->too_long)
		return 0;
	if (n > JSONL_MAX_LINE - r->len) {
		r->too_long = true;
		return 0;
	}
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		char *nb;

		while (cap < r->len + n + 1)
			cap *= 2;
		if (cap > JSONL_MAX_LINE + 1)
			cap = JSONL_MAX_LINE + 1;
		nb = realloc(r->buf, cap);
		if (!nb)
			return sd_error_errno(err, ENOMEM, "%s:%zu: cannot read", r->path, r->line + 1);
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

/* Assemble the next line in r->buf (r->len bytes, NUL-terminated, without
 * the newline): 1, 0 at end of file, -1 on a read error. r->too_long is set
 * when the line was cut. */
static int read_line(struct jsonl *r, struct sd_error *err)
{

	r->len = 0;
	r->too_long = false;
	for (;;) {
		unsigned char *p, *nl;
		size_t avail;

		if (r->chunk_pos == r->chunk_len) {
			int n;

			if (r->eof)
				break;
			errno = 0;
			n = gzread(r->gz, r->chunk, CHUNK);
			if (n <= 0) {
				r->eof = true;
				if (gz_check(r->gz, n, r->path, r->line + 1, err) < 0) {
					r->last = ++r->line;
					return -1;
				}
				break;
			}
			r->chunk_len = (size_t)n;
			r->chunk_pos = 0;
		}
		p = r->chunk + r->chunk_pos;
		avail = r->chunk_len - r->chunk_pos;
		nl = memchr(p, '\n', avail);
		if (append(r, p, nl ? (size_t)(nl - p) : avail, err) < 0)
			return -1;
		r->chunk_pos += nl ? (size_t)(nl - p) + 1 : avail;
		if (nl) {
			r->line++;
			goto done;
		}
	}
	if (r->len == 0 && !r->too_long)
		return 0;
	r->line++;		/* a last line without a newline */
done:
	if (r->buf)
		r->buf[r->len] = '\0';
	return 1;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

const char *json_type_phrase(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* "PREFIX:LINE:COL: invalid JSON: ..." from a jansson error. */
static int json_fail(const json_error_t *jerr, const char *path, size_t line, struct sd_error *err)
{
	char pos[64];

	if (line)
		snprintf(pos, sizeof(pos), "%zu:%d", line, jerr->column > 0 ? jerr->column : 1);
	else
		snprintf(pos, sizeof(pos), "%d:%d", jerr->line > 0 ? jerr->line : 1,
			 jerr->column > 0 ? jerr->column : 1);
	if (json_error_code(jerr) == json_error_invalid_utf8)
		return sd_error_set(err, EILSEQ, "%s:%s: invalid UTF-8", path, pos);
	return sd_error_set(err, EINVAL, "%s:%s: invalid JSON: %s", path, pos, jerr->text);
}

int jsonl_parse_error(const char *path, const json_error_t *jerr, struct sd_error *err)
{
	return json_fail(jerr, path, 0, err);
}

int jsonl_next(struct jsonl *r, json_t **out, struct sd_error *err)
{
	for (;;) {
		const char *text;
		size_t len;
		json_error_t jerr;
		json_t *v;
		int n = read_line(r, err);

		if (n <= 0)
			return n;
		r->last = r->line;
		if (r->too_long)
			return sd_error_set(err, EFBIG, "%s:%zu: line longer than %u bytes", r->path, r->line,
					    JSONL_MAX_LINE);
		text = r->buf;
		len = r->len;
		if (r->line == 1 && len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
			text += 3;	/* a UTF-8 byte order mark */
			len -= 3;
		}
		if (blank(text, len))
			continue;
		v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!v)
			return json_fail(&jerr, r->path, r->line, err);
		if (!json_is_object(v)) {
			sd_error_set(err, EINVAL, "%s:%zu: expected a JSON object, got %s", r->path, r->line,
				     json_type_phrase(v));
			json_decref(v);
			return -1;
		}
		*out = v;
		return 1;
	}
}

int jsonl_read_all(const char *path, size_t cap, char **out, size_t *len, struct sd_error *err)
{
	gzFile gz = open_gz(path, err);
	cleanup_free char *buf = NULL;
	size_t used = 0, size = 0;

	if (!gz)
		return -1;
	for (;;) {
		int n;

		if (size - used < CHUNK) {
			char *nb;

			size = size ? size * 2 : 2 * CHUNK;
			nb = realloc(buf, size + 1);
			if (!nb) {
				gzclose_r(gz);
				return sd_error_errno(err, ENOMEM, "cannot read '%s'", path);
			}
			buf = nb;
		}
		errno = 0;
		n = gzread(gz, buf + used, CHUNK);
		if (n <= 0) {
			int r = gz_check(gz, n, path, 0, err);

			gzclose_r(gz);
			if (r < 0)
				return -1;
			break;
		}
		used += (size_t)n;
		if (used > cap) {
			gzclose_r(gz);
			return sd_error_set(err, EFBIG, "'%s' is larger than %zu bytes", path, cap);
		}
	}
	buf[used] = '\0';
	if (len)
		*len = used;
	*out = steal_pointer(&buf);
	return 0;
}

json_t *json_load_path(const char *path, struct sd_error *err)
{
	cleanup_free char *text = NULL;
	json_error_t jerr;
	size_t len;
	json_t *v;
	const char *p;

	if (jsonl_read_all(path, JSON_MAX_FILE, &text, &len, err) < 0)
		return NULL;
	p = text;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
		len -= 3;
	}
	v = json_loadb(p, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!v)
		jsonl_parse_error(path, &jerr, err);
	return v;
}

/* ---- json_text_line: find where a value starts in a JSON text ---- */

struct scan {
	const char *s;
	size_t len, pos;
};

static void skip_ws(struct scan *sc)
{
	while (sc->pos < sc->len && strchr(" \t\r\n", sc->s[sc->pos]) && sc->s[sc->pos])
		sc->pos++;
}

static void skip_string(struct scan *sc)
{
	sc->pos++;		/* the opening quote */
	while (sc->pos < sc->len && sc->s[sc->pos] != '"')
		sc->pos += sc->s[sc->pos] == '\\' ? 2 : 1;
	if (sc->pos < sc->len)
		sc->pos++;
}

/* Skip one value; depth-bounded (jansson accepted the text, so it nests
 * at most 2048 deep, but never trust that here). */
static void skip_value(struct scan *sc, int depth)
{
	char c, close;

	skip_ws(sc);
	if (sc->pos >= sc->len)
		return;
	c = sc->s[sc->pos];
	if (c == '"') {
		skip_string(sc);
		return;
	}
	if (c != '{' && c != '[') {
		while (sc->pos < sc->len && !strchr(",]} \t\r\n", sc->s[sc->pos]))
			sc->pos++;
		return;
	}
	close = c == '{' ? '}' : ']';
	sc->pos++;
	if (depth > 4096) {
		sc->pos = sc->len;
		return;
	}
	for (;;) {
		size_t before;

		skip_ws(sc);
		if (sc->pos >= sc->len)
			return;
		if (sc->s[sc->pos] == close) {
			sc->pos++;
			return;
		}
		if (sc->s[sc->pos] == ',' || sc->s[sc->pos] == ':') {
			sc->pos++;
			continue;
		}
		before = sc->pos;
		skip_value(sc, depth + 1);
		if (sc->pos == before)
			sc->pos++;	/* never loop on a stray byte */
	}
}

/* Move into the object at sc->pos to the value of KEY (n bytes): true if found. */
static bool enter_key(struct scan *sc, const char *key, size_t n)
{
	skip_ws(sc);
	if (sc->pos >= sc->len || sc->s[sc->pos] != '{')
		return false;
	sc->pos++;
	for (;;) {
		size_t start;
		bool match;

		skip_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != '"')
			return false;
		start = sc->pos + 1;
		skip_string(sc);
		match = sc->pos - start - 1 == n && memcmp(sc->s + start, key, n) == 0;
		skip_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
			return false;
		sc->pos++;
		skip_ws(sc);
		if (match)
			return true;
		skip_value(sc, 0);
		skip_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != ',')
			return false;
		sc->pos++;
	}
}

static bool enter_index(struct scan *sc, size_t index)
{
	skip_ws(sc);
	if (sc->pos >= sc->len || sc->s[sc->pos] != '[')
		return false;
	sc->pos++;
	for (size_t i = 0;; i++) {
		skip_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] == ']')
			return false;
		if (i == index)
			return true;
		skip_value(sc, 0);
		skip_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != ',')
			return false;
		sc->pos++;
	}
}

size_t json_text_line(const char *text, size_t len, const char *jpath)
{
	struct scan sc = { text, len, 0 };
	size_t found = 0, line = 1;
	const char *p = jpath ? jpath : "";

	skip_ws(&sc);
	found = sc.pos;
	while (*p) {
		struct scan try = sc;
		bool ok;

		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			char *end;
			unsigned long long i = strtoull(p + 1, &end, 10);

			if (end == p + 1 || *end != ']')
				break;
			ok = enter_index(&try, (size_t)i);
			p = end + 1;
		} else {
			size_t n = strcspn(p, ".[");

			ok = enter_key(&try, p, n);
			p += n;
		}
		if (!ok)
			break;
		sc = try;
		found = sc.pos;
	}
	for (size_t i = 0; i < found && i < len; i++)
		line += text[i] == '\n';
	return line;
}

void json_text_array_lines(const char *text, size_t len, size_t *lines, size_t n)
{
	struct scan sc = { text, len, 0 };
	size_t line = 1, counted = 0;

	for (size_t i = 0; i < n; i++)
		lines[i] = 0;
	skip_ws(&sc);
	if (sc.pos >= len || text[sc.pos] != '[')
		return;
	sc.pos++;
	for (size_t i = 0; i < n; i++) {
		skip_ws(&sc);
		if (sc.pos >= len || text[sc.pos] == ']')
			return;
		for (; counted < sc.pos; counted++)
			line += text[counted] == '\n';
		lines[i] = line;
		skip_value(&sc, 0);
		skip_ws(&sc);
		if (sc.pos >= len || text[sc.pos] != ',')
			return;
		sc.pos++;
	}
}

json_t *json_text(const char *s)
{
	size_t len;
	char *clean;
	json_t *j;

	if (!s)
		return json_null();
	clean = utf8_sanitize(s, strlen(s), &len);	/* a C string: no NUL to carry over */
	if (!clean)
		return NULL;
	j = json_stringn_nocheck(clean, len);
	free(clean);
	return j;
}

json_t *json_number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
