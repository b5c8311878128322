/* LLVM bitcode for the wrapper module (wrapper_ir.h), as LLVM 19 and later
 * read it (docs/formats.md §8): the bitstream container (32-bit words
 * filled from the low bit, blocks with a backpatched length, unabbreviated
 * records of VBR6 operands), an IDENTIFICATION block, a version-2 MODULE
 * block (names in the STRTAB blob after it, operands relative to the
 * instruction's value number) and the STRTAB block.
 *
 * Only what the wrapper module needs is encoded: no metadata, attributes
 * or comdats.  Every constant, the ones instructions use included, lies in
 * the module's constants block, which LLVM reads as readily as
 * function-local ones.  Byte arrays (device images) are blobs whose bytes
 * are copied from their files into the output, never held in memory. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wrapper_ir.h"

/* Block, record and code numbers of the format. */
enum {
	BLOCK_MODULE = 8,
	BLOCK_CONSTANTS = 11,
	BLOCK_FUNCTION = 12,
	BLOCK_IDENTIFICATION = 13,
	BLOCK_VST = 14,
	BLOCK_TYPE = 17,
	BLOCK_STRTAB = 23,
};
enum { ID_STRING = 1, ID_EPOCH = 2 };
enum {
	MOD_VERSION = 1,
	MOD_TRIPLE = 2,
	MOD_SECTIONNAME = 5,
	MOD_GLOBALVAR = 7,
	MOD_FUNCTION = 8,
	MOD_SOURCE_FILENAME = 16,
};
enum {
	TYPE_NUMENTRY = 1,
	TYPE_VOID = 2,
	TYPE_INTEGER = 7,
	TYPE_ARRAY = 11,
	TYPE_STRUCT_ANON = 18,
	TYPE_STRUCT_NAME = 19,
	TYPE_STRUCT_NAMED = 20,
	TYPE_FUNCTION = 21,
	TYPE_OPAQUE_POINTER = 25,
};
enum {
	CST_SETTYPE = 1,
	CST_NULL = 2,
	CST_INTEGER = 4,
	CST_AGGREGATE = 7,
	CST_STRING = 8,
	CST_GEP = 12, /* [pointee type, (type, value)...]: read by every release */
};
enum {
	FN_DECLAREBLOCKS = 1,
	FN_BINOP = 2,
	FN_CAST = 3,
	FN_RET = 10,
	FN_BR = 11,
	FN_SWITCH = 12,
	FN_PHI = 16,
	FN_LOAD = 20,
	FN_CMP2 = 28,
	FN_CALL = 34,
	FN_GEP = 43,
	FN_STORE = 44,
};
enum { VST_ENTRY = 1, VST_BBENTRY = 2 };
enum { STRTAB_BLOB = 1 };
enum { ABBREV_END = 0, ABBREV_ENTER = 1, ABBREV_DEFINE = 2, ABBREV_UNABBREV = 3, ABBREV_FIRST = 4 };
enum { OPND_BLOB = 5 }; /* operand encoding */
enum { BINOP_LSHR = 8, BINOP_AND = 10, CAST_TRUNC = 0 };
enum { CALL_EXPLICIT_TYPE = 1u << 15 };

/* --- the bitstream --- */

/* Byte constants are not copied into memory: the stream holds a hole where
 * each one's bytes go, filled from the constant's file when it is written
 * out.  Blocks count the holes' bytes in their lengths. */
struct hole {
	size_t at; /* offset in the buffer the bytes go before */
	const struct ofl_ir_const *c;
	uint64_t len;
};

struct bw {
	struct ofl_buf b; /* the stream less the holes */
	uint64_t holed;   /* bytes in holes so far (each a multiple of 4) */
	uint64_t cur;     /* pending bits, low first */
	unsigned nbits;   /* < 32 between calls */
	unsigned width;   /* abbreviation ID width of the current block */
	struct {
		size_t len_at;  /* in b */
		uint64_t start; /* in the stream */
		unsigned width;
	} stack[4];
	int depth;
	uint64_t *rec; /* the record being built */
	size_t nrec, crec;
	struct hole *holes;
	size_t nholes, choles;
	int rc; /* BW_NOMEM, BW_TOOBIG */
};

