/* harness.c - the candidate's side for C: read calls, call the candidate's function, answer with JSON
 *
 * Compiled inside the sandbox with the candidate's file and /tmp/glue.c (made
 * by the driver from the task's signature). Requests are one JSON array of
 * arguments a line on fd argv[1] (numbers, strings, booleans, null); answers
 * are {"ok": value} or {"exc": ..., "msg": ...} lines on fd argv[2]. The
 * candidate's own main, if any, is renamed away at compile time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* The compile line renames the candidate's own main (-Dmain=...), not ours. */
#undef main

#define MAX_ARGS 16

static int out_fd;

static void put(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(out_fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		s += w;
		n -= (size_t)w;
	}
}

static void puts_raw(const char *s)
{
	put(s, strlen(s));
}

static void put_json_string(const char *s, size_t len)
{
	char esc[8];

	put("\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(esc, 6);
		} else {
			put((const char *)&c, 1);
		}
	}
	put("\"", 1);
}

static void answer(const struct sv *v)
{
	char num[64];

	puts_raw("{\"ok\":");
	switch (v->kind) {
	case SV_NULL:
		puts_raw("null");
		break;
	case SV_BOOL:
		puts_raw(v->i ? "true" : "false");
		break;
	case SV_INT:
		snprintf(num, sizeof(num), "%lld", v->i);
		puts_raw(num);
		break;
	case SV_FLOAT:
		if (isnan(v->d))
			puts_raw("{\"$float\":\"nan\"}");
		else if (isinf(v->d))
			puts_raw(v->d > 0 ? "{\"$float\":\"inf\"}" : "{\"$float\":\"-inf\"}");
		else {
			snprintf(num, sizeof(num), "%.17g", v->d);
			if (!strpbrk(num, ".eE"))
				strcat(num, ".0");
			puts_raw(num);
		}
		break;
	case SV_STR:
		put_json_string(v->s, v->len);
		break;
	}
	puts_raw("}\n");
}

static void fail(const char *name, const char *msg)
{
	puts_raw("{\"exc\":");
	put_json_string(name, strlen(name));
	puts_raw(",\"msg\":");
	put_json_string(msg, strlen(msg));
	puts_raw("}\n");
}

static const char *skip(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

static int hex4(const char *p, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*out <<= 4;
		if (c >= '0' && c <= '9')
			*out |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*out |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*out |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* A JSON string at P (after the quote) into a fresh buffer. */
static const char *parse_string(const char *p, struct sv *v)
{
	size_t cap = strlen(p) + 1, n = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	while (*p && *p != '"') {
		if (*p != '\\') {
			s[n++] = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case 'n': s[n++] = '\n'; break;
		case 't': s[n++] = '\t'; break;
		case 'r': s[n++] = '\r'; break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'u': {
			unsigned cp;

			if (hex4(p + 1, &cp) < 0) {
				free(s);
				return NULL;
			}
			p += 4;
			if (cp < 0x80) {
				s[n++] = (char)cp;
			} else if (cp < 0x800) {
				s[n++] = (char)(0xc0 | (cp >> 6));
				s[n++] = (char)(0x80 | (cp & 0x3f));
			} else {
				s[n++] = (char)(0xe0 | (cp >> 12));
				s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				s[n++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default: s[n++] = *p; break;
		}
		p++;
	}
	if (*p != '"') {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	v->kind = SV_STR;
	v->s = s;
	v->len = n;
	return p + 1;
}

/* One flat JSON array of arguments. Returns the count, or -1. */
static int parse_args(const char *p, struct sv *args)
{
	int n = 0;

	p = skip(p);
	if (*p++ != '[')
		return -1;
	p = skip(p);
	if (*p == ']')
		return 0;
	for (;;) {
		struct sv *v = &args[n];

		if (n == MAX_ARGS)
			return -1;
		memset(v, 0, sizeof(*v));
		p = skip(p);
		if (*p == '"') {
			p = parse_string(p + 1, v);
			if (!p)
				return -1;
		} else if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
			v->kind = SV_BOOL;
			v->i = *p == 't';
			p += *p == 't' ? 4 : 5;
		} else if (strncmp(p, "null", 4) == 0) {
			p += 4;
		} else if (strncmp(p, "{\"$float\":", 10) == 0) {
			const char *q = skip(p + 10);

			v->kind = SV_FLOAT;
			v->d = strncmp(q, "\"nan\"", 5) == 0 ? NAN : strncmp(q, "\"-inf\"", 6) == 0 ? -INFINITY : INFINITY;
			p = strchr(q, '}');
			if (!p)
				return -1;
			p++;
		} else {
			char *end;
			const char *num = p;

			while (*p && strchr("+-0123456789.eE", *p))
				p++;
			if (strpbrk(num, ".eE") && strpbrk(num, ".eE") < p) {
				v->kind = SV_FLOAT;
				v->d = strtod(num, &end);
			} else {
				v->kind = SV_INT;
				errno = 0;
				v->i = strtoll(num, &end, 10);
				if (errno)
					return -1;
			}
			if (end != p)
				return -1;
		}
		n++;
		p = skip(p);
		if (*p == ']')
			return n;
		if (*p++ != ',')
			return -1;
	}
}

int main(int argc, char **argv)
{
	FILE *in;
	char *line = NULL;
	size_t cap = 0;

	if (argc < 3)
		return 2;
	in = fdopen(atoi(argv[1]), "r");
	out_fd = atoi(argv[2]);
	if (!in)
		return 2;
	puts_raw("{\"ready\":true}\n");
	while (getline(&line, &cap, in) > 0) {
		struct sv args[MAX_ARGS], out = { 0 };
		const char *why = NULL;
		int n = parse_args(line, args);

		if (n < 0) {
			fail("ProtocolError", "cannot read the arguments");
			continue;
		}
		if (sandeval_call(args, n, &out, &why) < 0)
			fail("TypeError", why ? why : "bad arguments");
		else
			answer(&out);
		for (int i = 0; i < n; i++)
			if (args[i].kind == SV_STR)
				free(args[i].s);
	}
	return 0;
}
