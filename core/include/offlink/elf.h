/* Small ELF helpers shared by the modules that read objects with libelf. */
#ifndef OFFLINK_ELF_H
#define OFFLINK_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* True when data starts with an ELF header of a known class (32 or 64). */
bool ofl_is_elf(const uint8_t *data, size_t size);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
