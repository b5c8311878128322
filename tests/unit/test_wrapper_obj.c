/* wrapper_obj: section, symbol and relocation layout per flavour (read
 * back with libelf), determinism, argument checks, the IR text and the
 * bitcode container. */
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "offlink/offload_binary.h"
#include "offlink/wrapper_obj.h"

#ifndef SHT_LLVM_OFFLOADING
#define SHT_LLVM_OFFLOADING 0x6fff4c0b
#endif

static uint8_t IMG_A[100], IMG_B[37], IMG_C[9];

static void fill(void)
{
	for (size_t i = 0; i < sizeof(IMG_A); i++)
		IMG_A[i] = (uint8_t)(i * 7 + 1);
	memset(IMG_B, 0xbb, sizeof(IMG_B));
	memset(IMG_C, 0xcc, sizeof(IMG_C));
}

/* A written object, read back. */
struct obj {
	struct ofl_buf buf;
	Elf *e;
	size_t shstrndx;
};

static int build(struct obj *o, enum ofl_wrap_kind kind, enum ofl_wrap_abi abi,
                 enum ofl_wrap_machine m, const struct ofl_wrap_image *imgs, size_t n)
{
	struct ofl_wrap_opts opts = {kind, abi, m, false, false};
	struct ofl_error err = OFL_ERROR_INIT;
	o->buf = (struct ofl_buf)OFL_BUF_INIT;
	int rc = ofl_wrap_write_buf(&o->buf, &opts, imgs, n, &err);
	if (rc) {
		fprintf(stderr, "wrap: %s\n", err.msg);
		return rc;
	}
	elf_version(EV_CURRENT);
	o->e = elf_memory((char *)o->buf.data, o->buf.len);
	if (!o->e || elf_getshdrstrndx(o->e, &o->shstrndx))
		return -1;
	return 0;
}

static void done(struct obj *o)
{
	elf_end(o->e);
	ofl_buf_release(&o->buf);
}

static Elf_Scn *find_sec(struct obj *o, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *s = elf_nextscn(o->e, NULL); s; s = elf_nextscn(o->e, s)) {
		gelf_getshdr(s, sh);
		const char *n = elf_strptr(o->e, o->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

/* The symbol called name; false if absent. */
static bool find_sym(struct obj *o, const char *name, GElf_Sym *out)
{
	GElf_Shdr sh;
	Elf_Scn *s = find_sec(o, ".symtab", &sh);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;
	for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
		gelf_getsym(d, (int)i, out);
		const char *n = elf_strptr(o->e, sh.sh_link, out->st_name);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Relocation number i of the section targeting name. */
static bool reloc(struct obj *o, const char *rela, size_t i, GElf_Rela *r)
{
	GElf_Shdr sh;
	Elf_Scn *s = find_sec(o, rela, &sh);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;
	if (!d || i >= sh.sh_size / 24)
		return false;
	return gelf_getrela(d, (int)i, r) != NULL;
}

OFL_TEST(omp20_layout)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Rela r;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, &img, 1) == 0);
	GElf_Ehdr eh;
	CHECK(gelf_getehdr(o.e, &eh));
	CHECK_EQ_U(eh.e_type, ET_REL);
	CHECK_EQ_U(eh.e_machine, EM_X86_64);

	Elf_Scn *s = find_sec(&o, ".llvm.offloading", &sh);
	CHECK(s);
	CHECK_EQ_U(sh.sh_type, SHT_LLVM_OFFLOADING);
	CHECK_EQ_U(sh.sh_flags, SHF_ALLOC);
	CHECK_EQ_U(sh.sh_addralign, 8);
	CHECK_EQ_U(sh.sh_size, sizeof(IMG_A));
	CHECK_MEM(o.buf.data + sh.sh_offset, IMG_A, sizeof(IMG_A));

	CHECK(find_sec(&o, "llvm_offload_entries", &sh));
	CHECK_EQ_U(sh.sh_size, 0);
	CHECK_EQ_U(sh.sh_flags, SHF_ALLOC);
	CHECK(find_sec(&o, ".init_array.101", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_INIT_ARRAY);
	CHECK(!find_sec(&o, ".fini_array.1", &sh));
	CHECK(find_sec(&o, ".note.GNU-stack", &sh));
	CHECK(find_sec(&o, ".data.rel.ro", &sh));
	CHECK_EQ_U(sh.sh_size, 64);
	/* CIE (24 bytes) and one 24-byte FDE per function, as LLVM's */
	CHECK(find_sec(&o, ".eh_frame", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_X86_64_UNWIND);
	CHECK_EQ_U(sh.sh_size, 72);
	CHECK(reloc(&o, ".rela.eh_frame", 1, &r));
	CHECK_EQ_U(r.r_offset, 48 + 8);
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_X86_64_PC32);
	CHECK_EQ_U(r.r_addend, 32); /* the second function, unreg */
	/* LLVM's order: reg at 0, unreg at 32; reg passes unreg to atexit */
	CHECK(find_sym(&o, ".omp_offloading.descriptor_unreg", &sym));
	CHECK_EQ_U(sym.st_value, 32);
	CHECK(reloc(&o, ".rela.text.startup", 2, &r));
	CHECK_EQ_U(r.r_offset, 0x10);
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_X86_64_PC32);
	CHECK_EQ_U(r.r_addend, 32 - 4);

	CHECK(find_sym(&o, "__dummy.llvm_offload_entries", &sym));
	CHECK_EQ_U(GELF_ST_BIND(sym.st_info), STB_LOCAL);
	CHECK(find_sym(&o, "__start_llvm_offload_entries", &sym));
	CHECK_EQ_U(GELF_ST_BIND(sym.st_info), STB_GLOBAL);
	CHECK_EQ_U(GELF_ST_VISIBILITY(sym.st_other), STV_HIDDEN);
	CHECK_EQ_U(sym.st_shndx, SHN_UNDEF);
	CHECK(find_sym(&o, "atexit", &sym));
	CHECK(find_sym(&o, "__tgt_register_lib", &sym));
	CHECK_EQ_U(GELF_ST_VISIBILITY(sym.st_other), STV_DEFAULT);
	CHECK(find_sym(&o, ".omp_offloading.descriptor", &sym));
	CHECK_EQ_U(sym.st_value, 32);
	CHECK_EQ_U(sym.st_size, 32);
	CHECK(find_sym(&o, ".omp_offloading.descriptor_reg", &sym));
	CHECK_EQ_U(GELF_ST_TYPE(sym.st_info), STT_FUNC);
	CHECK_EQ_U(sym.st_value, 0);
	CHECK(find_sym(&o, "offload.wrapper.module", &sym));
	CHECK_EQ_U(GELF_ST_TYPE(sym.st_info), STT_FILE);

	/* ImageStart, ImageEnd, begin, end, then the descriptor's three */
	CHECK(reloc(&o, ".rela.data.rel.ro", 1, &r));
	CHECK_EQ_U(r.r_offset, 8);
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_X86_64_64);
	CHECK_EQ_U(r.r_addend, sizeof(IMG_A));
	CHECK(reloc(&o, ".rela.data.rel.ro", 6, &r));
	CHECK_EQ_U(r.r_offset, 0x38);
	CHECK(!reloc(&o, ".rela.data.rel.ro", 7, &r));
	CHECK_EQ_U(o.buf.data[0], 0x7f);
	done(&o);
}

