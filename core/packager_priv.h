/* Private to packager.c and packager_archive.c. */
#ifndef OFL_PACKAGER_PRIV_H
#define OFL_PACKAGER_PRIV_H

#include "offlink/packager.h"

/* Collects from one buffer (a file or an archive member) at absolute offset
 * base, whose binaries LLVM names ident, inside depth archives. */
int ofl_pkg_collect_buffer(const uint8_t *data, size_t size, uint64_t base, const char *ident,
                           unsigned flags, unsigned depth, struct ofl_pkg_inputs *out,
                           enum ofl_obin_llvm_diag *diag, struct ofl_error *err);

/* Collects from every member of an archive (packager_archive.c). */
int ofl_pkg_collect_archive(const uint8_t *data, size_t size, uint64_t base, unsigned flags,
                            unsigned depth, struct ofl_pkg_inputs *out, enum ofl_obin_llvm_diag *diag,
                            struct ofl_error *err);

/* Frees the archives packager_archive.c kept for member names. */
void ofl_pkg_release_archives(struct ofl_pkg_inputs *in);

#endif
