/* LLVM IR text for the wrapper module (wrapper_ir.h), printed as llvm-dis
 * prints it: opaque-pointer IR that LLVM 15 and later read.  The LLVM 14
 * flavours are written in the same dialect (14 itself used typed
 * pointers). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wrapper_ir.h"

struct printer {
	struct ofl_buf *b;
	const struct ofl_ir_module *m;
	const struct ofl_ir_func *f;
	int32_t *num; /* the function's unnamed values: number, per instruction */
	uint32_t inst0;
	int rc;
};

static void put(struct printer *p, const char *s)
{
	p->rc |= ofl_buf_append_str(p->b, s);
}

static void putf(struct printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	p->rc |= ofl_buf_vprintf(p->b, fmt, ap);
	va_end(ap);
}

/* "..." with LLVM's escaping: printable bytes as is, except " as \22 and
 * the backslash doubled. */
static void put_quoted(struct printer *p, const uint8_t *s, uint64_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	if (ofl_buf_reserve(p->b, n + 3)) {
		p->rc = -1;
		return;
	}
	put(p, "\"");
	for (uint64_t i = 0; i < n && !p->rc; i++) {
		uint8_t c = s[i];
		if (c == '\\')
			p->rc |= ofl_buf_append(p->b, "\\\\", 2);
		else if (c >= 0x20 && c < 0x7f && c != '"')
			p->rc |= ofl_buf_append(p->b, &c, 1);
		else
			p->rc |= ofl_buf_append(p->b, (char[3]){'\\', hex[c >> 4], hex[c & 15]}, 3);
	}
	put(p, "\"");
}

/* A byte string constant, c"...". */
static void put_cstring(struct printer *p, const uint8_t *s, uint64_t n)
{
	put(p, "c");
	put_quoted(p, s, n);
}

/* @name, quoted and escaped as LLVM prints a name that is not all letters,
 * digits, '-', '.' and '_' or starts with a digit. */
static void put_global_name(struct printer *p, const char *name)
{
	bool plain = !isdigit((unsigned char)name[0]);
	for (const char *c = name; plain && *c; c++)
		plain = isalnum((unsigned char)*c) || strchr("-._", *c);
	if (plain) {
		putf(p, "@%s", name);
		return;
	}
	put(p, "@");
	put_quoted(p, (const uint8_t *)name, strlen(name));
}

static void put_type(struct printer *p, uint32_t t)
{
	const struct ofl_ir_type *ty = &p->m->types[t];
	switch (ty->kind) {
	case OFL_T_VOID:
		put(p, "void");
		break;
	case OFL_T_INT:
		putf(p, "i%llu", (unsigned long long)ty->n);
		break;
	case OFL_T_PTR:
		put(p, "ptr");
		break;
	case OFL_T_ARRAY:
		putf(p, "[%llu x ", (unsigned long long)ty->n);
		put_type(p, ty->elem);
		put(p, "]");
		break;
	case OFL_T_STRUCT:
		if (ty->name) {
			putf(p, "%%%s", ty->name);
			break;
		}
		put(p, "{ ");
		for (uint32_t i = 0; i < ty->nsub; i++) {
			put(p, i ? ", " : "");
			put_type(p, p->m->ops[ty->sub + i]);
		}
		put(p, " }");
		break;
	case OFL_T_FUNC:
		break;
	}
}

static void put_value(struct printer *p, uint32_t v);

static void put_typed(struct printer *p, uint32_t v)
{
	put_type(p, ofl_ir_type_of(p->m, p->f, v));
	put(p, " ");
	put_value(p, v);
}

static void put_const(struct printer *p, const struct ofl_ir_const *c)
{
	const struct ofl_ir_module *m = p->m;
	const struct ofl_ir_type *ty = &m->types[c->type];
	switch (c->kind) {
	case OFL_C_INT:
		putf(p, "%lld", (long long)c->v);
		break;
	case OFL_C_NULL:
		put(p, ty->kind == OFL_T_PTR ? "null" : "zeroinitializer");
		break;
	case OFL_C_BYTES:
		put_cstring(p, c->data, ty->n);
		break;
	case OFL_C_AGG:
		put(p, ty->kind == OFL_T_ARRAY ? "[" : "{ ");
		for (uint32_t i = 0; i < c->nops; i++) {
			put(p, i ? ", " : "");
			put_typed(p, m->ops[c->ops + i]);
		}
		put(p, ty->kind == OFL_T_ARRAY ? "]" : " }");
		break;
	case OFL_C_GEP:
		put(p, "getelementptr (");
		put_type(p, c->type);
		for (uint32_t i = 0; i < c->nops; i++) {
			put(p, ", ");
			put_typed(p, m->ops[c->ops + i]);
		}
		put(p, ")");
		break;
	}
}

