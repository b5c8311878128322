/* LLVM bitcode read without libLLVM (bitcode.h; docs/design.md, "Bitcode
 * symbols"): the irsymtab clang writes after the modules, and per module its
 * section names and the byte-string initializers of the globals in one
 * section.  One bitstream walker serves both.  It enters the top-level
 * blocks it needs, a module's BLOCKINFO and module-level CONSTANTS blocks,
 * and skips every other block by its length word, so nesting is fixed at
 * three levels.  Every loop consumes input bits: work is linear in size. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "offlink/bitcode.h"

/* Abbreviation ids of every block, then the block ids and record codes read. */
enum { ID_END = 0, ID_ENTER = 1, ID_DEFINE = 2, ID_UNABBREV = 3, ID_FIRST = 4 };
enum { BLOCK_INFO = 0, BLOCK_MODULE = 8, BLOCK_CONSTANTS = 11, BLOCK_STRTAB = 23 };
enum { BLOCK_SYMTAB = 25, INFO_SETBID = 1, BLOB_RECORD = 1 };
enum { MOD_VERSION = 1, MOD_SECTIONNAME = 5, MOD_GLOBALVAR = 7, MOD_FUNCTION = 8 };
enum { MOD_ALIAS_OLD = 9, MOD_ALIAS = 14, MOD_IFUNC = 15 };
enum { CST_SETTYPE = 1, CST_STRING = 8, CST_CSTRING = 9 };
enum { MAX_ABBREVS = 64, MAX_OPS = 16, MAX_VALS = 16 };
/* every scalar operand of an abbreviated record is kept (struct record) */
_Static_assert(MAX_VALS >= MAX_OPS, "scalars fit in vals");
#define NO_VERSION UINT64_MAX
enum { HEADER_SIZE = 76, SYMBOL_SIZE = 24 };

struct bits {
	const uint8_t *p;
	uint64_t nbits, pos;
	uint64_t base; /* file offset of p: past a wrapper header */
	struct ofl_error *err;
	int code; /* the first failure, 0 while there is none */
};

