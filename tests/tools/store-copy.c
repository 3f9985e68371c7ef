/* store-copy.c - copy runs from one store to another through store.h, ids, times and every sample's record as they are (tests: the same runs in SQLite and PostgreSQL) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static int copy_run(struct store *src, struct store *dst, const char *id, struct sd_error *err)
{
	struct run_info run;
	struct sample_result *v = NULL;
	size_t n = 0;
	int ret = 0;

	if (store_run_get(src, id, &run, err) < 0)
		return -1;
	if (store_samples_load(src, id, &v, &n, err) < 0 || store_run_create(dst, &run, err) < 0)
		ret = -1;
	for (size_t i = 0; ret == 0 && i < n; i++)
		ret = store_sample_put(dst, id, &v[i], err);
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
	run_info_release(&run);
	return ret;
}

int main(int argc, char **argv)
{
	struct sd_error err = { 0 };
	struct store *src, *dst;
	char **ids = NULL;
	size_t n = 0;
	int ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: store-copy SRC DST [RUN_ID...]\n");
		return 2;
	}
	if (!(src = store_open_existing(argv[1], &err)) || !(dst = store_open(argv[2], &err))) {
		fprintf(stderr, "store-copy: %s\n", err.msg);
		return 1;
	}
	if (argc == 3 && store_runs_list(src, &ids, &n, &err) < 0) {
		fprintf(stderr, "store-copy: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; ret == 0 && i < (argc == 3 ? n : (size_t)argc - 3); i++) {
		const char *id = argc == 3 ? ids[i] : argv[3 + i];

		if (copy_run(src, dst, id, &err) < 0) {
			fprintf(stderr, "store-copy: run '%s': %s\n", id, err.msg);
			ret = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	store_close(src);
	store_close(dst);
	return ret;
}