static void put_value(struct printer *p, uint32_t v)
{
	const struct ofl_ir_module *m = p->m;
	uint32_t i = OFL_V_INDEX(v);
	switch (OFL_V_KIND(v)) {
	case OFL_V_GLOBAL:
		put_global_name(p, ofl_ir_name(m, m->globals[i].name));
		break;
	case OFL_V_FUNC:
		put_global_name(p, ofl_ir_name(m, m->funcs[i].name));
		break;
	case OFL_V_CONST:
		put_const(p, &m->consts[i]);
		break;
	case OFL_V_ARG:
		putf(p, "%%%u", i); /* arguments are unnamed, numbered first */
		break;
	default:
		if (m->insts[i].name)
			putf(p, "%%%s", m->insts[i].name);
		else
			putf(p, "%%%d", p->num[i - p->inst0]);
	}
}

static void put_global(struct printer *p, const struct ofl_ir_global *g)
{
	static const char *const linkage[] = {"", "internal ", "appending ", "weak_odr ", "weak "};
	put_global_name(p, ofl_ir_name(p->m, g->name));
	putf(p, " = %s%s%s%s", g->init ? linkage[g->linkage] : "external ",
	     g->hidden ? "hidden " : "", g->unnamed_addr ? "unnamed_addr " : "",
	     g->constant ? "constant " : "global ");
	put_type(p, g->type);
	if (g->init) {
		put(p, " ");
		put_value(p, g->init);
	}
	if (g->section)
		putf(p, ", section \"%s\"", g->section);
	if (g->align)
		putf(p, ", align %u", g->align);
	put(p, "\n");
}

static void put_block_ref(struct printer *p, uint32_t b)
{
	putf(p, "label %%%s", p->m->blocks[p->f->block + b].name);
}

static void put_inst(struct printer *p, const struct ofl_ir_inst *in, uint32_t idx)
{
	static const char *const bin[] = {[OFL_I_AND] = "and", [OFL_I_LSHR] = "lshr"};
	const struct ofl_ir_module *m = p->m;
	const uint32_t *op = m->ops + in->ops;
	put(p, "  ");
	if (m->types[in->type].kind != OFL_T_VOID) {
		put_value(p, OFL_V(OFL_V_INST, idx));
		put(p, " = ");
	}
	switch (in->op) {
	case OFL_I_RET:
		put(p, "ret void");
		break;
	case OFL_I_BR:
		put(p, "br ");
		put_block_ref(p, op[0]);
		break;
	case OFL_I_CONDBR:
		put(p, "br ");
		put_typed(p, op[0]);
		put(p, ", ");
		put_block_ref(p, op[1]);
		put(p, ", ");
		put_block_ref(p, op[2]);
		break;
	case OFL_I_SWITCH:
		put(p, "switch ");
		put_typed(p, op[0]);
		put(p, ", ");
		put_block_ref(p, op[1]);
		put(p, " [\n");
		for (uint32_t i = 2; i + 1 < in->nops; i += 2) {
			put(p, "    ");
			put_typed(p, op[i]);
			put(p, ", ");
			put_block_ref(p, op[i + 1]);
			put(p, "\n");
		}
		put(p, "  ]");
		break;
	case OFL_I_PHI:
		put(p, "phi ");
		put_type(p, in->type);
		for (uint32_t i = 0; i + 1 < in->nops; i += 2) {
			put(p, i ? ", [ " : " [ ");
			put_value(p, op[i]);
			putf(p, ", %%%s ]", m->blocks[p->f->block + op[i + 1]].name);
		}
		break;
	case OFL_I_CALL:
		put(p, "call ");
		put_type(p, in->type);
		put(p, " ");
		put_value(p, op[0]);
		put(p, "(");
		for (uint32_t i = 1; i < in->nops; i++) {
			put(p, i > 1 ? ", " : "");
			put_typed(p, op[i]);
		}
		put(p, ")");
		break;
	case OFL_I_LOAD:
		put(p, "load ");
		put_type(p, in->type);
		put(p, ", ");
		put_typed(p, op[0]);
		putf(p, ", align %u", in->imm);
		break;
	case OFL_I_STORE:
		put(p, "store ");
		put_typed(p, op[0]);
		put(p, ", ");
		put_typed(p, op[1]);
		putf(p, ", align %u", in->imm);
		break;
	case OFL_I_GEP:
		put(p, "getelementptr inbounds ");
		put_type(p, in->aux);
		for (uint32_t i = 0; i < in->nops; i++) {
			put(p, ", ");
			put_typed(p, op[i]);
		}
		break;
	case OFL_I_AND:
	case OFL_I_LSHR:
		putf(p, "%s ", bin[in->op]);
		put_typed(p, op[0]);
		put(p, ", ");
		put_value(p, op[1]);
		break;
	case OFL_I_TRUNC:
		put(p, "trunc ");
		put_typed(p, op[0]);
		put(p, " to ");
		put_type(p, in->type);
		break;
	case OFL_I_ICMP:
		putf(p, "icmp %s ", in->imm == OFL_ICMP_EQ ? "eq" : "ne");
		put_typed(p, op[0]);
		put(p, ", ");
		put_value(p, op[1]);
		break;
	}
	put(p, "\n");
}

/* "; preds = ..." at column 50: the branches to block b, latest first (the
 * order of LLVM's use list). */