/* Records the first failure and stops the walk: every later read fails. */
static void fail(struct bits *b, int code, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(struct bits *b, int code, uint64_t at, const char *fmt, ...)
{
	if (!b->code) {
		char msg[OFL_ERROR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		uint64_t off = at == OFL_NO_OFFSET ? at : b->base + at / 8;
		ofl_error_set(b->err, code, NULL, off, "%s", msg);
		b->code = code;
	}
	b->pos = b->nbits;
}

static void truncated(struct bits *b)
{
	fail(b, OFL_EFORMAT, b->pos, "malformed bitcode: truncated");
}

/* n bits (at most 64), low bit first: one 64-bit load for up to 56 bits
 * away from the end, else a byte at a time. */
static uint64_t read_bits(struct bits *b, unsigned n)
{
	uint64_t v = 0, byte = b->pos >> 3;
	if (n > b->nbits - b->pos) {
		truncated(b);
		return 0;
	}
	if (n <= 56 && byte + 8 <= b->nbits / 8) {
		v = ofl_le64(b->p + byte) >> (b->pos & 7) & ((1ull << n) - 1);
		b->pos += n;
		return v;
	}
	for (unsigned got = 0; got < n;) {
		unsigned sh = (unsigned)(b->pos & 7), take = 8 - sh < n - got ? 8 - sh : n - got;
		v |= (uint64_t)((b->p[b->pos >> 3] >> sh) & ((1u << take) - 1)) << got;
		got += take;
		b->pos += take;
	}
	return v;
}

/* A vbr value of n-bit pieces (1 <= n <= 32); as LLVM, at most 64 bits. */
static uint64_t read_vbr(struct bits *b, unsigned n)
{
	uint64_t v = 0, more = 1ull << (n - 1);
	for (unsigned shift = 0; !b->code; shift += n - 1) {
		if (shift >= 64) {
			fail(b, OFL_EFORMAT, b->pos, "malformed bitcode: vbr value over 64 bits");
			break;
		}
		uint64_t piece = read_bits(b, n);
		v |= (piece & (more - 1)) << shift;
		if (!(piece & more))
			break;
	}
	return v;
}

static void align32(struct bits *b)
{
	uint64_t to = (b->pos + 31) & ~(uint64_t)31;
	if (to > b->nbits)
		truncated(b);
	else
		b->pos = to;
}

/* ---- abbreviations ------------------------------------------------------ */

enum { OP_LITERAL, OP_FIXED, OP_VBR, OP_ARRAY, OP_CHAR6, OP_BLOB };

struct op {
	uint8_t kind;   /* OP_* */
	uint64_t value; /* a literal's value, a fixed or vbr width */
};

struct abbrev {
	unsigned nops;
	struct op ops[MAX_OPS];
};

struct abbrevs {
	unsigned n;
	struct abbrev *v; /* room for MAX_ABBREVS, allocated by the first definition */
};

static bool sized(const struct op *o)
{
	return o->kind == OP_FIXED || o->kind == OP_VBR;
}

static void read_op(struct bits *b, struct op *o)
{
	if (read_bits(b, 1)) {
		*o = (struct op){OP_LITERAL, read_vbr(b, 8)};
		return;
	}
	o->kind = (uint8_t)read_bits(b, 3);
	o->value = sized(o) ? read_vbr(b, 5) : 0;
	if (sized(o) && o->value == 0)
		*o = (struct op){OP_LITERAL, 0}; /* as LLVM reads a width of 0 */
}

/* What LLVM rejects in an abbreviation; with these rules an array element
 * always reads bits, so no record loops without consuming input. */
static const char *abbrev_problem(const struct abbrev *a)
{
	for (unsigned i = 0; i < a->nops; i++) {
		const struct op *o = &a->ops[i];
		if (o->kind > OP_BLOB)
			return "unknown operand encoding";
		if (sized(o) && o->value > 32)
			return "fixed or vbr operand wider than 32 bits";
		if (i == 0 && (o->kind == OP_ARRAY || o->kind == OP_BLOB))
			return "record code is an array or a blob";
		if (o->kind == OP_BLOB && i + 1 != a->nops)
			return "blob is not the last operand";
		if (o->kind == OP_ARRAY && i + 2 != a->nops)
			return "array is not the second-to-last operand";
		if (o->kind == OP_ARRAY && !sized(&a->ops[i + 1]) && a->ops[i + 1].kind != OP_CHAR6)
			return "array element is not a fixed, vbr or char6 operand";
	}
	return NULL;
}

static void add_abbrev(struct bits *b, struct abbrevs *l, const struct abbrev *a, uint64_t at)
{
	if (l->n == MAX_ABBREVS)
		fail(b, OFL_EUNSUPPORTED, at, "bitcode block with more than %d abbreviations",
		     MAX_ABBREVS);
	else if (!l->v && !(l->v = ofl_malloc(MAX_ABBREVS * sizeof *l->v)))
		fail(b, OFL_ENOMEM, OFL_NO_OFFSET, "out of memory");
	else
		l->v[l->n++] = *a;
}

/* DEFINE_ABBREV at bit `at`, added to l (NULL: read and dropped). */
static void define_abbrev(struct bits *b, struct abbrevs *l, uint64_t at)
{
	struct abbrev a;
	uint64_t n = read_vbr(b, 5);
	if (!b->code && n == 0)
		fail(b, OFL_EFORMAT, at, "malformed bitcode: abbreviation without operands");
	if (!b->code && n > MAX_OPS)
		fail(b, OFL_EUNSUPPORTED, at,
		     "bitcode abbreviation with %llu operands (at most %d)", (unsigned long long)n,
		     MAX_OPS);
	a.nops = b->code ? 0 : (unsigned)n;
	for (unsigned i = 0; i < a.nops && !b->code; i++)
		read_op(b, &a.ops[i]);
	const char *why = b->code ? NULL : abbrev_problem(&a);
	if (why)
		fail(b, OFL_EFORMAT, at, "malformed bitcode: abbreviation: %s", why);
	else if (l && !b->code)
		add_abbrev(b, l, &a, at);
}

/* ---- records ------------------------------------------------------------ */

/* A record as read: its code, its first operands, and where its array or
 * blob (always its last operands) lies, to be read again for bytes. */
struct record {
	uint64_t at;             /* bit position of its abbreviation id */
	uint64_t code, nops;     /* nops: operands after the code */
	uint64_t vals[MAX_VALS]; /* the first of them */
	unsigned nscalars;       /* operands before the array or blob */
	struct op elt;           /* the array's element, or OP_BLOB */
	uint64_t elt_pos, nelts;
};

static uint64_t read_scalar(struct bits *b, const struct op *o)
{
	static const char char6[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";
	switch (o->kind) {
	case OP_LITERAL:
		return o->value;
	case OP_FIXED:
		return read_bits(b, (unsigned)o->value);
	case OP_VBR:
		return read_vbr(b, (unsigned)o->value);
	default: /* OP_CHAR6: abbrev_problem lets nothing else through */
		return (uint8_t)char6[read_bits(b, 6)];
	}
}

static void push(struct record *r, uint64_t v)
{
	if (r->nops < MAX_VALS)
		r->vals[r->nops] = v;
	r->nops++;
}

/* An array: its count, the first elements kept, the rest passed over (in
 * one step when they have a fixed width). */
static void read_array(struct bits *b, struct record *r)
{
	r->nelts = read_vbr(b, 6);
	r->elt_pos = b->pos;
	if (r->nelts > b->nbits - b->pos) /* every element reads a bit at least */
		truncated(b);
	uint64_t k = 0;
	for (; k < r->nelts && r->nops < MAX_VALS && !b->code; k++)
		push(r, read_scalar(b, &r->elt));
	uint64_t rest = b->code ? 0 : r->nelts - k;
	r->nops += rest;
	if (r->elt.kind == OP_VBR) {
		for (; rest && !b->code; rest--)
			read_vbr(b, (unsigned)r->elt.value);
		return;
	}
	unsigned w = r->elt.kind == OP_CHAR6 ? 6 : (unsigned)r->elt.value;
	if (rest > (b->nbits - b->pos) / w)
		truncated(b);
	else
		b->pos += rest * w;
}

/* A blob: vbr6 length, 32-bit alignment, the bytes, 32-bit alignment. */
static void read_blob(struct bits *b, struct record *r)
{
	uint64_t n = read_vbr(b, 6);
	align32(b);
	if (!b->code && n > (b->nbits - b->pos) / 8)
		truncated(b);
	if (b->code)
		return;
	r->elt = (struct op){OP_BLOB, 0};
	r->elt_pos = b->pos;
	r->nelts = n;
	for (uint64_t k = 0; k < n && r->nops < MAX_VALS; k++)
		push(r, b->p[b->pos / 8 + k]);
	r->nops = r->nscalars + n;
	b->pos += 8 * n;
	align32(b);
}

/* An abbreviated record (a), or an unabbreviated one (a NULL: code, count
 * and operands, all vbr6). */
static void read_record(struct bits *b, const struct abbrev *a, struct record *r, uint64_t at)
{
	/* vals beyond nops stay unset: clearing them costs more than a small record */
	r->at = at;
	r->nops = r->nelts = r->elt_pos = 0;
	r->nscalars = 0;
	r->elt = (struct op){OP_LITERAL, 0};
	if (!a) {
		r->code = read_vbr(b, 6);
		r->elt = (struct op){OP_VBR, 6};
		read_array(b, r);
		return;
	}
	r->code = read_scalar(b, &a->ops[0]);
	for (unsigned i = 1; i < a->nops && !b->code; i++) {
		if (a->ops[i].kind == OP_ARRAY) {
			r->elt = a->ops[i + 1];
			read_array(b, r);
			return;
		}
		if (a->ops[i].kind == OP_BLOB) {
			read_blob(b, r);
			return;
		}
		push(r, read_scalar(b, &a->ops[i]));
		r->nscalars++;
	}
}

/* n 8-bit fields starting at any bit: eight at a time, shifted. */
static void copy_bits8(uint8_t *out, const uint8_t *p, uint64_t bit, uint64_t n)
{
	const uint8_t *s = p + bit / 8;
	unsigned sh = (unsigned)(bit & 7);
	uint64_t k = 0;
	if (!sh) {
		memcpy(out, s, n);
		return;
	}
	/* fields k..k+7 lie in s[k..k+8]; s[n] holds the last field's top bits */
	for (; k + 8 <= n; k += 8)
		ofl_put_le64(out + k, ofl_le64(s + k) >> sh | (uint64_t)s[k + 8] << (64 - sh));
	for (; k < n; k++)
		out[k] = (uint8_t)(s[k] >> sh | s[k + 1] << (8 - sh));
}

static uint8_t byte_of(struct bits *b, const struct record *r, uint64_t v)
{
	if (v > 255)
		fail(b, OFL_EFORMAT, r->at, "malformed bitcode: string operand %llu above 255",
		     (unsigned long long)v);
	return (uint8_t)v;
}

/* r's operands as bytes, each below 256, into out[0..r->nops). */
static void record_bytes(struct bits *b, const struct record *r, uint8_t *out)
{
	for (unsigned i = 0; i < r->nscalars; i++)
		out[i] = byte_of(b, r, r->vals[i]);
	out += r->nscalars;
	if (r->elt.kind == OP_BLOB) {
		memcpy(out, b->p + r->elt_pos / 8, r->nelts);
		return;
	}
	if (r->elt.kind == OP_FIXED && r->elt.value == 8) {
		copy_bits8(out, b->p, r->elt_pos, r->nelts);
		return;
	}
	uint64_t keep = b->pos;
	b->pos = r->elt_pos;
	for (uint64_t k = 0; k < r->nelts && !b->code; k++)
		out[k] = byte_of(b, r, read_scalar(b, &r->elt));
	if (!b->code)
		b->pos = keep;
}

/* ---- blocks ------------------------------------------------------------- */

struct block {
	uint64_t id, start, end;    /* its id; bit positions of its body and past it */
	unsigned width;             /* of its abbreviation ids */
	const struct abbrevs *info; /* BLOCKINFO's abbreviations for it: the first ninfo */
	unsigned ninfo;
	struct abbrevs local;   /* defined inside it */
	bool blockinfo;         /* a BLOCKINFO block: definitions go to setbid */
	struct abbrevs *setbid; /* the list its SETBID chose (NULL: dropped) */
};

/* ENTER_SUBBLOCK at bit `at`, past its abbreviation id. */
static bool enter(struct bits *b, struct block *k, uint64_t at)
{
	uint64_t id = read_vbr(b, 8), width = read_vbr(b, 4);
	align32(b);
	uint64_t words = read_bits(b, 32);
	if (!b->code && (width < 1 || width > 32))
		fail(b, OFL_EFORMAT, at, "malformed bitcode: abbreviation width %llu",
		     (unsigned long long)width);
	if (!b->code && words > (b->nbits - b->pos) / 32)
		fail(b, OFL_EFORMAT, at, "malformed bitcode: block past the end");
	if (b->code)
		return false;
	*k = (struct block){
	    .id = id, .start = b->pos, .end = b->pos + 32 * words, .width = (unsigned)width};
	return true;
}

/* Done with k: its abbreviations go, the walk resumes past it. */
static void leave(struct bits *b, struct block *k)
{
	free(k->local.v);
	k->local = (struct abbrevs){0, NULL};
	if (!b->code)
		b->pos = k->end;
}

static const struct abbrev *abbrev_of(const struct block *k, uint64_t id)
{
	uint64_t i = id - ID_FIRST;
	if (i < k->ninfo)
		return &k->info->v[i];
	i -= k->ninfo;
	return i < k->local.n ? &k->local.v[i] : NULL;
}

enum { EV_END, EV_BLOCK, EV_RECORD };

/* The next nested block (entered into sub) or record of k; definitions are
 * taken on the way, END_BLOCK or a failure ends k. */
static int next(struct bits *b, struct block *k, struct record *r, struct block *sub)
{
	while (!b->code) {
		uint64_t at = b->pos;
		if (at >= k->end) {
			fail(b, OFL_EFORMAT, at, "malformed bitcode: block without END_BLOCK");
			break;
		}
		uint64_t id = read_bits(b, k->width);
		const struct abbrev *a = NULL;
		if (!b->code && id == ID_END)
			align32(b);
		if (b->code || id == ID_END)
			break;
		if (id == ID_ENTER)
			return enter(b, sub, at) ? EV_BLOCK : EV_END;
		if (id == ID_DEFINE) {
			define_abbrev(b, k->blockinfo ? k->setbid : &k->local, at);
			continue;
		}
		if (id != ID_UNABBREV && !(a = abbrev_of(k, id))) {
			fail(b, OFL_EFORMAT, at, "malformed bitcode: undefined abbreviation %llu",
			     (unsigned long long)id);
			break;
		}
		read_record(b, a, r, at);
		return b->code ? EV_END : EV_RECORD;
	}
	return EV_END;
}

/* The bitstream of data: past the wrapper header when there is one. */
static bool bitstream(const uint8_t *data, size_t size, struct bits *b, struct ofl_error *err)
{
	uint32_t off = 0;
	if (size >= 20 && ofl_le32(data) == OFL_BITCODE_WRAPPER) {
		uint32_t len = ofl_le32(data + 12);
		off = ofl_le32(data + 8);
		if (!ofl_range_ok(off, len, size))
			return false;
		data += off;
		size = len;
	}
	if (size < 4 || memcmp(data, OFL_BITCODE_MAGIC, 4))
		return false;
	*b = (struct bits){data, (uint64_t)size * 8, 32, off, err, 0};
	return true;
}

bool ofl_bitcode_is(const uint8_t *data, size_t size)
{
	struct bits b;
	return bitstream(data, size, &b, NULL);
}

/* The walk's start: LLVM takes a stream in 32-bit words only. */
static int start(const uint8_t *data, size_t size, struct bits *b, struct ofl_error *err)
{
	if (!bitstream(data, size, b, err))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not LLVM bitcode");
	if (b->nbits % 32)
		fail(b, OFL_EFORMAT, b->nbits & ~(uint64_t)31,
		     "malformed bitcode: not a whole number of 32-bit words");
	return b->code;
}

/* The next top-level block (2-bit ids), entered; false at the end. */
static bool next_top(struct bits *b, struct block *k)
{
	if (b->code || b->nbits - b->pos < 32)
		return false;
	uint64_t at = b->pos;
	return read_bits(b, 2) == ID_ENTER && enter(b, k, at); /* else padding after the last */
}

/* The blob of a SYMTAB or STRTAB block: its record with code 1. */
static void read_blob_block(struct bits *b, struct block *k, const uint8_t **blob, uint64_t *len)
{
	struct record r;
	struct block sub;
	int ev;
	while ((ev = next(b, k, &r, &sub)) != EV_END) {
		if (ev == EV_BLOCK) {
			leave(b, &sub);
		} else if (r.code == BLOB_RECORD && r.elt.kind == OP_BLOB) {
			*blob = b->p + r.elt_pos / 8;
			*len = r.nelts;
		}
	}
}

/* ---- the symbol table --------------------------------------------------- */

struct blobs {
	const uint8_t *sym, *str;
	uint64_t nsym, nstr;
};

/* The first SYMTAB blob and the first STRTAB after it, as LLVM pairs them. */
static int find_blobs(const uint8_t *data, size_t size, struct blobs *o, struct ofl_error *err)
{
	struct bits b;
	struct block k;
	int rc = start(data, size, &b, err);
	if (rc)
		return rc;
	while (next_top(&b, &k)) {
		if (k.id == BLOCK_SYMTAB && !o->sym)
			read_blob_block(&b, &k, &o->sym, &o->nsym);
		else if (k.id == BLOCK_STRTAB && o->sym && !o->str)
			read_blob_block(&b, &k, &o->str, &o->nstr);
		leave(&b, &k);
	}
	if (b.code)
		return b.code;
	return o->sym && o->str ? 0
	                        : ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
	                                        "bitcode without a symbol table");
}

/* A Str {offset, size} of the symbol table, checked against the strings. */
static bool str_ok(const uint8_t *p, uint64_t nstr, const char **s, size_t *len,
                   const uint8_t *strtab)
{
	uint32_t off = ofl_le32(p), n = ofl_le32(p + 4);
	if (!ofl_range_ok(off, n, nstr))
		return false;
	*s = (const char *)strtab + off;
	*len = n;
	return true;
}

static int read_symbols(const struct blobs *bl, struct ofl_bcsymtab *t, struct ofl_error *err)
{
	const char *ignored;
	size_t ignored_len;
	uint32_t off = ofl_le32(bl->sym + 28), n = ofl_le32(bl->sym + 32);
	if (!ofl_range_ok(off, (uint64_t)n * SYMBOL_SIZE, bl->nsym))
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "bitcode symbol table: %u symbols past its end", n);
	if (!(t->syms = ofl_calloc(n, sizeof(*t->syms))))
		return OFL_NOMEM(err);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *s = bl->sym + off + (uint64_t)i * SYMBOL_SIZE;
		struct ofl_bcsym *o = &t->syms[t->n];
		if (!str_ok(s, bl->nstr, &o->name, &o->len, bl->str) ||
		    !str_ok(s + 8, bl->nstr, &ignored, &ignored_len, bl->str))
			return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
			                     "bitcode symbol %u: name past the string table", i);
		o->flags = ofl_le32(s + 20);
		o->visibility = o->flags & 3;
		t->n++;
	}
	return 0;
}

