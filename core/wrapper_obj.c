/* The wrapper object (see wrapper_obj.h and docs/abi.md).
 *
 * Each flavour lays out the same kinds of things: the image bytes, the
 * descriptor data with absolute relocations, a dummy object that makes the
 * linker define __start_/__stop_ of the entries section, and a constructor
 * (in .init_array.<prio>) whose code is a short fixed instruction sequence.
 * Code is built from a handful of machine operations (cg_* below), each one
 * a hand-assembled x86_64 or aarch64 sequence with its relocation; each
 * function also gets its call frame information (.eh_frame). */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_writer.h"
#include "wrapper_coff.h"
#include "wrapper_sycl.h"
#include "internal.h"
#include "offlink/offload_binary.h"
#include "offlink/target_id.h"
#include "offlink/wrapper_obj.h"

#ifndef SHT_LLVM_OFFLOADING
#define SHT_LLVM_OFFLOADING 0x6fff4c0b
#endif

/* Entry layouts: old 32-byte form (LLVM <= 19) and new 56-byte one. */
struct entry_layout {
	uint8_t stride, addr, name, size, flags, data, aux, kind;
};
static const struct entry_layout ENTRY19 = {32, 0, 8, 16, 24, 28, 0, 0};
static const struct entry_layout ENTRY20 = {56, 16, 24, 32, 12, 40, 48, 10};

/* A place code or data refers to: symbol (builder id) + offset. */
struct target {
	uint32_t sym;
	int64_t off;
};

struct gen {
	struct ofl_ew_obj o;
	const struct ofl_wrap_opts *opt;
	int text;
	/* labels and pending branch fixups of the function being built */
	int64_t label[16];
	struct {
		uint64_t at;
		int label;
		int kind; /* 0: x86 rel32, 1: a64 imm26, 2: a64 imm19 */
	} fix[32];
	int nfix;
	/* call frame information: the current function's DWARF CFA
	 * instructions, the text offset they have reached, and the
	 * .eh_frame built so far with the functions its FDEs cover */
	struct ofl_buf cfi;
	uint64_t cfi_loc;
	struct ofl_buf eh;
	uint64_t fde_at[8], fde_fn[8];
	int nfde;
};

static bool is_a64(const struct gen *g)
{
	return g->opt->machine == OFL_WRAP_AARCH64;
}

static struct ofl_buf *text(struct gen *g)
{
	return &g->o.secs[g->text].data;
}

static int emit(struct gen *g, const void *p, size_t n)
{
	return ofl_buf_append(text(g), p, n) ? OFL_NOMEM(g->o.err) : 0;
}

static int emit32(struct gen *g, uint32_t insn)
{
	uint8_t b[4];
	ofl_put_le32(b, insn);
	return emit(g, b, 4);
}

/* ---- call frame information (.eh_frame, DWARF CFA) ----------------------- */

/* DW_CFA_advance_loc[1|2] to the current end of text (code alignment 1). */
static int cfi_advance(struct gen *g)
{
	uint64_t d = text(g)->len - g->cfi_loc;
	uint8_t b[3] = {(uint8_t)(0x40 | d), 0, 0};
	size_t n = 1;
	g->cfi_loc = text(g)->len;
	if (d >= 64 && d < 256) {
		b[0] = 0x02; /* advance_loc1 */
		b[1] = (uint8_t)d;
		n = 2;
	} else if (d >= 256) {
		b[0] = 0x03; /* advance_loc2: functions stay far below 64 KiB */
		ofl_put_le16(b + 1, (uint16_t)d);
		n = 3;
	}
	return d && ofl_buf_append(&g->cfi, b, n) ? OFL_NOMEM(g->o.err) : 0;
}

/* From here on, the CFA is the stack pointer + off. */
static int cfi_cfa(struct gen *g, uint8_t off)
{
	uint8_t b[2] = {0x0e /* def_cfa_offset */, off};
	return cfi_advance(g) || (ofl_buf_append(&g->cfi, b, 2) ? OFL_NOMEM(g->o.err) : 0);
}

/* DWARF register reg saved at CFA - below (a multiple of 8). */
static int cfi_saved(struct gen *g, uint8_t reg, uint8_t below)
{
	uint8_t b[2] = {(uint8_t)(0x80 | reg) /* offset */, (uint8_t)(below / 8)};
	return cfi_advance(g) || (ofl_buf_append(&g->cfi, b, 2) ? OFL_NOMEM(g->o.err) : 0);
}

/* Register reg holds its own value again. */
static int cfi_restored(struct gen *g, uint8_t reg)
{
	uint8_t b = (uint8_t)(0xc0 | reg);
	return cfi_advance(g) || (ofl_buf_append(&g->cfi, &b, 1) ? OFL_NOMEM(g->o.err) : 0);
}

/* The CIE, as LLVM writes it: version 1, "zR", code alignment 1, data
 * alignment -8, pc-relative sdata4 addresses; at entry the CFA is the stack
 * pointer + 8 with the return address below it (x86_64) or the stack pointer
 * itself (aarch64, return address in x30). */
static int eh_cie(struct gen *g)
{
	static const uint8_t x86[24] = {20, 0,    0,  0, 0,    0,    0, 0, 1,    'z', 'R', 0,
	                                1,  0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1,   0,   0};
	static const uint8_t a64[24] = {20, 0,    0,  0, 0,    0,    0,  0, 1, 'z', 'R', 0,
	                                1,  0x78, 30, 1, 0x1b, 0x0c, 31, 0, 0, 0,   0,   0};
	return ofl_buf_append(&g->eh, is_a64(g) ? a64 : x86, 24) ? OFL_NOMEM(g->o.err) : 0;
}

/* Appends the FDE of the function [start, end of text) with g->cfi:
 * length, CIE pointer, pc_begin (a relocation, added with the section),
 * pc_range, no augmentation data, the instructions, padding to 8. */
static int eh_fde(struct gen *g, uint64_t start)
{
	uint64_t padded;
	uint8_t head[17] = {0};
	if (g->nfde == 8 || !ofl_align_up(4 + 4 + 4 + 4 + 1 + g->cfi.len, 8, &padded))
		return ofl_error_set(g->o.err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "internal: too many functions");
	if (!g->eh.len && eh_cie(g))
		return g->o.err->code;
	uint64_t at = g->eh.len;
	ofl_put_le32(head, (uint32_t)(padded - 4));
	ofl_put_le32(head + 4, (uint32_t)(at + 4)); /* distance back to the CIE at 0 */
	ofl_put_le32(head + 12, (uint32_t)(text(g)->len - start));
	if (ofl_buf_append(&g->eh, head, sizeof(head)) ||
	    ofl_buf_append(&g->eh, g->cfi.data, g->cfi.len) ||
	    ofl_buf_append_zeros(&g->eh, padded - sizeof(head) - g->cfi.len))
		return OFL_NOMEM(g->o.err);
	g->fde_at[g->nfde] = at + 8;
	g->fde_fn[g->nfde++] = start;
	return 0;
}

/* The .eh_frame section for the FDEs built. */
static int eh_section(struct gen *g)
{
	uint32_t type = is_a64(g) ? SHT_PROGBITS : SHT_X86_64_UNWIND;
	uint32_t rel = is_a64(g) ? R_AARCH64_PREL32 : R_X86_64_PC32;
	int s = ofl_ew_section(&g->o, ".eh_frame", type, SHF_ALLOC, 8);
	if (s < 0)
		return g->o.err->code;
	if (ofl_buf_append(&g->o.secs[s].data, g->eh.data, g->eh.len))
		return OFL_NOMEM(g->o.err);
	for (int i = 0; i < g->nfde; i++)
		if (ofl_ew_reloc(&g->o, s, g->fde_at[i], rel, ofl_ew_secsym(&g->o, g->text),
		                 (int64_t)g->fde_fn[i]))
			return g->o.err->code;
	return 0;
}

/* Relocation at the current end of .text.startup plus delta. */
static int rel_at(struct gen *g, uint64_t delta, uint32_t type, struct target t, int64_t addend)
{
	return ofl_ew_reloc(&g->o, g->text, text(g)->len + delta, type, t.sym, t.off + addend);
}

/* The undefined global called name (made on first use). */
static struct target undef(struct gen *g, const char *name, uint8_t vis)
{
	for (size_t i = 1; i < g->o.nsyms; i++)
		if (g->o.syms[i].sec == -1 && strcmp(g->o.syms[i].name, name) == 0)
			return (struct target){(uint32_t)i, 0};
	return (struct target){ofl_ew_symbol(&g->o, name, STB_GLOBAL, STT_NOTYPE, vis, -1, 0, 0),
	                       0};
}

static struct target at_sec(struct gen *g, int sec, uint64_t off)
{
	return (struct target){ofl_ew_secsym(&g->o, sec), (int64_t)off};
}

/* ---- machine operations ------------------------------------------------ */

