/* Diagnostics for the command-line front ends: the only place that prints
 * errors, and (through main) the only place that chooses exit codes. */
#ifndef OFL_DIAG_H
#define OFL_DIAG_H

#include "offlink/error.h"

/* The program name used in messages: argv[0] as invoked for an LLVM
 * personality (LLVM prints it so), "offlink" for our own subcommands. */
extern const char *ofl_prog;
/* Its last path component: what LLVM's command-line parser prints before
 * its own messages ("for the --kind option: ..."). */
const char *prog_base(void);

/* Prints "<prog>: error: <msg>" and returns 1 (the exit status to use). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a library error as "<prog>: error: <path>: <what> at offset N". */
int error_lib(const struct ofl_error *err);
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prog>: <msg>": what the user asked to be told (where temporaries are
 * kept, why nothing was done). */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
