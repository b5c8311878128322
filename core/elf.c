/* ELF recognition and libelf set-up. */
#include <gelf.h>
#include <stdlib.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/elf.h"

bool ofl_is_elf(const uint8_t *data, size_t size)
{
	return size >= sizeof(Elf32_Ehdr) && memcmp(data, ELFMAG, SELFMAG) == 0 &&
	       (data[EI_CLASS] == ELFCLASS32 || data[EI_CLASS] == ELFCLASS64);
}

/* An n-byte field of the file's byte order. */
static uint64_t field(const uint8_t *p, unsigned n, bool msb)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

/* e_shoff is 0: the file has no section table, whatever e_shnum says (LLVM
 * reads none).  d is an ELF file ofl_is_elf accepts. */
static bool sectionless(const uint8_t *d)
{
	bool c64 = d[EI_CLASS] == ELFCLASS64;
	return field(d + (c64 ? 0x28 : 0x20), c64 ? 8 : 4, d[EI_DATA] == ELFDATA2MSB) == 0;
}

bool ofl_elf_llvm_object(const uint8_t *d)
{
	unsigned type = (unsigned)field(d + 16, 2, d[EI_DATA] == ELFDATA2MSB);
	return type == ET_REL || type == ET_EXEC || type == ET_DYN;
}

int ofl_elf_llvm_check(const uint8_t *d, size_t size, struct ofl_error *err)
{
	bool c64 = d[EI_CLASS] == ELFCLASS64, msb = d[EI_DATA] == ELFDATA2MSB;
	unsigned ehsize = c64 ? 64 : 52, shsize = c64 ? 64 : 40, w = c64 ? 8 : 4;
	if (d[EI_DATA] != ELFDATA2LSB && !msb)
		return ofl_error_set(err, OFL_EFORMAT, NULL, EI_DATA, "Invalid ELF data");
	if (size < ehsize)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0,
		                     "invalid buffer: the size (%zu) is smaller than an ELF "
		                     "header (%u)",
		                     size, ehsize);
	uint64_t shoff = field(d + (c64 ? 0x28 : 0x20), w, msb);
	unsigned entsize = (unsigned)field(d + (c64 ? 0x3a : 0x2e), 2, msb);
	uint64_t num = field(d + (c64 ? 0x3c : 0x30), 2, msb), end;
	if (sectionless(d))
		return 0;
	if (entsize != shsize)
		return ofl_error_set(err, OFL_EFORMAT, NULL, c64 ? 0x3a : 0x2e,
		                     "invalid e_shentsize in ELF header: %u", entsize);
	if (!ofl_range_ok(shoff, shsize, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, c64 ? 0x28 : 0x20,
		                     "section header table goes past the end of the file: "
		                     "e_shoff = 0x%llx",
		                     (unsigned long long)shoff);
	/* more sections than e_shnum holds: the count is section 0's size
	 * (LLVM's alignment check of the table never fires: its header types
	 * are byte-aligned) */
	if (num == 0)
		num = field(d + shoff + (c64 ? 0x20 : 0x14), w, msb);
	if (ofl_mul_overflow(num, shsize, &end))
		return ofl_error_set(err, OFL_EFORMAT, NULL, shoff,
		                     "invalid number of sections specified in the NULL section's "
		                     "sh_size field (%llu)",
		                     (unsigned long long)num);
	if (ofl_add_overflow(shoff, end, &end))
		return ofl_error_set(err, OFL_EFORMAT, NULL, shoff,
		                     "invalid section header table offset (e_shoff = 0x%llx) or "
		                     "invalid number of sections specified in the first section "
		                     "header's sh_size field (0x%llx)",
		                     (unsigned long long)shoff, (unsigned long long)num);
	if (end > size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, shoff,
		                     "section table goes past the end of file");
	return 0;
}

bool ofl_elf64_shtab(const uint8_t *d, size_t size, struct ofl_elf64_shtab *t)
{
	if (size < 64 || sectionless(d))
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
	/* checked before the pointer is formed: past the buffer it is
	 * undefined, not merely unused */
	if (!ofl_range_ok(stroff, t->strsize, size))
		return false;
	t->strs = (const char *)d + stroff;
	return true;
}

/* elf_version sets a libelf-wide value; every caller asks for the same. */
static void setup(void)
{
	elf_version(EV_CURRENT);
}

/* libelf takes the ELF header for the table of a file whose e_shoff is 0
 * and e_shnum is not (LLVM reads no sections); it reads a copy of the file
 * whose header says there are none.  NULL when memory runs out. */
static Elf *sectionless_memory(const uint8_t *data, size_t size)
{
	bool c64 = data[EI_CLASS] == ELFCLASS64;
	uint8_t *copy = ofl_malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, data, size);
	memset(copy + (c64 ? 0x3c : 0x30), 0, 4); /* e_shnum, e_shstrndx */
	Elf *e = elf_memory((char *)copy, size);
	if (!e)
		free(copy);
	return e;
}

Elf *ofl_elf_memory(const uint8_t *data, size_t size, Elf_Kind kind)
{
	setup();
	bool copy = kind == ELF_K_ELF && ofl_is_elf(data, size) &&
	            size >= (data[EI_CLASS] == ELFCLASS64 ? 64 : 52) && sectionless(data);
	Elf *e = copy ? sectionless_memory(data, size) : elf_memory((char *)(uintptr_t)data, size);
	if (e && elf_kind(e) != kind) {
		ofl_elf_end(e, data);
		return NULL;
	}
	return e;
}

void ofl_elf_end(Elf *e, const uint8_t *data)
{
	char *image = e ? elf_rawfile(e, NULL) : NULL;
	elf_end(e);
	if (image != (const char *)data)
		free(image);
}

Elf *ofl_elf_begin(int fd, Elf_Cmd cmd)
{
	setup();
	return elf_begin(fd, cmd, NULL);
}