enum { BW_NOMEM = 1, BW_TOOBIG = 2 };

static void emit(struct bw *w, uint64_t v, unsigned n)
{
	w->cur |= v << w->nbits;
	w->nbits += n;
	while (w->nbits >= 32) {
		w->rc |= ofl_buf_append_u32le(&w->b, (uint32_t)w->cur) ? BW_NOMEM : 0;
		w->cur >>= 32;
		w->nbits -= 32;
	}
}

static void vbr(struct bw *w, uint64_t v, unsigned n)
{
	uint64_t hi = 1ull << (n - 1);
	for (; v >= hi; v >>= n - 1)
		emit(w, (v & (hi - 1)) | hi, n);
	emit(w, v, n);
}

static void align32(struct bw *w)
{
	if (w->nbits)
		emit(w, 0, 32 - w->nbits);
}

static void enter(struct bw *w, unsigned id, unsigned width)
{
	emit(w, ABBREV_ENTER, w->width);
	vbr(w, id, 8);
	vbr(w, width, 4);
	align32(w);
	w->stack[w->depth].len_at = w->b.len;
	w->stack[w->depth].start = w->b.len + w->holed;
	w->stack[w->depth++].width = w->width;
	emit(w, 0, 32); /* the length, patched by leave() */
	w->width = width;
}

static void leave(struct bw *w)
{
	emit(w, ABBREV_END, w->width);
	align32(w);
	w->depth--;
	uint64_t words = (w->b.len + w->holed - w->stack[w->depth].start - 4) / 4;
	w->width = w->stack[w->depth].width;
	if (words > UINT32_MAX)
		w->rc |= BW_TOOBIG;
	if (!w->rc)
		ofl_put_le32(w->b.data + w->stack[w->depth].len_at, (uint32_t)words);
}

static void op(struct bw *w, uint64_t v)
{
	if (OFL_GROW(w->rec, w->crec, w->nrec)) {
		w->rc |= BW_NOMEM;
		return;
	}
	w->rec[w->nrec++] = v;
}

/* Signed operands: the sign in the low bit. */
static void sop(struct bw *w, int64_t v)
{
	op(w, v >= 0 ? (uint64_t)v << 1 : ((0 - (uint64_t)v) << 1) | 1);
}

static void chars(struct bw *w, const char *s)
{
	for (; *s; s++)
		op(w, (uint8_t)*s);
}

/* Emits the record built with op() and starts the next. */
static void record(struct bw *w, unsigned code)
{
	emit(w, ABBREV_UNABBREV, w->width);
	vbr(w, code, 6);
	vbr(w, w->nrec, 6);
	for (size_t i = 0; i < w->nrec; i++)
		vbr(w, w->rec[i], 6);
	w->nrec = 0;
}

/* --- the module --- */

struct enc {
	struct bw w;
	const struct ofl_ir_module *m;
	struct ofl_buf strtab;
	const char *sections[16]; /* distinct section names, in first use order */
	unsigned nsections;
	uint32_t nmodule; /* globals + functions + constants */
	/* the function being written */
	const struct ofl_ir_func *f;
	uint32_t inst0, *ids; /* value number of each of its instructions */
};

static void types(struct enc *e)
{
	struct bw *w = &e->w;
	const struct ofl_ir_module *m = e->m;
	enter(w, BLOCK_TYPE, 4);
	op(w, m->ntypes);
	record(w, TYPE_NUMENTRY);
	for (size_t i = 0; i < m->ntypes; i++) {
		const struct ofl_ir_type *t = &m->types[i];
		unsigned code = 0;
		switch (t->kind) {
		case OFL_T_VOID:
			code = TYPE_VOID;
			break;
		case OFL_T_INT:
			op(w, t->n);
			code = TYPE_INTEGER;
			break;
		case OFL_T_PTR:
			op(w, 0); /* address space */
			code = TYPE_OPAQUE_POINTER;
			break;
		case OFL_T_ARRAY:
			op(w, t->n);
			op(w, t->elem);
			code = TYPE_ARRAY;
			break;
		case OFL_T_STRUCT:
			if (t->name) {
				chars(w, t->name);
				record(w, TYPE_STRUCT_NAME);
			}
			op(w, 0); /* not packed */
			code = t->name ? TYPE_STRUCT_NAMED : TYPE_STRUCT_ANON;
			break;
		case OFL_T_FUNC:
			op(w, 0); /* not varargs */
			op(w, t->elem);
			code = TYPE_FUNCTION;
			break;
		}
		for (uint32_t k = 0; t->kind >= OFL_T_STRUCT && k < t->nsub; k++)
			op(w, m->ops[t->sub + k]);
		record(w, code);
	}
	leave(w);
}