OFL_TEST(omp19_image_range_and_sections)
{
	fill();
	/* an OffloadBinary-like input: ImageStart skips a 16-byte header */
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 16, 90, NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Rela r;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_LLVM19, OFL_WRAP_X86_64, &img, 1) == 0);
	CHECK(find_sec(&o, "omp_offloading_entries", &sh));
	CHECK(!find_sec(&o, "llvm_offload_entries", &sh));
	CHECK(reloc(&o, ".rela.data.rel.ro", 0, &r));
	CHECK_EQ_U(r.r_addend, 16);
	CHECK(reloc(&o, ".rela.data.rel.ro", 1, &r));
	CHECK_EQ_U(r.r_addend, 90);
	done(&o);
}

OFL_TEST(omp14_old_abi)
{
	fill();
	struct ofl_wrap_image img = {IMG_B, sizeof(IMG_B), 0, sizeof(IMG_B), NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_LLVM14, OFL_WRAP_X86_64, &img, 1) == 0);
	CHECK(find_sec(&o, ".rodata", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_PROGBITS);
	CHECK(!find_sec(&o, ".llvm.offloading", &sh));
	CHECK(find_sec(&o, ".init_array.1", &sh));
	CHECK(find_sec(&o, ".fini_array.1", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_FINI_ARRAY);
	CHECK(find_sym(&o, "__dummy.omp_offloading.entry", &sym));
	CHECK_EQ_U(GELF_ST_BIND(sym.st_info), STB_GLOBAL);
	CHECK_EQ_U(GELF_ST_VISIBILITY(sym.st_other), STV_HIDDEN);
	CHECK(sym.st_shndx != SHN_UNDEF);
	CHECK(!find_sym(&o, "atexit", &sym));
	CHECK(find_sym(&o, "offload.wrapper.object", &sym));
	done(&o);
}

OFL_TEST(amd_image_info)
{
	fill();
	struct ofl_wrap_image imgs[2] = {
	    {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), "gfx906", NULL},
	    {IMG_B, sizeof(IMG_B), 0, sizeof(IMG_B), "gfx90a:xnack+", NULL}};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Rela r;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_AMD, OFL_WRAP_X86_64, imgs, 2) == 0);
	CHECK(find_sec(&o, ".offload_arch_list", &sh));
	static const char list[] = "gfx906\0gfx90a:xnack+";
	CHECK_EQ_U(sh.sh_size, sizeof(list));
	CHECK_MEM(o.buf.data + sh.sh_offset, list, sizeof(list));
	CHECK(find_sec(&o, ".data.rel.ro", &sh));
	CHECK_EQ_U(sh.sh_size, 2 * 32 + 32 + 2 * 32);
	const uint8_t *info1 = o.buf.data + sh.sh_offset + 96 + 32;
	CHECK_EQ_U(info1[0], 1); /* version */
	CHECK_EQ_U(info1[4], 1); /* image number */
	CHECK_EQ_U(info1[8], 2); /* number of images */
	CHECK(find_sym(&o, "__offload_arch_1", &sym));
	CHECK_EQ_U(sym.st_value, 7);
	CHECK(find_sym(&o, ".offload_image_info_1", &sym));
	CHECK_EQ_U(sym.st_value, 128);
	CHECK(find_sym(&o, "__tgt_register_image_info", &sym));
	/* info 1's arch pointer: .offload_arch_list + 7 */
	bool found = false;
	for (size_t i = 0; reloc(&o, ".rela.data.rel.ro", i, &r); i++)
		if (r.r_offset == 128 + 16)
			found = r.r_addend == 7;
	CHECK(found);
	done(&o);
}

