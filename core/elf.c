/* ELF recognition and libelf set-up. */
#include <gelf.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/elf.h"

bool ofl_is_elf(const uint8_t *data, size_t size)
{
	return size >= sizeof(Elf32_Ehdr) && memcmp(data, ELFMAG, SELFMAG) == 0 &&
	       (data[EI_CLASS] == ELFCLASS32 || data[EI_CLASS] == ELFCLASS64);
}

/* elf_version sets a libelf-wide value; every caller asks for the same. */
static void setup(void)
{
	elf_version(EV_CURRENT);
}

Elf *ofl_elf_memory(const uint8_t *data, size_t size, Elf_Kind kind)
{
	setup();
	Elf *e = elf_memory((char *)(uintptr_t)data, size);
	if (e && elf_kind(e) != kind) {
		elf_end(e);
		return NULL;
	}
	return e;
}

Elf *ofl_elf_begin(int fd, Elf_Cmd cmd)
{
	setup();
	return elf_begin(fd, cmd, NULL);
}