/* 1 + the index of the section name (0: none), numbered on first use. */
static unsigned section(struct enc *e, const char *s)
{
	if (!s)
		return 0;
	for (unsigned i = 0; i < e->nsections; i++)
		if (!strcmp(e->sections[i], s))
			return i + 1;
	if (e->nsections == sizeof(e->sections) / sizeof(e->sections[0])) {
		e->w.rc |= BW_NOMEM;
		return 0;
	}
	e->sections[e->nsections++] = s;
	return e->nsections;
}

/* The name's offset and size in the string table. */
static void name(struct enc *e, uint32_t off)
{
	const char *s = ofl_ir_name(e->m, off);
	op(&e->w, e->strtab.len);
	op(&e->w, strlen(s));
	e->w.rc |= ofl_buf_append_str(&e->strtab, s) ? BW_NOMEM : 0;
}

static void put_chars_record(struct enc *e, unsigned code, const char *s)
{
	chars(&e->w, s);
	record(&e->w, code);
}

static void globals(struct enc *e)
{
	static const unsigned linkage[] = {[OFL_L_EXTERNAL] = 0,
	                                   [OFL_L_INTERNAL] = 3,
	                                   [OFL_L_APPENDING] = 2,
	                                   [OFL_L_WEAK_ODR] = 17,
	                                   [OFL_L_WEAK] = 16};
	const struct ofl_ir_module *m = e->m;
	struct bw *w = &e->w;
	for (size_t i = 0; i < m->nglobals; i++)
		section(e, m->globals[i].section);
	for (size_t i = 0; i < m->nfuncs; i++)
		section(e, m->funcs[i].section);
	for (unsigned i = 0; i < e->nsections; i++)
		put_chars_record(e, MOD_SECTIONNAME, e->sections[i]);
	put_chars_record(e, MOD_SOURCE_FILENAME, m->source_filename);
	for (size_t i = 0; i < m->nglobals; i++) {
		const struct ofl_ir_global *g = &m->globals[i];
		unsigned align = 0;
		while (g->align >> align > 1)
			align++;
		name(e, g->name);
		op(w, g->type);
		op(w, (g->constant ? 1 : 0) | 2); /* 2: the type is the value type */
		op(w, g->init ? ofl_ir_index(m, g->init) + 1 : 0);
		op(w, linkage[g->linkage]);
		op(w, g->align ? align + 1 : 0);
		op(w, section(e, g->section));
		op(w, g->hidden);
		op(w, 0); /* thread local */
		op(w, g->unnamed_addr);
		op(w, 0);                                         /* externally initialized */
		op(w, 0);                                         /* DLL storage */
		op(w, 0);                                         /* comdat */
		op(w, 0);                                         /* attributes */
		op(w, g->linkage == OFL_L_INTERNAL || g->hidden); /* dso_local */
		record(w, MOD_GLOBALVAR);
	}
	for (size_t i = 0; i < m->nfuncs; i++) {
		const struct ofl_ir_func *f = &m->funcs[i];
		name(e, f->name);
		op(w, f->type);
		op(w, 0);               /* C calling convention */
		op(w, f->nblocks == 0); /* a declaration */
		op(w, f->internal ? 3 : 0);
		for (int k = 0; k < 2; k++)
			op(w, 0); /* attributes, alignment */
		op(w, section(e, f->section));
		for (int k = 0; k < 8; k++)
			op(w, 0);   /* visibility ... personality */
		op(w, f->internal); /* dso_local */
		record(w, MOD_FUNCTION);
	}
}