/* Frame for a function that only makes calls: keeps the stack 16-aligned. */
static int cg_enter(struct gen *g)
{
	if (!is_a64(g))
		return emit(g, "\x50", 1) || cfi_cfa(g, 16); /* push %rax */
	return emit32(g, 0xa9bf7bfd) ||                      /* stp x29, x30, [sp, #-16]! */
	       cfi_cfa(g, 16) || cfi_saved(g, 30, 8) || cfi_saved(g, 29, 16) ||
	       emit32(g, 0x910003fd); /* mov x29, sp */
}

static int cg_leave(struct gen *g)
{
	if (!is_a64(g))
		return emit(g, "\x58", 1) || cfi_cfa(g, 8) || emit(g, "\xc3", 1); /* pop; ret */
	return emit32(g, 0xa8c17bfd) || /* ldp x29, x30, [sp], #16 */
	       cfi_cfa(g, 0) || cfi_restored(g, 30) || cfi_restored(g, 29) ||
	       emit32(g, 0xd65f03c0); /* ret */
}

/* First argument register = address of t. */
static int cg_addr_arg0(struct gen *g, struct target t)
{
	if (!is_a64(g))
		/* lea t(%rip), %rdi */
		return rel_at(g, 3, R_X86_64_PC32, t, -4) || emit(g, "\x48\x8d\x3d\0\0\0\0", 7);
	return rel_at(g, 0, R_AARCH64_ADR_PREL_PG_HI21, t, 0) ||
	       emit32(g, 0x90000000) || /* adrp x0, t */
	       rel_at(g, 0, R_AARCH64_ADD_ABS_LO12_NC, t, 0) ||
	       emit32(g, 0x91000000); /* add x0, x0, :lo12:t */
}

static int cg_call(struct gen *g, struct target t)
{
	if (!is_a64(g))
		/* call t@plt */
		return rel_at(g, 1, R_X86_64_PLT32, t, -4) || emit(g, "\xe8\0\0\0\0", 5);
	return rel_at(g, 0, R_AARCH64_CALL26, t, 0) || emit32(g, 0x94000000); /* bl t */
}

/* *t = return value; the value also stays in the first argument register. */
static int cg_store_ret_arg0(struct gen *g, struct target t)
{
	if (!is_a64(g))
		return rel_at(g, 3, R_X86_64_PC32, t, -4) ||
		       emit(g, "\x48\x89\x05\0\0\0\0", 7) || /* mov %rax, t(%rip) */
		       emit(g, "\x48\x89\xc7", 3);           /* mov %rax, %rdi */
	return rel_at(g, 0, R_AARCH64_ADR_PREL_PG_HI21, t, 0) ||
	       emit32(g, 0x90000008) || /* adrp x8, t */
	       rel_at(g, 0, R_AARCH64_LDST64_ABS_LO12_NC, t, 0) ||
	       emit32(g, 0xf9000100); /* str x0, [x8, :lo12:t] */
}

/* First argument register = *t. */
static int cg_load_arg0(struct gen *g, struct target t)
{
	if (!is_a64(g))
		/* mov t(%rip), %rdi */
		return rel_at(g, 3, R_X86_64_PC32, t, -4) || emit(g, "\x48\x8b\x3d\0\0\0\0", 7);
	return rel_at(g, 0, R_AARCH64_ADR_PREL_PG_HI21, t, 0) ||
	       emit32(g, 0x90000008) || /* adrp x8, t */
	       rel_at(g, 0, R_AARCH64_LDST64_ABS_LO12_NC, t, 0) ||
	       emit32(g, 0xf9400100); /* ldr x0, [x8, :lo12:t] */
}

/* Pads .text.startup to a 16-byte function boundary and returns it. */
static int cg_begin_fn(struct gen *g, uint64_t *start)
{
	while (text(g)->len % 16)
		if (is_a64(g) ? emit32(g, 0xd503201f) /* nop */ : emit(g, "\x90", 1))
			return g->o.err->code;
	*start = text(g)->len;
	g->cfi_loc = *start;
	ofl_buf_reset(&g->cfi);
	g->nfix = 0;
	for (int i = 0; i < 16; i++)
		g->label[i] = -1;
	return 0;
}

/* Defines a local function symbol over [start, end of text). */
static int cg_end_fn(struct gen *g, const char *name, uint64_t start, uint32_t *sym)
{
	struct ofl_buf *t = text(g);
	for (int i = 0; i < g->nfix; i++) {
		int64_t dst = g->label[g->fix[i].label];
		uint64_t at = g->fix[i].at;
		if (dst < 0)
			return ofl_error_set(g->o.err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "internal: undefined label");
		if (g->fix[i].kind == 0) {
			ofl_put_le32(t->data + at, (uint32_t)(dst - (int64_t)(at + 4)));
		} else {
			uint32_t insn = ofl_le32(t->data + at);
			int64_t words = (dst - (int64_t)at) / 4;
			if (g->fix[i].kind == 1)
				insn |= (uint32_t)words & 0x3ffffff;
			else
				insn |= ((uint32_t)words & 0x7ffff) << 5;
			ofl_put_le32(t->data + at, insn);
		}
	}
	uint32_t s = ofl_ew_symbol(&g->o, name, STB_LOCAL, STT_FUNC, STV_DEFAULT, g->text, start,
	                           t->len - start);
	if (sym)
		*sym = s;
	return s ? eh_fde(g, start) : g->o.err->code;
}

static void label(struct gen *g, int id)
{
	g->label[id] = (int64_t)text(g)->len;
}

/* Records that the 32-bit field at text end + delta must reach label id. */
static int fixup(struct gen *g, uint64_t delta, int id, int kind)
{
	if (g->nfix == 32)
		return ofl_error_set(g->o.err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "internal: too many branches");
	g->fix[g->nfix].at = text(g)->len + delta;
	g->fix[g->nfix].label = id;
	g->fix[g->nfix].kind = kind;
	g->nfix++;
	return 0;
}

/* x86_64: emits op bytes followed by a rel32 to label id. */
static int x_jump(struct gen *g, const char *op, size_t n, int id)
{
	return fixup(g, n, id, 0) || emit(g, op, n) || emit(g, "\0\0\0\0", 4);
}

/* The file the image bytes come from, when they lie in its mapping. */
static int image_fd(const struct ofl_wrap_image *img)
{
	const struct ofl_file *f = img->file;
	if (!f || f->fd < 0 || f->mapped != 1 || ofl_file_offset_of(f, img->data, img->size) < 0)
		return -1;
	return f->fd;
}

static uint64_t image_fd_off(const struct ofl_wrap_image *img)
{
	return image_fd(img) < 0 ? 0
	                         : (uint64_t)ofl_file_offset_of(img->file, img->data, img->size);
}

/* ---- data ------------------------------------------------------------------ */

static int put_abs64(struct gen *g, int sec, uint64_t off, struct target t)
{
	uint32_t type = is_a64(g) ? R_AARCH64_ABS64 : R_X86_64_64;
	return ofl_ew_reloc(&g->o, sec, off, type, t.sym, t.off);
}

static const char *entries_name(const struct ofl_wrap_opts *o)
{
	if (o->abi == OFL_WRAP_LLVM20)
		return "llvm_offload_entries";
	if (o->kind == OFL_WRAP_CUDA)
		return "cuda_offloading_entries";
	if (o->kind == OFL_WRAP_HIP)
		return "hip_offloading_entries";
	return "omp_offloading_entries";
}

const char *ofl_wrap_entries_section(const struct ofl_wrap_opts *o)
{
	return entries_name(o);
}

static bool old_abi(const struct ofl_wrap_opts *o)
{
	return o->abi == OFL_WRAP_LLVM14 || o->abi == OFL_WRAP_AMD;
}

/* The entries section with its zero-size dummy; returns __start_/__stop_. */
static int entries_section(struct gen *g, struct target *start, struct target *stop)
{
	const char *sec = entries_name(g->opt);
	char name[64];
	bool old = old_abi(g->opt);
	/* a read-only zero-size array: A, align 8 in every release */
	int s = ofl_ew_section(&g->o, sec, SHT_PROGBITS, SHF_ALLOC, 8);
	if (s < 0)
		return g->o.err->code;
	if (old)
		snprintf(name, sizeof(name), "__dummy.omp_offloading.entry");
	else
		snprintf(name, sizeof(name), "__dummy.%s", sec);
	if (!ofl_ew_symbol(&g->o, name, old ? STB_GLOBAL : STB_LOCAL, STT_OBJECT,
	                   old ? STV_HIDDEN : STV_DEFAULT, s, 0, 0))
		return g->o.err->code;
	snprintf(name, sizeof(name), "__start_%s", sec);
	*start = undef(g, name, STV_HIDDEN);
	snprintf(name, sizeof(name), "__stop_%s", sec);
	*stop = undef(g, name, STV_HIDDEN);
	return start->sym && stop->sym ? 0 : g->o.err->code;
}

