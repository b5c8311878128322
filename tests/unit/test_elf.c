/* ELF files as LLVM reads them, through libofflink's one ELF opener: a file
 * whose e_shoff is 0 has no sections, whatever e_shnum says (libelf takes
 * the ELF header for the table's first entry and reads the bytes after it
 * as the others). */
#include <elf.h>

#include "harness.h"
#include "offlink/elf.h"
#include "offlink/inspect.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"
#include "../../linkwrap/base/syms.h"

static void put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A section header (ELF64) at p. */
static void shdr(uint8_t *p, uint32_t name, uint32_t type, uint64_t off, uint64_t size,
                 uint32_t link, uint32_t info, uint64_t entsize)
{
	put(p, name, 4);
	put(p + 4, type, 4);
	put(p + 0x18, off, 8);
	put(p + 0x20, size, 8);
	put(p + 0x28, link, 4);
	put(p + 0x2c, info, 4);
	put(p + 0x30, 8, 8);
	put(p + 0x38, entsize, 8);
}

enum { NSEC = 4, SYMTAB = NSEC * 64, STRTAB = SYMTAB + 48, OFFLOADING = STRTAB + 32 };
static const char strtab[32] = "\0ofl_crafted\0.llvm.offloading";

/* An x86_64 relocatable object with a symbol table defining ofl_crafted
 * and an .llvm.offloading section holding one image; its section table
 * (NSEC entries) at the end of the file, and again at offset 0 where the
 * ELF header stands for its first entry.  e_shoff says which one is read. */
static void make_object(struct ofl_buf *f, uint64_t shoff)
{
	struct ofl_buf img = OFL_BUF_INIT;
	const char *k[] = {"triple", "arch"}, *v[] = {"x86_64-pc-linux-gnu", "generic"};
	struct ofl_obin_image im = {
	    OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"img", 3, 2, k, v};
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_obin_write(&im, &img, &err))
		abort();
	uint8_t tab[NSEC * 64] = {0};
	shdr(tab + 64, 0, SHT_SYMTAB, SYMTAB, 48, 2, 1, 24);
	shdr(tab + 128, 0, SHT_STRTAB, STRTAB, sizeof strtab, 0, 0, 0);
	shdr(tab + 192, 13, SHT_PROGBITS, OFFLOADING, img.len, 0, 0, 0);
	uint8_t sym[48] = {0};
	put(sym + 24, 1, 4);     /* st_name */
	sym[24 + 4] = 0x12;      /* STB_GLOBAL, STT_FUNC */
	put(sym + 24 + 6, 1, 2); /* st_shndx */
	uint8_t eh[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	put(eh + 16, ET_REL, 2);
	put(eh + 18, EM_X86_64, 2);
	put(eh + 20, EV_CURRENT, 4);
	put(eh + 0x28, shoff, 8);
	put(eh + 0x34, 64, 2); /* e_ehsize */
	put(eh + 0x3a, 64, 2); /* e_shentsize */
	put(eh + 0x3c, NSEC, 2);
	put(eh + 0x3e, 2, 2); /* e_shstrndx */
	ofl_buf_reset(f);
	if (ofl_buf_append(f, eh, 64) || ofl_buf_append(f, tab + 64, sizeof tab - 64) ||
	    ofl_buf_append(f, sym, sizeof sym) || ofl_buf_append(f, strtab, sizeof strtab) ||
	    ofl_buf_append(f, img.data, img.len) || ofl_buf_append(f, tab, sizeof tab))
		abort();
	ofl_buf_release(&img);
}

static int count_symbol(void *ctx, const char *name, bool defined)
{
	if (!strcmp(name, "ofl_crafted") && defined)
		++*(unsigned *)ctx;
	return 0;
}

/* The number of sections inspect shows (with none, it finds the image by
 * scanning the bytes) and of symbols the link reads. */
static void read_object(const struct ofl_buf *f, size_t *nodes, unsigned *syms)
{
	struct ofl_node *root;
	struct ofl_error err = OFL_ERROR_INIT;
	*nodes = 99;
	*syms = 99;
	if (ofl_inspect_build(f->data, f->len, "o.o", NULL, &root, &err))
		return;
	*nodes = 0;
	for (size_t i = 0; i < root->nchildren; i++)
		*nodes += root->children[i]->kind == OFL_NODE_SECTION;
	ofl_node_free(root);
	*syms = 0;
	if (ofl_elf_global_symbols(f->data, f->len, count_symbol, syms, &err))
		*syms = 99;
}

OFL_TEST(shoff_zero_has_no_sections)
{
	struct ofl_buf f = OFL_BUF_INIT;
	size_t nodes;
	unsigned syms;
	/* the table at the end: the object's section and symbol are seen */
	make_object(&f, 0);
	make_object(&f, f.len - NSEC * 64);
	read_object(&f, &nodes, &syms);
	CHECK_EQ_U(nodes, 1);
	CHECK_EQ_U(syms, 1);
	/* e_shoff 0: none are */
	make_object(&f, 0);
	read_object(&f, &nodes, &syms);
	CHECK_EQ_U(nodes, 0);
	CHECK_EQ_U(syms, 0);
	struct ofl_elf_sections s;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_elf_offload_sections(f.data, f.len, 0, &s, &err), 0);
	CHECK_EQ_U(s.n, 0);
	ofl_elf_sections_release(&s);
	ofl_buf_release(&f);
}