/* The block's abbreviation 4: [code, blob]. */
static void define_blob(struct bw *w, unsigned code)
{
	emit(w, ABBREV_DEFINE, w->width);
	vbr(w, 2, 5);
	emit(w, 1, 1); /* literal */
	vbr(w, code, 8);
	emit(w, 0, 1);
	emit(w, OPND_BLOB, 3);
}

/* A record of abbreviation 4 up to its blob's n bytes, which start on a
 * 32-bit boundary. */
static void start_blob(struct bw *w, uint64_t n)
{
	emit(w, ABBREV_FIRST, w->width);
	vbr(w, n, 6);
	align32(w);
}

/* [n x i8] as a STRING record with a blob: its bytes and the zeros to the
 * next 32 bits go in a hole. */
static void string_record(struct bw *w, const struct ofl_ir_const *c, uint64_t n)
{
	start_blob(w, n);
	if (OFL_GROW(w->holes, w->choles, w->nholes)) {
		w->rc |= BW_NOMEM;
		return;
	}
	w->holes[w->nholes++] = (struct hole){w->b.len, c, n};
	w->holed += n + (4 - n % 4) % 4;
}

static void constants(struct enc *e)
{
	const struct ofl_ir_module *m = e->m;
	struct bw *w = &e->w;
	enter(w, BLOCK_CONSTANTS, 4);
	define_blob(w, CST_STRING);
	uint32_t cur = UINT32_MAX;
	for (size_t i = 0; i < m->nconsts && !w->rc; i++) {
		const struct ofl_ir_const *c = &m->consts[i];
		uint32_t t = c->kind == OFL_C_GEP ? m->ptr_t : c->type;
		if (t != cur) {
			op(w, t);
			record(w, CST_SETTYPE);
			cur = t;
		}
		switch (c->kind) {
		case OFL_C_INT:
			sop(w, c->v);
			record(w, CST_INTEGER);
			break;
		case OFL_C_NULL:
			record(w, CST_NULL);
			break;
		case OFL_C_BYTES:
			string_record(w, c, m->types[c->type].n);
			break;
		case OFL_C_AGG:
			for (uint32_t k = 0; k < c->nops; k++)
				op(w, ofl_ir_index(m, m->ops[c->ops + k]));
			record(w, CST_AGGREGATE);
			break;
		case OFL_C_GEP:
			op(w, c->type);
			for (uint32_t k = 0; k < c->nops; k++) {
				uint32_t v = m->ops[c->ops + k];
				op(w, ofl_ir_type_of(m, NULL, v));
				op(w, ofl_ir_index(m, v));
			}
			record(w, CST_GEP);
			break;
		}
	}
	leave(w);
}

/* Value number of v inside the current function. */
static uint32_t value_id(const struct enc *e, uint32_t v)
{
	switch (OFL_V_KIND(v)) {
	case OFL_V_ARG:
		return e->nmodule + OFL_V_INDEX(v);
	case OFL_V_INST:
		return e->ids[OFL_V_INDEX(v) - e->inst0];
	default:
		return ofl_ir_index(e->m, v);
	}
}

/* An operand relative to the instruction's number; with its type after it
 * when it is defined later (pair) */
static void rel(struct enc *e, uint32_t next, uint32_t v, bool pair)
{
	uint32_t id = value_id(e, v);
	op(&e->w, (uint64_t)next - id);
	if (pair && id >= next)
		op(&e->w, ofl_ir_type_of(e->m, e->f, v));
}