/* Section + slot in .init_array.<prio> / .fini_array.<prio> for fn. */
static int array_slot(struct gen *g, const char *name, uint32_t type, uint64_t fn_off)
{
	int s = ofl_ew_section(&g->o, name, type, SHF_ALLOC | SHF_WRITE, 8);
	if (s < 0 || ofl_buf_append_zeros(&g->o.secs[s].data, 8))
		return g->o.err->code ? g->o.err->code : OFL_NOMEM(g->o.err);
	return put_abs64(g, s, 0, at_sec(g, g->text, fn_off));
}

/* The sections every flavour ends with: .note.GNU-stack (no executable
 * stack), offlink's .comment (OFL_WRAP_COMMENT, after a NUL as compilers
 * start theirs) and the unwind tables of the functions. */
static int finish_sections(struct gen *g)
{
	static const char comment[] = "\0" OFL_WRAP_COMMENT OFL_VERSION;
	int c;
	if (ofl_ew_section(&g->o, ".note.GNU-stack", SHT_PROGBITS, 0, 1) < 0 ||
	    (c = ofl_ew_section(&g->o, ".comment", SHT_PROGBITS, 0, 1)) < 0)
		return g->o.err->code;
	if (ofl_buf_append(&g->o.secs[c].data, comment, sizeof(comment)))
		return OFL_NOMEM(g->o.err);
	return eh_section(g);
}

/* ---- OpenMP -------------------------------------------------------------- */

struct omp_layout {
	int images, relro, archs;
	uint64_t desc, info; /* offsets in .data.rel.ro */
	uint64_t *img_off;   /* offset of each image in its section */
};

static int omp_images(struct gen *g, const struct ofl_wrap_image *imgs, size_t n,
                      struct omp_layout *l)
{
	bool old = old_abi(g->opt);
	const char *sec = old                   ? ".rodata"
	                  : g->opt->relocatable ? ".llvm.offloading.relocatable"
	                                        : ".llvm.offloading";
	/* old: plain .rodata, where LLVM's x86_64 backend aligns arrays to 16 */
	l->images = ofl_ew_section(&g->o, sec, old ? SHT_PROGBITS : SHT_LLVM_OFFLOADING, SHF_ALLOC,
	                           old ? 16 : 8);
	if (l->images < 0)
		return g->o.err->code;
	for (size_t i = 0; i < n; i++) {
		char name[64];
		if (ofl_ew_piece(&g->o, l->images, imgs[i].data, imgs[i].size, old ? 16 : 8,
		                 image_fd(&imgs[i]), image_fd_off(&imgs[i]), &l->img_off[i]))
			return g->o.err->code;
		if (i == 0)
			snprintf(name, sizeof(name), ".omp_offloading.device_image");
		else
			snprintf(name, sizeof(name), ".omp_offloading.device_image.%zu", i);
		if (!ofl_ew_symbol(&g->o, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT, l->images,
		                   l->img_off[i], imgs[i].size))
			return g->o.err->code;
	}
	return 0;
}

/* AMD: one __tgt_image_info {version 1, number, count, arch, NULL} per
 * image after the descriptor, arch strings in .offload_arch_list. */
static int amd_infos(struct gen *g, const struct ofl_wrap_image *imgs, size_t n,
                     struct omp_layout *l)
{
	l->archs = ofl_ew_section(&g->o, ".offload_arch_list", SHT_PROGBITS, SHF_ALLOC, 1);
	if (l->archs < 0)
		return g->o.err->code;
	for (size_t i = 0; i < n; i++) {
		struct ofl_buf *a = &g->o.secs[l->archs].data;
		const char *arch = imgs[i].arch ? imgs[i].arch : "";
		uint64_t aoff = a->len, at = l->info + 32 * i;
		char name[64];
		if (ofl_buf_append(a, arch, strlen(arch) + 1))
			return OFL_NOMEM(g->o.err);
		uint8_t *d = g->o.secs[l->relro].data.data + at;
		ofl_put_le32(d, 1);
		ofl_put_le32(d + 4, (uint32_t)i);
		ofl_put_le32(d + 8, (uint32_t)n);
		snprintf(name, sizeof(name), "__offload_arch_%zu", i);
		if (!ofl_ew_symbol(&g->o, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT, l->archs, aoff,
		                   strlen(arch) + 1))
			return g->o.err->code;
		snprintf(name, sizeof(name), ".offload_image_info_%zu", i);
		if (!ofl_ew_symbol(&g->o, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT, l->relro, at,
		                   32) ||
		    put_abs64(g, l->relro, at + 16, at_sec(g, l->archs, aoff)))
			return g->o.err->code;
	}
	return 0;
}

/* __tgt_device_image[n], __tgt_bin_desc and (AMD) __tgt_image_info[n]. */
static int omp_descriptor(struct gen *g, const struct ofl_wrap_image *imgs, size_t n,
                          struct omp_layout *l)
{
	struct target start, stop;
	if (entries_section(g, &start, &stop) || omp_images(g, imgs, n, l))
		return g->o.err->code;
	l->relro = ofl_ew_section(&g->o, ".data.rel.ro", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 16);
	if (l->relro < 0)
		return g->o.err->code;
	struct ofl_buf *d = &g->o.secs[l->relro].data;
	l->desc = 32 * (uint64_t)n;
	l->info = l->desc + 32;
	bool amd = g->opt->abi == OFL_WRAP_AMD;
	if (ofl_buf_append_zeros(d, l->info + (amd ? 32 * n : 0)))
		return OFL_NOMEM(g->o.err);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t at = 32 * i, base = l->img_off[i];
		rc = put_abs64(g, l->relro, at, at_sec(g, l->images, base + imgs[i].start)) ||
		     put_abs64(g, l->relro, at + 8, at_sec(g, l->images, base + imgs[i].end)) ||
		     put_abs64(g, l->relro, at + 16, start) ||
		     put_abs64(g, l->relro, at + 24, stop);
	}
	ofl_put_le32(d->data + l->desc, (uint32_t)n);
	rc = rc || put_abs64(g, l->relro, l->desc + 8, at_sec(g, l->relro, 0)) ||
	     put_abs64(g, l->relro, l->desc + 16, start) ||
	     put_abs64(g, l->relro, l->desc + 24, stop);
	rc = rc || !ofl_ew_symbol(&g->o, ".omp_offloading.device_images", STB_LOCAL, STT_OBJECT,
	                          STV_DEFAULT, l->relro, 0, 32 * n);
	rc = rc || !ofl_ew_symbol(&g->o, ".omp_offloading.descriptor", STB_LOCAL, STT_OBJECT,
	                          STV_DEFAULT, l->relro, l->desc, 32);
	if (rc)
		return g->o.err->code ? g->o.err->code : OFL_NOMEM(g->o.err);
	return amd ? amd_infos(g, imgs, n, l) : 0;
}

/* References to a function built later (LLVM's order is reg, unreg,
 * globals_reg) are emitted against .text.startup + 0; the relocations made
 * in [from, to) get the function's offset once it exists. */
struct fwd {
	size_t from, to;
};

static size_t text_nrel(struct gen *g)
{
	return g->o.secs[g->text].nrel;
}

static void fwd_resolve(struct gen *g, struct fwd f, uint64_t fn)
{
	for (size_t i = f.from; i < f.to; i++)
		g->o.secs[g->text].rel[i].addend += (int64_t)fn;
}

/* LLVM 19/20: reg() { __tgt_register_lib(&desc); atexit(unreg); }
 * LLVM 14/AMD: reg() { [__tgt_register_image_info(&info_i)...]
 * __tgt_register_lib(&desc); } with unreg in .fini_array.1. */
static int omp_code(struct gen *g, size_t n, const struct omp_layout *l)
{
	struct target desc = at_sec(g, l->relro, l->desc);
	bool old = old_abi(g->opt);
	uint64_t reg, unreg;
	struct fwd to_unreg = {0, 0};
	if (cg_begin_fn(g, &reg) || cg_enter(g))
		return g->o.err->code;
	for (size_t i = 0; g->opt->abi == OFL_WRAP_AMD && i < n; i++)
		if (cg_addr_arg0(g, at_sec(g, l->relro, l->info + 32 * i)) ||
		    cg_call(g, undef(g, "__tgt_register_image_info", STV_DEFAULT)))
			return g->o.err->code;
	if (cg_addr_arg0(g, desc) || cg_call(g, undef(g, "__tgt_register_lib", STV_DEFAULT)))
		return g->o.err->code;
	to_unreg.from = text_nrel(g);
	if (!old && cg_addr_arg0(g, at_sec(g, g->text, 0)))
		return g->o.err->code;
	to_unreg.to = text_nrel(g);
	if (!old && cg_call(g, undef(g, "atexit", STV_DEFAULT)))
		return g->o.err->code;
	if (cg_leave(g) || cg_end_fn(g, ".omp_offloading.descriptor_reg", reg, NULL))
		return g->o.err->code;
	if (cg_begin_fn(g, &unreg) || cg_enter(g) || cg_addr_arg0(g, desc) ||
	    cg_call(g, undef(g, "__tgt_unregister_lib", STV_DEFAULT)) || cg_leave(g) ||
	    cg_end_fn(g, ".omp_offloading.descriptor_unreg", unreg, NULL))
		return g->o.err->code;
	fwd_resolve(g, to_unreg, unreg);
	if (array_slot(g, old ? ".init_array.1" : ".init_array.101", SHT_INIT_ARRAY, reg))
		return g->o.err->code;
	if (old && array_slot(g, ".fini_array.1", SHT_FINI_ARRAY, unreg))
		return g->o.err->code;
	return 0;
}

