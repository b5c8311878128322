/* Private to libofflink: a copy of an ELF object with sections left out
 * and sections and symbols renamed, written with libelf (what llvm-objcopy
 * --remove-section / --rename-section / --redefine-sym do). */
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

struct ofl_elf_edit {
	/* true: leave the section out (NULL: keep all) */
	bool (*drop)(void *ctx, const char *name, const GElf_Shdr *sh);
	void *ctx;
	const struct ofl_elf_rename *sections;
	size_t nsections;
	const struct ofl_elf_rename *symbols; /* names in .symtab */
	size_t nsymbols;
};

/* What llvm-objcopy rewrites in every copy it writes, done to out: the
 * string tables (below), and GRP_COMDAT dropped from each group whose
 * signature symbol is local.  The string tables: the
 * section-name table (e_shstrndx) holds every section's name, names[i] for
 * section i >= 1 (names[0] unused), and the .symtab's string table every
 * symbol's, syms[j] for symbol j (one table holds both when they share it,
 * as in clang's objects), each once, in StringTableBuilder's tail-merged
 * order from offset 1 (ofl_strtab_layout); every sh_name and st_name
 * follows.  The new tables' bytes are kept in tabs[0..1] until the caller's
 * elf_update and release. */
int ofl_elf_objcopy_rewrite(Elf *out, const char *const *names, size_t nsec,
                            const char *const *syms, size_t nsyms, struct ofl_buf tabs[2],
                            struct ofl_error *err);

/* Lays out a relocatable object as llvm-objcopy does, before its
 * elf_update(ELF_C_WRITE): sections in the order of orig[i] (their file
 * offsets in the input; UINT64_MAX for new ones, which go last in index
 * order), each at the next offset its alignment allows, the section
 * header table last.  Other kinds of ELF file keep libelf's layout. */
int ofl_elf_relayout(Elf *out, const uint64_t *orig, size_t n, struct ofl_error *err);

/* Writes the edited copy of data[0..size) to fd (an empty regular file),
 * laid out as llvm-objcopy lays out its copies (ofl_elf_relayout). */
int ofl_elf_edit_copy(int fd, const uint8_t *data, size_t size, const struct ofl_elf_edit *ed,
                      struct ofl_error *err);

#endif
