/* What the loader reads to start a program (loads.c): the program, its
 * interpreter, the loader's cache and every shared library it needs,
 * found as the loader finds them.  A device tool's key holds them all:
 * Debian's clang and lld are mostly libLLVM.so, which needs a dozen more. */
#ifndef OFL_LOADS_H
#define OFL_LOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/error.h"

/* fn(ctx, path, true) for each file the loader reads to start exe (a
 * path): exe, its PT_INTERP, /etc/ld.so.cache, then each library of its
 * DT_NEEDED, transitively, once each (its real path): DT_RPATH without
 * DT_RUNPATH, ld_library_path (LD_LIBRARY_PATH's value, or NULL),
 * DT_RUNPATH ($ORIGIN known), the loader's folders; fn(ctx, name, false)
 * for a library found nowhere, and for /etc/ld.so.preload when absent.
 * What is not a 64-bit ELF program (a script) is only named.  fn returns
 * 0 to go on.  OFL_ENOMEM, or fn's code. */
typedef int ofl_load_fn(void *ctx, const char *path, bool found);
int ofl_program_loads(const char *exe, const char *ld_library_path, ofl_load_fn *fn, void *ctx,
                      struct ofl_error *err);

/* What a 64-bit little-endian ELF file tells the loader: its interpreter
 * (PT_INTERP), DT_RPATH, DT_RUNPATH and DT_NEEDED names, pointing into the
 * bytes (NULL where a name lies outside them).  1 when the bytes are no
 * such file, OFL_ENOMEM; ofl_dynamic_release frees the list. */
struct ofl_dynamic {
	const char *interp, *rpath, *runpath;
	const char **needed;
	size_t nneeded;
};
int ofl_dynamic_read(const uint8_t *data, size_t size, struct ofl_dynamic *d,
                     struct ofl_error *err);
void ofl_dynamic_release(struct ofl_dynamic *d);

#endif
