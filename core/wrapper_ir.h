/* The wrapper module as data (private to libofflink): the types, globals,
 * functions and instructions of the module clang's wrapper builds
 * (docs/abi.md, "Registration sequence").  wrapper_ir.c builds it once;
 * wrapper_ll.c prints it as IR text and bitcode_writer.c encodes it as
 * bitcode, so both say the same thing.
 *
 * Values are references: a kind in the top bits and an index below, into
 * the module's globals, functions or constants, or the current function's
 * arguments and instructions.  Operand lists live in one pool (ops). */
#ifndef OFL_WRAPPER_IR_H
#define OFL_WRAPPER_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/wrapper_obj.h"

enum ofl_ir_tkind { OFL_T_VOID, OFL_T_INT, OFL_T_PTR, OFL_T_ARRAY, OFL_T_STRUCT, OFL_T_FUNC };

struct ofl_ir_type {
	enum ofl_ir_tkind kind;
	uint64_t n;         /* INT: bits; ARRAY: elements */
	uint32_t elem;      /* ARRAY: element type; FUNC: return type */
	const char *name;   /* named STRUCT, else NULL */
	uint32_t sub, nsub; /* STRUCT fields or FUNC parameters: types in ops */
};

/* Value references. */
enum { OFL_V_GLOBAL = 1, OFL_V_FUNC, OFL_V_CONST, OFL_V_ARG, OFL_V_INST };
#define OFL_V(kind, i) (((uint32_t)(kind) << 28) | (uint32_t)(i))
#define OFL_V_KIND(v) ((v) >> 28)
#define OFL_V_INDEX(v) ((v)&0x0fffffffu)

enum ofl_ir_ckind { OFL_C_INT, OFL_C_NULL, OFL_C_BYTES, OFL_C_AGG, OFL_C_GEP };

struct ofl_ir_const {
	enum ofl_ir_ckind kind;
	uint32_t type;       /* GEP: the source element type (the value is a ptr) */
	int64_t v;           /* INT */
	const uint8_t *data; /* BYTES: type is [len x i8] */
	/* BYTES: the mapped file data lies in (the writer copies from it), or NULL */
	const struct ofl_file *file;
	uint32_t ops, nops; /* AGG elements; GEP base then indices */
};

enum ofl_ir_linkage { OFL_L_EXTERNAL, OFL_L_INTERNAL, OFL_L_APPENDING, OFL_L_WEAK_ODR, OFL_L_WEAK };

struct ofl_ir_global {
	uint32_t name; /* offset in strs */
	uint32_t type; /* value type */
	enum ofl_ir_linkage linkage;
	bool constant, hidden, unnamed_addr;
	const char *section; /* NULL: none */
	unsigned align;      /* 0: none */
	uint32_t init;       /* value, 0 for a declaration */
};

struct ofl_ir_func {
	uint32_t name;
	uint32_t type; /* FUNC type */
	bool internal;
	const char *section;
	uint32_t block, nblocks; /* definitions: their blocks; nblocks 0: declaration */
};

enum ofl_ir_op {
	OFL_I_RET,    /* ret void */
	OFL_I_BR,     /* ops: block */
	OFL_I_CONDBR, /* ops: cond, true block, false block */
	OFL_I_SWITCH, /* ops: cond, default block, (case constant, block)... */
	OFL_I_PHI,    /* ops: (value, block)... */
	OFL_I_CALL,   /* ops: callee function, arguments... */
	OFL_I_LOAD,   /* ops: pointer; imm: alignment */
	OFL_I_STORE,  /* ops: value, pointer; imm: alignment */
	OFL_I_GEP,    /* inbounds; aux: source type; ops: base, indices... */
	OFL_I_AND,    /* ops: a, b */
	OFL_I_LSHR,
	OFL_I_TRUNC, /* ops: value; type: the result */
	OFL_I_ICMP,  /* imm: OFL_ICMP_*; ops: a, b */
};

enum { OFL_ICMP_EQ = 32, OFL_ICMP_NE = 33 }; /* LLVM's predicate numbers */

struct ofl_ir_inst {
	enum ofl_ir_op op;
	uint32_t type; /* result type (void: no value) */
	const char *name;
	uint32_t aux;
	uint32_t imm;
	uint32_t ops, nops;
};

struct ofl_ir_block {
	const char *name;
	uint32_t inst, ninst;
};

struct ofl_ir_module {
	const char *module_id, *source_filename;
	const char *triple;
	struct ofl_ir_type *types;
	size_t ntypes, ctypes;
	struct ofl_ir_global *globals;
	size_t nglobals, cglobals;
	struct ofl_ir_func *funcs;
	size_t nfuncs, cfuncs;
	struct ofl_ir_const *consts;
	size_t nconsts, cconsts;
	struct ofl_ir_block *blocks;
	size_t nblocks, cblocks;
	struct ofl_ir_inst *insts;
	size_t ninsts, cinsts;
	uint32_t *ops;
	size_t nops, cops;
	struct ofl_buf strs; /* NUL-terminated global and function names */
	/* !llvm.offloading.symbols (LLVM 22's SYCL module): globals, each the
	 * one operand of a node (IR text only: ofl_wrap_emit_bc writes no
	 * module that has them) */
	uint32_t *symbols;
	size_t nsymbols, csymbols;
	void *sycl; /* owned: the SYCL images its constants point into (wrapper_sycl.h) */
	bool nomem; /* sticky: an allocation failed while building */
	uint32_t void_t, i1_t, i8_t, i16_t, i32_t, i64_t, ptr_t;
};

/* Builds the wrapper module for the images (borrowed until release). */
int ofl_ir_build(struct ofl_ir_module *m, const struct ofl_wrap_opts *o, const char *triple,
                 const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err);
void ofl_ir_release(struct ofl_ir_module *m);

/* Queries both writers share. */
const char *ofl_ir_name(const struct ofl_ir_module *m, uint32_t off);
/* Module-level value number of a global, function or constant: globals,
 * then functions, then constants, as bitcode numbers them. */
uint32_t ofl_ir_index(const struct ofl_ir_module *m, uint32_t v);
uint32_t ofl_ir_type_of(const struct ofl_ir_module *m, const struct ofl_ir_func *f, uint32_t v);

/* Bitcode that LLVM 19 and later read, written to out; byte constants are
 * copied from their files (memory bounded by the module, not the images). */
int ofl_ir_write_bc(const struct ofl_ir_module *m, struct ofl_out *out, struct ofl_error *err);

#endif