static void put_preds(struct printer *p, uint32_t b, size_t label_len)
{
	const struct ofl_ir_module *m = p->m;
	const struct ofl_ir_block *blocks = m->blocks + p->f->block;
	bool first = true;
	for (uint32_t ub = p->f->nblocks; ub-- > 0;) {
		const struct ofl_ir_inst *t = &m->insts[blocks[ub].inst + blocks[ub].ninst - 1];
		const uint32_t *op = m->ops + t->ops;
		for (uint32_t i = t->nops; i-- > 0;) {
			bool target = t->op == OFL_I_BR || (t->op == OFL_I_CONDBR && i > 0) ||
			              (t->op == OFL_I_SWITCH && i % 2 == 1);
			if (!target || op[i] != b)
				continue;
			if (first)
				putf(p, "%*s; preds = ", (int)(label_len < 50 ? 50 - label_len : 1),
				     "");
			putf(p, "%s%%%s", first ? "" : ", ", blocks[ub].name);
			first = false;
			break;
		}
	}
}

static int put_function(struct printer *p, const struct ofl_ir_func *f)
{
	const struct ofl_ir_module *m = p->m;
	const struct ofl_ir_type *ft = &m->types[f->type];
	bool def = f->nblocks != 0;
	p->f = f;
	putf(p, "\n%s%s", def ? "define " : "declare ", f->internal ? "internal " : "");
	put_type(p, ft->elem);
	put(p, " ");
	put_global_name(p, ofl_ir_name(m, f->name));
	put(p, "(");
	for (uint32_t i = 0; i < ft->nsub; i++) {
		put(p, i ? ", " : "");
		put_type(p, m->ops[ft->sub + i]);
		if (def)
			putf(p, " %%%u", i);
	}
	put(p, ")");
	if (f->section)
		putf(p, " section \"%s\"", f->section);
	if (!def) {
		put(p, "\n");
		return 0;
	}
	const struct ofl_ir_block *last = &m->blocks[f->block + f->nblocks - 1];
	p->inst0 = m->blocks[f->block].inst;
	size_t n = last->inst + last->ninst - p->inst0;
	p->num = ofl_calloc(n, sizeof(*p->num));
	if (!p->num)
		return -1;
	int32_t next = (int32_t)ft->nsub;
	for (size_t i = 0; i < n; i++) {
		const struct ofl_ir_inst *in = &m->insts[p->inst0 + i];
		if (!in->name && m->types[in->type].kind != OFL_T_VOID)
			p->num[i] = next++;
	}
	put(p, " {\n");
	for (uint32_t b = 0; b < f->nblocks; b++) {
		const struct ofl_ir_block *blk = &m->blocks[f->block + b];
		putf(p, "%s%s:", b ? "\n" : "", blk->name);
		put_preds(p, b, strlen(blk->name) + 1);
		put(p, "\n");
		for (uint32_t i = 0; i < blk->ninst; i++)
			put_inst(p, &m->insts[blk->inst + i], blk->inst + i);
	}
	put(p, "}\n");
	free(p->num);
	p->num = NULL;
	return 0;
}

static int print_module(struct ofl_buf *out, const struct ofl_ir_module *m)
{
	struct printer p = {.b = out, .m = m};
	putf(&p, "; ModuleID = '%s'\nsource_filename = \"%s\"\ntarget triple = \"%s\"\n\n",
	     m->module_id, m->source_filename, m->triple);
	bool named = false; /* LLVM ends the type block with a blank line */
	for (size_t t = 0; t < m->ntypes; t++) {
		const struct ofl_ir_type *ty = &m->types[t];
		if (ty->kind != OFL_T_STRUCT || !ty->name)
			continue;
		putf(&p, "%%%s = type { ", ty->name);
		for (uint32_t i = 0; i < ty->nsub; i++) {
			put(&p, i ? ", " : "");
			put_type(&p, m->ops[ty->sub + i]);
		}
		put(&p, " }\n");
		named = true;
	}
	put(&p, named ? "\n" : "");
	for (size_t g = 0; g < m->nglobals; g++)
		put_global(&p, &m->globals[g]);
	for (size_t f = 0; f < m->nfuncs && !p.rc; f++)
		p.rc |= put_function(&p, &m->funcs[f]);
	for (size_t i = 0; i < m->nsymbols; i++)
		putf(&p, "%s!%zu", i ? ", " : "\n!llvm.offloading.symbols = !{", i);
	put(&p, m->nsymbols ? "}\n\n" : "");
	for (size_t i = 0; i < m->nsymbols; i++) {
		putf(&p, "!%zu = !{ptr ", i);
		put_value(&p, m->symbols[i]);
		put(&p, "}\n");
	}
	return p.rc;
}

int ofl_wrap_emit_ll(struct ofl_buf *out, const struct ofl_wrap_opts *o, const char *triple,
                     const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err)
{
	struct ofl_ir_module m;
	int rc = ofl_ir_build(&m, o, triple, imgs, nimages, err);
	if (rc)
		return rc;
	rc = print_module(out, &m);
	ofl_ir_release(&m);
	return rc ? OFL_NOMEM(err) : 0;
}