/* The blobs and the table's header: version, producer, triple. */
static int read_header(const uint8_t *data, size_t size, struct blobs *bl, struct ofl_bcsymtab *t,
                       struct ofl_error *err)
{
	*bl = (struct blobs){NULL, NULL, 0, 0};
	*t = (struct ofl_bcsymtab)OFL_BCSYMTAB_INIT;
	int rc = find_blobs(data, size, bl, err);
	if (rc)
		return rc;
	if (bl->nsym < HEADER_SIZE ||
	    !str_ok(bl->sym + 4, bl->nstr, &t->producer, &t->producer_len, bl->str) ||
	    !str_ok(bl->sym + 44, bl->nstr, &t->triple, &t->triple_len, bl->str))
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "malformed bitcode symbol table header");
	t->version = ofl_le32(bl->sym);
	return 0;
}

int ofl_bitcode_symtab_header(const uint8_t *data, size_t size, struct ofl_bcsymtab *t,
                              struct ofl_error *err)
{
	struct blobs bl;
	return read_header(data, size, &bl, t, err);
}

int ofl_bitcode_symtab(const uint8_t *data, size_t size, struct ofl_bcsymtab *t,
                       struct ofl_error *err)
{
	struct blobs bl;
	int rc = read_header(data, size, &bl, t, err);
	rc = rc ? rc : read_symbols(&bl, t, err);
	if (rc)
		ofl_bitcode_symtab_release(t);
	return rc;
}

