/* The compiler driver that started a link: the parent process of the
 * linker (ld.offlink, the linker the plugin runs in) or of a personality
 * clang runs, as /proc shows it.  clang hands its linker neither its -O
 * level nor the config file it read, and a personality that clang-N runs
 * acts as LLVM N's tool: the front ends learn them here, in one way. */
#ifndef OFFLINK_DRIVER_H
#define OFFLINK_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
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

/* clang's default config files (LLVM 16 and later; LLVM 15 and before
 * read none): before its command line, clang reads, from the first of
 * dirs[0..n) that has each (its user and system config folders where set,
 * then its own program's folder), <triple>-<mode>.cfg alone when one has
 * it; else <mode>.cfg, then <triple>.cfg, each where found.  mode is the
 * driver mode's name ("clang", "clang++", "clang-cpp", "clang-cl"), triple
 * its target as it computed it (x86_64-pc-linux-gnu, i386-pc-linux-gnu
 * under -m32).  The paths found, in that order, are pushed to files. */
int ofl_clang_default_configs(const char *const *dirs, size_t n, const char *mode,
                              const char *triple, struct ofl_argv *files, struct ofl_error *err);

/* The driver mode of clang d: its last --driver-mode= (g++, gcc, cpp,
 * cl), else its name's (argv[0], a version suffix aside: clang++-22 and
 * x86_64-linux-gnu-clang++ are "clang++"); NULL when d is not clang. */
const char *ofl_driver_mode(const struct ofl_driver *d);

/* The words that choose d's target, for asking its clang which triple it
 * computes (clang --version prints it): --target= and -target (as
 * --target=), -m16, -m32, -m64, -mx32, and the target prefix of its name
 * (x86_64-linux-gnu-clang: --target=x86_64-linux-gnu) when it has no
 * --target.  Pushed to args. */
int ofl_driver_target_args(const struct ofl_driver *d, struct ofl_argv *args,
                           struct ofl_error *err);

/* The default config files clang d read, as ofl_clang_default_configs
 * finds them for its mode, its triple (as its clang computes it for d's
 * command line: the caller asks) and the folders: its config folders named
 * on its command line (--config-user-dir=, --config-system-dir=), then its
 * program's folder (where clang looks, since it finds itself through
 * /proc/self/exe).  None when d is not clang, is LLVM 15 or older, has
 * --no-default-config, or no_default is set (CLANG_NO_DEFAULT_CONFIG was
 * non-empty in its environment: the front end reads it).  Folders built
 * into clang (CLANG_CONFIG_FILE_SYSTEM_DIR, _USER_DIR: clang -v names
 * them; LLVM's and Debian's builds set none) are not looked in. */
int ofl_driver_default_configs(const struct ofl_driver *d, const char *triple, bool no_default,
                               struct ofl_argv *files, struct ofl_error *err);

void ofl_driver_release(struct ofl_driver *d);

/* The LLVM release of the clang program at path, told as a driver's is
 * (its real path's name, else its lib/clang); 0: unknown. */
unsigned ofl_clang_release(const char *path);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