static void instruction(struct enc *e, const struct ofl_ir_inst *in, uint32_t next)
{
	const struct ofl_ir_module *m = e->m;
	const uint32_t *o = m->ops + in->ops;
	struct bw *w = &e->w;
	unsigned code = 0;
	switch (in->op) {
	case OFL_I_RET:
		code = FN_RET;
		break;
	case OFL_I_BR:
		op(w, o[0]);
		code = FN_BR;
		break;
	case OFL_I_CONDBR:
		op(w, o[1]);
		op(w, o[2]);
		rel(e, next, o[0], false);
		code = FN_BR;
		break;
	case OFL_I_SWITCH:
		op(w, ofl_ir_type_of(m, e->f, o[0]));
		rel(e, next, o[0], false);
		op(w, o[1]);
		for (uint32_t i = 2; i + 1 < in->nops; i += 2) {
			op(w, value_id(e, o[i]));
			op(w, o[i + 1]);
		}
		code = FN_SWITCH;
		break;
	case OFL_I_PHI:
		op(w, in->type);
		for (uint32_t i = 0; i + 1 < in->nops; i += 2) {
			sop(w, (int64_t)next - (int64_t)value_id(e, o[i]));
			op(w, o[i + 1]);
		}
		code = FN_PHI;
		break;
	case OFL_I_CALL:
		op(w, 0); /* attributes */
		op(w, CALL_EXPLICIT_TYPE);
		op(w, m->funcs[OFL_V_INDEX(o[0])].type);
		for (uint32_t i = 0; i < in->nops; i++)
			rel(e, next, o[i], i == 0);
		code = FN_CALL;
		break;
	case OFL_I_LOAD:
		rel(e, next, o[0], true);
		op(w, in->type);
		op(w, (uint64_t)__builtin_ctz(in->imm) + 1);
		op(w, 0); /* not volatile */
		code = FN_LOAD;
		break;
	case OFL_I_STORE:
		rel(e, next, o[1], true);
		rel(e, next, o[0], true);
		op(w, (uint64_t)__builtin_ctz(in->imm) + 1);
		op(w, 0);
		code = FN_STORE;
		break;
	case OFL_I_GEP:
		op(w, 1); /* inbounds */
		op(w, in->aux);
		for (uint32_t i = 0; i < in->nops; i++)
			rel(e, next, o[i], true);
		code = FN_GEP;
		break;
	case OFL_I_AND:
	case OFL_I_LSHR:
		rel(e, next, o[0], true);
		rel(e, next, o[1], false);
		op(w, in->op == OFL_I_AND ? BINOP_AND : BINOP_LSHR);
		code = FN_BINOP;
		break;
	case OFL_I_TRUNC:
		rel(e, next, o[0], true);
		op(w, in->type);
		op(w, CAST_TRUNC);
		code = FN_CAST;
		break;
	case OFL_I_ICMP:
		rel(e, next, o[0], true);
		rel(e, next, o[1], false);
		op(w, in->imm);
		code = FN_CMP2;
		break;
	}
	record(w, code);
}

/* The function's names: of its values and of its blocks. */
static void local_names(struct enc *e, size_t n)
{
	const struct ofl_ir_module *m = e->m;
	struct bw *w = &e->w;
	enter(w, BLOCK_VST, 4);
	for (size_t i = 0; i < n; i++) {
		const char *s = m->insts[e->inst0 + i].name;
		if (!s)
			continue;
		op(w, e->ids[i]);
		chars(w, s);
		record(w, VST_ENTRY);
	}
	for (uint32_t b = 0; b < e->f->nblocks; b++) {
		op(w, b);
		chars(w, m->blocks[e->f->block + b].name);
		record(w, VST_BBENTRY);
	}
	leave(w);
}

static void function(struct enc *e, const struct ofl_ir_func *f)
{
	const struct ofl_ir_module *m = e->m;
	const struct ofl_ir_block *last = &m->blocks[f->block + f->nblocks - 1];
	struct bw *w = &e->w;
	e->f = f;
	e->inst0 = m->blocks[f->block].inst;
	size_t n = last->inst + last->ninst - e->inst0;
	e->ids = ofl_calloc(n, sizeof(*e->ids));
	if (!e->ids) {
		w->rc |= BW_NOMEM;
		return;
	}
	uint32_t next = e->nmodule + m->types[f->type].nsub;
	for (size_t i = 0; i < n; i++)
		e->ids[i] =
		    m->types[m->insts[e->inst0 + i].type].kind == OFL_T_VOID ? UINT32_MAX : next++;
	enter(w, BLOCK_FUNCTION, 4);
	op(w, f->nblocks);
	record(w, FN_DECLAREBLOCKS);
	next = e->nmodule + m->types[f->type].nsub;
	for (size_t i = 0; i < n; i++) {
		const struct ofl_ir_inst *in = &m->insts[e->inst0 + i];
		instruction(e, in, next);
		next += e->ids[i] != UINT32_MAX;
	}
	local_names(e, n);
	leave(w);
	free(e->ids);
	e->ids = NULL;
}