static int build_openmp(struct gen *g, const struct ofl_wrap_image *imgs, size_t n)
{
	struct omp_layout l;
	memset(&l, 0, sizeof(l));
	l.img_off = ofl_calloc(n, sizeof(*l.img_off));
	if (!l.img_off)
		return OFL_NOMEM(g->o.err);
	int rc = omp_descriptor(g, imgs, n, &l);
	if (!rc)
		rc = omp_code(g, n, &l);
	if (!rc)
		rc = finish_sections(g);
	free(l.img_off);
	return rc;
}

/* ---- CUDA / HIP ------------------------------------------------------------ */

struct cuda_names {
	const char *prefix; /* "cuda" / "hip" */
	const char *rt;     /* "__cuda" / "__hip" */
	const char *fatbin_sec, *wrapper_sec;
	uint32_t magic;
	uint16_t kind; /* entry Kind accepted (LLVM 20 layout) */
};

static const struct cuda_names CUDA_NAMES = {"cuda",     "__cuda", ".nv_fatbin", ".nvFatBinSegment",
                                             0x466243b1, 2};
static const struct cuda_names HIP_NAMES = {"hip",      "__hip", ".hip_fatbin", ".hipFatBinSegment",
                                            0x48495046, 4};

static struct target rt_fn(struct gen *g, const struct cuda_names *nm, const char *what)
{
	char name[64];
	snprintf(name, sizeof(name), "%s%s", nm->rt, what);
	return undef(g, name, STV_DEFAULT);
}

/* x86_64 register-walk helpers: mov disp8(%r12) into a register. */
static int x_load_r12(struct gen *g, const char *op3, uint8_t disp)
{
	/* op3 = REX, opcode, modrm with base r12 (SIB 0x24 follows) */
	uint8_t b[5] = {(uint8_t)op3[0], (uint8_t)op3[1], (uint8_t)op3[2], 0x24, disp};
	return emit(g, b, 5);
}

/* Labels of the entry walk. */
enum { L_LOOP, L_DONE, L_VAR, L_NOTVAR, L_NOTMANAGED, L_NOTSURF, L_NEXT };

/*
 * globals_reg(void **h), x86_64.  rbx = h, r12 = entry, r13 = end; a 32-byte
 * outgoing area at (%rsp) holds stack arguments.
 *
 *   push %rbx; push %r12; push %r13; sub $32,%rsp; mov %rdi,%rbx
 *   lea __start(%rip),%r12; lea __stop(%rip),%r13
 * loop: cmp %r13,%r12; jae done
 *   [20: cmpw $KIND,10(%r12); jne next]
 *   mov ADDR(%r12),%rsi; mov NAME(%r12),%rdx; mov %rdx,%rcx
 *   mov SIZE(%r12),%r9; mov %rbx,%rdi; test %r9,%r9; jne var
 *   mov $-1,%r8d; xor %r9d,%r9d; movq $0,0/8/16/24(%rsp)
 *   call RegisterFunction; jmp next
 * var: mov FLAGS(%r12),%eax; and $7,%eax; test %eax,%eax; jne notvar
 *   mov FLAGS(%r12),%eax; mov %eax,%r8d; shr $3,%r8d; and $1,%r8d   (extern)
 *   shr $4,%eax; and $1,%eax; mov %rax,(%rsp); movq $0,8(%rsp)     (constant, 0)
 *   call RegisterVar; jmp next
 * notvar: cmp $1,%eax; jne notmanaged
 *   [20: mov %rsi,%rdx; mov AUX(%r12),%rsi; mov %r9,%r8; mov DATA(%r12),%r9d
 *        call RegisterManagedVar]  jmp next
 * notmanaged: [HIP: cmp $2,%eax; jne notsurf
 *   mov DATA(%r12),%r8d; mov FLAGS(%r12),%r9d; shr $3,%r9d; and $1,%r9d
 *   call __hipRegisterSurface; jmp next
 * notsurf: cmp $3,%eax; jne next
 *   mov DATA(%r12),%r8d; mov FLAGS(%r12),%eax; mov %eax,%r9d; shr $5,%r9d;
 *   and $1,%r9d; shr $3,%eax; and $1,%eax; mov %rax,(%rsp)
 *   call __hipRegisterTexture]
 * next: add $STRIDE,%r12; jmp loop
 * done: add $32,%rsp; pop %r13; pop %r12; pop %rbx; ret
 */
static int x86_globals_reg(struct gen *g, const struct cuda_names *nm, const struct entry_layout *e,
                           struct target start, struct target stop)
{
	bool v20 = g->opt->abi == OFL_WRAP_LLVM20, hip = g->opt->kind == OFL_WRAP_HIP;
	static const char zero_stack[] = "\x48\xc7\x04\x24\0\0\0\0"
	                                 "\x48\xc7\x44\x24\x08\0\0\0\0"
	                                 "\x48\xc7\x44\x24\x10\0\0\0\0"
	                                 "\x48\xc7\x44\x24\x18\0\0\0\0";
	/* DWARF registers: rbx 3, r12 12, r13 13 */
	int rc = emit(g, "\x53", 1) || cfi_cfa(g, 16) || cfi_saved(g, 3, 16) ||
	         emit(g, "\x41\x54", 2) || cfi_cfa(g, 24) || cfi_saved(g, 12, 24) ||
	         emit(g, "\x41\x55", 2) || cfi_cfa(g, 32) || cfi_saved(g, 13, 32) ||
	         emit(g, "\x48\x83\xec\x20", 4) || cfi_cfa(g, 64) || emit(g, "\x48\x89\xfb", 3) ||
	         rel_at(g, 3, R_X86_64_PC32, start, -4) || emit(g, "\x4c\x8d\x25\0\0\0\0", 7) ||
	         rel_at(g, 3, R_X86_64_PC32, stop, -4) || emit(g, "\x4c\x8d\x2d\0\0\0\0", 7);
	label(g, L_LOOP);
	rc = rc || emit(g, "\x4d\x39\xec", 3) || x_jump(g, "\x0f\x83", 2, L_DONE);
	if (v20) {
		uint8_t cmp[7] = {0x66, 0x41, 0x83, 0x7c, 0x24, e->kind, (uint8_t)nm->kind};
		rc = rc || emit(g, cmp, 7) || x_jump(g, "\x0f\x85", 2, L_NEXT);
	}
	rc = rc || x_load_r12(g, "\x49\x8b\x74", e->addr) ||
	     x_load_r12(g, "\x49\x8b\x54", e->name) || emit(g, "\x48\x89\xd1", 3) ||
	     x_load_r12(g, "\x4d\x8b\x4c", e->size) || emit(g, "\x48\x89\xdf\x4d\x85\xc9", 6) ||
	     x_jump(g, "\x0f\x85", 2, L_VAR);
	rc = rc || emit(g, "\x41\xb8\xff\xff\xff\xff\x45\x31\xc9", 9) ||
	     emit(g, zero_stack, sizeof(zero_stack) - 1) ||
	     cg_call(g, rt_fn(g, nm, "RegisterFunction")) || x_jump(g, "\xe9", 1, L_NEXT);
	label(g, L_VAR);
	rc = rc || x_load_r12(g, "\x41\x8b\x44", e->flags) || emit(g, "\x83\xe0\x07\x85\xc0", 5) ||
	     x_jump(g, "\x0f\x85", 2, L_NOTVAR) || x_load_r12(g, "\x41\x8b\x44", e->flags) ||
	     emit(g, "\x41\x89\xc0\x41\xc1\xe8\x03\x41\x83\xe0\x01", 11) ||
	     emit(g, "\xc1\xe8\x04\x83\xe0\x01\x48\x89\x04\x24", 10) ||
	     emit(g, zero_stack + 8, 9) || cg_call(g, rt_fn(g, nm, "RegisterVar")) ||
	     x_jump(g, "\xe9", 1, L_NEXT);
	label(g, L_NOTVAR);
	rc = rc || emit(g, "\x83\xf8\x01", 3) || x_jump(g, "\x0f\x85", 2, L_NOTMANAGED);
	if (v20)
		rc = rc || emit(g, "\x48\x89\xf2", 3) || x_load_r12(g, "\x49\x8b\x74", e->aux) ||
		     emit(g, "\x4d\x89\xc8", 3) || x_load_r12(g, "\x45\x8b\x4c", e->data) ||
		     cg_call(g, rt_fn(g, nm, "RegisterManagedVar"));
	rc = rc || x_jump(g, "\xe9", 1, L_NEXT);
	label(g, L_NOTMANAGED);
	if (hip) {
		rc = rc || emit(g, "\x83\xf8\x02", 3) || x_jump(g, "\x0f\x85", 2, L_NOTSURF) ||
		     x_load_r12(g, "\x45\x8b\x44", e->data) ||
		     x_load_r12(g, "\x45\x8b\x4c", e->flags) ||
		     emit(g, "\x41\xc1\xe9\x03\x41\x83\xe1\x01", 8) ||
		     cg_call(g, rt_fn(g, nm, "RegisterSurface")) || x_jump(g, "\xe9", 1, L_NEXT);
		label(g, L_NOTSURF);
		rc = rc || emit(g, "\x83\xf8\x03", 3) || x_jump(g, "\x0f\x85", 2, L_NEXT) ||
		     x_load_r12(g, "\x45\x8b\x44", e->data) ||
		     x_load_r12(g, "\x41\x8b\x44", e->flags) ||
		     emit(g, "\x41\x89\xc1\x41\xc1\xe9\x05\x41\x83\xe1\x01", 11) ||
		     emit(g, "\xc1\xe8\x03\x83\xe0\x01\x48\x89\x04\x24", 10) ||
		     cg_call(g, rt_fn(g, nm, "RegisterTexture"));
	}
	label(g, L_NEXT);
	uint8_t add[4] = {0x49, 0x83, 0xc4, e->stride};
	rc = rc || emit(g, add, 4) || x_jump(g, "\xe9", 1, L_LOOP);
	label(g, L_DONE);
	rc = rc || emit(g, "\x48\x83\xc4\x20", 4) || cfi_cfa(g, 32) || emit(g, "\x41\x5d", 2) ||
	     cfi_cfa(g, 24) || emit(g, "\x41\x5c", 2) || cfi_cfa(g, 16) || emit(g, "\x5b", 1) ||
	     cfi_cfa(g, 8) || emit(g, "\xc3", 1);
	return rc ? g->o.err->code : 0;
}

