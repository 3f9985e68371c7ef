/* cmd.h - the commands of the sandeval program, one file each */
#ifndef SANDEVAL_CMD_H
#define SANDEVAL_CMD_H

/* Exit codes shared by every command. */
#define EXIT_RESULT_OK 0	/* the program's outcome was "ok" */
#define EXIT_RESULT_OTHER 1	/* any other outcome of the program */
#define EXIT_USAGE 2		/* bad usage, or sandeval itself failed */

int cmd_exec(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_breaker(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_redteam(int argc, char **argv);

/* Print "sandeval: MESSAGE" to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "sandeval: CMD: MESSAGE" to stderr; returns EXIT_USAGE. */
int cmd_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The store when --db is not given: $SANDEVAL_DB (e.g. a postgresql:// URL
 * from a Kubernetes Secret, kept out of argv), else "sandeval.db". */
const char *cmd_default_db(void);
/* Run the gc sweep quietly (used at every start); returns 0 or -1. */
int cmd_auto_gc(void);
/* Interrupting a command that runs sandboxes (docs/exec.md#interrupting-it):
 * SIGINT, SIGTERM and SIGHUP are blocked and come on the returned signalfd,
 * which the library polls as its cancel descriptor (sandbox.h, cancel_fd),
 * so that what runs is stopped and torn down before the command ends. -1
 * when it cannot be made: the signals then end the process as before. */
int cmd_interrupts(void);
/* Close FD (-1: nothing to do) and unblock the signals again. Returns the
 * signal that came on FD, taken, or 0 when none did; another one still
 * pending acts now. */
int cmd_interrupts_end(int fd);

#endif