void ofl_bitcode_symtab_release(struct ofl_bcsymtab *t)
{
	free(t->syms);
	*t = (struct ofl_bcsymtab)OFL_BCSYMTAB_INIT;
}

unsigned ofl_bitcode_llvm_major(const struct ofl_bcsymtab *t)
{
	unsigned v = 0;
	for (size_t i = 0; i < t->producer_len && v < 1000; i++) {
		char c = t->producer[i];
		if (c < '0' || c > '9')
			break;
		v = v * 10 + (unsigned)(c - '0');
	}
	return v;
}

/* ---- modules: section names and the globals of one section -------------- */

struct want {        /* a global in the section asked for, parallel to out->globals */
	uint64_t at; /* its GLOBALVAR record */
	uint64_t name_off, name_len;
	uint64_t value; /* its initializer's value id */
};

struct cblock { /* a module-level CONSTANTS block */
	struct block k;
	uint64_t first, count; /* the value ids its records define */
};

struct gwalk {
	struct bits b;
	const char *section;
	size_t section_len;
	struct ofl_bcglobals *out;
	size_t sec_cap, glob_cap, want_cap, at_cap;
	struct ofl_buf names; /* section names, each NUL-terminated */
	size_t *name_at;      /* where each section's name starts in names */
	struct want *wants;
	size_t named; /* globals the STRTAB has named */
	/* the module being read */
	struct abbrevs cinfo; /* BLOCKINFO's abbreviations for CONSTANTS blocks */
	struct cblock *cb;
	size_t ncb, cb_cap;
	uint64_t version; /* VERSION's operand, NO_VERSION before it */
	uint64_t nvalues;
	size_t first_section, first_global;
	uint64_t want_sec; /* the module's number (from 1) of the section asked for, 0: none */
};

