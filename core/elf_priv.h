/* Private to libofflink: the one place that sets libelf up and opens an
 * image with it. */
#ifndef OFL_ELF_PRIV_H
#define OFL_ELF_PRIV_H

#ifndef OFL_BUILDING_CORE
#error "elf_priv.h is private to libofflink"
#endif

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libelf's read-only view of data (ELF_C_READ never writes through the
 * mutable pointer libelf takes); NULL when libelf cannot open it or it is
 * not of the given kind (ELF_K_ELF, ELF_K_AR).  elf_errmsg(-1) says why.
 * An ELF file whose e_shoff is 0 has no sections,
 * whatever e_shnum says.  Ended by ofl_elf_end. */
Elf *ofl_elf_memory(const uint8_t *data, size_t size, Elf_Kind kind);

/* Ends e (NULL too), which ofl_elf_memory opened on data. */
void ofl_elf_end(Elf *e, const uint8_t *data);

/* elf_begin on fd with cmd (ELF_C_WRITE, ELF_C_RDWR) once libelf is set up. */
Elf *ofl_elf_begin(int fd, Elf_Cmd cmd);

#endif
