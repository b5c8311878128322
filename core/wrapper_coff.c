/* The OpenMP wrapper object for Windows x64 hosts (docs/abi.md, "COFF
 * hosts"): what clang-linker-wrapper 22 (or llvm-offload-wrapper and llc
 * -mtriple=x86_64-pc-windows-msvc) writes, section for section, symbol
 * for symbol and byte for byte:
 *
 *  - the entry table is bracketed by zero-size arrays of our own,
 *    __start_<sec> in <sec>$OA and __stop_<sec> in <sec>$OZ, around clang's
 *    entries in <sec>$OE (the linker sorts a section's pieces by the text
 *    after '$'); LLVM makes them weak externals (weak_odr since #79231,
 *    LLVM 18: Debian's 19.1.7 writes them so), each with a default
 *    definition, so that several wrapper objects can be linked;
 *  - the constructor is a pointer in .CRT$XCA00101 (priority 101), which
 *    the C runtime calls before main; it calls __tgt_register_lib and
 *    registers the destructor with atexit;
 *  - for MinGW and Cygwin (the GNU environment) LLVM puts that pointer in
 *    .ctors.65434 (65535 - 101, writable) instead, and names its hidden
 *    definitions (__start_/__stop_ and their defaults stay in the object)
 *    in " -exclude-symbols:<name>" directives of a .drectve section, so
 *    that a DLL does not export them;
 *  - the code follows the Windows x64 convention: the first argument in
 *    rcx, 32 bytes of shadow space, 16-byte alignment, and unwind
 *    information for each function (.xdata, .pdata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coff_writer.h"
#include "internal.h"
#include "offlink/coff.h"
#include "wrapper_coff.h"

enum {
	TEXT = 0x60300020,    /* code, 4-aligned, execute/read */
	DATA = 0xc0300040,    /* initialized data, 4-aligned, read/write */
	BSS = 0xc0300080,     /* uninitialized data */
	STARTUP = 0x60500020, /* code, 16-aligned */
	RDATA4 = 0x40300040,  /* read-only data, 4-aligned */
	RDATA8 = 0x40400040,  /* 8-aligned */
	RDATA16 = 0x40500040, /* 16-aligned */
	DATA8 = 0xc0400040,   /* initialized data, 8-aligned, read/write */
	DRECTVE = 0x100a00,   /* linker directives, 1-aligned, not linked */
	UNREG = 0x30,         /* where the destructor starts */
};

/* The constructor and destructor, as LLVM's x86 backend compiles them
 * (with the padding it puts between functions):
 *   reg:   sub $0x28,%rsp; lea desc(%rip),%rcx; call __tgt_register_lib;
 *          lea unreg(%rip),%rcx; call atexit; nop; add $0x28,%rsp; ret
 *   unreg: sub $0x28,%rsp; lea desc(%rip),%rcx; call __tgt_unregister_lib;
 *          nop; add $0x28,%rsp; ret */
static const uint8_t code[0x46] = {
    0x48, 0x83, 0xec, 0x28, 0x48, 0x8d, 0x0d, 0, 0, 0, 0,    0xe8, 0,    0,    0,    0,    0x48,
    0x8d, 0x0d, 0,    0,    0,    0,    0xe8, 0, 0, 0, 0,    0x90, 0x48, 0x83, 0xc4, 0x28, 0xc3,
    0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0, 0, 0, 0x0f, 0x1f, 0x40, 0x00, /* 0x30: */
    0x48, 0x83, 0xec, 0x28, 0x48, 0x8d, 0x0d, 0, 0, 0, 0,    0xe8, 0,    0,    0,    0,    0x90,
    0x48, 0x83, 0xc4, 0x28, 0xc3};

/* Both functions' unwind information: version 1, a 4-byte prologue with
 * one code, which allocates 40 bytes on the stack (UWOP_ALLOC_SMALL). */
static const uint8_t xdata[16] = {1, 4, 1, 0, 4, 0x42, 0, 0, 1, 4, 1, 0, 4, 0x42, 0, 0};

