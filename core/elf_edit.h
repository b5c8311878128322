/* Private to libofflink: a copy of an ELF object with sections left out or
 * added and sections and symbols renamed, written with libelf, byte for
 * byte as llvm-objcopy (--remove-section / --add-section / --rename-section
 * / --redefine-sym) writes it. */
#ifndef OFL_ELF_EDIT_H
#define OFL_ELF_EDIT_H

#ifndef OFL_BUILDING_CORE
#error "elf_edit.h is private to libofflink"
#endif

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/error.h"

struct ofl_elf_rename {
	const char *from, *to;
};

/* A section added after the others: SHT_PROGBITS, SHF_EXCLUDE only,
 * alignment 1 (--add-section with --set-section-flags=readonly,exclude). */
struct ofl_elf_add {
	const char *name;
	const uint8_t *data; /* borrowed until the copy is written */
	uint64_t size;
};

struct ofl_elf_edit {
	/* true: leave the section out (NULL: keep all) */
	bool (*drop)(void *ctx, const char *name, const GElf_Shdr *sh);
	void *ctx;
	const struct ofl_elf_rename *sections;
	size_t nsections;
	const struct ofl_elf_rename *symbols; /* names in .symtab */
	size_t nsymbols;
};

/* Writes the edited copy of data[0..size) to fd (an empty regular file) as
 * llvm-objcopy writes its copies:
 *  - the kept sections in their file order, the added ones after them, each
 *    at the next offset its alignment allows, the section header table last
 *    (a relocatable object; other kinds keep libelf's layout); alignments
 *    that could pad the object with more than 64 MiB are OFL_EFORMAT;
 *  - the section-name table holding every section's name and the .symtab's
 *    string table every symbol's (one table holds both when they share it,
 *    as in clang's objects), each once, in StringTableBuilder's tail-merged
 *    order (ofl_strtab_layout), every sh_name and st_name following;
 *  - GRP_COMDAT dropped from each group whose signature symbol is local.
 * A section whose contents lie outside the file is OFL_EFORMAT, in
 * llvm-objcopy's words.
 * The nadd sections of add go after the kept ones; adding to an object
 * without a section-name table (or a compressed one) is OFL_EFORMAT:
 * llvm-objcopy would lose their names. */
int ofl_elf_edit_add_copy(int fd, const uint8_t *data, size_t size, const struct ofl_elf_edit *ed,
                          const struct ofl_elf_add *add, size_t nadd, struct ofl_error *err);

/* The same, adding nothing. */
static inline int ofl_elf_edit_copy(int fd, const uint8_t *data, size_t size,
                                    const struct ofl_elf_edit *ed, struct ofl_error *err)
{
	return ofl_elf_edit_add_copy(fd, data, size, ed, NULL, 0, err);
}

#endif
