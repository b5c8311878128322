/* The inspector's view of a file: a tree of layers (archive member ->
 * section -> OffloadBinary image -> bundle / CCOB / CUDA fatbinary entry ->
 * ...), each node a range of bytes with what was learnt about it.  Front
 * ends print the tree; the linker wrapper walks it to find device code. */
#ifndef OFFLINK_INSPECT_H
#define OFFLINK_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/archive.h"
#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/format.h"
#include "offlink/io.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_node_kind {
	OFL_NODE_FILE,         /* the file named on the command line */
	OFL_NODE_MEMBER,       /* archive member; selector "(name)" */
	OFL_NODE_SECTION,      /* object file section; selector "/name" */
	OFL_NODE_IMAGE,        /* OffloadBinary entry; selector "[k]" */
	OFL_NODE_BUNDLE_ENTRY, /* bundle entry; selector "/<entry id>" */
	OFL_NODE_FATBIN_ENTRY, /* CUDA fatbinary entry; selector "[k]" */
};

struct ofl_node_string {
	char *key;
	char *value; /* NUL-terminated; v2+ values may hold NULs too */
	uint64_t value_size;
};

struct ofl_node {
	enum ofl_node_kind kind;
	enum ofl_format format; /* what its bytes were recognised as */
	char *name;             /* member or section name, bundle entry ID; owned */
	size_t index;           /* images and fatbin entries: k among the parent's */
	const uint8_t *data;    /* the node's bytes (a view; see inflated) */
	uint64_t size;
	/* Offset of data in the file (or, for a thin archive member, in the
	 * member's file); when inflated, in the inflated bytes of the nearest
	 * compressed ancestor instead. */
	uint64_t offset;
	bool inflated;
	char *format_name; /* "elf64-x86-64", "ar archive", ...; owned */

	/* Images: the OffloadBinary that holds them. */
	uint32_t version;
	uint64_t binary_offset, binary_size;
	int compression; /* 0 none, 1 zlib, 2 zstd (binary v3 or CCOB) */
	uint64_t inflated_size;
	uint16_t image_kind, offload_kind;
	uint32_t flags;
	size_t nstrings;
	struct ofl_node_string *strings;

	/* Images, bundle and fatbin entries: where the code runs. */
	char *triple; /* owned, may be NULL */
	char *arch;   /* processor or target ID ("gfx90a:xnack+", "sm_90") */
	/* Fatbin entries. */
	uint16_t fatbin_kind; /* 1 PTX, 2 ELF */
	uint32_t sm;
	uint64_t fatbin_flags;
	uint64_t payload_size;

	struct ofl_node *parent;
	size_t nchildren, children_cap;
	struct ofl_node **children;

	void *owned;           /* inflated bytes the subtree points into */
	struct ofl_file *file; /* thin member: its mapped file */
};

enum {
	/* Warn instead of failing when an ELF offloading section holds bytes
	 * that do not parse (never the case for LLVM-made files). */
	OFL_INSPECT_TOLERANT = 1,
};

#define OFL_INSPECT_MAX_DEPTH OFL_MAX_NESTING

/* A reader for object files core does not parse (COFF, PE, Mach-O): it
 * returns 0 when it does not know the bytes, else calls ofl_foreign_object
 * once, then ofl_foreign_section for each section with contents (offsets
 * in data), and returns 1, or the first error those return.  The offlink
 * binary has one built on libbfd (core/bfd/); core does not link libbfd, so
 * a linker plugin never loads a second one into the linker. */
struct ofl_foreign_sink;
typedef int (*ofl_foreign_reader)(const uint8_t *data, uint64_t size,
                                  struct ofl_foreign_sink *sink);
int ofl_foreign_object(struct ofl_foreign_sink *sink, const char *format_name);
int ofl_foreign_section(struct ofl_foreign_sink *sink, const char *name, uint64_t offset,
                        uint64_t size);

struct ofl_inspect_opts {
	unsigned flags;             /* OFL_INSPECT_* */
	ofl_foreign_reader foreign; /* NULL: non-ELF objects are scanned for binaries only */
};

/* Builds the tree for the file bytes data[0..size) named path (used for
 * thin archive members, which are read relative to its directory, and in
 * errors); opts may be NULL for the defaults.  The tree holds views into
 * data, which must outlive it.  Errors carry the file (for archive members
 * "lib.a(m.o)") and offset; nested layers deeper than OFL_INSPECT_MAX_DEPTH
 * are an error (a layer that contains itself would otherwise never end). */
int ofl_inspect_build(const uint8_t *data, size_t size, const char *path,
                      const struct ofl_inspect_opts *opts, struct ofl_node **out,
                      struct ofl_error *err);
void ofl_node_free(struct ofl_node *n);

/* The selector of a node: "lib.a(m.o)/.llvm.offloading[1]/hip-amdgcn-...".
 * Owned by the caller; NULL when out of memory. */
