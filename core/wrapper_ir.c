/* Builds the wrapper module (wrapper_ir.h): for LLVM20 the module
 * llvm-offload-wrapper 22 builds, value for value and in its order, so the
 * IR text and bitcode written from it read back as LLVM's own; the older
 * flavours keep the same shape with their own entry layout and
 * registration (docs/abi.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "offlink/target_id.h"
#include "wrapper_coff.h"
#include "wrapper_ir.h"
#include "wrapper_sycl.h"

struct names {
	uint32_t entry_t;     /* %struct.__tgt_offload_entry */
	uint32_t start, stop; /* __start_/__stop_ of the entries section */
};

/* --- storage; failures are sticky in m->nomem, checked once at the end --- */

static uint32_t add_ops(struct ofl_ir_module *m, const uint32_t *v, size_t n)
{
	uint32_t at = (uint32_t)m->nops;
	for (size_t i = 0; i < n; i++) {
		if (OFL_GROW(m->ops, m->cops, m->nops)) {
			m->nomem = true;
			return at;
		}
		m->ops[m->nops++] = v[i];
	}
	return at;
}

static uint32_t add_type(struct ofl_ir_module *m, struct ofl_ir_type t)
{
	if (OFL_GROW(m->types, m->ctypes, m->ntypes)) {
		m->nomem = true;
		return 0;
	}
	m->types[m->ntypes] = t;
	return (uint32_t)m->ntypes++;
}

static uint32_t ty_array(struct ofl_ir_module *m, uint64_t n, uint32_t elem)
{
	return add_type(m, (struct ofl_ir_type){.kind = OFL_T_ARRAY, .n = n, .elem = elem});
}

static uint32_t ty_struct(struct ofl_ir_module *m, const char *name, const uint32_t *f, size_t n)
{
	uint32_t sub = add_ops(m, f, n);
	return add_type(m,
	                (struct ofl_ir_type){
	                    .kind = OFL_T_STRUCT, .name = name, .sub = sub, .nsub = (uint32_t)n});
}

static uint32_t ty_func(struct ofl_ir_module *m, uint32_t ret, const uint32_t *p, size_t n)
{
	uint32_t sub = add_ops(m, p, n);
	return add_type(m, (struct ofl_ir_type){
	                       .kind = OFL_T_FUNC, .elem = ret, .sub = sub, .nsub = (uint32_t)n});
}

static uint32_t add_const(struct ofl_ir_module *m, struct ofl_ir_const c)
{
	if (OFL_GROW(m->consts, m->cconsts, m->nconsts)) {
		m->nomem = true;
		return OFL_V(OFL_V_CONST, 0);
	}
	m->consts[m->nconsts] = c;
	return OFL_V(OFL_V_CONST, m->nconsts++);
}

static uint32_t c_int(struct ofl_ir_module *m, uint32_t type, int64_t v)
{
	return add_const(m, (struct ofl_ir_const){.kind = OFL_C_INT, .type = type, .v = v});
}

static uint32_t c_null(struct ofl_ir_module *m, uint32_t type)
{
	return add_const(m, (struct ofl_ir_const){.kind = OFL_C_NULL, .type = type});
}

static uint32_t c_agg(struct ofl_ir_module *m, uint32_t type, const uint32_t *e, size_t n)
{
	uint32_t ops = add_ops(m, e, n);
	return add_const(m, (struct ofl_ir_const){
	                        .kind = OFL_C_AGG, .type = type, .ops = ops, .nops = (uint32_t)n});
}

/* getelementptr ([n x i8], ptr base, i64 0, i64 off); LLVM folds a zero
 * offset to the plain global. */
static uint32_t c_byte_gep(struct ofl_ir_module *m, uint32_t arr, uint32_t base, uint64_t off)
{
	if (!off)
		return base;
	uint32_t v[3] = {base, c_int(m, m->i64_t, 0), c_int(m, m->i64_t, (int64_t)off)};
	uint32_t ops = add_ops(m, v, 3);
	return add_const(
	    m, (struct ofl_ir_const){.kind = OFL_C_GEP, .type = arr, .ops = ops, .nops = 3});
}