OFL_TEST(several_images_aligned)
{
	fill();
	struct ofl_wrap_image imgs[3] = {{IMG_C, sizeof(IMG_C), 0, sizeof(IMG_C), NULL, NULL},
	                                 {IMG_B, sizeof(IMG_B), 0, sizeof(IMG_B), NULL, NULL},
	                                 {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL}};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, imgs, 3) == 0);
	CHECK(find_sec(&o, ".llvm.offloading", &sh));
	CHECK_EQ_U(sh.sh_size, 16 + 40 + 100);
	CHECK_MEM(o.buf.data + sh.sh_offset + 16, IMG_B, sizeof(IMG_B));
	CHECK_MEM(o.buf.data + sh.sh_offset + 56, IMG_A, sizeof(IMG_A));
	CHECK(find_sym(&o, ".omp_offloading.device_image.2", &sym));
	CHECK_EQ_U(sym.st_value, 56);
	CHECK_EQ_U(sym.st_size, 100);
	CHECK(find_sec(&o, ".data.rel.ro", &sh));
	CHECK_EQ_U(o.buf.data[sh.sh_offset + 96], 3); /* NumDeviceImages */
	done(&o);
}

OFL_TEST(deterministic)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	for (int k = 0; k < 3; k++) {
		struct obj a, b;
		CHECK(build(&a, (enum ofl_wrap_kind)k, OFL_WRAP_LLVM20, OFL_WRAP_AARCH64, &img,
		            1) == 0);
		CHECK(build(&b, (enum ofl_wrap_kind)k, OFL_WRAP_LLVM20, OFL_WRAP_AARCH64, &img,
		            1) == 0);
		CHECK_EQ_U(a.buf.len, b.buf.len);
		CHECK_MEM(a.buf.data, b.buf.data, a.buf.len);
		done(&a);
		done(&b);
	}
}

/* Writes n bytes to a new file and opens it as images' file. */
static int write_and_open(const char *name, const void *p, size_t n, struct ofl_file *f)
{
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_write_file(name, p, n, &err);
	return rc ? rc : ofl_file_open(f, name, &err);
}

/* Images copied from their file (copy_file_range) give the same bytes as
 * images written from memory; the file offset of the image is honoured. */
OFL_TEST(file_backed_images)
{
	fill();
	struct ofl_file file = OFL_FILE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(write_and_open("img.bin", IMG_A, sizeof(IMG_A), &file) == 0);
	for (int k = 0; k < 3; k++) {
		struct ofl_wrap_image mem = {IMG_A + 3, 60, 0, 60, NULL, NULL};
		struct ofl_wrap_image fil = {file.data + 3, 60, 0, 60, NULL, &file};
		struct ofl_wrap_opts opts = {(enum ofl_wrap_kind)k, OFL_WRAP_LLVM20,
		                             OFL_WRAP_X86_64, false, false};
		struct ofl_buf a = OFL_BUF_INIT, b = OFL_BUF_INIT;
		CHECK(ofl_wrap_write_buf(&a, &opts, &mem, 1, &err) == 0);
		CHECK(ofl_wrap_write_buf(&b, &opts, &fil, 1, &err) == 0);
		CHECK_EQ_U(a.len, b.len);
		CHECK_MEM(a.data, b.data, a.len);
		CHECK(memmem(b.data, b.len, IMG_A + 3, 60) != NULL);
		ofl_buf_release(&a);
		ofl_buf_release(&b);
	}
	ofl_file_close(&file);
}

OFL_TEST(cuda20_layout)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	CHECK(build(&o, OFL_WRAP_CUDA, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, &img, 1) == 0);
	CHECK(find_sec(&o, ".nv_fatbin", &sh));
	CHECK_EQ_U(sh.sh_addralign, 16);
	CHECK_MEM(o.buf.data + sh.sh_offset, IMG_A, sizeof(IMG_A));
	CHECK(find_sec(&o, ".nvFatBinSegment", &sh));
	CHECK_EQ_U(sh.sh_size, 24);
	CHECK_EQ_U(sh.sh_flags, SHF_ALLOC | SHF_WRITE);
	static const uint8_t head[8] = {0xb1, 0x43, 0x62, 0x46, 1, 0, 0, 0};
	CHECK_MEM(o.buf.data + sh.sh_offset, head, 8);
	CHECK(find_sec(&o, ".bss", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_NOBITS);
	CHECK_EQ_U(sh.sh_size, 8);
	CHECK(find_sym(&o, ".cuda.binary_handle", &sym));
	CHECK(find_sym(&o, ".cuda.globals_reg", &sym));
	CHECK(find_sym(&o, "__cudaRegisterFatBinaryEnd", &sym));
	CHECK(find_sym(&o, "__cudaRegisterManagedVar", &sym));
	CHECK(!find_sym(&o, "__hipRegisterSurface", &sym));
	CHECK(find_sym(&o, "__start_llvm_offload_entries", &sym));
	done(&o);
}

OFL_TEST(hip19_layout)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	CHECK(build(&o, OFL_WRAP_HIP, OFL_WRAP_LLVM19, OFL_WRAP_X86_64, &img, 1) == 0);
	CHECK(find_sec(&o, ".hip_fatbin", &sh));
	CHECK(find_sec(&o, ".hipFatBinSegment", &sh));
	static const uint8_t head[4] = {0x46, 0x50, 0x49, 0x48};
	CHECK_MEM(o.buf.data + sh.sh_offset, head, 4);
	CHECK(find_sec(&o, "hip_offloading_entries", &sh));
	CHECK(find_sym(&o, "__dummy.hip_offloading_entries", &sym));
	CHECK(find_sym(&o, "__hipRegisterTexture", &sym));
	CHECK(!find_sym(&o, "__hipRegisterManagedVar", &sym)); /* 19 skips managed vars */
	CHECK(!find_sym(&o, "__cudaRegisterFatBinaryEnd", &sym));
	CHECK(!find_sym(&o, "__hipRegisterFatBinaryEnd", &sym));
	done(&o);
}

