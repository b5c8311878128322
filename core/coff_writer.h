/* Private to libofflink: a small builder for COFF relocatable objects
 * (sections with relocations, symbols with auxiliary records, the string
 * table), laid out as LLVM's WinCOFFObjectWriter lays them out, so an
 * object built like llc's has llc's bytes (docs/formats.md §10). */
#ifndef OFL_COFF_WRITER_H
#define OFL_COFF_WRITER_H

#ifndef OFL_BUILDING_CORE
#error "coff_writer.h is private to libofflink"
#endif

#include <stdint.h>

#include "coff_priv.h"
#include "offlink/buf.h"
#include "offlink/error.h"

enum {
	OFL_CW_REL_ADDR64 = 1,
	OFL_CW_REL_ADDR32NB = 3,
	OFL_CW_REL_REL32 = 4,
	OFL_CW_CLASS_EXTERNAL = 2,
	OFL_CW_CLASS_STATIC = 3,
	OFL_CW_CLASS_FILE = 0x67,
	OFL_CW_CLASS_WEAK_EXTERNAL = 0x69,
	OFL_CW_TYPE_FUNCTION = 0x20,
	OFL_CW_SECTION_ABSOLUTE = -1,
	OFL_CW_SECTION_DEBUG = -2,
	OFL_CW_SECTION_UNDEFINED = 0,
	OFL_CW_BSS = 0x80, /* IMAGE_SCN_CNT_UNINITIALIZED_DATA: no bytes in the file */
};

struct ofl_cw_reloc {
	uint32_t off, sym; /* sym: symbol table index, known once symbols are added */
	uint16_t type;
};

struct ofl_cw_sec {
	const char *name; /* static */
	uint32_t characteristics;
	struct ofl_buf data;
	struct ofl_cw_reloc *rel;
	size_t nrel, rel_cap;
	uint32_t stroff; /* its name's in the string table, 0: in the header (set at the write) */
	uint32_t sym;    /* its symbol's index, set by ofl_cw_section_symbols */
};

struct ofl_cw_sym {
	char *name; /* owned */
	uint32_t value;
	int16_t section; /* 1-based section number, or OFL_CW_SECTION_* */
	uint16_t type;
	uint8_t storage_class;
	uint8_t naux;
	uint8_t aux[2 * OFL_COFF_SYMBOL]; /* the auxiliary records' bytes */
	int secdef;      /* a section's symbol: its number (the record filled at the write) */
	uint32_t stroff; /* its name's in the string table, 0: in the record (set at the write) */
};

struct ofl_cw_obj {
	uint16_t machine;
	struct ofl_cw_sec *secs;
	size_t nsecs, secs_cap;
	struct ofl_cw_sym *syms;
	size_t nsyms, syms_cap;
	uint32_t nindex; /* symbol table entries so far, auxiliary records included */
	struct ofl_error *err;
};

void ofl_cw_init(struct ofl_cw_obj *o, uint16_t machine, struct ofl_error *err);
void ofl_cw_release(struct ofl_cw_obj *o);
/* A section; its number (1-based), or 0 with the error recorded. */
int ofl_cw_section(struct ofl_cw_obj *o, const char *name, uint32_t characteristics);
/* A symbol (name copied); its symbol table index, or UINT32_MAX with the
 * error recorded.  aux: naux (at most 2) records of OFL_COFF_SYMBOL bytes. */
uint32_t ofl_cw_symbol(struct ofl_cw_obj *o, const char *name, uint32_t value, int16_t section,
                       uint16_t type, uint8_t storage_class, const uint8_t *aux, uint8_t naux);
/* Each section's symbol with its section definition record, in section
 * order, as LLVM starts its table; each section's sym is its index. */
int ofl_cw_section_symbols(struct ofl_cw_obj *o);
int ofl_cw_reloc(struct ofl_cw_obj *o, int sec, uint32_t off, uint16_t type, uint32_t sym);
/* Appends the object to out. */
int ofl_cw_write(struct ofl_cw_obj *o, struct ofl_buf *out);

#endif