static void module(struct enc *e)
{
	const struct ofl_ir_module *m = e->m;
	struct bw *w = &e->w;
	enter(w, BLOCK_MODULE, 3);
	op(w, 2); /* relative operands, names in the string table */
	record(w, MOD_VERSION);
	types(e);
	put_chars_record(e, MOD_TRIPLE, m->triple);
	globals(e);
	constants(e);
	for (size_t i = 0; i < m->nfuncs && !w->rc; i++)
		if (m->funcs[i].nblocks)
			function(e, &m->funcs[i]);
	leave(w);
}

/* The bytes of a hole: copied from the constant's file where they lie in
 * its mapping, else written from memory; then the padding. */
static int fill(struct ofl_out *out, const struct hole *h, struct ofl_error *err)
{
	int64_t off = ofl_file_offset_of(h->c->file, h->c->data, h->len);
	int rc = off >= 0 ? ofl_out_copy(out, h->c->file, (uint64_t)off, h->len, err)
	                  : ofl_out_write(out, h->c->data, (size_t)h->len, err);
	return rc ? rc : ofl_out_write(out, "\0\0\0", (4 - h->len % 4) % 4, err);
}

/* The stream: the buffer's pieces with the holes filled between them. */
static int write_out(const struct bw *w, struct ofl_out *out, struct ofl_error *err)
{
	size_t at = 0;
	int rc = 0;
	for (size_t i = 0; i < w->nholes && !rc; i++) {
		rc = ofl_out_write(out, w->b.data + at, w->holes[i].at - at, err);
		rc = rc ? rc : fill(out, &w->holes[i], err);
		at = w->holes[i].at;
	}
	return rc ? rc : ofl_out_write(out, w->b.data + at, w->b.len - at, err);
}

int ofl_ir_write_bc(const struct ofl_ir_module *m, struct ofl_out *out, struct ofl_error *err)
{
	struct enc e = {.w = {.width = 2}, .m = m};
	struct bw *w = &e.w;
	e.nmodule = (uint32_t)(m->nglobals + m->nfuncs + m->nconsts);
	w->rc = ofl_buf_append(&w->b, "BC\xc0\xde", 4) ? BW_NOMEM : 0;
	enter(w, BLOCK_IDENTIFICATION, 3);
	put_chars_record(&e, ID_STRING, "offlink");
	op(w, 0);
	record(w, ID_EPOCH);
	leave(w);
	module(&e);
	enter(w, BLOCK_STRTAB, 3);
	define_blob(w, STRTAB_BLOB);
	start_blob(w, e.strtab.len);
	if (ofl_buf_append(&w->b, e.strtab.data, e.strtab.len) || ofl_buf_align(&w->b, 4))
		w->rc |= BW_NOMEM;
	leave(w);
	int rc = 0;
	if (w->rc & BW_NOMEM)
		rc = OFL_NOMEM(err);
	else if (w->rc)
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "the images are too large for bitcode (a block over 16 GiB)");
	else
		rc = write_out(w, out, err);
	free(w->rec);
	free(w->holes);
	ofl_buf_release(&w->b);
	ofl_buf_release(&e.strtab);
	return rc;
}

int ofl_wrap_emit_bc(struct ofl_out *out, const struct ofl_wrap_opts *o, const char *triple,
                     const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err)
{
	struct ofl_ir_module m;
	if (o->sycl_desc) /* its named metadata: no writer */
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "LLVM 22's SYCL registration is written as an object or IR "
		                     "text, not bitcode");
	int rc = ofl_ir_build(&m, o, triple, imgs, nimages, err);
	if (rc)
		return rc;
	rc = ofl_ir_write_bc(&m, out, err);
	ofl_ir_release(&m);
	return rc;
}