char *ofl_node_path(const struct ofl_node *n);

/* Finds the node a selector names (the file part included); NULL if none. */
const struct ofl_node *ofl_node_find(const struct ofl_node *root, const char *sel);

/* A name for extracting the node to a file: its selector with every
 * character outside [A-Za-z0-9._+-] turned into '_', plus a suffix from what
 * the bytes are.  Owned by the caller; NULL when out of memory. */
char *ofl_node_file_name(const struct ofl_node *n);

/* True for nodes that hold device code (images, bundle and fatbin entries)
 * and no further layers. */
bool ofl_node_is_code(const struct ofl_node *n);

/* --check: does node n (a code node) suit target t?  t is a triple with an
 * optional "--<target ID>" ("amdgcn-amd-amdhsa--gfx90a:xnack+"), a bundle
 * entry ID ("hip-amdgcn-amd-amdhsa--gfx90a"), a bare processor or target ID
 * ("sm_90", "gfx90a:xnack-") or a bare triple architecture ("x86_64").
 * Triples fit when their architectures are equal and each other field is
 * equal or unknown/empty on one side.  Returns 0 for no match, 1 for a
 * compatible one (target-ID rules of docs/formats.md §2.4), 2 for one whose
 * target ID is the one asked for. */
int ofl_node_match(const struct ofl_node *n, const char *t);

/* Visits every node depth first, parents before children. */
void ofl_node_walk(const struct ofl_node *n, void (*fn)(const struct ofl_node *, void *),
                   void *ctx);

/* What llvm-objdump 22 --offloading also does with an ELF object: every
 * section whose contents start with a bundle or CCOB magic is read as
 * bundles one after another, numbered across the object, and each entry is
 * written to "<file>.<bundle number>.<entry ID>".  An uncompressed bundle
 * ends where the next magic starts (LLVM's rule); a CCOB ends at its
 * header's total size, and its entries are views into its inflated bytes
 * (LLVM 22 cuts a CCOB at the next "CCOB" and copies entries from the
 * object at their inflated offsets: wrong bytes, or past the object). */
struct ofl_objdump_entry {
	size_t bundle;
	const uint8_t *data;
	uint64_t size;
	char *id;
};

struct ofl_objdump_bundles {
	size_t n, cap, nbundles;
	struct ofl_objdump_entry *v;
	struct ofl_ptrs owned; /* inflated bytes entries point into */
	uint64_t inflated;     /* their total size */
	uint64_t charged;      /* bundle records read, bounded by input + inflated */
};

#define OFL_OBJDUMP_BUNDLES_INIT                                                                   \
	{                                                                                          \
		0, 0, 0, NULL, OFL_PTRS_INIT, 0, 0                                                 \
	}

/* Errors (OFL_EFORMAT): a header cut short has LLVM 22's message (below);
 * an entry outside the bytes (LLVM would read past them) or a corrupt CCOB
 * have messages of their own. */
#define OFL_OBJDUMP_SHORT_STREAM                                                                   \
	"Stream Error: The stream is too short to perform the requested operation."
int ofl_objdump_bundles(const uint8_t *data, size_t size, struct ofl_objdump_bundles *out,
                        struct ofl_error *err);
void ofl_objdump_bundles_release(struct ofl_objdump_bundles *b);
/* The same for one section of any object format (COFF too), at sec_off in
 * file; appends to out (initialised by the caller; released on error by
 * the caller). */
int ofl_objdump_section_bundles(const uint8_t *file, size_t file_size, uint64_t sec_off,
                                uint64_t sec_size, struct ofl_objdump_bundles *out,
                                struct ofl_error *err);

/* name: "lib.a(m.o)" for a member, else the path; fname: the name files
 * extracted from it are named after (flattened); file: LLVM's file name of
 * the object (the member's name as stored, else the path); archive: the
 * archive's path, or NULL. */
struct ofl_objdump_object {
	const char *name, *fname, *file, *archive;
	const uint8_t *data;
	size_t size;
};

/* Returns 0 to go on, a positive value to stop the walk. */
typedef int (*ofl_objdump_visit_fn)(void *ctx, const struct ofl_objdump_object *o);

/* Walks data (the file at path) as llvm-objdump does: the file itself, or
 * an archive's members in order, a thin archive's read beside it when
 * read_thin (else an error), and calls fn for each.  A member that is an
 * archive is passed to fn as any other (llvm-objdump reads no nested
 * archive: the visitor decides).  Returns 0, fn's positive value (err
 * untouched), or a negative OFL_E* code with err filled. */
int ofl_objdump_walk(const uint8_t *data, size_t size, const char *path, bool read_thin,
                     ofl_objdump_visit_fn fn, void *ctx, struct ofl_error *err);

/* The "file format" name llvm-objdump prints for an ELF header. */
const char *ofl_elf_format_name(const uint8_t *elf_header);

const char *ofl_node_kind_name(enum ofl_node_kind k);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
