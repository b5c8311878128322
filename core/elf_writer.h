/* Private to libofflink: a small builder for host relocatable ELF64
 * little-endian objects (sections, symbols, RELA relocations), written with
 * libelf in a fixed layout so the same calls give the same bytes. */
#ifndef OFL_ELF_WRITER_H
#define OFL_ELF_WRITER_H

#ifndef OFL_BUILDING_CORE
#error "elf_writer.h is private to libofflink"
#endif

#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/error.h"

/* Borrowed bytes placed at off inside a section; when fd >= 0 the same
 * bytes are also at fd_off in that file, and are copied from there. */
struct ofl_ew_piece {
	const uint8_t *p;
	uint64_t len;
	uint64_t off;
	int fd;
	uint64_t fd_off;
};

struct ofl_ew_reloc {
	uint64_t off;
	uint32_t type;
	uint32_t sym; /* builder symbol id */
	int64_t addend;
};

struct ofl_ew_sec {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t align;
	struct ofl_buf data;         /* own bytes, or */
	struct ofl_ew_piece *pieces; /* borrowed ones (then size covers them) */
	size_t npieces, pieces_cap;
	uint64_t size; /* NOBITS size, or the end of the last piece */
	struct ofl_ew_reloc *rel;
	size_t nrel, rel_cap;
	uint32_t secsym; /* builder symbol id of its STT_SECTION symbol, 0 = none */
};

struct ofl_ew_sym {
	const char *name; /* static or owned by the builder's names */
	uint8_t bind, type, vis;
	int sec; /* builder section id, -1 undefined, -2 absolute */
	uint64_t value, size;
};

struct ofl_ew_obj {
	uint16_t machine;
	struct ofl_ew_sec *secs;
	size_t nsecs, secs_cap;
	struct ofl_ew_sym *syms; /* index 0 is the null symbol */
	size_t nsyms, syms_cap;
	char **names; /* owned strings */
	size_t nnames, names_cap;
	struct ofl_error *err;
};

void ofl_ew_init(struct ofl_ew_obj *o, uint16_t machine, struct ofl_error *err);
void ofl_ew_release(struct ofl_ew_obj *o);
/* Returns the section id, or -1 (error recorded). */
int ofl_ew_section(struct ofl_ew_obj *o, const char *name, uint32_t type, uint64_t flags,
                   uint64_t align);
/* Returns the symbol id, or 0 (error recorded).  name is copied. */
uint32_t ofl_ew_symbol(struct ofl_ew_obj *o, const char *name, uint8_t bind, uint8_t type,
                       uint8_t vis, int sec, uint64_t value, uint64_t size);
/* The section's STT_SECTION symbol, made on first use. */
uint32_t ofl_ew_secsym(struct ofl_ew_obj *o, int sec);
/* Appends borrowed bytes (also found at fd_off in fd, or fd = -1) aligned
 * to align; returns their offset via off.  A section made of pieces is
 * written after libelf is done, by copy_file_range where it can. */
int ofl_ew_piece(struct ofl_ew_obj *o, int sec, const uint8_t *p, uint64_t len, uint64_t align,
                 int fd, uint64_t fd_off, uint64_t *off);
int ofl_ew_reloc(struct ofl_ew_obj *o, int sec, uint64_t off, uint32_t type, uint32_t sym,
                 int64_t addend);
/* fd must be a regular file, empty and open for writing. */
int ofl_ew_write_fd(struct ofl_ew_obj *o, int fd);

#endif
