/* test-zygote.c - unit tests of zygote.c: starting, the wire protocol both ways, ownership, stopping
 *
 * No sandbox is created here. The supervisor's half talks to stand-in
 * zygote.py scripts written by each test (python3, like the real one); the
 * zygote's half (sandeval_zygote_serve) is driven in-process over a socket
 * pair with requests it must refuse before it clones anything. The real
 * zygote runs samples in tests/cli/run.bats ("warm starts").
 */
#include "fixture.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sandbox/sandbox-child.h"
#include "sandbox/zygote.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = fx_str("%s", "/tmp/sandeval-unit-zygote.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = fx_str("rm -rf '%s'", dir);

	(void)state;
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	free(dir);
	return 0;
}

static void write_script(const char *text)
{
	char *path = fx_str("%s/zygote.py", dir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

/* Start a zygote on the stand-in TEXT; the test fails if it does not start. */
static struct zygote *start_stand_in(const char *text)
{
	struct sd_error err = { 0 };
	struct zygote *z;

	write_script(text);
	z = zygote_start(dir, "zygote.py", &err);
	if (!z)
		fail_msg("%s", err.msg);
	return z;
}

static void test_start_missing_script(void **state)
{
	struct sd_error err = { 0 };
	char *empty = fx_str("%s/none", dir);

	(void)state;
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_null(zygote_start(empty, "zygote.py", &err));
	assert_contains(err.msg, "zygote: python3 ");
	assert_contains(err.msg, "/none/zygote.py exited before it was ready");
	free(empty);
}

static void test_start_reports_the_zygotes_error(void **state)
{
	struct sd_error err = { 0 };

	(void)state;
	write_script("import os\nos.write(3, b'cannot load the driver: ImportError: no driver')\n");
	assert_null(zygote_start(dir, "zygote.py", &err));
	assert_string_equal(err.msg, "zygote: cannot load the driver: ImportError: no driver");
}

/* A stand-in that answers every request with -EPERM (-1), after checking
 * that it came with the descriptors of a whole request. */
static const char *const refusing =
	"import array, os, socket\n"
	"s = socket.socket(fileno=3)\n"
	"s.send(b'ready')\n"
	"while True:\n"
	"    fds = array.array('i')\n"
	"    msg, anc, flags, addr = s.recvmsg(65536, socket.CMSG_SPACE(64 * fds.itemsize))\n"
	"    if not msg:\n"
	"        break\n"
	"    for level, kind, data in anc:\n"
	"        fds.frombytes(data[:len(data) - len(data) % fds.itemsize])\n"
	"    for fd in fds:\n"
	"        os.close(fd)\n"
	"    s.send((-1 if len(fds) == 7 else -71).to_bytes(4, 'little', signed=True))\n";

static void spawn_args(struct child_args *a, struct sandbox_config *cfg, int *fds, char **argv)
{
	sandbox_config_init(cfg);
	cfg->argv = argv;
	for (int i = 0; i < 7; i++)
		fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
	*a = (struct child_args){ .cfg = cfg, .sync_fd = fds[0], .msg_fd = fds[1], .status_fd = fds[2],
				  .stdio = { fds[3], fds[4], fds[5] }, .notify_sock = fds[6], .file_fds = NULL,
				  .image_fd = -1 };
}

static void close_args(int *fds, struct zygote *z)
{
	for (int i = 0; i < 7; i++)
		close(fds[i]);
	zygote_stop(z);
}

static void test_spawn_request_and_refusal(void **state)
{
	struct sd_error err = { 0 };
	struct sandbox_config cfg;
	struct child_args a;
	char *argv[] = { (char *)"python3", (char *)"-I", (char *)"/work/start.py", NULL };
	int fds[7], st;
	struct zygote *z;
	pid_t pid;

	(void)state;
	z = start_stand_in(refusing);
	spawn_args(&a, &cfg, fds, argv);
	assert_int_equal(zygote_spawn(z, &a, &err), -1);
	assert_string_equal(err.msg, "zygote: cannot create the sandbox namespaces: Operation not permitted");

	/* Only its starter may use it: init would be the starter's child. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sd_error e = { 0 };

		_exit(zygote_spawn(z, &a, &e) == -1 && e.code == EPERM ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(zygote_owner(z), getpid());

	/* An image root is not the zygote's business. */
	a.image_fd = fds[0];
	assert_int_equal(zygote_spawn(z, &a, &err), -1);
	assert_contains(err.msg, "or an image");
	close_args(fds, z);
}

static void test_stop_reaps(void **state)
{
	(void)state;
	zygote_stop(start_stand_in(refusing));
	/* nothing left to reap: the zygote was waited for */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_spawn_after_the_zygote_died(void **state)
{
	struct sd_error err = { 0 };
	struct sandbox_config cfg;
	struct child_args a;
	char *argv[] = { (char *)"python3", NULL };
	int fds[7];
	struct zygote *z;

	(void)state;
	z = start_stand_in("import os\nos.write(3, b'ready')\n");	/* then exits */
	spawn_args(&a, &cfg, fds, argv);
	assert_int_equal(zygote_spawn(z, &a, &err), -1);
	assert_contains(err.msg, "zygote: ");
	close_args(fds, z);
}

/* The zygote's half, in-process: what it must refuse before any clone(). It
 * serves in a forked child, which reports what it saw through its exit
 * status (1: serve did not return 1 on hang-up, 2: a refused request left an
 * argv behind): an assertion there would never reach cmocka. */
static void test_serve_refuses_malformed_requests(void **state)
{
	int sp[2], st;
	int32_t reply;
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sp[0]);
		if (sandeval_zygote_serve(sp[1]) != 1)
			_exit(1);
		_exit(sandeval_zygote_arg(0) ? 2 : 0);
	}
	close(sp[1]);
	char ready[8];
	assert_int_equal(recv(sp[0], ready, sizeof(ready), 0), 5);
	/* too short, then a wrong magic, then the right magic but no argv and no descriptors */
	char junk[256] = { 0 };
	assert_int_equal(send(sp[0], junk, 3, 0), 3);
	assert_int_equal(recv(sp[0], &reply, sizeof(reply), 0), (ssize_t)sizeof(reply));
	assert_int_equal(reply, -EPROTO);
	memset(junk, 0xff, sizeof(junk));
	assert_int_equal(send(sp[0], junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	assert_int_equal(recv(sp[0], &reply, sizeof(reply), 0), (ssize_t)sizeof(reply));
	assert_int_equal(reply, -EPROTO);
	uint32_t magic = 0x5a594733u;	/* zygote.c's WIRE_MAGIC, "ZYG3" */
	memset(junk, 0, sizeof(junk));
	memcpy(junk, &magic, sizeof(magic));
	assert_int_equal(send(sp[0], junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	assert_int_equal(recv(sp[0], &reply, sizeof(reply), 0), (ssize_t)sizeof(reply));
	assert_int_equal(reply, -EPROTO);
	close(sp[0]);	/* hang up: serve returns 1 */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the serving child: %s (wait status 0x%x)",
			 !WIFEXITED(st) ? "killed" : WEXITSTATUS(st) == 1 ? "serve did not return 1 on hang-up" :
			 WEXITSTATUS(st) == 2 ? "a refused request left argv[0] set" : "unexpected exit", st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_missing_script),
		cmocka_unit_test(test_start_reports_the_zygotes_error),
		cmocka_unit_test(test_spawn_request_and_refusal),
		cmocka_unit_test(test_stop_reaps),
		cmocka_unit_test(test_spawn_after_the_zygote_died),
		cmocka_unit_test(test_serve_refuses_malformed_requests),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