static void no_memory(struct gwalk *g)
{
	fail(&g->b, OFL_ENOMEM, OFL_NO_OFFSET, "out of memory");
}

/* SECTIONNAME: its characters are the name. */
static void section_name(struct gwalk *g, const struct record *r)
{
	struct ofl_bcglobals *o = g->out;
	size_t at = g->names.len;
	if (OFL_GROW(o->sections, g->sec_cap, o->nsections) ||
	    OFL_GROW(g->name_at, g->at_cap, o->nsections) || r->nops >= SIZE_MAX - at ||
	    ofl_buf_reserve(&g->names, (size_t)r->nops + 1)) {
		no_memory(g);
		return;
	}
	record_bytes(&g->b, r, g->names.data + at);
	g->names.data[at + r->nops] = 0;
	g->names.len += (size_t)r->nops + 1;
	g->name_at[o->nsections] = at;
	o->sections[o->nsections++] =
	    (struct ofl_bcsection){NULL, (size_t)r->nops, (unsigned)o->nmodules};
	if (!g->section || r->nops != g->section_len ||
	    memcmp(g->names.data + at, g->section, g->section_len))
		return;
	/* LLVM writes each name once; globals of a second one would be missed */
	if (g->want_sec)
		fail(&g->b, OFL_EUNSUPPORTED, r->at,
		     "bitcode module names section \"%.100s\" twice", g->section);
	g->want_sec = o->nsections - g->first_section;
}