struct layout {
	int startup, xdata, start_sec, stop_sec, images, rdata, crt, drectve, pdata;
	uint32_t reg, desc, unreg, start, stop, first_image, images_sym;
	uint32_t register_lib, atexit, unregister_lib;
};

const char *ofl_wrap_coff_piece(const char *sec, bool stop)
{
	static const char *const known[][3] = {
	    {"llvm_offload_entries", "llvm_offload_entries$OA", "llvm_offload_entries$OZ"},
	    {"omp_offloading_entries", "omp_offloading_entries$OA", "omp_offloading_entries$OZ"},
	    {"cuda_offloading_entries", "cuda_offloading_entries$OA", "cuda_offloading_entries$OZ"},
	    {"hip_offloading_entries", "hip_offloading_entries$OA", "hip_offloading_entries$OZ"}};
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(known[i][0], sec))
			return known[i][stop ? 2 : 1];
	return NULL;
}

/* LLVM's directives for a MinGW object: its hidden definitions. */
static int directives(struct ofl_cw_obj *o, const char *sec, const struct layout *l)
{
	struct ofl_buf *d = &o->secs[l->drectve - 1].data;
	if (ofl_buf_printf(d, " -exclude-symbols:__start_%s -exclude-symbols:__stop_%s", sec, sec))
		return OFL_NOMEM(o->err);
	return 0;
}

static int sections(struct ofl_cw_obj *o, bool mingw, const char *sec, struct layout *l)
{
	ofl_cw_section(o, ".text", TEXT);
	ofl_cw_section(o, ".data", DATA);
	ofl_cw_section(o, ".bss", BSS);
	l->startup = ofl_cw_section(o, ".text.startup", STARTUP);
	l->xdata = ofl_cw_section(o, ".xdata", RDATA4);
	l->start_sec = ofl_cw_section(o, ofl_wrap_coff_piece(sec, false), RDATA8);
	l->stop_sec = ofl_cw_section(o, ofl_wrap_coff_piece(sec, true), RDATA8);
	l->images = ofl_cw_section(o, ".llvm.offloading", RDATA8);
	l->rdata = ofl_cw_section(o, ".rdata", RDATA16);
	l->crt = mingw ? ofl_cw_section(o, ".ctors.65434", DATA8)
	               : ofl_cw_section(o, ".CRT$XCA00101", RDATA8);
	if (mingw) {
		l->drectve = ofl_cw_section(o, ".drectve", DRECTVE);
		if (l->drectve)
			directives(o, sec, l);
	}
	l->pdata = ofl_cw_section(o, ".pdata", RDATA4);
	return o->err->code;
}

static uint32_t external(struct ofl_cw_obj *o, const char *name)
{
	return ofl_cw_symbol(o, name, 0, OFL_CW_SECTION_UNDEFINED, 0, OFL_CW_CLASS_EXTERNAL, NULL,
	                     0);
}

/* __start_<sec> or __stop_<sec>: a weak external whose default,
 * .weak.<name>.default, is defined at the piece's start. */
static uint32_t bound(struct ofl_cw_obj *o, const char *which, const char *sec, int piece_sec)
{
	char name[96], dflt[128];
	snprintf(name, sizeof(name), "%s%s", which, sec);
	snprintf(dflt, sizeof(dflt), ".weak.%s.default", name);
	uint8_t aux[OFL_COFF_SYMBOL] = {0};
	ofl_put_le32(aux, o->nindex + 2); /* the default comes right after */
	ofl_put_le32(aux + 4, 3);         /* IMAGE_WEAK_EXTERN_SEARCH_ALIAS */
	uint32_t sym = ofl_cw_symbol(o, name, 0, OFL_CW_SECTION_UNDEFINED, 0,
	                             OFL_CW_CLASS_WEAK_EXTERNAL, aux, 1);
	ofl_cw_symbol(o, dflt, 0, (int16_t)piece_sec, 0, OFL_CW_CLASS_EXTERNAL, NULL, 0);
	return sym;
}