/* aarch64 encoders for the entry walk (A64 base instructions). */
static uint32_t a_ldr_x(int t, int n, unsigned off)
{
	return 0xf9400000u | ((off / 8) << 10) | ((unsigned)n << 5) | (unsigned)t;
}
static uint32_t a_ldr_w(int t, int n, unsigned off)
{
	return 0xb9400000u | ((off / 4) << 10) | ((unsigned)n << 5) | (unsigned)t;
}
static uint32_t a_mov_x(int d, int m)
{
	return 0xaa0003e0u | ((unsigned)m << 16) | (unsigned)d; /* orr xd, xzr, xm */
}
static uint32_t a_ubfx_w(int d, int n, unsigned lsb, unsigned width)
{
	return 0x53000000u | (lsb << 16) | ((lsb + width - 1) << 10) | ((unsigned)n << 5) |
	       (unsigned)d;
}
static uint32_t a_cmp_w_imm(int n, unsigned imm)
{
	return 0x7100001fu | (imm << 10) | ((unsigned)n << 5); /* subs wzr, wn, #imm */
}

/* aarch64: conditional (b.cond / cbnz: imm19) or plain branch (imm26). */
static int a_branch(struct gen *g, uint32_t insn, int id)
{
	bool b26 = (insn & 0xfc000000u) == 0x14000000u;
	return fixup(g, 0, id, b26 ? 1 : 2) || emit32(g, insn);
}

static int a_adrp_add(struct gen *g, int reg, struct target t)
{
	return rel_at(g, 0, R_AARCH64_ADR_PREL_PG_HI21, t, 0) ||
	       emit32(g, 0x90000000u | (unsigned)reg) ||
	       rel_at(g, 0, R_AARCH64_ADD_ABS_LO12_NC, t, 0) ||
	       emit32(g, 0x91000000u | ((unsigned)reg << 5) | (unsigned)reg);
}

/*
 * globals_reg(void **h), aarch64: the same walk as x86_globals_reg with
 * x19 = h, x20 = entry, x21 = end and 16 bytes of outgoing stack arguments.
 *
 *   stp x29,x30,[sp,#-48]!; mov x29,sp; stp x19,x20,[sp,#16]; str x21,[sp,#32]
 *   sub sp,sp,#16; mov x19,x0; adrp/add x20,__start; adrp/add x21,__stop
 * loop: cmp x20,x21; b.hs done
 *   [20: ldrh w8,[x20,#10]; cmp w8,#KIND; b.ne next]
 *   ldr x1,[x20,#ADDR]; ldr x2,[x20,#NAME]; mov x3,x2; ldr x5,[x20,#SIZE]
 *   mov x0,x19; cbnz x5,var
 *   mov w4,#-1; mov x5,#0; mov x6,#0; mov x7,#0; str xzr,[sp]; str xzr,[sp,#8]
 *   bl RegisterFunction; b next
 * var: ldr w8,[x20,#FLAGS]; ubfx w9,w8,#0,#3; cbnz w9,notvar
 *   ubfx w4,w8,#3,#1; ubfx w6,w8,#4,#1; mov w7,#0; bl RegisterVar; b next
 * notvar: cmp w9,#1; b.ne notmanaged
 *   [20: mov x4,x5; mov x2,x1; ldr x1,[x20,#AUX]; ldr w5,[x20,#DATA];
 *        bl RegisterManagedVar]  b next
 * notmanaged: [HIP: cmp w9,#2; b.ne notsurf; ldr w4,[x20,#DATA];
 *   ubfx w5,w8,#3,#1; bl __hipRegisterSurface; b next
 * notsurf: cmp w9,#3; b.ne next; ldr w4,[x20,#DATA]; ubfx w5,w8,#5,#1;
 *   ubfx w6,w8,#3,#1; bl __hipRegisterTexture]
 * next: add x20,x20,#STRIDE; b loop
 * done: add sp,sp,#16; ldr x21,[sp,#32]; ldp x19,x20,[sp,#16];
 *   ldp x29,x30,[sp],#48; ret
 */
static int a64_globals_reg(struct gen *g, const struct cuda_names *nm, const struct entry_layout *e,
                           struct target start, struct target stop)
{
	bool v20 = g->opt->abi == OFL_WRAP_LLVM20, hip = g->opt->kind == OFL_WRAP_HIP;
	int rc = emit32(g, 0xa9bd7bfd) || cfi_cfa(g, 48) || cfi_saved(g, 30, 40) ||
	         cfi_saved(g, 29, 48) || emit32(g, 0x910003fd) || emit32(g, 0xa90153f3) ||
	         cfi_saved(g, 19, 32) || cfi_saved(g, 20, 24) || emit32(g, 0xf90013f5) ||
	         cfi_saved(g, 21, 16) || emit32(g, 0xd10043ff) || cfi_cfa(g, 64) ||
	         emit32(g, a_mov_x(19, 0)) || a_adrp_add(g, 20, start) || a_adrp_add(g, 21, stop);
	label(g, L_LOOP);
	rc = rc || emit32(g, 0xeb15029f) || a_branch(g, 0x54000002, L_DONE);
	if (v20)
		rc = rc || emit32(g, 0x79400288u | ((unsigned)(e->kind / 2) << 10)) ||
		     emit32(g, a_cmp_w_imm(8, nm->kind)) || a_branch(g, 0x54000001, L_NEXT);
	rc = rc || emit32(g, a_ldr_x(1, 20, e->addr)) || emit32(g, a_ldr_x(2, 20, e->name)) ||
	     emit32(g, a_mov_x(3, 2)) || emit32(g, a_ldr_x(5, 20, e->size)) ||
	     emit32(g, a_mov_x(0, 19)) || a_branch(g, 0xb5000005, L_VAR);
	rc = rc || emit32(g, 0x12800004) || emit32(g, 0xd2800005) || emit32(g, 0xd2800006) ||
	     emit32(g, 0xd2800007) || emit32(g, 0xf90003ff) || emit32(g, 0xf90007ff) ||
	     cg_call(g, rt_fn(g, nm, "RegisterFunction")) || a_branch(g, 0x14000000, L_NEXT);
	label(g, L_VAR);
	rc = rc || emit32(g, a_ldr_w(8, 20, e->flags)) || emit32(g, a_ubfx_w(9, 8, 0, 3)) ||
	     a_branch(g, 0x35000009, L_NOTVAR) || emit32(g, a_ubfx_w(4, 8, 3, 1)) ||
	     emit32(g, a_ubfx_w(6, 8, 4, 1)) || emit32(g, 0x52800007) ||
	     cg_call(g, rt_fn(g, nm, "RegisterVar")) || a_branch(g, 0x14000000, L_NEXT);
	label(g, L_NOTVAR);
	rc = rc || emit32(g, a_cmp_w_imm(9, 1)) || a_branch(g, 0x54000001, L_NOTMANAGED);
	if (v20)
		rc = rc || emit32(g, a_mov_x(4, 5)) || emit32(g, a_mov_x(2, 1)) ||
		     emit32(g, a_ldr_x(1, 20, e->aux)) || emit32(g, a_ldr_w(5, 20, e->data)) ||
		     cg_call(g, rt_fn(g, nm, "RegisterManagedVar"));
	rc = rc || a_branch(g, 0x14000000, L_NEXT);
	label(g, L_NOTMANAGED);
	if (hip) {
		rc = rc || emit32(g, a_cmp_w_imm(9, 2)) || a_branch(g, 0x54000001, L_NOTSURF) ||
		     emit32(g, a_ldr_w(4, 20, e->data)) || emit32(g, a_ubfx_w(5, 8, 3, 1)) ||
		     cg_call(g, rt_fn(g, nm, "RegisterSurface")) || a_branch(g, 0x14000000, L_NEXT);
		label(g, L_NOTSURF);
		rc = rc || emit32(g, a_cmp_w_imm(9, 3)) || a_branch(g, 0x54000001, L_NEXT) ||
		     emit32(g, a_ldr_w(4, 20, e->data)) || emit32(g, a_ubfx_w(5, 8, 5, 1)) ||
		     emit32(g, a_ubfx_w(6, 8, 3, 1)) || cg_call(g, rt_fn(g, nm, "RegisterTexture"));
	}
	label(g, L_NEXT);
	rc = rc || emit32(g, 0x91000294u | ((unsigned)e->stride << 10)) ||
	     a_branch(g, 0x14000000, L_LOOP);
	label(g, L_DONE);
	rc = rc || emit32(g, 0x910043ff) || cfi_cfa(g, 48) || emit32(g, 0xf94013f5) ||
	     cfi_restored(g, 21) || emit32(g, 0xa94153f3) || cfi_restored(g, 19) ||
	     cfi_restored(g, 20) || emit32(g, 0xa8c37bfd) || cfi_cfa(g, 0) || cfi_restored(g, 29) ||
	     cfi_restored(g, 30) || emit32(g, 0xd65f03c0);
	return rc ? g->o.err->code : 0;
}