static void add_want(struct gwalk *g, const struct record *r)
{
	struct ofl_bcglobals *o = g->out;
	if (!r->vals[4]) {
		fail(&g->b, OFL_EUNSUPPORTED, r->at,
		     "a global in section \"%.100s\" has no initializer", g->section);
		return;
	}
	if (OFL_GROW(o->globals, g->glob_cap, o->n) || OFL_GROW(g->wants, g->want_cap, o->n)) {
		no_memory(g);
		return;
	}
	g->wants[o->n] = (struct want){r->at, r->vals[0], r->vals[1], r->vals[4] - 1};
	o->globals[o->n++] = (struct ofl_bcglobal){.module = o->nmodules};
}

/* GLOBALVAR, version 2: [strtab offset, size, type, flags, initid (value
 * id + 1, 0: none), linkage, alignment, section (from 1, 0: none), ...]. */
static void global_var(struct gwalk *g, const struct record *r)
{
	uint64_t sec = r->nops > 7 ? r->vals[7] : 0;
	g->nvalues++;
	if (r->nops < 6)
		fail(&g->b, OFL_EFORMAT, r->at, "malformed bitcode: GLOBALVAR with %llu operands",
		     (unsigned long long)r->nops);
	else if (sec > g->out->nsections - g->first_section)
		fail(&g->b, OFL_EFORMAT, r->at,
		     "malformed bitcode: global in section %llu of the module's %zu",
		     (unsigned long long)sec, g->out->nsections - g->first_section);
	else if (sec && sec == g->want_sec)
		add_want(g, r);
}

/* Records before VERSION would be read in a layout not known yet. */
static bool versioned(struct gwalk *g, const struct record *r)
{
	if (g->version != NO_VERSION)
		return true;
	fail(&g->b, OFL_EUNSUPPORTED, r->at, "bitcode module without a VERSION record");
	return false;
}

