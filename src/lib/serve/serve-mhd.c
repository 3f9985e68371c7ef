/* serve-mhd.c - libmicrohttpd loaded at run time, so that only `sandeval serve` pays for it and GnuTLS */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "serve/serve-internal.h"

#define MHD_SONAME "libmicrohttpd.so.12"

int mhd_load(struct mhd_api *m, struct sd_error *err)
{
	static const struct { const char *name; size_t off; } syms[] = {
#define SYM(field, name) { name, offsetof(struct mhd_api, field) }
		SYM(start_daemon, "MHD_start_daemon"),
		SYM(stop_daemon, "MHD_stop_daemon"),
		SYM(quiesce_daemon, "MHD_quiesce_daemon"),
		SYM(run, "MHD_run"),
		SYM(get_timeout, "MHD_get_timeout"),
		SYM(get_daemon_info, "MHD_get_daemon_info"),
		SYM(get_connection_info, "MHD_get_connection_info"),
		SYM(lookup_connection_value, "MHD_lookup_connection_value"),
		SYM(create_response_from_buffer, "MHD_create_response_from_buffer"),
		SYM(create_response_from_fd, "MHD_create_response_from_fd"),
		SYM(add_response_header, "MHD_add_response_header"),
		SYM(queue_response, "MHD_queue_response"),
		SYM(destroy_response, "MHD_destroy_response"),
		SYM(suspend_connection, "MHD_suspend_connection"),
		SYM(resume_connection, "MHD_resume_connection"),
#undef SYM
	};

	memset(m, 0, sizeof(*m));
	m->lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!m->lib)
		return sd_error_set(err, ENOENT, "cannot load libmicrohttpd (%s): %s (Debian: apt-get install libmicrohttpd12)",
				    MHD_SONAME, dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(m->lib, syms[i].name);

		if (!p) {
			sd_error_set(err, ENOENT, "libmicrohttpd (%s) has no %s", MHD_SONAME, syms[i].name);
			mhd_unload(m);
			return -1;
		}
		memcpy((char *)m + syms[i].off, &p, sizeof(p));
	}
	return 0;
}

/* The library stays loaded (GnuTLS's destructors run at exit, not before). */
void mhd_unload(struct mhd_api *m)
{
	memset(m, 0, sizeof(*m));
}