/*
 * reg() { h = RegisterFatBinary(&wrapper); handle = h; globals_reg(h);
 *         [CUDA: __cudaRegisterFatBinaryEnd(handle);] atexit(unreg); }
 * unreg() { UnregisterFatBinary(handle); }
 */
static int cuda_code(struct gen *g, const struct cuda_names *nm, struct target wrapper,
                     struct target handle, struct target start, struct target stop)
{
	const struct entry_layout *e = g->opt->abi == OFL_WRAP_LLVM20 ? &ENTRY20 : &ENTRY19;
	char name[64];
	uint64_t globals, unreg, reg;
	struct fwd to_globals, to_unreg;
	snprintf(name, sizeof(name), ".%s.fatbin_reg", nm->prefix);
	if (cg_begin_fn(g, &reg) || cg_enter(g) || cg_addr_arg0(g, wrapper) ||
	    cg_call(g, rt_fn(g, nm, "RegisterFatBinary")) || cg_store_ret_arg0(g, handle))
		return g->o.err->code;
	to_globals.from = text_nrel(g);
	if (cg_call(g, at_sec(g, g->text, 0)))
		return g->o.err->code;
	to_globals.to = text_nrel(g);
	if (g->opt->kind == OFL_WRAP_CUDA &&
	    (cg_load_arg0(g, handle) || cg_call(g, rt_fn(g, nm, "RegisterFatBinaryEnd"))))
		return g->o.err->code;
	to_unreg.from = text_nrel(g);
	if (cg_addr_arg0(g, at_sec(g, g->text, 0)))
		return g->o.err->code;
	to_unreg.to = text_nrel(g);
	if (cg_call(g, undef(g, "atexit", STV_DEFAULT)) || cg_leave(g) ||
	    cg_end_fn(g, name, reg, NULL))
		return g->o.err->code;
	snprintf(name, sizeof(name), ".%s.fatbin_unreg", nm->prefix);
	if (cg_begin_fn(g, &unreg) || cg_enter(g) || cg_load_arg0(g, handle) ||
	    cg_call(g, rt_fn(g, nm, "UnregisterFatBinary")) || cg_leave(g) ||
	    cg_end_fn(g, name, unreg, NULL))
		return g->o.err->code;
	snprintf(name, sizeof(name), ".%s.globals_reg", nm->prefix);
	if (cg_begin_fn(g, &globals) ||
	    (is_a64(g) ? a64_globals_reg(g, nm, e, start, stop)
	               : x86_globals_reg(g, nm, e, start, stop)) ||
	    cg_end_fn(g, name, globals, NULL))
		return g->o.err->code;
	fwd_resolve(g, to_globals, globals);
	fwd_resolve(g, to_unreg, unreg);
	return array_slot(g, ".init_array.101", SHT_INIT_ARRAY, reg);
}

static int build_cuda(struct gen *g, const struct ofl_wrap_image *img)
{
	const struct cuda_names *nm = g->opt->kind == OFL_WRAP_CUDA ? &CUDA_NAMES : &HIP_NAMES;
	struct target start, stop;
	char name[64];
	uint64_t off;
	if (entries_section(g, &start, &stop))
		return g->o.err->code;
	int fb = ofl_ew_section(&g->o, nm->fatbin_sec, SHT_PROGBITS, SHF_ALLOC, 16);
	if (fb < 0 ||
	    ofl_ew_piece(&g->o, fb, img->data, img->size, 16, image_fd(img), image_fd_off(img),
	                 &off) ||
	    !ofl_ew_symbol(&g->o, ".fatbin_image", STB_LOCAL, STT_OBJECT, STV_DEFAULT, fb, 0,
	                   img->size))
		return g->o.err->code;
	int ws = ofl_ew_section(&g->o, nm->wrapper_sec, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8);
	if (ws < 0 || ofl_buf_append_zeros(&g->o.secs[ws].data, 24))
		return g->o.err->code ? g->o.err->code : OFL_NOMEM(g->o.err);
	ofl_put_le32(g->o.secs[ws].data.data, nm->magic);
	ofl_put_le32(g->o.secs[ws].data.data + 4, 1);
	if (put_abs64(g, ws, 8, at_sec(g, fb, img->start)) ||
	    !ofl_ew_symbol(&g->o, ".fatbin_wrapper", STB_LOCAL, STT_OBJECT, STV_DEFAULT, ws, 0, 24))
		return g->o.err->code;
	int bss = ofl_ew_section(&g->o, ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 8);
	if (bss < 0)
		return g->o.err->code;
	g->o.secs[bss].size = 8;
	snprintf(name, sizeof(name), ".%s.binary_handle", nm->prefix);
	if (!ofl_ew_symbol(&g->o, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT, bss, 0, 8))
		return g->o.err->code;
	if (cuda_code(g, nm, at_sec(g, ws, 0), at_sec(g, bss, 0), start, stop))
		return g->o.err->code;
	return finish_sections(g);
}

/* ---- SYCL (LLVM 23) ------------------------------------------------------- */

/* Second argument register = v. */
static int cg_u64_arg1(struct gen *g, uint64_t v)
{
	uint8_t b[10];
	if (!is_a64(g) && v <= UINT32_MAX) {
		b[0] = 0xbe; /* mov $v, %esi (zero-extends into %rsi) */
		ofl_put_le32(b + 1, (uint32_t)v);
		return emit(g, b, 5);
	}
	if (!is_a64(g)) {
		b[0] = 0x48; /* movabs $v, %rsi */
		b[1] = 0xbe;
		ofl_put_le64(b + 2, v);
		return emit(g, b, 10);
	}
	/* movz x1, #v[15:0], then movk x1 for each nonzero higher half-word */
	int rc = emit32(g, 0xd2800001 | (uint32_t)(v & 0xffff) << 5);
	for (unsigned hw = 1; hw < 4 && !rc; hw++)
		if ((v >> (16 * hw)) & 0xffff)
			rc = emit32(g, 0xf2800001 | hw << 21 |
			                   (uint32_t)((v >> (16 * hw)) & 0xffff) << 5);
	return rc;
}

/* sycl.descriptor_reg() { __sycl_register_lib(&arg); } from .init_array.1
 * and sycl.descriptor_unreg() { __sycl_unregister_lib(&arg); } from
 * .fini_array.1: LLVM 22's form (arg the descriptor, size NULL), or 23's
 * (arg the binary, *size its size a second argument). */
static int sycl_register(struct gen *g, struct target arg, const uint64_t *size)
{
	static const char *const fn[2][2] = {{"sycl.descriptor_reg", "__sycl_register_lib"},
	                                     {"sycl.descriptor_unreg", "__sycl_unregister_lib"}};
	uint64_t at[2];
	for (int k = 0; k < 2; k++)
		if (cg_begin_fn(g, &at[k]) || cg_enter(g) || cg_addr_arg0(g, arg) ||
		    (size && cg_u64_arg1(g, *size)) ||
		    cg_call(g, undef(g, fn[k][1], STV_DEFAULT)) || cg_leave(g) ||
		    cg_end_fn(g, fn[k][0], at[k], NULL))
			return g->o.err->code;
	return array_slot(g, ".init_array.1", SHT_INIT_ARRAY, at[0]) ||
	               array_slot(g, ".fini_array.1", SHT_FINI_ARRAY, at[1])
	           ? g->o.err->code
	           : 0;
}

