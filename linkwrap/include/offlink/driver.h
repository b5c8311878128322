/* The compiler driver that started a link: the parent process of the
 * linker (ld.offlink, the linker the plugin runs in) or of a personality
 * clang runs, as /proc shows it.  clang hands its linker neither its -O
 * level nor the config file it read, and a personality that clang-N runs
 * acts as LLVM N's tool: the front ends learn them here, in one way. */
#ifndef OFFLINK_DRIVER_H
#define OFFLINK_DRIVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "offlink/api.h"
#include "offlink/argv.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_driver_kind {
	OFL_DRIVER_UNKNOWN, /* not a compiler driver, or gone */
	OFL_DRIVER_CLANG,   /* clang, clang++, clang-N, clang-cl */
	OFL_DRIVER_GCC,     /* gcc's collect2 (gcc runs the linker through it) */
};

struct ofl_driver {
	enum ofl_driver_kind kind;
	char *exe;            /* its program's real path; NULL: unknown */
	struct ofl_argv argv; /* its command line; empty: unreadable */
	/* clang's LLVM release: its program's name (clang-N, Debian's
	 * .../llvm-N/bin/clang), else the one release folder in its
	 * <prefix>/lib/clang; 0: unknown, or not clang */
	unsigned llvm;
};

#define OFL_DRIVER_INIT                                                                            \
	{                                                                                          \
		OFL_DRIVER_UNKNOWN, NULL, OFL_ARGV_INIT, 0                                         \
	}

/* Reads process pid (the front end passes getppid()).  A process that is
 * gone or cannot be read leaves d unknown, with no error: only OFL_ENOMEM
 * fails. */
int ofl_driver_read(pid_t pid, struct ofl_driver *d, struct ofl_error *err);

/* The value of the driver's last -O option ("0", "3", "s", "fast", "" for
 * a bare -O), as clang takes the last one; NULL when it had none or is
 * not clang.  Points into d. */
const char *ofl_driver_opt_level(const struct ofl_driver *d);

/* The config file clang was given (--config=FILE, --config FILE, the
 * last one), as written; NULL when none or not clang.  Points into d. */
const char *ofl_driver_config(const struct ofl_driver *d);

void ofl_driver_release(struct ofl_driver *d);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
