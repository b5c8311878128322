/* Private to libofflink: the wrapper object for Windows x64 hosts, called
 * by ofl_wrap_write_fd/_buf for OFL_WRAP_X86_64_COFF. */
#ifndef OFL_WRAPPER_COFF_H
#define OFL_WRAPPER_COFF_H

#ifndef OFL_BUILDING_CORE
#error "wrapper_coff.h is private to libofflink"
#endif

#include "offlink/wrapper_obj.h"

/* Appends the COFF object to out: OpenMP, llvm19 or llvm20 registration. */
int ofl_wrap_write_coff(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                        const struct ofl_wrap_image *imgs, size_t n, struct ofl_error *err);

/* The pieces of the entries section sec (ofl_wrap_entries_section) that
 * bracket clang's entries: "<sec>$OA", or "<sec>$OZ" for stop (static
 * strings); NULL for a section of no wrapper ABI. */
const char *ofl_wrap_coff_piece(const char *sec, bool stop);

#endif
