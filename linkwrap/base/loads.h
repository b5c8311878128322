/* What the loader reads to start a program (loads.c): the program, its
 * interpreter and every shared library it needs, found as glibc's loader
 * finds them, and every place it looks first and finds empty.  A device
 * tool's key holds what the loader found, not how this machine's loader
 * cache happens to be laid out: Debian's clang and lld are mostly
 * libLLVM.so, which needs a dozen more. */
#ifndef OFL_LOADS_H
#define OFL_LOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/error.h"

/* What the loader does with a path (ofl_program_loads). */
enum ofl_load_kind {
	OFL_LOAD_FILE,    /* it reads the file: the program, a script's interpreter,
	                   * its PT_INTERP, a library, /etc/ld.so.preload */
	OFL_LOAD_LOOKED,  /* it looks there first and finds nothing (a file or a
	                   * folder of the CPU's subfolders); one appearing there
	                   * would be taken instead of what it found */
	OFL_LOAD_CACHE,   /* its cache, whose answer for each name is the FILE
	                   * after it */
	OFL_LOAD_MISSING, /* a library found nowhere (path is its name) */
	OFL_LOAD_UNKNOWN, /* a choice offlink does not model (why says which) */
};

/* fn(ctx, kind, path, why) for each path the loader reads or looks at to
 * start exe (a path), in the loader's order, each once: a script's
 * interpreter (the kernel's #!), exe's PT_INTERP, /etc/ld.so.preload's
 * libraries, then each library of its DT_NEEDED, transitively: DT_RPATH
 * of the object and the objects that loaded it (without DT_RUNPATH),
 * ld_library_path (LD_LIBRARY_PATH's value, or NULL), DT_RUNPATH ($ORIGIN
 * known), the loader's cache (/etc/ld.so.cache), its system folders.  A
 * folder searched that has subfolders named after CPU features (the
 * loader picks among them by the CPU it runs on) is OFL_LOAD_UNKNOWN, as
 * are $LIB and $PLATFORM and a cache in a format not read here; why is
 * NULL but for OFL_LOAD_UNKNOWN.  fn returns 0 to go on.  OFL_ENOMEM,
 * OFL_EUNSUPPORTED (more than 512 libraries), or fn's code. */
typedef int ofl_load_fn(void *ctx, enum ofl_load_kind kind, const char *path, const char *why);
int ofl_program_loads(const char *exe, const char *ld_library_path, ofl_load_fn *fn, void *ctx,
                      struct ofl_error *err);

/* What a 64-bit little-endian ELF file tells the loader: its interpreter
 * (PT_INTERP), DT_RPATH, DT_RUNPATH, DT_SONAME and DT_NEEDED names,
 * pointing into the bytes (NULL where a name lies outside them).  1 when
 * the bytes are no such file, OFL_ENOMEM; ofl_dynamic_release frees the
 * list. */
struct ofl_dynamic {
	const char *interp, *rpath, *runpath, *soname;
	const char **needed;
	size_t nneeded;
};
int ofl_dynamic_read(const uint8_t *data, size_t size, struct ofl_dynamic *d,
                     struct ofl_error *err);
void ofl_dynamic_release(struct ofl_dynamic *d);

/* glibc's loader cache (/etc/ld.so.cache, format "glibc-ld.so.cache1.1",
 * little-endian), read from its bytes: which file a library's name
 * gives, for this machine's ABI (flags: 0x0303 on x86-64, 0x0a03 on
 * AArch64). */
struct ofl_ldcache {
	const uint8_t *data;
	size_t size;
	uint32_t n; /* entries */
	int32_t flags;
};
/* 0, or 1 when the bytes are no such cache. */
int ofl_ldcache_read(const uint8_t *data, size_t size, int32_t flags, struct ofl_ldcache *c);
/* The path the cache gives for name, in *path (pointing into the bytes):
 * 0; 1 when it has none; 2 when it has entries for name that the loader
 * takes or leaves by the CPU's features (hwcaps); *path NULL but for 0. */
int ofl_ldcache_lookup(const struct ofl_ldcache *c, const char *name, const char **path);
/* This machine's ABI's flags in the cache. */
int32_t ofl_ldcache_abi(void);

#endif