static uint32_t add_name(struct ofl_ir_module *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static uint32_t add_name(struct ofl_ir_module *m, const char *fmt, ...)
{
	uint32_t at = (uint32_t)m->strs.len;
	va_list ap;
	va_start(ap, fmt);
	if (ofl_buf_vprintf(&m->strs, fmt, ap) || ofl_buf_append(&m->strs, "", 1))
		m->nomem = true;
	va_end(ap);
	return at;
}

static uint32_t add_global(struct ofl_ir_module *m, struct ofl_ir_global g)
{
	if (OFL_GROW(m->globals, m->cglobals, m->nglobals)) {
		m->nomem = true;
		return OFL_V(OFL_V_GLOBAL, 0);
	}
	m->globals[m->nglobals] = g;
	return OFL_V(OFL_V_GLOBAL, m->nglobals++);
}

/* An external hidden zero-size array: __start_ and __stop_ of a section. */
static uint32_t bound(struct ofl_ir_module *m, const char *which, const char *sec, uint32_t t)
{
	return add_global(m, (struct ofl_ir_global){.name = add_name(m, "%s%s", which, sec),
	                                            .type = t,
	                                            .constant = true,
	                                            .hidden = true});
}

static uint32_t add_func(struct ofl_ir_module *m, uint32_t name, uint32_t type, bool def)
{
	if (OFL_GROW(m->funcs, m->cfuncs, m->nfuncs)) {
		m->nomem = true;
		return OFL_V(OFL_V_FUNC, 0);
	}
	m->funcs[m->nfuncs] = (struct ofl_ir_func){
	    .name = name, .type = type, .internal = def, .section = def ? ".text.startup" : NULL};
	return OFL_V(OFL_V_FUNC, m->nfuncs++);
}

/* A block appended to function f (the one whose body is being built). */
static uint32_t block(struct ofl_ir_module *m, uint32_t f, const char *name)
{
	if (m->nomem || OFL_GROW(m->blocks, m->cblocks, m->nblocks)) {
		m->nomem = true;
		return 0;
	}
	struct ofl_ir_func *fn = &m->funcs[OFL_V_INDEX(f)];
	if (!fn->nblocks)
		fn->block = (uint32_t)m->nblocks;
	m->blocks[m->nblocks++] = (struct ofl_ir_block){.name = name, .inst = (uint32_t)m->ninsts};
	return fn->nblocks++;
}

/* An instruction appended to the last block. */
static uint32_t inst(struct ofl_ir_module *m, enum ofl_ir_op op, uint32_t type, const char *name,
                     uint32_t imm, const uint32_t *ops, size_t n)
{
	if (m->nomem || OFL_GROW(m->insts, m->cinsts, m->ninsts)) {
		m->nomem = true;
		return OFL_V(OFL_V_INST, 0);
	}
	m->insts[m->ninsts] = (struct ofl_ir_inst){.op = op,
	                                           .type = type,
	                                           .name = name,
	                                           .imm = imm,
	                                           .ops = add_ops(m, ops, n),
	                                           .nops = (uint32_t)n};
	m->blocks[m->nblocks - 1].ninst++;
	return OFL_V(OFL_V_INST, m->ninsts++);
}

/* getelementptr inbounds %struct.__tgt_offload_entry, ptr base, idx... */
static uint32_t gep(struct ofl_ir_module *m, const struct names *n, const uint32_t *v, size_t k)
{
	uint32_t g = inst(m, OFL_I_GEP, m->ptr_t, NULL, 0, v, k);
	if (!m->nomem)
		m->insts[OFL_V_INDEX(g)].aux = n->entry_t;
	return g;
}

static uint32_t call(struct ofl_ir_module *m, uint32_t fn, const uint32_t *args, size_t n)
{
	if (m->nomem)
		return OFL_V(OFL_V_INST, 0);
	uint32_t v[12] = {fn};
	memcpy(v + 1, args, n * sizeof(*args));
	uint32_t ret = m->types[m->funcs[OFL_V_INDEX(fn)].type].elem;
	return inst(m, OFL_I_CALL, ret, NULL, 0, v, n + 1);
}

static void br(struct ofl_ir_module *m, uint32_t b)
{
	inst(m, OFL_I_BR, m->void_t, NULL, 0, &b, 1);
}

static void condbr(struct ofl_ir_module *m, uint32_t c, uint32_t t, uint32_t f)
{
	inst(m, OFL_I_CONDBR, m->void_t, NULL, 0, (uint32_t[]){c, t, f}, 3);
}

static void ret(struct ofl_ir_module *m)
{
	inst(m, OFL_I_RET, m->void_t, NULL, 0, NULL, 0);
}

/* --- the module --- */

static bool old_abi(const struct ofl_wrap_opts *o)
{
	return o->abi == OFL_WRAP_LLVM14 || o->abi == OFL_WRAP_AMD;
}

static void scalar_types(struct ofl_ir_module *m)
{
	m->ptr_t = add_type(m, (struct ofl_ir_type){.kind = OFL_T_PTR});
	m->void_t = add_type(m, (struct ofl_ir_type){.kind = OFL_T_VOID});
	uint32_t bits[] = {1, 8, 16, 32, 64},
	         *dst[] = {&m->i1_t, &m->i8_t, &m->i16_t, &m->i32_t, &m->i64_t};
	for (size_t i = 0; i < 5; i++)
		*dst[i] = add_type(m, (struct ofl_ir_type){.kind = OFL_T_INT, .n = bits[i]});
}

static void basic_types(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, struct names *n)
{
	scalar_types(m);
	uint32_t p = m->ptr_t, i16 = m->i16_t, i32 = m->i32_t, i64 = m->i64_t;
	if (o->abi == OFL_WRAP_LLVM20)
		n->entry_t = ty_struct(m, "struct.__tgt_offload_entry",
		                       (uint32_t[]){i64, i16, i16, i32, p, p, i64, i64, p}, 9);
	else
		n->entry_t = ty_struct(m, "struct.__tgt_offload_entry",
		                       (uint32_t[]){p, p, i64, i32, i32}, 5);
}

/* COFF: __start_/__stop_ are zero-size arrays of our own, in <sec>$OA and
 * <sec>$OZ, around clang's entries in <sec>$OE (the linker sorts the
 * pieces of a section by what follows '$'); LLVM 20+ makes them weak_odr,
 * so that every wrapper object of a program can have them. */
static uint32_t coff_bound(struct ofl_ir_module *m, const struct ofl_wrap_opts *o,
                           const char *which, const char *sec, uint32_t t)
{
	return add_global(
	    m, (struct ofl_ir_global){
	           .name = add_name(m, "%s%s", which, sec),
	           .type = t,
	           .linkage = o->abi == OFL_WRAP_LLVM20 ? OFL_L_WEAK_ODR : OFL_L_EXTERNAL,
	           .constant = true,
	           .hidden = true,
	           .section = ofl_wrap_coff_piece(sec, strcmp(which, "__start_") != 0),
	           .init = c_null(m, t),
	       });
}

/* __start_/__stop_, the dummy that keeps the section, and for the newer
 * flavours the @llvm.compiler.used that keeps the dummy (as LLVM 22). */
static void entries(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, struct names *n)
{
	const char *sec = ofl_wrap_entries_section(o);
	uint32_t arr = ty_array(m, 0, n->entry_t);
	if (ofl_triple_is_coff(m->triple)) {
		n->start = coff_bound(m, o, "__start_", sec, arr);
		n->stop = coff_bound(m, o, "__stop_", sec, arr);
		return;
	}
	n->start = bound(m, "__start_", sec, arr);
	n->stop = bound(m, "__stop_", sec, arr);
	bool old = old_abi(o);
	uint32_t dummy = add_global(m, (struct ofl_ir_global){
	                                   .name = old ? add_name(m, "__dummy.omp_offloading.entry")
	                                               : add_name(m, "__dummy.%s", sec),
	                                   .type = arr,
	                                   .linkage = old ? OFL_L_EXTERNAL : OFL_L_INTERNAL,
	                                   .constant = true,
	                                   .hidden = old,
	                                   .section = sec,
	                                   .align = o->abi == OFL_WRAP_LLVM20 ? 8 : 0,
	                                   .init = c_null(m, arr),
	                               });
	if (old)
		return;
	uint32_t used_t = ty_array(m, 1, m->ptr_t);
	add_global(m, (struct ofl_ir_global){.name = add_name(m, "llvm.compiler.used"),
	                                     .type = used_t,
	                                     .linkage = OFL_L_APPENDING,
	                                     .section = "llvm.metadata",
	                                     .init = c_agg(m, used_t, &dummy, 1)});
}

/* @llvm.global_ctors or _dtors: one { prio, fn, null } entry. */
static void structor(struct ofl_ir_module *m, const char *name, int prio, uint32_t fn)
{
	uint32_t p = m->ptr_t;
	uint32_t e = ty_struct(m, NULL, (uint32_t[]){m->i32_t, p, p}, 3);
	uint32_t a = ty_array(m, 1, e);
	uint32_t one = c_agg(m, e, (uint32_t[]){c_int(m, m->i32_t, prio), fn, c_null(m, p)}, 3);
	add_global(m, (struct ofl_ir_global){.name = add_name(m, "%s", name),
	                                     .type = a,
	                                     .linkage = OFL_L_APPENDING,
	                                     .init = c_agg(m, a, &one, 1)});
}

/* A [size x i8] constant (data in file's mapping, or file NULL); *t: its
 * type. */
static uint32_t bytes(struct ofl_ir_module *m, const uint8_t *data, uint64_t size,
                      const struct ofl_file *file, uint32_t *t)
{
	*t = ty_array(m, size, m->i8_t);
	uint64_t i = 0;
	while (i < size && !data[i])
		i++;
	if (i == size) /* LLVM keeps no bytes for all zeros (or none) */
		return c_null(m, *t);
	return add_const(
	    m, (struct ofl_ir_const){
	           .kind = OFL_C_BYTES, .type = *t, .data = data, .file = file, .nops = 0});
}

struct omp_fns {
	uint32_t reg, unreg, reg_lib, unreg_lib, reg_info, atexit;
};

static void omp_funcs(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, struct omp_fns *f)
{
	uint32_t p = m->ptr_t;
	uint32_t vv = ty_func(m, m->void_t, NULL, 0), vp = ty_func(m, m->void_t, &p, 1);
	f->reg = add_func(m, add_name(m, ".omp_offloading.descriptor_reg"), vv, true);
	f->reg_lib = add_func(m, add_name(m, "__tgt_register_lib"), vp, false);
	if (o->abi == OFL_WRAP_AMD)
		f->reg_info = add_func(m, add_name(m, "__tgt_register_image_info"), vp, false);
	if (!old_abi(o))
		f->atexit = add_func(m, add_name(m, "atexit"), ty_func(m, m->i32_t, &p, 1), false);
	f->unreg = add_func(m, add_name(m, ".omp_offloading.descriptor_unreg"), vv, true);
	f->unreg_lib = add_func(m, add_name(m, "__tgt_unregister_lib"), vp, false);
}

static void omp_bodies(struct ofl_ir_module *m, const struct ofl_wrap_opts *o,
                       const struct omp_fns *f, uint32_t desc, uint32_t info0, size_t n)
{
	block(m, f->reg, "entry");
	for (size_t i = 0; o->abi == OFL_WRAP_AMD && i < n; i++)
		call(m, f->reg_info, (uint32_t[]){info0 + 2 * (uint32_t)i}, 1);
	call(m, f->reg_lib, &desc, 1);
	if (!old_abi(o))
		call(m, f->atexit, &f->unreg, 1);
	ret(m);
	block(m, f->unreg, "entry");
	call(m, f->unreg_lib, &desc, 1);
	ret(m);
}

/* The device images and their __tgt_device_image array: the array's value. */
static uint32_t omp_images(struct ofl_ir_module *m, const struct ofl_wrap_opts *o,
                           const struct ofl_wrap_image *imgs, size_t n, const struct names *nm,
                           uint32_t img_t)
{
	uint32_t img0 = OFL_V(OFL_V_GLOBAL, m->nglobals);
	for (size_t i = 0; i < n; i++) {
		uint32_t t, c = bytes(m, imgs[i].data, imgs[i].size, imgs[i].file, &t);
		add_global(m, (struct ofl_ir_global){
		                  .name = i ? add_name(m, ".omp_offloading.device_image.%zu", i)
		                            : add_name(m, ".omp_offloading.device_image"),
		                  .type = t,
		                  .linkage = OFL_L_INTERNAL,
		                  .constant = true,
		                  .unnamed_addr = true,
		                  .section = old_abi(o)       ? NULL
		                             : o->relocatable ? ".llvm.offloading.relocatable"
		                                              : ".llvm.offloading",
		                  .align = old_abi(o) ? 0 : 8,
		                  .init = c,
		              });
	}
	uint32_t *elems = ofl_calloc(n, sizeof(*elems));
	if (!elems) {
		m->nomem = true;
		return 0;
	}
	for (size_t i = 0; i < n && !m->nomem; i++) {
		uint32_t g = img0 + (uint32_t)i, t = m->globals[OFL_V_INDEX(g)].type;
		uint32_t v[4] = {c_byte_gep(m, t, g, imgs[i].start),
		                 c_byte_gep(m, t, g, imgs[i].end), nm->start, nm->stop};
		elems[i] = c_agg(m, img_t, v, 4);
	}
	uint32_t arr_t = ty_array(m, n, img_t);
	uint32_t arr = add_global(
	    m, (struct ofl_ir_global){.name = add_name(m, ".omp_offloading.device_images"),
	                              .type = arr_t,
	                              .linkage = OFL_L_INTERNAL,
	                              .constant = true,
	                              .unnamed_addr = true,
	                              .init = c_agg(m, arr_t, elems, n)});
	free(elems);
	return arr;
}

/* The AMD flavour's arch strings and __tgt_image_info per image. */
static void omp_amd_info(struct ofl_ir_module *m, const struct ofl_wrap_image *imgs, size_t n,
                         uint32_t info_t)
{
	uint32_t p = m->ptr_t, i32 = m->i32_t;
	for (size_t i = 0; i < n; i++) {
		const char *a = imgs[i].arch ? imgs[i].arch : "";
		uint32_t t, s = bytes(m, (const uint8_t *)a, strlen(a) + 1, NULL, &t);
		uint32_t arch = add_global(
		    m, (struct ofl_ir_global){.name = add_name(m, "__offload_arch_%zu", i),
		                              .type = t,
		                              .linkage = OFL_L_INTERNAL,
		                              .constant = true,
		                              .section = ".offload_arch_list",
		                              .init = s});
		uint32_t v[5] = {c_int(m, i32, 1), c_int(m, i32, (int64_t)i),
		                 c_int(m, i32, (int64_t)n), arch, c_null(m, p)};
		add_global(m,
		           (struct ofl_ir_global){.name = add_name(m, ".offload_image_info_%zu", i),
		                                  .type = info_t,
		                                  .linkage = OFL_L_INTERNAL,
		                                  .constant = true,
		                                  .init = c_agg(m, info_t, v, 5)});
	}
}

static void omp_module(struct ofl_ir_module *m, const struct ofl_wrap_opts *o,
                       const struct ofl_wrap_image *imgs, size_t n)
{
	struct names nm;
	struct omp_fns f = {0};
	basic_types(m, o, &nm);
	uint32_t p = m->ptr_t, i32 = m->i32_t;
	/* types in the order LLVM numbers them */
	uint32_t img_t = ty_struct(m, "__tgt_device_image", (uint32_t[]){p, p, p, p}, 4);
	uint32_t desc_t = ty_struct(m, "__tgt_bin_desc", (uint32_t[]){i32, p, p, p}, 4);
	uint32_t info_t = o->abi == OFL_WRAP_AMD ? ty_struct(m, "__tgt_image_info",
	                                                     (uint32_t[]){i32, i32, i32, p, p}, 5)
	                                         : 0;
	omp_funcs(m, o, &f);
	entries(m, o, &nm);
	uint32_t arr = omp_images(m, o, imgs, n, &nm, img_t);
	if (m->nomem)
		return;
	uint32_t desc = add_global(
	    m,
	    (struct ofl_ir_global){
	        .name = add_name(m, ".omp_offloading.descriptor"),
	        .type = desc_t,
	        .linkage = OFL_L_INTERNAL,
	        .constant = true,
	        .init = c_agg(m, desc_t,
	                      (uint32_t[]){c_int(m, i32, (int64_t)n), arr, nm.start, nm.stop}, 4),
	    });
	uint32_t info0 = OFL_V(OFL_V_GLOBAL, m->nglobals + 1);
	if (o->abi == OFL_WRAP_AMD)
		omp_amd_info(m, imgs, n, info_t);
	structor(m, "llvm.global_ctors", old_abi(o) ? 1 : 101, f.reg);
	if (old_abi(o))
		structor(m, "llvm.global_dtors", 1, f.unreg);
	omp_bodies(m, o, &f, desc, info0, n);
}

/* CUDA/HIP: the runtime's functions, in the order LLVM 22 declares them. */
struct cuda_fns {
	uint32_t reg, unreg, walk;
	uint32_t reg_fatbin, reg_end, unreg_fatbin, atexit;
	uint32_t reg_fn, reg_var, reg_managed, reg_surface, reg_texture;
};

static void cuda_funcs(struct ofl_ir_module *m, bool cuda, struct cuda_fns *f)
{
	const char *p = cuda ? "cuda" : "hip", *rt = cuda ? "__cuda" : "__hip";
	uint32_t P = m->ptr_t, i32 = m->i32_t, i64 = m->i64_t, v = m->void_t;
	uint32_t vv = ty_func(m, v, NULL, 0), vp = ty_func(m, v, &P, 1);
	f->reg = add_func(m, add_name(m, ".%s.fatbin_reg", p), vv, true);
	f->unreg = add_func(m, add_name(m, ".%s.fatbin_unreg", p), vv, true);
	f->reg_fatbin =
	    add_func(m, add_name(m, "%sRegisterFatBinary", rt), ty_func(m, P, &P, 1), false);
	/* declared for hip too, as LLVM 22 does */
	f->reg_end = add_func(m, add_name(m, "__cudaRegisterFatBinaryEnd"), vp, false);
	f->unreg_fatbin = add_func(m, add_name(m, "%sUnregisterFatBinary", rt), vp, false);
	f->atexit = add_func(m, add_name(m, "atexit"), ty_func(m, i32, &P, 1), false);
	f->reg_fn =
	    add_func(m, add_name(m, "%sRegisterFunction", rt),
	             ty_func(m, i32, (uint32_t[]){P, P, P, P, i32, P, P, P, P, P}, 10), false);
	f->reg_var =
	    add_func(m, add_name(m, "%sRegisterVar", rt),
	             ty_func(m, v, (uint32_t[]){P, P, P, P, i32, i64, i32, i32}, 8), false);
	f->reg_managed = add_func(m, add_name(m, "%sRegisterManagedVar", rt),
	                          ty_func(m, v, (uint32_t[]){P, P, P, P, i64, i32}, 6), false);
	f->reg_surface = add_func(m, add_name(m, "%sRegisterSurface", rt),
	                          ty_func(m, v, (uint32_t[]){P, P, P, P, i32, i32}, 6), false);
	f->reg_texture = add_func(m, add_name(m, "%sRegisterTexture", rt),
	                          ty_func(m, v, (uint32_t[]){P, P, P, P, i32, i32, i32}, 7), false);
	f->walk = add_func(m, add_name(m, ".%s.globals_reg", p), vp, true);
}

/* A field of the entry at e: getelementptr inbounds, then a named load. */
static uint32_t field(struct ofl_ir_module *m, const struct names *n, uint32_t e, uint32_t i,
                      uint32_t type, unsigned align, const char *name)
{
	uint32_t p = gep(m, n, (uint32_t[]){e, c_int(m, m->i32_t, 0), c_int(m, m->i32_t, i)}, 3);
	return inst(m, OFL_I_LOAD, type, name, align, &p, 1);
}

/* (flags & mask) >> shift, named as LLVM 22 names the bit. */
static uint32_t flag_bit(struct ofl_ir_module *m, uint32_t flags, int shift, const char *name)
{
	uint32_t i32 = m->i32_t;
	uint32_t a =
	    inst(m, OFL_I_AND, i32, NULL, 0, (uint32_t[]){flags, c_int(m, i32, 1 << shift)}, 2);
	return inst(m, OFL_I_LSHR, i32, name, 0, (uint32_t[]){a, c_int(m, i32, shift)}, 2);
}

/* The entry walk: every entry of the section (LLVM20: of this kind) is
 * registered as a function (size 0) or by its type as a variable. */
static void cuda_walk(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, const struct names *n,
                      const struct cuda_fns *f)
{
	bool v20 = o->abi == OFL_WRAP_LLVM20, hip = o->kind == OFL_WRAP_HIP;
	uint32_t P = m->ptr_t, i32 = m->i32_t, i64 = m->i64_t, w = f->walk;
	uint32_t h = OFL_V(OFL_V_ARG, 0), null = c_null(m, P);
	const char *bn[] = {"entry",      "while.entry", "if.kind",    "if.then",
	                    "if.else",    "sw.global",   "sw.managed", "sw.surface",
	                    "sw.texture", "if.end",      "while.end"};
	uint32_t b[11], k = 0; /* block numbers; LLVM19 has no kind check */
	for (size_t i = 0; i < 11; i++)
		b[i] = v20 || i != 2 ? k++ : 0;
	block(m, w, bn[0]);
	uint32_t ne =
	    inst(m, OFL_I_ICMP, m->i1_t, NULL, OFL_ICMP_NE, (uint32_t[]){n->start, n->stop}, 2);
	condbr(m, ne, b[1], b[10]);
	block(m, w, bn[1]);
	uint32_t phi = inst(m, OFL_I_PHI, P, "entry1", 0, (uint32_t[]){n->start, b[0], 0, b[9]}, 4);
	uint32_t e = phi, addr, aux = 0, kind = 0, name, size, flags, data;
	addr = field(m, n, e, v20 ? 4 : 0, P, 8, "addr");
	if (v20) {
		aux = field(m, n, e, 8, P, 8, "aux_addr");
		kind = field(m, n, e, 2, m->i16_t, 2, "kind");
	}
	name = field(m, n, e, v20 ? 5 : 1, P, 8, "name");
	size = field(m, n, e, v20 ? 6 : 2, i64, v20 ? 4 : 8, "size");
	flags = field(m, n, e, 3, i32, 4, "flags");
	if (v20) {
		uint32_t d64 = field(m, n, e, 7, i64, 4, "data");
		data = inst(m, OFL_I_TRUNC, i32, NULL, 0, &d64, 1);
	} else {
		data = field(m, n, e, 4, i32, 4, "data");
	}
	uint32_t type =
	    inst(m, OFL_I_AND, i32, "type", 0, (uint32_t[]){flags, c_int(m, i32, 7)}, 2);
	uint32_t ext = flag_bit(m, flags, 3, "extern");
	uint32_t cst = flag_bit(m, flags, 4, "constant");
	uint32_t norm = flag_bit(m, flags, 5, "normalized");
	if (v20) {
		uint32_t ours = inst(m, OFL_I_ICMP, m->i1_t, NULL, OFL_ICMP_EQ,
		                     (uint32_t[]){kind, c_int(m, m->i16_t, hip ? 4 : 2)}, 2);
		condbr(m, ours, b[2], b[9]);
		block(m, w, bn[2]);
	}
	uint32_t isfn = inst(m, OFL_I_ICMP, m->i1_t, NULL, OFL_ICMP_EQ,
	                     (uint32_t[]){size, c_int(m, i64, 0)}, 2);
	condbr(m, isfn, b[3], b[4]);
	block(m, w, bn[3]);
	call(m, f->reg_fn,
	     (uint32_t[]){h, addr, name, name, c_int(m, i32, -1), null, null, null, null, null},
	     10);
	br(m, b[9]);
	block(m, w, bn[4]);
	uint32_t sw[10] = {type, b[9]};
	for (int i = 0; i < 4; i++) {
		sw[2 + 2 * i] = c_int(m, i32, i);
		sw[3 + 2 * i] = b[5 + i];
	}
	inst(m, OFL_I_SWITCH, m->void_t, NULL, 0, sw, 10);
	block(m, w, bn[5]);
	call(m, f->reg_var, (uint32_t[]){h, addr, name, name, ext, size, cst, c_int(m, i32, 0)}, 8);
	br(m, b[9]);
	block(m, w, bn[6]);
	if (v20)
		call(m, f->reg_managed, (uint32_t[]){h, aux, addr, name, size, data}, 6);
	br(m, b[9]);
	block(m, w, bn[7]);
	if (hip)
		call(m, f->reg_surface, (uint32_t[]){h, addr, name, name, data, ext}, 6);
	br(m, b[9]);
	block(m, w, bn[8]);
	if (hip)
		call(m, f->reg_texture, (uint32_t[]){h, addr, name, name, data, norm, ext}, 7);
	br(m, b[9]);
	block(m, w, bn[9]);
	uint32_t next = gep(m, n, (uint32_t[]){e, c_int(m, i64, 1)}, 2);
	if (!m->nomem)
		m->ops[m->insts[OFL_V_INDEX(phi)].ops + 2] = next;
	uint32_t end =
	    inst(m, OFL_I_ICMP, m->i1_t, NULL, OFL_ICMP_EQ, (uint32_t[]){next, n->stop}, 2);
	condbr(m, end, b[10], b[1]);
	block(m, w, bn[10]);
	ret(m);
}

static void cuda_module(struct ofl_ir_module *m, const struct ofl_wrap_opts *o,
                        const struct ofl_wrap_image *img)
{
	bool cuda = o->kind == OFL_WRAP_CUDA;
	struct names nm;
	struct cuda_fns f = {0};
	basic_types(m, o, &nm);
	uint32_t P = m->ptr_t, i32 = m->i32_t;
	uint32_t wrap_t = ty_struct(m, "fatbin_wrapper", (uint32_t[]){i32, i32, P, P}, 4);
	cuda_funcs(m, cuda, &f);
	entries(m, o, &nm);
	uint32_t t, c = bytes(m, img->data, img->size, img->file, &t);
	uint32_t image =
	    add_global(m, (struct ofl_ir_global){.name = add_name(m, ".fatbin_image"),
	                                         .type = t,
	                                         .linkage = OFL_L_INTERNAL,
	                                         .constant = true,
	                                         .section = cuda ? ".nv_fatbin" : ".hip_fatbin",
	                                         .init = c});
	uint32_t v[4] = {c_int(m, i32, cuda ? 0x466243b1 : 0x48495046), c_int(m, i32, 1), image,
	                 c_null(m, P)};
	uint32_t wrapper = add_global(
	    m, (struct ofl_ir_global){.name = add_name(m, ".fatbin_wrapper"),
	                              .type = wrap_t,
	                              .linkage = OFL_L_INTERNAL,
	                              .constant = true,
	                              .section = cuda ? ".nvFatBinSegment" : ".hipFatBinSegment",
	                              .align = 8,
	                              .init = c_agg(m, wrap_t, v, 4)});
	uint32_t handle = add_global(
	    m,
	    (struct ofl_ir_global){.name = add_name(m, ".%s.binary_handle", cuda ? "cuda" : "hip"),
	                           .type = P,
	                           .linkage = OFL_L_INTERNAL,
	                           .init = c_null(m, P)});
	structor(m, "llvm.global_ctors", 101, f.reg);

	block(m, f.reg, "entry");
	uint32_t h = call(m, f.reg_fatbin, &wrapper, 1);
	inst(m, OFL_I_STORE, m->void_t, NULL, 8, (uint32_t[]){h, handle}, 2);
	call(m, f.walk, &h, 1);
	if (cuda)
		call(m, f.reg_end, &h, 1);
	call(m, f.atexit, &f.unreg, 1);
	ret(m);
	block(m, f.unreg, "entry");
	h = inst(m, OFL_I_LOAD, P, NULL, 8, &handle, 1);
	call(m, f.unreg_fatbin, &h, 1);
	ret(m);
	cuda_walk(m, o, &nm, &f);
}

/* sycl.descriptor_reg and sycl.descriptor_unreg, a constructor and a
 * destructor at priority 1 calling __sycl_register_lib and
 * __sycl_unregister_lib, each declared after the function calling it:
 * LLVM 22's form (ptr arg, the descriptor; size NULL) or 23's (ptr arg, the
 * binary, and i64 *size).  vv and lib_t: the two kinds of functions'
 * types, made where each form's module makes them (their order is in the
 * bitcode). */
static void sycl_register(struct ofl_ir_module *m, uint32_t vv, uint32_t lib_t, uint32_t arg,
                          const uint64_t *size)
{
	uint32_t reg = add_func(m, add_name(m, "sycl.descriptor_reg"), vv, true);
	uint32_t reg_lib = add_func(m, add_name(m, "__sycl_register_lib"), lib_t, false);
	uint32_t unreg = add_func(m, add_name(m, "sycl.descriptor_unreg"), vv, true);
	uint32_t unreg_lib = add_func(m, add_name(m, "__sycl_unregister_lib"), lib_t, false);
	structor(m, "llvm.global_ctors", 1, reg);
	structor(m, "llvm.global_dtors", 1, unreg);
	uint32_t args[2] = {arg, size ? c_int(m, m->i64_t, (int64_t)*size) : 0};
	block(m, reg, "entry");
	call(m, reg_lib, args, size ? 2 : 1);
	ret(m);
	block(m, unreg, "entry");
	call(m, unreg_lib, args, size ? 2 : 1);
	ret(m);
}

static uint32_t sycl_global(struct ofl_ir_module *m, uint32_t name, uint32_t init, uint32_t t,
                            const char *section, unsigned align)
{
	return add_global(m, (struct ofl_ir_global){.name = name,
	                                            .type = t,
	                                            .linkage = OFL_L_INTERNAL,
	                                            .constant = true,
	                                            .unnamed_addr = true,
	                                            .section = section,
	                                            .align = align,
	                                            .init = init});
}

/* LLVM 23's SYCL module: the OffloadBinary whole, registered with its
 * size. */
static void sycl_module(struct ofl_ir_module *m, const struct ofl_wrap_image *img)
{
	scalar_types(m);
	uint32_t P = m->ptr_t, I64 = m->i64_t;
	uint32_t vv = ty_func(m, m->void_t, NULL, 0);
	uint32_t vpi = ty_func(m, m->void_t, (uint32_t[]){P, I64}, 2);
	uint32_t t, c = bytes(m, img->data, img->size, img->file, &t);
	uint32_t bin =
	    sycl_global(m, add_name(m, ".sycl_offloading.binary"), c, t, ".llvm.offloading", 0);
	sycl_register(m, vv, vpi, bin, &(uint64_t){img->size});
}

/* getelementptr (t, ptr base, i64 0, i64 n) past the n elements of array
 * global base (t its type); base itself for none, as LLVM folds it. */
static uint32_t c_end(struct ofl_ir_module *m, uint32_t base, uint64_t n)
{
	return c_byte_gep(m, m->globals[OFL_V_INDEX(base)].type, base, n);
}

static uint32_t sycl_string(struct ofl_ir_module *m, const char *s, const char *what, size_t i)
{
	uint32_t t, c = bytes(m, (const uint8_t *)s, strlen(s) + 1, NULL, &t);
	return sycl_global(m, add_name(m, ".sycl_offloading.%s.%zu", what, i), c, t, NULL, 0);
}

/* Image i's kernels: for each its name, its weak entry in
 * llvm_offload_entries (and the name in !llvm.offloading.symbols), the
 * entry's copy in the image's entries_arr: that array's value. */
static uint32_t sycl_kernels(struct ofl_ir_module *m, const struct ofl_sycl_desc *d, size_t i,
                             uint32_t entry_t)
{
	const struct ofl_sycl_image *im = &d->images[i];
	uint32_t P = m->ptr_t, I64 = m->i64_t, I16 = m->i16_t, I32 = m->i32_t;
	uint32_t *e = ofl_calloc(im->n + 1, sizeof(*e));
	char s1[16];
	if (!e) {
		m->nomem = true;
		return 0;
	}
	for (size_t k = 0; k < im->n && !m->nomem; k++) {
		const struct ofl_sycl_kernel *kn = &d->kernels[im->first + k];
		uint32_t t, c = add_const(m, (struct ofl_ir_const){
		                                 .kind = OFL_C_BYTES,
		                                 .type = t = ty_array(m, kn->len + 1, m->i8_t),
		                                 .data = (const uint8_t *)kn->name});
		uint32_t name = sycl_global(
		    m, add_name(m, ".offloading.entry_name%s", ofl_sycl_suffix(kn->name_sfx, s1)),
		    c, t, ".llvm.rodata.offloading", 1);
		uint32_t v[9] = {c_int(m, I64, 0), c_int(m, I16, 1), c_int(m, I16, OFL_OFK_SYCL),
		                 c_int(m, I32, 0), c_null(m, P),     name,
		                 c_int(m, I64, 0), c_int(m, I64, 0), c_null(m, P)};
		e[k] = c_agg(m, entry_t, v, 9);
		add_global(m, (struct ofl_ir_global){
		                  .name = add_name(m, ".offloading.entry.%.*s%s", (int)kn->len,
		                                   kn->name, ofl_sycl_suffix(kn->entry_sfx, s1)),
		                  .type = entry_t,
		                  .linkage = OFL_L_WEAK,
		                  .constant = true,
		                  .section = "llvm_offload_entries",
		                  .align = 8,
		                  .init = e[k]});
		if (OFL_GROW(m->symbols, m->csymbols, m->nsymbols))
			m->nomem = true;
		else
			m->symbols[m->nsymbols++] = name;
	}
	uint32_t t = ty_array(m, im->n, entry_t);
	uint32_t arr = add_global(
	    m, (struct ofl_ir_global){.name = add_name(m, ".sycl_offloading.entries_arr%s",
	                                               ofl_sycl_suffix(im->arr_sfx, s1)),
	                              .type = t,
	                              .linkage = OFL_L_INTERNAL,
	                              .constant = true,
	                              .init = im->n ? c_agg(m, t, e, im->n) : c_null(m, t)});
	free(e);
	return arr;
}

/* Image i's globals (its triple, empty compile and link options, its bytes
 * in .llvm.offloading, its kernels): its __sycl.tgt_device_image. */
static uint32_t sycl_image(struct ofl_ir_module *m, const struct ofl_sycl_desc *d, size_t i,
                           const struct ofl_wrap_image *img, uint32_t img_t, uint32_t entry_t)
{
	const struct ofl_obin *b = d->images[i].b;
	const char *triple = ofl_obin_get(b, "triple");
	uint32_t target = sycl_string(m, triple ? triple : "", "target", i);
	uint32_t compile = sycl_string(m, "", "opts.compile", i);
	uint32_t link = sycl_string(m, "", "opts.link", i);
	uint32_t t, c = bytes(m, b->image, b->image_size, img->file, &t);
	uint32_t data = sycl_global(m, add_name(m, ".sycl_offloading.%zu.data", i), c, t,
	                            ".llvm.offloading", 0);
	uint32_t arr = sycl_kernels(m, d, i, entry_t);
	if (m->nomem)
		return 0;
	uint32_t v[12] = {c_int(m, m->i16_t, 3),
	                  c_int(m, m->i8_t, b->offload_kind & 0xff),
	                  c_int(m, m->i8_t, b->image_kind & 0xff),
	                  target,
	                  compile,
	                  link,
	                  data,
	                  c_end(m, data, b->image_size),
	                  arr,
	                  c_end(m, arr, d->images[i].n),
	                  c_null(m, m->ptr_t),
	                  c_null(m, m->ptr_t)};
	return c_agg(m, img_t, v, 12);
}

/* LLVM 22's SYCL module (wrapper_sycl.h), as clang-linker-wrapper 22 prints
 * it (--print-wrapped-module). */
static void sycl22_module(struct ofl_ir_module *m, const struct ofl_sycl_desc *d,
                          const struct ofl_wrap_image *img)
{
	scalar_types(m);
	uint32_t P = m->ptr_t, I8 = m->i8_t, I16 = m->i16_t, I32 = m->i32_t, I64 = m->i64_t;
	uint32_t entry_t = ty_struct(m, "struct.__tgt_offload_entry",
	                             (uint32_t[]){I64, I16, I16, I32, P, P, I64, I64, P}, 9);
	uint32_t img_t = ty_struct(m, "__sycl.tgt_device_image",
	                           (uint32_t[]){I16, I8, I8, P, P, P, P, P, P, P, P, P}, 12);
	uint32_t desc_t = ty_struct(m, "__sycl.tgt_bin_desc", (uint32_t[]){I16, I16, P, P, P}, 5);
	uint32_t *imgs = ofl_calloc(d->nimages, sizeof(*imgs));
	if (!imgs) {
		m->nomem = true;
		return;
	}
	for (size_t i = 0; i < d->nimages && !m->nomem; i++)
		imgs[i] = sycl_image(m, d, i, img, img_t, entry_t);
	uint32_t arr_t = ty_array(m, d->nimages, img_t);
	uint32_t arr =
	    sycl_global(m, add_name(m, ".sycl_offloading.device_images"),
	                m->nomem ? 0 : c_agg(m, arr_t, imgs, d->nimages), arr_t, NULL, 0);
	free(imgs);
	uint32_t v[5] = {c_int(m, I16, 1), c_int(m, I16, (int64_t)d->nimages), arr, c_null(m, P),
	                 c_null(m, P)};
	uint32_t desc =
	    add_global(m, (struct ofl_ir_global){.name = add_name(m, ".sycl_offloading.descriptor"),
	                                         .type = desc_t,
	                                         .linkage = OFL_L_INTERNAL,
	                                         .constant = true,
	                                         .init = c_agg(m, desc_t, v, 5)});
	uint32_t vv = ty_func(m, m->void_t, NULL, 0), vp = ty_func(m, m->void_t, &P, 1);
	sycl_register(m, vv, vp, desc, NULL);
}

int ofl_ir_build(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, const char *triple,
                 const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err)
{
	memset(m, 0, sizeof(*m));
	int rc = ofl_wrap_check(o, nimages, err);
	if (rc)
		return rc;
	/* values are numbered in 28 bits, and an image takes at most 20 */
	if (nimages > (1u << 20))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "too many images for LLVM IR (%zu)", nimages);
	m->module_id = m->source_filename =
	    old_abi(o) ? "offload.wrapper.object" : "offload.wrapper.module";
	m->triple = triple;
	if (o->sycl_desc && !(m->sycl = ofl_calloc(1, sizeof(struct ofl_sycl_desc))))
		return OFL_NOMEM(err);
	if (o->sycl_desc && (rc = ofl_sycl_desc_read(imgs, m->sycl, err))) {
		ofl_ir_release(m);
		return rc;
	}
	if (o->kind == OFL_WRAP_OPENMP)
		omp_module(m, o, imgs, nimages);
	else if (o->sycl_desc)
		sycl22_module(m, m->sycl, imgs);
	else if (o->kind == OFL_WRAP_SYCL)
		sycl_module(m, imgs);
	else
		cuda_module(m, o, imgs);
	if (m->nomem) {
		ofl_ir_release(m);
		return OFL_NOMEM(err);
	}
	return 0;
}