/* The OffloadBinary whole (no ImageStart inside it: the runtime reads the
 * binary), 16-aligned as LLVM aligns a large global without an alignment. */
static int build_sycl(struct gen *g, const struct ofl_wrap_image *img)
{
	uint64_t off;
	int s = ofl_ew_section(&g->o, ".llvm.offloading", SHT_LLVM_OFFLOADING, SHF_ALLOC, 16);
	if (s < 0 ||
	    ofl_ew_piece(&g->o, s, img->data, img->size, 16, image_fd(img), image_fd_off(img),
	                 &off) ||
	    !ofl_ew_symbol(&g->o, ".sycl_offloading.binary", STB_LOCAL, STT_OBJECT, STV_DEFAULT, s,
	                   off, img->size))
		return g->o.err->code;
	int rc = sycl_register(g, at_sec(g, s, off), &(uint64_t){img->size});
	return rc ? rc : finish_sections(g);
}

/* ---- SYCL (LLVM 22) ------------------------------------------------------- */

struct sycl_secs {
	int strs, images, names, entries, relro;
};

/* Where image i's strings (triple, tl bytes, then compile and link
 * options), bytes and entry array are. */
struct sycl_at {
	uint64_t strs, tl, data, entries;
};

/* A symbol of g named by fmt, over [off, off + size) of sec. */
static int sym_at(struct gen *g, uint8_t bind, int sec, uint64_t off, uint64_t size,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int sym_at(struct gen *g, uint8_t bind, int sec, uint64_t off, uint64_t size,
                  const char *fmt, ...)
{
	va_list ap;
	char *name = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&name, fmt, ap);
	va_end(ap);
	if (n < 0)
		return OFL_NOMEM(g->o.err);
	uint32_t id = ofl_ew_symbol(&g->o, name, bind, STT_OBJECT, STV_DEFAULT, sec, off, size);
	free(name);
	return id ? 0 : g->o.err->code;
}

/* Appends a 56-byte SYCL entry naming the kernel at noff of the names
 * section to sec; its offset in *off. */
static int sycl_entry(struct gen *g, const struct sycl_secs *x, int sec, uint64_t noff,
                      uint64_t *off)
{
	struct ofl_buf *b = &g->o.secs[sec].data;
	*off = b->len;
	if (ofl_buf_append_zeros(b, ENTRY20.stride))
		return OFL_NOMEM(g->o.err);
	ofl_put_le16(b->data + *off + 8, 1); /* Version */
	ofl_put_le16(b->data + *off + ENTRY20.kind, OFL_OFK_SYCL);
	return put_abs64(g, sec, *off + ENTRY20.name, at_sec(g, x->names, noff));
}

/* Image i's kernels: each name in .llvm.rodata.offloading, its weak entry
 * in llvm_offload_entries (clang's offload entry, which LLVM emits for each
 * kernel) and a copy in the image's entry array, 16-aligned in
 * .data.rel.ro. */
static int sycl_kernels(struct gen *g, const struct sycl_secs *x, const struct ofl_sycl_desc *d,
                        size_t i, struct sycl_at *at)
{
	const struct ofl_sycl_image *im = &d->images[i];
	struct ofl_buf *relro = &g->o.secs[x->relro].data;
	char s1[16], s2[16];
	if (!ofl_align_up(relro->len, 16, &at->entries) ||
	    ofl_buf_append_zeros(relro, at->entries - relro->len))
		return OFL_NOMEM(g->o.err);
	for (size_t k = im->first; k < im->first + im->n; k++) {
		const struct ofl_sycl_kernel *kn = &d->kernels[k];
		struct ofl_buf *nb = &g->o.secs[x->names].data;
		uint64_t noff = nb->len, eoff, aoff;
		if (ofl_buf_append(nb, kn->name, kn->len) || ofl_buf_append(nb, "", 1))
			return OFL_NOMEM(g->o.err);
		if (sycl_entry(g, x, x->entries, noff, &eoff) ||
		    sycl_entry(g, x, x->relro, noff, &aoff) ||
		    sym_at(g, STB_LOCAL, x->names, noff, kn->len + 1, ".offloading.entry_name%s",
		           ofl_sycl_suffix(kn->name_sfx, s1)) ||
		    sym_at(g, STB_WEAK, x->entries, eoff, ENTRY20.stride,
		           ".offloading.entry.%.*s%s", (int)kn->len, kn->name,
		           ofl_sycl_suffix(kn->entry_sfx, s2)))
			return g->o.err->code ? g->o.err->code : OFL_NOMEM(g->o.err);
	}
	return sym_at(g, STB_LOCAL, x->relro, at->entries, ENTRY20.stride * im->n,
	              ".sycl_offloading.entries_arr%s", ofl_sycl_suffix(im->arr_sfx, s1));
}

/* Image i's strings (its triple; the compile and link options, empty as
 * LLVM 22's driver leaves them), its bytes (16-aligned in .llvm.offloading)
 * and kernels. */
static int sycl_image(struct gen *g, const struct sycl_secs *x, const struct ofl_wrap_image *img,
                      const struct ofl_sycl_desc *d, size_t i, struct sycl_at *at)
{
	const struct ofl_obin *b = d->images[i].b;
	const char *triple = ofl_obin_get(b, "triple");
	struct ofl_buf *sb = &g->o.secs[x->strs].data;
	size_t tl = strlen(triple = triple ? triple : "");
	at->strs = sb->len;
	at->tl = tl;
	if (ofl_buf_append(sb, triple, tl) || ofl_buf_append_zeros(sb, 3))
		return OFL_NOMEM(g->o.err);
	int fd = image_fd(img);
	uint64_t fd_off = image_fd_off(img) + (uint64_t)(b->image - img->data);
	if (ofl_ew_piece(&g->o, x->images, b->image, b->image_size, 16, fd, fd_off, &at->data))
		return g->o.err->code;
	int rc =
	    sym_at(g, STB_LOCAL, x->strs, at->strs, tl + 1, ".sycl_offloading.target.%zu", i) ||
	    sym_at(g, STB_LOCAL, x->strs, at->strs + tl + 1, 1, ".sycl_offloading.opts.compile.%zu",
	           i) ||
	    sym_at(g, STB_LOCAL, x->strs, at->strs + tl + 2, 1, ".sycl_offloading.opts.link.%zu",
	           i) ||
	    sym_at(g, STB_LOCAL, x->images, at->data, b->image_size, ".sycl_offloading.%zu.data",
	           i);
	return rc ? g->o.err->code : sycl_kernels(g, x, d, i, at);
}

/* The 80-byte __sycl.tgt_device_image of each image, then the 32-byte
 * __sycl.tgt_bin_desc, 16-aligned after the entry arrays in .data.rel.ro;
 * *desc: the descriptor's offset. */
static int sycl_descriptor(struct gen *g, const struct sycl_secs *x, const struct ofl_sycl_desc *d,
                           const struct sycl_at *at, uint64_t *desc)
{
	struct ofl_buf *relro = &g->o.secs[x->relro].data;
	size_t n = d->nimages;
	uint64_t arr;
	if (!ofl_align_up(relro->len, 16, &arr) || ofl_buf_append_zeros(relro, arr - relro->len) ||
	    ofl_buf_append_zeros(relro, 80 * n + 32))
		return OFL_NOMEM(g->o.err);
	*desc = arr + 80 * n;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const struct ofl_obin *b = d->images[i].b;
		uint64_t o = arr + 80 * i, tl = at[i].tl;
		uint8_t *p = relro->data + o;
		ofl_put_le16(p, 3); /* the struct's version */
		p[2] = (uint8_t)b->offload_kind;
		p[3] = (uint8_t)b->image_kind;
		struct target v[7] = {
		    at_sec(g, x->strs, at[i].strs),
		    at_sec(g, x->strs, at[i].strs + tl + 1),
		    at_sec(g, x->strs, at[i].strs + tl + 2),
		    at_sec(g, x->images, at[i].data),
		    at_sec(g, x->images, at[i].data + b->image_size),
		    at_sec(g, x->relro, at[i].entries),
		    at_sec(g, x->relro, at[i].entries + ENTRY20.stride * d->images[i].n)};
		for (size_t f = 0; !rc && f < 7; f++)
			rc = put_abs64(g, x->relro, o + 8 + 8 * f, v[f]);
	}
	ofl_put_le16(relro->data + *desc, 1); /* the descriptor's version */
	ofl_put_le16(relro->data + *desc + 2, (uint16_t)n);
	rc = rc || put_abs64(g, x->relro, *desc + 8, at_sec(g, x->relro, arr)) ||
	     sym_at(g, STB_LOCAL, x->relro, arr, 80 * n, ".sycl_offloading.device_images") ||
	     sym_at(g, STB_LOCAL, x->relro, *desc, 32, ".sycl_offloading.descriptor");
	return rc ? g->o.err->code : 0;
}

