/* Running other programs (fatbinary, a host C compiler), in the style of
 * git's run-command: fill a struct with the argument vector and flags, then
 * run it.  Children are never started through a shell; stdin is /dev/null,
 * stderr is always captured (the library never prints), stdout is captured
 * on request and discarded otherwise.  Each child leads a process group of
 * its own (ofl_proc_kill kills what it started too) and is killed when the
 * thread that started it dies (PR_SET_PDEATHSIG), so a killed linker
 * leaves no device link running. */
#ifndef OFFLINK_PROC_H
#define OFFLINK_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_proc {
	char **argv; /* owned, NULL-terminated; argv[0] is the program */
	size_t argc, cap;
	bool search_path;    /* argv[0] without '/' is looked up in PATH */
	bool capture_stdout; /* stdout goes to out, else to /dev/null */
	char *const *envp;   /* the child's environment; NULL: ours (borrowed) */
	struct ofl_buf out;  /* captured stdout */
	struct ofl_buf err;  /* captured stderr */
	int status;          /* exit status; -1 when killed by a signal */
	/* For ofl_proc_kill (NULL: none): while the child runs, *running is
	 * its process group, else 0; a child started once *stop is nonzero is
	 * killed at once.  Both read and written atomically. */
	int *running;
	const int *stop;
};

#define OFL_PROC_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0, true, false, NULL, OFL_BUF_INIT, OFL_BUF_INIT, 0, NULL, NULL           \
	}

/* Append one argument (copied). */
int ofl_proc_push(struct ofl_proc *p, const char *arg, struct ofl_error *err);
int ofl_proc_pushf(struct ofl_proc *p, struct ofl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Runs the command and waits for it.  A child that cannot start, exits
 * non-zero or dies of a signal is OFL_ECHILD, the message naming the
 * program and the first line of what it wrote to stderr.  out and err keep
 * what was captured either way. */
int ofl_proc_run(struct ofl_proc *p, struct ofl_error *err);

void ofl_proc_release(struct ofl_proc *p);

/* Waits for child pid to exit and reaps it (status: waitpid's).  In
 * between, *published (where a signal handler reads the pid to kill it:
 * an ofl_proc.running slot, a front end's; NULL: none) is set to 0: until
 * the child is reaped its number cannot be another process's. */
int ofl_proc_wait(int pid, int *published, int *status, struct ofl_error *err);

/* Async-signal-safe: sends sig to the process group of each child running
 * in running[0..n) (ofl_proc.running slots). */
void ofl_proc_kill(int *running, size_t n, int sig);

/* The first executable <dir>/<name> among dirs[0..n) (NULL entries
 * skipped), then along search_path (a $PATH value the front end read; NULL:
 * nowhere else).  Returns an owned path, or NULL when there is none (or on
 * allocation failure). */
char *ofl_proc_find(const char *name, const char *const *dirs, size_t n, const char *search_path);

/* A command for people and scripts to read, NUL-terminated, appended to
 * out: every word in double quotes ("prog" "arg"), or in LLVM's form (a
 * leading space, the program quoted, other words only when they need it),
 * as clang-linker-wrapper --wrapper-verbose prints.  OFL_ENOMEM or 0. */
int ofl_proc_format(char *const *argv, size_t argc, bool llvm_form, struct ofl_buf *out);

/* For tools run from inside a link: env without what gcc's driver sets for
 * its linker (LIBRARY_PATH, COMPILER_PATH, COLLECT_*, GCC_EXEC_PREFIX), so
 * a command gives the same bytes under gcc as under clang (nvlink records
 * LIBRARY_PATH in the cubin).  NULL when env is not gcc's (use it as it
 * is) or out of memory; else an owned array of env's strings, to free(). */
char **ofl_proc_env_without_driver(char *const *env);

/* The value of variable name in env (NAME=value strings; the first, as
 * getenv reads it), or NULL. */
const char *ofl_proc_env_get(char *const *env, const char *name);

OFL_API_END
#ifdef __cplusplus
}
#endif

#endif
