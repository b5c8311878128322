/* Private to libofflink: the sizes of COFF's records, shared by the reader
 * (coff.c) and the writer (coff_writer.c); docs/formats.md §10. */
#ifndef OFL_COFF_PRIV_H
#define OFL_COFF_PRIV_H

#ifndef OFL_BUILDING_CORE
#error "coff_priv.h is private to libofflink"
#endif

enum {
	OFL_COFF_FILE_HEADER = 20, /* plain; bigobj's is longer */
	OFL_COFF_SECTION_HEADER = 40,
	OFL_COFF_SYMBOL = 18, /* a symbol or auxiliary record, plain; bigobj's are longer */
	OFL_COFF_RELOC = 10,
	OFL_COFF_SHORT_NAME = 8, /* a longer name lies in the string table */
};

#endif