static void module_record(struct gwalk *g, const struct record *r)
{
	switch (r->code) {
	case MOD_VERSION:
		g->version = r->nops ? r->vals[0] : 0;
		if (g->version != 2)
			fail(&g->b, OFL_EUNSUPPORTED, r->at,
			     "bitcode module version %llu: only version 2 (LLVM 5 and later) "
			     "is read",
			     (unsigned long long)g->version);
		break;
	case MOD_SECTIONNAME:
		section_name(g, r);
		break;
	case MOD_GLOBALVAR:
		if (versioned(g, r))
			global_var(g, r);
		break;
	case MOD_FUNCTION:
	case MOD_ALIAS_OLD:
	case MOD_ALIAS:
	case MOD_IFUNC:
		g->nvalues += versioned(g, r);
		break;
	}
}

/* BLOCKINFO: SETBID picks the block the next definitions are for; only
 * CONSTANTS blocks are read, the others' are read and dropped. */
static void read_blockinfo(struct gwalk *g, struct block *k)
{
	struct record r;
	struct block sub;
	int ev;
	k->blockinfo = true;
	while ((ev = next(&g->b, k, &r, &sub)) != EV_END) {
		if (ev == EV_BLOCK)
			leave(&g->b, &sub);
		else if (r.code == INFO_SETBID)
			k->setbid = r.nops && r.vals[0] == BLOCK_CONSTANTS ? &g->cinfo : NULL;
	}
}

/* A module-level CONSTANTS block: every record but SETTYPE defines the
 * next value id.  Kept (as entered) to be read again for initializers. */
static void count_constants(struct gwalk *g, struct block *k)
{
	struct cblock c = {*k, g->nvalues, 0};
	struct record r;
	struct block sub;
	int ev;
	c.k.info = k->info = &g->cinfo;
	c.k.ninfo = k->ninfo = g->cinfo.n;
	while ((ev = next(&g->b, k, &r, &sub)) != EV_END) {
		if (ev == EV_BLOCK)
			leave(&g->b, &sub);
		else if (r.code != CST_SETTYPE)
			c.count++;
	}
	g->nvalues += c.count;
	if (OFL_GROW(g->cb, g->cb_cap, g->ncb))
		no_memory(g);
	else if (!g->b.code)
		g->cb[g->ncb++] = c;
}

struct pick {
	uint64_t value; /* an initializer's value id */
	size_t global;
};

static int by_value(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->global < b->global ? -1 : a->global > b->global;
}

/* The bytes of STRING (8: every element) and CSTRING (9: the elements and
 * a 0 the record leaves out). */
static void take(struct gwalk *g, const struct record *r, size_t i)
{
	struct ofl_bcglobal *o = &g->out->globals[i];
	bool nul = r->code == CST_CSTRING;
	if (r->code != CST_STRING && !nul) {
		fail(&g->b, OFL_EUNSUPPORTED, r->at,
		     "a global in section \"%.100s\" is initialized by constant code %llu, not a "
		     "byte string",
		     g->section, (unsigned long long)r->code);
		return;
	}
	o->size = (size_t)r->nops + nul;
	if (r->nops >= SIZE_MAX || !(o->data = ofl_malloc(o->size ? o->size : 1))) {
		no_memory(g);
		return;
	}
	record_bytes(&g->b, r, o->data);
	if (nul)
		o->data[r->nops] = 0;
}

/* Walks CONSTANTS block c again: each pick whose value it defines takes
 * that record's bytes. */
static void read_initializers(struct gwalk *g, const struct cblock *c, const struct pick *p,
                              size_t n, size_t *j)
{
	struct block k = c->k;
	struct record r;
	struct block sub;
	uint64_t id = c->first;
	int ev;
	g->b.pos = k.start;
	while (*j < n && (ev = next(&g->b, &k, &r, &sub)) != EV_END) {
		if (ev == EV_BLOCK) {
			leave(&g->b, &sub);
			continue;
		}
		if (r.code == CST_SETTYPE)
			continue;
		for (; *j < n && p[*j].value == id && !g->b.code; (*j)++)
			take(g, &r, p[*j].global);
		id++;
	}
	free(k.local.v);
}

static void not_constant(struct gwalk *g, const struct pick *p)
{
	const struct want *w = &g->wants[p->global];
	if (p->value >= g->nvalues)
		fail(&g->b, OFL_EFORMAT, w->at,
		     "malformed bitcode: initializer %llu past the module's %llu values",
		     (unsigned long long)p->value, (unsigned long long)g->nvalues);
	else
		fail(&g->b, OFL_EUNSUPPORTED, w->at,
		     "a global in section \"%.100s\" is initialized by a global value, not a "
		     "byte string",
		     g->section);
}