OFL_TEST(aarch64_relocations)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct obj o;
	GElf_Ehdr eh;
	GElf_Rela r;
	CHECK(build(&o, OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_AARCH64, &img, 1) == 0);
	CHECK(gelf_getehdr(o.e, &eh));
	CHECK_EQ_U(eh.e_machine, EM_AARCH64);
	CHECK(reloc(&o, ".rela.data.rel.ro", 0, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_AARCH64_ABS64);
	/* reg: stp, mov, adrp (PG_HI21), add (LO12), bl (CALL26) */
	CHECK(reloc(&o, ".rela.text.startup", 0, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_AARCH64_ADR_PREL_PG_HI21);
	CHECK_EQ_U(r.r_offset, 8);
	CHECK(reloc(&o, ".rela.text.startup", 1, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_AARCH64_ADD_ABS_LO12_NC);
	CHECK(reloc(&o, ".rela.text.startup", 2, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_AARCH64_CALL26);
	CHECK_EQ_U(r.r_offset, 16);
	CHECK(reloc(&o, ".rela.eh_frame", 0, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_AARCH64_PREL32);
	done(&o);
}

OFL_TEST(relocatable_section)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct ofl_wrap_opts opts = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, true,
	                             false};
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_buf b = OFL_BUF_INIT;
	CHECK(ofl_wrap_write_buf(&b, &opts, &img, 1, &err) == 0);
	CHECK(memmem(b.data, b.len, ".llvm.offloading.relocatable", 29) != NULL);
	ofl_buf_release(&b);
}

/* The text's bytes, for a look at an instruction's immediate. */
static bool text_has(struct obj *o, const uint8_t *insn, size_t n)
{
	GElf_Shdr sh;
	return find_sec(o, ".text.startup", &sh) &&
	       memmem(o->buf.data + sh.sh_offset, sh.sh_size, insn, n) != NULL;
}

OFL_TEST(sycl_layout)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	struct obj o;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Rela r;
	CHECK(build(&o, OFL_WRAP_SYCL, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, &img, 1) == 0);
	CHECK(find_sec(&o, ".llvm.offloading", &sh));
	CHECK_EQ_U(sh.sh_type, SHT_LLVM_OFFLOADING);
	CHECK_EQ_U(sh.sh_addralign, 16);
	CHECK_EQ_U(sh.sh_size, sizeof(IMG_A));
	CHECK_MEM(o.buf.data + sh.sh_offset, IMG_A, sizeof(IMG_A));
	CHECK(find_sym(&o, ".sycl_offloading.binary", &sym));
	CHECK_EQ_U(sym.st_size, sizeof(IMG_A));
	CHECK(find_sym(&o, "sycl.descriptor_reg", &sym) &&
	      find_sym(&o, "sycl.descriptor_unreg", &sym));
	CHECK(find_sec(&o, ".init_array.1", &sh) && find_sec(&o, ".fini_array.1", &sh));
	CHECK(!find_sec(&o, "llvm_offload_entries", &sh)); /* SYCL has no entry table */
	/* reg: lea binary(%rip), %rdi; mov $100, %esi; call __sycl_register_lib */
	CHECK(reloc(&o, ".rela.text.startup", 0, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_X86_64_PC32);
	CHECK(reloc(&o, ".rela.text.startup", 1, &r));
	CHECK_EQ_U(GELF_R_TYPE(r.r_info), R_X86_64_PLT32);
	CHECK(text_has(&o, (const uint8_t[]){0xbe, 100, 0, 0, 0}, 5));
	done(&o);
	CHECK(build(&o, OFL_WRAP_SYCL, OFL_WRAP_LLVM20, OFL_WRAP_AARCH64, &img, 1) == 0);
	uint32_t movz = 0xd2800001 | 100 << 5; /* movz x1, #100 */
	CHECK(text_has(&o, (const uint8_t[]){movz, movz >> 8, movz >> 16, movz >> 24}, 4));
	done(&o);
}

/* Two OffloadBinaries back to back, as clang-sycl-linker 22 writes: kernels
 * "KA\r\nKB\n\nKC" and "KB\nK$D" (LLVM's names and suffixes: e2e.link_sycl
 * checks them against LLVM 22's module). */
static void sycl22_input(struct ofl_buf *in)
{
	static const char *const k[2] = {"symbols", "triple"};
	static const char *const v1[2] = {"KA\r\nKB\n\nKC", "spirv64-unknown-unknown"},
	                         *v2[2] = {"KB\nK$D", "spirv64-unknown-unknown"};
	struct ofl_obin_image a = {OFL_IMG_SPIRV, OFL_OFK_SYCL, 0, IMG_A, sizeof(IMG_A), 2, k, v1};
	struct ofl_obin_image b = {OFL_IMG_NONE, OFL_OFK_SYCL, 0, IMG_C, sizeof(IMG_C), 2, k, v2};
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_write(&a, in, &err) == 0 && ofl_obin_write(&b, in, &err) == 0);
}

OFL_TEST(sycl22_layout)
{
	fill();
	struct ofl_buf in = OFL_BUF_INIT, b = OFL_BUF_INIT;
	sycl22_input(&in);
	struct ofl_wrap_image img = {in.data, in.len, 0, in.len, NULL, NULL};
	struct ofl_wrap_opts opts = {OFL_WRAP_SYCL, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, true};
	struct ofl_error err = OFL_ERROR_INIT;
	struct obj o = {OFL_BUF_INIT, NULL, 0};
	GElf_Shdr sh;
	GElf_Sym sym;
	CHECK(ofl_wrap_write_buf(&o.buf, &opts, &img, 1, &err) == 0);
	elf_version(EV_CURRENT);
	CHECK((o.e = elf_memory((char *)o.buf.data, o.buf.len)) != NULL);
	CHECK(elf_getshdrstrndx(o.e, &o.shstrndx) == 0);
	/* the images, 16-aligned, in .llvm.offloading */
	CHECK(find_sec(&o, ".llvm.offloading", &sh) && sh.sh_type == SHT_LLVM_OFFLOADING);
	CHECK_EQ_U(sh.sh_size, 112 + sizeof(IMG_C));
	CHECK_MEM(o.buf.data + sh.sh_offset + 112, IMG_C, sizeof(IMG_C));
	CHECK(find_sym(&o, ".sycl_offloading.1.data", &sym) && sym.st_value == 112);
	/* five kernels, each an entry of llvm_offload_entries; names as LLVM's */
	CHECK(find_sec(&o, "llvm_offload_entries", &sh) && sh.sh_size == 5 * 56);
	CHECK(find_sym(&o, ".offloading.entry.KB.4", &sym) &&
	      GELF_ST_BIND(sym.st_info) == STB_WEAK);
	CHECK(find_sym(&o, ".offloading.entry_name.5", &sym) && sym.st_size == 4);
	CHECK(find_sym(&o, ".sycl_offloading.entries_arr.6", &sym) && sym.st_size == 2 * 56);
	/* the descriptor: version 1, two images of version 3, kind 8, their
	 * image kinds */
	CHECK(find_sym(&o, ".sycl_offloading.device_images", &sym) && sym.st_size == 160);
	CHECK(find_sec(&o, ".data.rel.ro", &sh));
	const uint8_t *images = o.buf.data + sh.sh_offset + sym.st_value;
	CHECK_MEM(images, ((const uint8_t[]){3, 0, OFL_OFK_SYCL, OFL_IMG_SPIRV}), 4);
	CHECK_MEM(images + 80, ((const uint8_t[]){3, 0, OFL_OFK_SYCL, OFL_IMG_NONE}), 4);
	CHECK(find_sym(&o, ".sycl_offloading.descriptor", &sym) && sym.st_size == 32);
	CHECK_MEM(o.buf.data + sh.sh_offset + sym.st_value, ((const uint8_t[]){1, 0, 2, 0}), 4);
	CHECK(find_sec(&o, ".init_array.1", &sh) && find_sec(&o, ".fini_array.1", &sh));
	done(&o);
	/* the IR as LLVM prints it: a name that is not plain quoted, the
	 * kernels' names in !llvm.offloading.symbols; no bitcode */
	CHECK(ofl_wrap_emit_ll(&b, &opts, "x86_64-pc-linux-gnu", &img, 1, &err) == 0);
	CHECK(ofl_buf_append(&b, "", 1) == 0);
	CHECK(strstr((const char *)b.data, "\n@\".offloading.entry.K$D\" = weak constant ") !=
	      NULL);
	CHECK(strstr((const char *)b.data,
	             "\n!llvm.offloading.symbols = !{!0, !1, !2, !3, !4}\n\n!0 "
	             "= !{ptr @.offloading.entry_name}\n") != NULL);
	ofl_buf_reset(&b);
	CHECK(ofl_wrap_emit_bc(NULL, &opts, "x86_64-pc-linux-gnu", &img, 1, &err) ==
	      OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	opts.machine = OFL_WRAP_AARCH64;
	CHECK(ofl_wrap_write_buf(&b, &opts, &img, 1, &err) == 0);
	ofl_buf_reset(&b);
	/* not clang-sycl-linker's output, or a form 22's registration has not */
	struct ofl_wrap_image raw = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	CHECK(ofl_wrap_write_buf(&b, &opts, &raw, 1, &err) != 0 && err.code);
	ofl_error_clear(&err);
	struct ofl_wrap_image cut = {in.data, in.len - 8, 0, in.len - 8, NULL, NULL};
	CHECK(ofl_wrap_write_buf(&b, &opts, &cut, 1, &err) != 0 && err.code);
	ofl_error_clear(&err);
	CHECK(ofl_wrap_emit_c(&b, &opts, &img, (const char *const[]){"x"}, 1, &err) ==
	      OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	opts.machine = OFL_WRAP_X86_64_COFF;
	CHECK(ofl_wrap_write_buf(&b, &opts, &img, 1, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	struct ofl_wrap_opts omp = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, true};
	CHECK(ofl_wrap_write_buf(&b, &omp, &img, 1, &err) == OFL_EINVAL);
	CHECK_EQ_U(b.len, 0);
	ofl_buf_release(&b);
	ofl_buf_release(&in);
}

OFL_TEST(argument_errors)
{
	fill();
	struct ofl_wrap_image imgs[2] = {{IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL},
	                                 {IMG_B, sizeof(IMG_B), 0, sizeof(IMG_B), NULL, NULL}};
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_wrap_opts cuda = {OFL_WRAP_CUDA, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false};
	CHECK(ofl_wrap_write_buf(&b, &cuda, imgs, 2, &err) == OFL_EINVAL);
	CHECK(strstr(err.msg, "exactly one") != NULL);
	ofl_error_clear(&err);
	struct ofl_wrap_opts old = {OFL_WRAP_HIP, OFL_WRAP_LLVM14, OFL_WRAP_X86_64, false, false};
	CHECK(ofl_wrap_write_buf(&b, &old, imgs, 1, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	struct ofl_wrap_opts omp = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false,
	                            false};
	CHECK(ofl_wrap_write_buf(&b, &omp, imgs, 0, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	struct ofl_wrap_opts sycl = {OFL_WRAP_SYCL, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false};
	CHECK(ofl_wrap_write_buf(&b, &sycl, imgs, 2, &err) == OFL_EINVAL);
	CHECK(strstr(err.msg, "exactly one OffloadBinary") != NULL);
	ofl_error_clear(&err);
	sycl.relocatable = true;
	CHECK(ofl_wrap_write_buf(&b, &sycl, imgs, 1, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	sycl =
	    (struct ofl_wrap_opts){OFL_WRAP_SYCL, OFL_WRAP_LLVM19, OFL_WRAP_X86_64, false, false};
	CHECK(ofl_wrap_write_buf(&b, &sycl, imgs, 1, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	struct ofl_wrap_image bad = {IMG_A, sizeof(IMG_A), 50, 101, NULL, NULL};
	CHECK(ofl_wrap_write_buf(&b, &omp, &bad, 1, &err) == OFL_EINVAL);
	ofl_error_clear(&err);
	CHECK_EQ_U(b.len, 0);
	enum ofl_wrap_machine m;
	CHECK(ofl_wrap_machine_from_triple("aarch64-unknown-linux-gnu", &m, &err) == 0);
	CHECK_EQ_U(m, OFL_WRAP_AARCH64);
	CHECK(ofl_wrap_machine_from_triple("x86_64", &m, &err) == 0);
	CHECK_EQ_U(m, OFL_WRAP_X86_64);
	CHECK(ofl_wrap_machine_from_triple("x86_64h-apple", &m, &err) == OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	CHECK(ofl_wrap_machine_from_triple("powerpc64le-linux-gnu", &m, &err) == OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	CHECK(ofl_wrap_machine_from_triple("x86_64-pc-windows-msvc", &m, &err) == 0);
	CHECK_EQ_U(m, OFL_WRAP_X86_64_COFF);
	CHECK(ofl_wrap_machine_from_triple("x86_64-pc-win32", &m, &err) == 0);
	CHECK_EQ_U(m, OFL_WRAP_X86_64_COFF);
	CHECK(ofl_wrap_machine_from_triple("x86_64-pc-windows-elf", &m, &err) == 0);
	CHECK_EQ_U(m, OFL_WRAP_X86_64);
	/* MinGW and Cygwin: COFF with .ctors and directives, read as clang's
	 * driver reads a triple (normalized) */
	static const char *const cygming[] = {"x86_64-pc-cygwin", "x86_64-w64-mingw32",
	                                      "x86_64-w64-windows-gnu", "x86_64-pc-windows-cygnus",
	                                      "x86_64-w64-windows-gnullvm"};
	for (size_t i = 0; i < sizeof cygming / sizeof *cygming; i++) {
		CHECK(ofl_wrap_machine_from_triple(cygming[i], &m, &err) == 0);
		CHECK_EQ_U(m, OFL_WRAP_X86_64_MINGW);
		CHECK(ofl_wrap_machine_coff(m));
	}
	/* COFF hosts of another environment: refused, never an ELF object */
	CHECK(ofl_wrap_machine_from_triple("x86_64-pc-windows-itanium", &m, &err) ==
	      OFL_EUNSUPPORTED);
	CHECK(strstr(err.msg, "MSVC, MinGW and Cygwin environments only") != NULL);
	ofl_error_clear(&err);
	CHECK(ofl_wrap_machine_from_triple("aarch64-pc-windows-msvc", &m, &err) ==
	      OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
}

OFL_TEST(ir_text)
{
	static const uint8_t bytes[] = {'"', '\\', 0, 'A', 0xff};
	struct ofl_wrap_image img = {bytes, sizeof(bytes), 0, sizeof(bytes), NULL, NULL};
	struct ofl_wrap_opts omp = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false,
	                            false};
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_buf b = OFL_BUF_INIT;
	CHECK(ofl_wrap_emit_ll(&b, &omp, "x86_64-pc-linux-gnu", &img, 1, &err) == 0);
	CHECK(ofl_buf_append(&b, "", 1) == 0);
	const char *t = (const char *)b.data;
	CHECK(strstr(t, "[5 x i8] c\"\\22\\\\\\00A\\FF\", section \".llvm.offloading\", align 8"));
	CHECK(strstr(t, "{ i32 101, ptr @.omp_offloading.descriptor_reg, ptr null }"));
	CHECK(strstr(t, "type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }"));
	CHECK(strstr(t, "@atexit(ptr @.omp_offloading.descriptor_unreg)"));
	CHECK(strstr(t, "target triple = \"x86_64-pc-linux-gnu\""));
	ofl_buf_release(&b);
	struct ofl_wrap_opts old = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM14, OFL_WRAP_X86_64, false,
	                            false};
	CHECK(ofl_wrap_emit_ll(&b, &old, "x86_64-pc-linux-gnu", &img, 1, &err) == 0);
	CHECK(ofl_buf_append(&b, "", 1) == 0);
	t = (const char *)b.data;
	CHECK(strstr(t, "@llvm.global_dtors"));
	CHECK(!strstr(t, "atexit"));
	CHECK(strstr(t, "source_filename = \"offload.wrapper.object\""));
	ofl_buf_release(&b);
}

/* Bits of a bitstream, low bit of each byte first. */
struct bits {
	const uint8_t *p;
	size_t bit;
};

static uint64_t read_bits(struct bits *r, unsigned k)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < k; i++, r->bit++)
		v |= (uint64_t)((r->p[r->bit / 8] >> (r->bit % 8)) & 1) << i;
	return v;
}

static uint64_t read_vbr(struct bits *r, unsigned k)
{
	uint64_t v = 0, c;
	unsigned shift = 0;
	do {
		c = read_bits(r, k);
		v |= (c & ((1u << (k - 1)) - 1)) << shift;
		shift += k - 1;
	} while (c >> (k - 1));
	return v;
}

/* Bitcode written to path through ofl_out, read back into b. */
static int emit_bc(const char *path, const struct ofl_wrap_opts *o,
                   const struct ofl_wrap_image *imgs, size_t n, struct ofl_buf *b,
                   struct ofl_error *err)
{
	struct ofl_out out = OFL_OUT_INIT;
	struct ofl_file f = OFL_FILE_INIT;
	int rc = ofl_out_open(&out, path, err);
	if (rc)
		return rc;
	rc = ofl_wrap_emit_bc(&out, o, "x86_64-pc-linux-gnu", imgs, n, err);
	if (rc) {
		ofl_out_abort(&out);
		return rc;
	}
	rc = ofl_out_commit(&out, err);
	rc = rc ? rc : ofl_file_open(&f, path, err);
	rc = rc ? rc : ofl_buf_append(b, f.data, f.size);
	ofl_file_close(&f);
	return rc;
}

/* The top-level blocks' lengths span the file exactly. */
static void check_blocks(const struct ofl_buf *b)
{
	CHECK(b->len % 4 == 0 && b->len > 4);
	CHECK_MEM(b->data, "BC\xc0\xde", 4);
	struct bits r = {b->data, 32};
	static const unsigned blocks[] = {13, 8, 23};
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_U(read_bits(&r, 2), 1); /* ENTER_SUBBLOCK */
		CHECK_EQ_U(read_vbr(&r, 8), blocks[i]);
		read_vbr(&r, 4);
		r.bit = (r.bit + 31) / 32 * 32;
		uint64_t words = read_bits(&r, 32);
		r.bit += words * 32;
		CHECK(r.bit <= b->len * 8);
	}
	CHECK_EQ_U(r.bit, b->len * 8);
}

/* The bitcode's container without LLVM (tests/interop/wrap_bitcode.sh has
 * LLVM read it): magic, the IDENTIFICATION, MODULE and STRTAB blocks whose
 * lengths span the file exactly, names in the string table, same bytes
 * every time. */
OFL_TEST(bitcode_container)
{
	fill();
	struct ofl_wrap_image imgs[2] = {{IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL},
	                                 {IMG_B, sizeof(IMG_B), 0, sizeof(IMG_B), NULL, NULL}};
	struct ofl_wrap_opts opts[] = {
	    {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false},
	    {OFL_WRAP_OPENMP, OFL_WRAP_AMD, OFL_WRAP_X86_64, false, false},
	    {OFL_WRAP_HIP, OFL_WRAP_LLVM19, OFL_WRAP_X86_64, false, false},
	    {OFL_WRAP_CUDA, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false},
	};
	static const char *const names[] = {"__tgt_register_lib", "__tgt_register_image_info",
	                                    "__hipRegisterVar", "__cudaRegisterFatBinaryEnd"};
	struct ofl_error err = OFL_ERROR_INIT;
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		struct ofl_buf b = OFL_BUF_INIT, again = OFL_BUF_INIT;
		size_t n = opts[k].kind == OFL_WRAP_OPENMP ? 2 : 1;
		CHECK(emit_bc("c.bc", &opts[k], imgs, n, &b, &err) == 0);
		CHECK(emit_bc("c.bc", &opts[k], imgs, n, &again, &err) == 0);
		CHECK_EQ_U(b.len, again.len);
		CHECK_MEM(b.data, again.data, b.len);
		check_blocks(&b);
		CHECK(memmem(b.data, b.len, names[k], strlen(names[k])));
		ofl_buf_release(&b);
		ofl_buf_release(&again);
	}
	struct ofl_buf b = OFL_BUF_INIT;
	CHECK(emit_bc("bad.bc", &opts[3], imgs, 2, &b, &err) == OFL_EINVAL);
	CHECK_EQ_U(b.len, 0);
	ofl_error_clear(&err);
}

/* Images copied from their file into the bitcode (holes in the stream)
 * give the bytes images written from memory give; every image starts on a
 * 32-bit boundary, whatever its size, and block lengths count it. */
OFL_TEST(bitcode_file_images)
{
	fill();
	/* images of 1, 3, 4, 5 bytes 0xf1, 0xf3..., then 90 of IMG_A */
	static const size_t sizes[] = {1, 3, 4, 5, 90};
	uint8_t bytes[103];
	memset(bytes, 0xf1, 1);
	memset(bytes + 1, 0xf3, 3);
	memset(bytes + 4, 0xf4, 4);
	memset(bytes + 8, 0xf5, 5);
	memcpy(bytes + 13, IMG_A, 90);
	struct ofl_file file = OFL_FILE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(write_and_open("bcimg.bin", bytes, sizeof(bytes), &file) == 0);
	struct ofl_wrap_image mem[5], fil[5];
	for (size_t i = 0, off = 0; i < 5; off += sizes[i++]) {
		mem[i] = (struct ofl_wrap_image){bytes + off, sizes[i], 0, sizes[i], NULL, NULL};
		fil[i] =
		    (struct ofl_wrap_image){file.data + off, sizes[i], 0, sizes[i], NULL, &file};
	}
	struct ofl_wrap_opts opts = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false,
	                             false};
	struct ofl_buf a = OFL_BUF_INIT, b = OFL_BUF_INIT;
	CHECK(emit_bc("mem.bc", &opts, mem, 5, &a, &err) == 0);
	CHECK(emit_bc("fil.bc", &opts, fil, 5, &b, &err) == 0);
	CHECK_EQ_U(a.len, b.len);
	CHECK_MEM(a.data, b.data, a.len);
	check_blocks(&b);
	/* each image: its bytes at a 32-bit boundary, then zeros to the next,
	 * in order */
	size_t at = 0;
	for (size_t i = 0; i < 5; i++) {
		size_t n = sizes[i], pad = (4 - n % 4) % 4;
		while (at + n + pad <= b.len && (memcmp(b.data + at, mem[i].data, n) ||
		                                 memcmp(b.data + at + n, "\0\0\0", pad)))
			at += 4;
		CHECK(at + n + pad <= b.len);
		at += n + pad;
	}
	ofl_buf_release(&a);
	ofl_buf_release(&b);
	ofl_file_close(&file);
}

/* --for's reader on our own objects: the entries section names the ABI. */
OFL_TEST(needs_of_object)
{
	fill();
	struct ofl_wrap_image img = {IMG_A, sizeof(IMG_A), 0, sizeof(IMG_A), NULL, NULL};
	static const struct {
		enum ofl_wrap_kind kind;
		enum ofl_wrap_abi abi;
		unsigned kinds;
	} cases[] = {
	    {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, 0}, /* empty table: no kind */
	    {OFL_WRAP_OPENMP, OFL_WRAP_LLVM19, 1u << OFL_WRAP_OPENMP},
	    {OFL_WRAP_OPENMP, OFL_WRAP_LLVM14, 1u << OFL_WRAP_OPENMP},
	    {OFL_WRAP_HIP, OFL_WRAP_LLVM19, 1u << OFL_WRAP_HIP},
	    {OFL_WRAP_CUDA, OFL_WRAP_LLVM19, 1u << OFL_WRAP_CUDA},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ofl_wrap_opts opts = {cases[i].kind, cases[i].abi, OFL_WRAP_X86_64, false,
		                             false};
		struct ofl_error err = OFL_ERROR_INIT;
		struct ofl_buf b = OFL_BUF_INIT;
		struct ofl_wrap_needs n = {0, 0};
		CHECK(ofl_wrap_write_buf(&b, &opts, &img, 1, &err) == 0);
		CHECK(ofl_wrap_needs_of_object(b.data, b.len, &n, &err) == 0);
		CHECK_EQ_U(n.abis, 1u << cases[i].abi);
		CHECK_EQ_U(n.kinds, cases[i].kinds);
		/* a cut-off copy is a format error, not a crash */
		CHECK(ofl_wrap_needs_of_object(b.data, b.len - 100, &n, &err) == OFL_EFORMAT);
		ofl_buf_release(&b);
	}
	struct ofl_wrap_needs n = {0, 0};
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_wrap_needs_of_object(IMG_A, sizeof(IMG_A), &n, &err) == 0);
	CHECK_EQ_U(n.abis, 0);
}

/* Old-driver HIP: the first CUID defines one handle and the fat binary's
 * label, protected; the others are global aliases at the same addresses,
 * all of size 0 (what clang --hip-link's assembled object holds). */
OFL_TEST(hip_gpubin_aliases)
{
	fill();
	static const char *const cuids[] = {"1cf7", "2ad7", "929f"};
	struct ofl_error err = OFL_ERROR_INIT;
	FILE *f = fopen("gpubin.o", "w+");
	CHECK(f);
	CHECK(ofl_hip_gpubin_write_fd(fileno(f), OFL_WRAP_X86_64, IMG_A, sizeof(IMG_A), cuids, 3,
	                              &err) == 0);
	fclose(f);
	struct obj o = {OFL_BUF_INIT, NULL, 0};
	struct ofl_file in = OFL_FILE_INIT;
	CHECK(ofl_file_open(&in, "gpubin.o", &err) == 0);
	CHECK(ofl_buf_append(&o.buf, in.data, in.size) == 0);
	ofl_file_close(&in);
	elf_version(EV_CURRENT);
	o.e = elf_memory((char *)o.buf.data, o.buf.len);
	CHECK(o.e && !elf_getshdrstrndx(o.e, &o.shstrndx));
	GElf_Shdr handles, bin;
	CHECK(find_sec(&o, ".hip_gpubin_handle", &handles));
	CHECK_EQ_U(handles.sh_size, 8);
	Elf_Scn *s = find_sec(&o, ".hip_fatbin", &bin);
	CHECK(s);
	CHECK_EQ_U(bin.sh_addralign, 4096);
	CHECK_MEM(o.buf.data + bin.sh_offset, IMG_A, sizeof(IMG_A));
	static const char *const prefix[] = {"__hip_gpubin_handle_", "__hip_fatbin_"};
	for (size_t p = 0; p < 2; p++)
		for (size_t i = 0; i < 3; i++) {
			char name[64];
			GElf_Sym sym;
			snprintf(name, sizeof(name), "%s%s", prefix[p], cuids[i]);
			CHECK(find_sym(&o, name, &sym));
			CHECK_EQ_U(sym.st_value, 0);
			CHECK_EQ_U(sym.st_size, 0);
			CHECK_EQ_U(GELF_ST_BIND(sym.st_info), STB_GLOBAL);
			CHECK_EQ_U(GELF_ST_TYPE(sym.st_info), STT_OBJECT);
			CHECK_EQ_U(GELF_ST_VISIBILITY(sym.st_other),
			           i ? STV_DEFAULT : STV_PROTECTED);
			CHECK_EQ_U(sym.st_shndx,
			           elf_ndxscn(find_sec(&o, p ? ".hip_fatbin" : ".hip_gpubin_handle",
			                               &bin)));
		}
	done(&o);
}
