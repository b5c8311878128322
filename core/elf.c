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

bool ofl_elf64_shtab(const uint8_t *d, size_t size, struct ofl_elf64_shtab *t)
{
	if (size < 64)
		return false;
	uint64_t shoff = ofl_le64(d + 0x28);
	t->entsize = ofl_le16(d + 0x3a);
	t->n = ofl_le16(d + 0x3c);
	t->strndx = ofl_le16(d + 0x3e);
	if (t->entsize < 64 || t->strndx >= t->n ||
	    !ofl_range_ok(shoff, (uint64_t)t->entsize * t->n, size))
		return false;
	t->sh = d + shoff;
	const uint8_t *strsh = t->sh + (uint64_t)t->strndx * t->entsize;
	uint64_t stroff = ofl_le64(strsh + 0x18);
	t->strsize = ofl_le64(strsh + 0x20);
	t->strs = (const char *)d + stroff;
	return ofl_range_ok(stroff, t->strsize, size);
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
