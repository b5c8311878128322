/* The offlink binary's foreign reader (offlink/inspect.h): COFF, PE and
 * Mach-O objects read with libbfd.  A library of its own, linked into the
 * offlink binary only: the plugin runs inside ld.bfd, whose libbfd a second
 * copy's bfd_init() would reset, and gold should not carry libbfd at all. */
#ifndef OFFLINK_BFD_H
#define OFFLINK_BFD_H

#include <stdint.h>

#include "offlink/inspect.h"

int ofl_bfd_read(const uint8_t *data, uint64_t size, struct ofl_foreign_sink *sink);

#endif
