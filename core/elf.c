#include <gelf.h>

#include "internal.h"
#include "offlink/elf.h"

bool ofl_is_elf(const uint8_t *data, size_t size)
{
	return size >= sizeof(Elf32_Ehdr) && memcmp(data, ELFMAG, SELFMAG) == 0 &&
	       (data[EI_CLASS] == ELFCLASS32 || data[EI_CLASS] == ELFCLASS64);
}