/* The images, each 8-aligned in .llvm.offloading; their offsets to off. */
static int put_images(struct ofl_cw_obj *o, const struct layout *l,
                      const struct ofl_wrap_image *imgs, size_t n, uint32_t *off)
{
	struct ofl_buf *b = &o->secs[l->images - 1].data;
	for (size_t i = 0; i < n; i++) {
		if (ofl_buf_align(b, 8))
			return OFL_NOMEM(o->err);
		off[i] = (uint32_t)b->len;
		if (ofl_buf_append(b, imgs[i].data, imgs[i].size))
			return OFL_NOMEM(o->err);
	}
	return 0;
}

/* The symbols in LLVM's order: sections, @feat.00, then as the code and
 * data refer to them, the images, the descriptor's array, the file. */
static int symbols(struct ofl_cw_obj *o, const char *sec, const uint32_t *img_off, size_t n,
                   struct layout *l)
{
	uint8_t file[2 * OFL_COFF_SYMBOL] = {0};
	memcpy(file, "offload.wrapper.module", 22);
	int rc = ofl_cw_section_symbols(o);
	ofl_cw_symbol(o, "@feat.00", 0, OFL_CW_SECTION_ABSOLUTE, 0, OFL_CW_CLASS_STATIC, NULL, 0);
	l->reg = ofl_cw_symbol(o, ".omp_offloading.descriptor_reg", 0, (int16_t)l->startup,
	                       OFL_CW_TYPE_FUNCTION, OFL_CW_CLASS_STATIC, NULL, 0);
	l->desc = ofl_cw_symbol(o, ".omp_offloading.descriptor", (uint32_t)(32 * n),
	                        (int16_t)l->rdata, 0, OFL_CW_CLASS_STATIC, NULL, 0);
	l->register_lib = external(o, "__tgt_register_lib");
	l->unreg = ofl_cw_symbol(o, ".omp_offloading.descriptor_unreg", UNREG, (int16_t)l->startup,
	                         OFL_CW_TYPE_FUNCTION, OFL_CW_CLASS_STATIC, NULL, 0);
	l->atexit = external(o, "atexit");
	l->unregister_lib = external(o, "__tgt_unregister_lib");
	l->start = bound(o, "__start_", sec, l->start_sec);
	l->stop = bound(o, "__stop_", sec, l->stop_sec);
	l->first_image = o->nindex;
	for (size_t i = 0; i < n; i++) {
		char name[64] = ".omp_offloading.device_image";
		if (i)
			snprintf(name, sizeof(name), ".omp_offloading.device_image.%zu", i);
		ofl_cw_symbol(o, name, img_off[i], (int16_t)l->images, 0, OFL_CW_CLASS_STATIC, NULL,
		              0);
	}
	l->images_sym = ofl_cw_symbol(o, ".omp_offloading.device_images", 0, (int16_t)l->rdata, 0,
	                              OFL_CW_CLASS_STATIC, NULL, 0);
	ofl_cw_symbol(o, ".file", 0, OFL_CW_SECTION_DEBUG, 0, OFL_CW_CLASS_FILE, file, 2);
	return rc ? rc : o->err->code;
}

static int put64(struct ofl_cw_obj *o, int sec, uint32_t at, uint64_t v, uint32_t sym)
{
	ofl_put_le64(o->secs[sec - 1].data.data + at, v);
	return ofl_cw_reloc(o, sec, at, OFL_CW_REL_ADDR64, sym);
}

/* __tgt_device_image[n] then __tgt_bin_desc, addends in place (COFF's
 * relocations carry none). */