void ofl_ir_release(struct ofl_ir_module *m)
{
	free(m->types);
	free(m->globals);
	free(m->funcs);
	free(m->consts);
	free(m->blocks);
	free(m->insts);
	free(m->ops);
	free(m->symbols);
	if (m->sycl)
		ofl_sycl_desc_release(m->sycl);
	free(m->sycl);
	ofl_buf_release(&m->strs);
	memset(m, 0, sizeof(*m));
}

const char *ofl_ir_name(const struct ofl_ir_module *m, uint32_t off)
{
	return (const char *)m->strs.data + off;
}

uint32_t ofl_ir_type_of(const struct ofl_ir_module *m, const struct ofl_ir_func *f, uint32_t v)
{
	uint32_t i = OFL_V_INDEX(v);
	switch (OFL_V_KIND(v)) {
	case OFL_V_CONST:
		return m->consts[i].kind == OFL_C_GEP ? m->ptr_t : m->consts[i].type;
	case OFL_V_ARG:
		return m->ops[m->types[f->type].sub + i];
	case OFL_V_INST:
		return m->insts[i].type;
	default: /* globals and functions */
		return m->ptr_t;
	}
}

uint32_t ofl_ir_index(const struct ofl_ir_module *m, uint32_t v)
{
	uint32_t i = OFL_V_INDEX(v);
	switch (OFL_V_KIND(v)) {
	case OFL_V_GLOBAL:
		return i;
	case OFL_V_FUNC:
		return (uint32_t)m->nglobals + i;
	default:
		return (uint32_t)(m->nglobals + m->nfuncs) + i;
	}
}