/* LLVM 22's registration (wrapper_sycl.h; clang-linker-wrapper 22's
 * module, read in its --save-temps bitcode): a __sycl.tgt_device_image per
 * image, __sycl_register_lib(&desc) from .init_array.1 and
 * __sycl_unregister_lib(&desc) from .fini_array.1, sections and symbols in
 * LLVM's order and names. */
static int build_sycl_desc(struct gen *g, const struct ofl_wrap_image *img)
{
	struct ofl_sycl_desc d;
	struct sycl_secs x;
	struct sycl_at *at = NULL;
	uint64_t desc = 0;
	int rc = ofl_sycl_desc_read(img, &d, g->o.err);
	if (rc)
		return rc;
	if (!(at = ofl_calloc(d.nimages, sizeof(*at))))
		rc = OFL_NOMEM(g->o.err);
	x.strs = ofl_ew_section(&g->o, ".rodata", SHT_PROGBITS, SHF_ALLOC, 1);
	x.images = ofl_ew_section(&g->o, ".llvm.offloading", SHT_LLVM_OFFLOADING, SHF_ALLOC, 16);
	x.names = ofl_ew_section(&g->o, ".llvm.rodata.offloading", SHT_PROGBITS, SHF_ALLOC, 1);
	x.entries =
	    ofl_ew_section(&g->o, "llvm_offload_entries", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8);
	x.relro = ofl_ew_section(&g->o, ".data.rel.ro", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 16);
	if (!rc && (x.strs < 0 || x.images < 0 || x.names < 0 || x.entries < 0 || x.relro < 0))
		rc = g->o.err->code;
	for (size_t i = 0; !rc && i < d.nimages; i++)
		rc = sycl_image(g, &x, img, &d, i, &at[i]);
	rc = rc ? rc : sycl_descriptor(g, &x, &d, at, &desc);
	rc = rc ? rc : sycl_register(g, at_sec(g, x.relro, desc), NULL);
	free(at);
	ofl_sycl_desc_release(&d);
	return rc ? rc : finish_sections(g);
}

/* ---- entry points ---------------------------------------------------------- */

int ofl_wrap_check(const struct ofl_wrap_opts *o, size_t nimages, struct ofl_error *err)
{
	if (o->kind != OFL_WRAP_OPENMP && old_abi(o))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the llvm14 and amd registration exist only for openmp");
	if (o->kind == OFL_WRAP_SYCL && (o->abi != OFL_WRAP_LLVM20 || o->relocatable))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "sycl has LLVM %s registration only (llvm20 ABI), not "
		                     "relocatable",
		                     o->sycl_desc ? "22's" : "23's");
	if (o->sycl_desc && (o->kind != OFL_WRAP_SYCL || ofl_wrap_machine_coff(o->machine)))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "LLVM 22's SYCL registration is a sycl one, for ELF hosts");
	if (o->kind == OFL_WRAP_SYCL && nimages != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "sycl takes exactly one OffloadBinary, got %zu", nimages);
	if (o->kind != OFL_WRAP_OPENMP && nimages != 1)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "cuda and hip take exactly one fat binary, got %zu", nimages);
	if (nimages == 0)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "no device images");
	if (o->relocatable && old_abi(o))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "relocatable mode needs the llvm19 or llvm20 registration");
	if (nimages > INT32_MAX)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "too many images");
	return 0;
}

int ofl_wrap_machine_from_triple(const char *triple, enum ofl_wrap_machine *m,
                                 struct ofl_error *err)
{
	size_t n = strcspn(triple, "-");
	bool coff = ofl_triple_is_coff(triple), cygming = ofl_triple_is_cygming(triple);
	if (coff && !cygming && !ofl_triple_is_msvc(triple))
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "host triple '%s': COFF wrapper objects are written for the "
		                     "MSVC, MinGW and Cygwin environments only "
		                     "(x86_64-pc-windows-msvc, x86_64-w64-windows-gnu)",
		                     triple);
	if ((n == 6 && strncmp(triple, "x86_64", 6) == 0) ||
	    (n == 5 && strncmp(triple, "amd64", 5) == 0)) {
		*m = cygming ? OFL_WRAP_X86_64_MINGW
		     : coff  ? OFL_WRAP_X86_64_COFF
		             : OFL_WRAP_X86_64;
		return 0;
	}
	if (coff)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "host triple '%s': of the Windows hosts only x86_64 is "
		                     "supported",
		                     triple);
	if ((n == 7 && strncmp(triple, "aarch64", 7) == 0) ||
	    (n == 5 && strncmp(triple, "arm64", 5) == 0)) {
		*m = OFL_WRAP_AARCH64;
		return 0;
	}
	return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
	                     "host triple '%s' is not supported (x86_64 and aarch64 are)", triple);
}

bool ofl_wrap_machine_coff(enum ofl_wrap_machine m)
{
	return m == OFL_WRAP_X86_64_COFF || m == OFL_WRAP_X86_64_MINGW;
}

static int check_images(const struct ofl_wrap_image *imgs, size_t n, struct ofl_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (imgs[i].start > imgs[i].end || imgs[i].end > imgs[i].size)
			return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "image %zu: range [%llu, %llu) outside its %llu bytes",
			                     i, (unsigned long long)imgs[i].start,
			                     (unsigned long long)imgs[i].end,
			                     (unsigned long long)imgs[i].size);
	return 0;
}

static int check_all(const struct ofl_wrap_opts *o, const struct ofl_wrap_image *imgs, size_t n,
                     struct ofl_error *err)
{
	int rc = ofl_wrap_check(o, n, err);
	return rc ? rc : check_images(imgs, n, err);
}

/* COFF objects are built in memory (Windows hosts: small, rare). */
static int write_coff_fd(int fd, const struct ofl_wrap_opts *o, const struct ofl_wrap_image *imgs,
                         size_t n, struct ofl_error *err)
{
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = ofl_wrap_write_coff(&b, o, imgs, n, err);
	if (!rc && ofl_fd_write_all(fd, b.data, b.len))
		rc = ofl_error_errno(err, NULL, "cannot write the object");
	ofl_buf_release(&b);
	return rc;
}

int ofl_wrap_write_fd(int fd, const struct ofl_wrap_opts *o, const struct ofl_wrap_image *imgs,
                      size_t nimages, struct ofl_error *err)
{
	int rc = check_all(o, imgs, nimages, err);
	if (rc)
		return rc;
	if (ofl_wrap_machine_coff(o->machine))
		return write_coff_fd(fd, o, imgs, nimages, err);
	struct gen g;
	memset(&g, 0, sizeof(g));
	g.opt = o;
	ofl_ew_init(&g.o, o->machine == OFL_WRAP_AARCH64 ? EM_AARCH64 : EM_X86_64, err);
	const char *file = old_abi(o) ? "offload.wrapper.object" : "offload.wrapper.module";
	g.text = ofl_ew_section(&g.o, ".text.startup", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	                        is_a64(&g) ? 4 : 16);
	if (g.text < 0 || !ofl_ew_symbol(&g.o, file, STB_LOCAL, STT_FILE, STV_DEFAULT, -2, 0, 0))
		rc = err->code;
	else if (o->kind == OFL_WRAP_OPENMP)
		rc = build_openmp(&g, imgs, nimages);
	else if (o->kind == OFL_WRAP_SYCL)
		rc = o->sycl_desc ? build_sycl_desc(&g, imgs) : build_sycl(&g, imgs);
	else
		rc = build_cuda(&g, imgs);
	if (!rc)
		rc = ofl_ew_write_fd(&g.o, fd);
	ofl_ew_release(&g.o);
	ofl_buf_release(&g.cfi);
	ofl_buf_release(&g.eh);
	return rc;
}

int ofl_wrap_write_buf(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                       const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err)
{
	if (ofl_wrap_machine_coff(o->machine)) {
		int rc = check_all(o, imgs, nimages, err);
		return rc ? rc : ofl_wrap_write_coff(out, o, imgs, nimages, err);
	}
	/* libelf writes to a descriptor */
	int fd = memfd_create("offlink-wrap", MFD_CLOEXEC);
	if (fd < 0)
		return ofl_error_errno(err, NULL, "cannot create memory file");
	int rc = ofl_wrap_write_fd(fd, o, imgs, nimages, err);
	off_t size = rc ? 0 : lseek(fd, 0, SEEK_END);
	if (!rc && size < 0)
		rc = ofl_error_errno(err, NULL, "cannot size memory file");
	if (!rc && ofl_buf_reserve(out, (size_t)size))
		rc = OFL_NOMEM(err);
	for (off_t pos = 0; !rc && pos < size;) {
		ssize_t got = pread(fd, out->data + out->len, (size_t)(size - pos), pos);
		if (got <= 0)
			rc = ofl_error_errno(err, NULL, "cannot read memory file");
		else {
			pos += got;
			out->len += (size_t)got;
		}
	}
	close(fd);
	return rc;
}