static int descriptor(struct ofl_cw_obj *o, const struct layout *l,
                      const struct ofl_wrap_image *imgs, size_t n)
{
	struct ofl_buf *d = &o->secs[l->rdata - 1].data;
	uint32_t desc = (uint32_t)(32 * n);
	if (ofl_buf_append_zeros(d, desc + 32))
		return OFL_NOMEM(o->err);
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t at = (uint32_t)(32 * i), img = l->first_image + (uint32_t)i;
		rc = put64(o, l->rdata, at, imgs[i].start, img) ||
		     put64(o, l->rdata, at + 8, imgs[i].end, img) ||
		     put64(o, l->rdata, at + 16, 0, l->start) ||
		     put64(o, l->rdata, at + 24, 0, l->stop);
	}
	ofl_put_le32(d->data + desc, (uint32_t)n);
	rc = rc || put64(o, l->rdata, desc + 8, 0, l->images_sym) ||
	     put64(o, l->rdata, desc + 16, 0, l->start) ||
	     put64(o, l->rdata, desc + 24, 0, l->stop);
	return rc ? o->err->code : 0;
}

/* The code with its calls and addresses, the constructor's slot and the
 * unwind tables. */
static int functions(struct ofl_cw_obj *o, const struct layout *l)
{
	static const uint32_t rel32_at[] = {0x7, 0xc, 0x13, 0x18, 0x37, 0x3c};
	uint32_t rel32_to[] = {l->desc,   l->register_lib, l->unreg,
	                       l->atexit, l->desc,         l->unregister_lib};
	static const uint32_t pdata[6] = {0, 0x22, 0, UNREG, sizeof(code), 8};
	uint32_t text_sym = o->secs[l->startup - 1].sym, xdata_sym = o->secs[l->xdata - 1].sym;
	int rc = ofl_buf_append(&o->secs[l->startup - 1].data, code, sizeof(code)) ||
	                 ofl_buf_append(&o->secs[l->xdata - 1].data, xdata, sizeof(xdata)) ||
	                 ofl_buf_append_zeros(&o->secs[l->crt - 1].data, 8) ||
	                 ofl_buf_append_zeros(&o->secs[l->pdata - 1].data, sizeof(pdata))
	             ? OFL_NOMEM(o->err)
	             : 0;
	for (size_t i = 0; !rc && i < 6; i++)
		rc = ofl_cw_reloc(o, l->startup, rel32_at[i], OFL_CW_REL_REL32, rel32_to[i]);
	rc = rc || put64(o, l->crt, 0, 0, l->reg);
	for (uint32_t i = 0; !rc && i < 6; i++) {
		ofl_put_le32(o->secs[l->pdata - 1].data.data + 4 * i, pdata[i]);
		rc = ofl_cw_reloc(o, l->pdata, 4 * i, OFL_CW_REL_ADDR32NB,
		                  i % 3 == 2 ? xdata_sym : text_sym);
	}
	return rc ? o->err->code : 0;
}

int ofl_wrap_write_coff(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                        const struct ofl_wrap_image *imgs, size_t n, struct ofl_error *err)
{
	if (o->kind != OFL_WRAP_OPENMP ||
	    (o->abi != OFL_WRAP_LLVM19 && o->abi != OFL_WRAP_LLVM20) || o->relocatable)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "COFF wrapper objects are written for OpenMP with the llvm19 "
		                     "and llvm20 registration, not relocatable");
	const char *sec = ofl_wrap_entries_section(o);
	struct ofl_cw_obj obj;
	struct layout l = {0};
	uint32_t *img_off = ofl_calloc(n + 1, sizeof(*img_off));
	ofl_cw_init(&obj, OFL_COFF_MACHINE_AMD64, err);
	int rc =
	    img_off ? sections(&obj, o->machine == OFL_WRAP_X86_64_MINGW, sec, &l) : OFL_NOMEM(err);
	rc = rc ? rc : put_images(&obj, &l, imgs, n, img_off);
	rc = rc ? rc : symbols(&obj, sec, img_off, n, &l);
	rc = rc ? rc : descriptor(&obj, &l, imgs, n);
	rc = rc ? rc : functions(&obj, &l);
	rc = rc ? rc : ofl_cw_write(&obj, out);
	ofl_cw_release(&obj);
	free(img_off);
	return rc;
}