/* At the module's end: the initializers of its wanted globals, taking the
 * CONSTANTS blocks in order and the picks by value id. */
static void resolve(struct gwalk *g)
{
	size_t n = g->out->n - g->first_global, j = 0;
	struct pick *p = n && !g->b.code ? ofl_malloc(n * sizeof *p) : NULL;
	if (n && !g->b.code && !p)
		no_memory(g);
	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pick){g->wants[g->first_global + i].value, g->first_global + i};
	qsort(p, n, sizeof *p, by_value);
	for (size_t i = 0; i < g->ncb && j < n && !g->b.code; i++) {
		if (p[j].value < g->cb[i].first)
			break;
		if (p[j].value < g->cb[i].first + g->cb[i].count)
			read_initializers(g, &g->cb[i], p, n, &j);
	}
	if (j < n)
		not_constant(g, &p[j]);
	free(p);
}

static void read_module(struct gwalk *g, struct block *k)
{
	struct record r;
	struct block sub;
	int ev;
	g->version = NO_VERSION;
	g->nvalues = 0;
	g->first_section = g->out->nsections;
	g->first_global = g->out->n;
	g->want_sec = 0;
	g->cinfo.n = 0; /* each module has its own BLOCKINFO, as LLVM reads them */
	g->ncb = 0;
	while ((ev = next(&g->b, k, &r, &sub)) != EV_END) {
		if (ev == EV_RECORD)
			module_record(g, &r);
		else if (sub.id == BLOCK_INFO)
			read_blockinfo(g, &sub);
		else if (sub.id == BLOCK_CONSTANTS)
			count_constants(g, &sub);
		if (ev == EV_BLOCK)
			leave(&g->b, &sub);
	}
	if (g->version == NO_VERSION)
		fail(&g->b, OFL_EUNSUPPORTED, k->start, "bitcode module without a VERSION record");
	resolve(g);
	g->out->nmodules++;
}

/* A STRTAB names the globals of the modules before it. */
static void name_globals(struct gwalk *g, struct block *k)
{
	const uint8_t *s = (const uint8_t *)"";
	uint64_t n = 0;
	read_blob_block(&g->b, k, &s, &n);
	for (; g->named < g->out->n && !g->b.code; g->named++) {
		const struct want *w = &g->wants[g->named];
		struct ofl_bcglobal *o = &g->out->globals[g->named];
		if (!ofl_range_ok(w->name_off, w->name_len, n))
			fail(&g->b, OFL_EFORMAT, w->at,
			     "malformed bitcode: global name past the string table");
		o->name = (const char *)s + w->name_off;
		o->name_len = (size_t)w->name_len;
	}
}

static int finish(struct gwalk *g)
{
	struct ofl_bcglobals *o = g->out;
	if (!g->b.code && !o->nmodules)
		fail(&g->b, OFL_EFORMAT, g->b.pos, "malformed bitcode: no module");
	if (!g->b.code && g->named < o->n)
		fail(&g->b, OFL_EFORMAT, g->wants[g->named].at,
		     "malformed bitcode: no string table after the module");
	for (size_t i = 0; i < o->nsections; i++)
		o->sections[i].name = (const char *)g->names.data + g->name_at[i];
	o->names = (char *)g->names.data;
	free(g->name_at);
	free(g->wants);
	free(g->cb);
	free(g->cinfo.v);
	if (g->b.code)
		ofl_bcglobals_release(o);
	return g->b.code;
}

int ofl_bitcode_section_globals(const uint8_t *data, size_t size, const char *section,
                                struct ofl_bcglobals *out, struct ofl_error *err)
{
	struct gwalk g = {.section = section, .out = out, .names = OFL_BUF_INIT};
	g.section_len = section ? strlen(section) : 0;
	struct block k;
	*out = (struct ofl_bcglobals)OFL_BCGLOBALS_INIT;
	int rc = start(data, size, &g.b, err);
	if (rc)
		return rc;
	while (next_top(&g.b, &k)) {
		if (k.id == BLOCK_MODULE)
			read_module(&g, &k);
		else if (k.id == BLOCK_STRTAB)
			name_globals(&g, &k);
		leave(&g.b, &k);
	}
	return finish(&g);
}

bool ofl_bcglobals_has_section(const struct ofl_bcglobals *g, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < g->nsections; i++)
		if (g->sections[i].len == len && !memcmp(g->sections[i].name, name, len))
			return true;
	return false;
}

void ofl_bcglobals_release(struct ofl_bcglobals *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->globals[i].data);
	free(g->globals);
	free(g->sections);
	free(g->names);
	*g = (struct ofl_bcglobals)OFL_BCGLOBALS_INIT;
}
