/* The irsymtab of LLVM bitcode (bitcode.h; layout in docs/design.md,
 * "Bitcode symbols").  The bitstream is walked at the top level only: the
 * SYMTAB (25) and STRTAB (23) blocks each hold one blob record, every other
 * block is skipped by its length word. */
#include <stdlib.h>

#include "internal.h"
#include "offlink/bitcode.h"

enum { BLOCK_STRTAB = 23, BLOCK_SYMTAB = 25, MAX_ABBREVS = 64, MAX_OPS = 16 };
enum { HEADER_SIZE = 76, SYMBOL_SIZE = 24 };

struct bits {
	const uint8_t *p;
	uint64_t nbits, pos;
	bool bad;
};

static uint64_t read_bits(struct bits *b, unsigned n)
{
	uint64_t v = 0;
	if (n > 64 || b->pos + n > b->nbits) {
		b->bad = true;
		b->pos = b->nbits;
		return 0;
	}
	for (unsigned i = 0; i < n; i++, b->pos++)
		v |= (uint64_t)((b->p[b->pos >> 3] >> (b->pos & 7)) & 1) << i;
	return v;
}

static uint64_t read_vbr(struct bits *b, unsigned n)
{
	uint64_t v = 0;
	if (n < 2 || n > 32) {
		b->bad = true;
		return 0;
	}
	for (unsigned shift = 0; !b->bad; shift += n - 1) {
		uint64_t piece = read_bits(b, n);
		if (shift >= 64)
			b->bad = true;
		else
			v |= (piece & ((1ull << (n - 1)) - 1)) << shift;
		if (!(piece >> (n - 1)))
			break;
	}
	return v;
}

static void align32(struct bits *b)
{
	b->pos = (b->pos + 31) & ~(uint64_t)31;
	if (b->pos > b->nbits)
		b->bad = true;
}

/* An abbreviation operand: a literal, or an encoding with its width. */
struct op {
	uint8_t kind; /* 0 literal, 1 fixed, 2 vbr, 3 array, 4 char6, 5 blob */
	uint64_t value;
};

struct abbrev {
	unsigned nops;
	struct op ops[MAX_OPS];
};

static void define_abbrev(struct bits *b, struct abbrev *a)
{
	a->nops = (unsigned)read_vbr(b, 5);
	if (a->nops > MAX_OPS)
		b->bad = true;
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		struct op *o = &a->ops[i];
		if (read_bits(b, 1)) {
			*o = (struct op){0, read_vbr(b, 8)};
			continue;
		}
		o->kind = (uint8_t)read_bits(b, 3);
		o->value = o->kind == 1 || o->kind == 2 ? read_vbr(b, 5) : 0;
		if (o->kind < 1 || o->kind > 5 || ((o->kind == 1 || o->kind == 2) && o->value > 32))
			b->bad = true;
	}
}

static uint64_t read_scalar(struct bits *b, const struct op *o)
{
	switch (o->kind) {
	case 0:
		return o->value;
	case 1:
		return read_bits(b, (unsigned)o->value);
	case 2:
		return o->value ? read_vbr(b, (unsigned)o->value) : 0;
	case 4:
		return read_bits(b, 6);
	default:
		b->bad = true;
		return 0;
	}
}

/* An abbreviated record; its blob operand, if any, goes to blob and blob_len. */
static uint64_t read_record(struct bits *b, const struct abbrev *a, const uint8_t **blob,
                            uint64_t *blob_len)
{
	uint64_t code = 0;
	for (unsigned i = 0; i < a->nops && !b->bad; i++) {
		const struct op *o = &a->ops[i];
		uint64_t v = 0;
		if (o->kind == 3) { /* array of the next operand, which ends it */
			uint64_t n = read_vbr(b, 6);
			if (i + 1 >= a->nops || n > b->nbits - b->pos)
				b->bad = true;
			for (uint64_t k = 0; k < n && !b->bad; k++)
				read_scalar(b, &a->ops[i + 1]);
			break;
		}
		if (o->kind == 5) {
			uint64_t n = read_vbr(b, 6);
			align32(b);
			if (b->bad || n > (b->nbits - b->pos) / 8) {
				b->bad = true;
				break;
			}
			*blob = b->p + b->pos / 8;
			*blob_len = n;
			b->pos += 8 * n;
			align32(b);
			continue;
		}
		v = read_scalar(b, o);
		if (i == 0)
			code = v;
	}
	return code;
}

static void skip_unabbrev(struct bits *b)
{
	read_vbr(b, 6); /* code */
	uint64_t n = read_vbr(b, 6);
	for (uint64_t i = 0; i < n && !b->bad; i++)
		read_vbr(b, 6);
}

/* Inside a SYMTAB or STRTAB block: the blob of its record with code 1. */
static void read_blob_block(struct bits *b, unsigned width, uint64_t end, const uint8_t **blob,
                            uint64_t *len)
{
	struct abbrev *abbrevs = ofl_calloc(MAX_ABBREVS, sizeof(*abbrevs));
	unsigned nabbrevs = 0;
	b->bad = b->bad || !abbrevs;
	while (!b->bad && b->pos < end) {
		uint64_t id = read_bits(b, width);
		if (id == 0) { /* END_BLOCK */
			align32(b);
			break;
		}
		if (id == 1) { /* a nested block: skipped */
			read_vbr(b, 8);
			read_vbr(b, 4);
			align32(b);
			uint64_t words = read_bits(b, 32);
			if (words > (b->nbits - b->pos) / 32)
				b->bad = true;
			b->pos += 32 * words;
		} else if (id == 2) {
			if (nabbrevs == MAX_ABBREVS)
				b->bad = true;
			else
				define_abbrev(b, &abbrevs[nabbrevs++]);
		} else if (id == 3) {
			skip_unabbrev(b);
		} else if (id - 4 < nabbrevs) {
			const uint8_t *p = NULL;
			uint64_t n = 0;
			if (read_record(b, &abbrevs[id - 4], &p, &n) == 1 && p) {
				*blob = p;
				*len = n;
			}
		} else {
			b->bad = true;
		}
	}
	free(abbrevs);
}

/* The bitstream of data: past the wrapper header when there is one. */
static bool bitstream(const uint8_t *data, size_t size, struct bits *b)
{
	if (size >= 20 && ofl_le32(data) == OFL_BITCODE_WRAPPER) {
		uint32_t off = ofl_le32(data + 8), len = ofl_le32(data + 12);
		if (!ofl_range_ok(off, len, size))
			return false;
		data += off;
		size = len;
	}
	if (size < 4 || memcmp(data, OFL_BITCODE_MAGIC, 4))
		return false;
	*b = (struct bits){data, (uint64_t)size * 8, 32, false};
	return true;
}

bool ofl_bitcode_is(const uint8_t *data, size_t size)
{
	struct bits b;
	return bitstream(data, size, &b);
}

/* The top level: 2-bit abbreviation ids, blocks only. */
static int find_blobs(const uint8_t *data, size_t size, const uint8_t **sym, uint64_t *nsym,
                      const uint8_t **str, uint64_t *nstr, struct ofl_error *err)
{
	struct bits b;
	if (!bitstream(data, size, &b))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not LLVM bitcode");
	while (!b.bad && b.nbits - b.pos >= 32) {
		if (read_bits(&b, 2) != 1)
			break; /* padding after the last block */
		uint64_t id = read_vbr(&b, 8);
		unsigned width = (unsigned)read_vbr(&b, 4);
		align32(&b);
		uint64_t words = read_bits(&b, 32);
		if (b.bad || words > (b.nbits - b.pos) / 32 || width < 2 || width > 32) {
			b.bad = true;
			break;
		}
		uint64_t end = b.pos + 32 * words;
		if (id == BLOCK_SYMTAB)
			read_blob_block(&b, width, end, sym, nsym);
		else if (id == BLOCK_STRTAB)
			read_blob_block(&b, width, end, str, nstr);
		b.pos = end;
	}
	if (b.bad)
		return ofl_error_set(err, OFL_EFORMAT, NULL, b.pos / 8, "malformed bitcode");
	return *sym && *str ? 0
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

static int read_symbols(const uint8_t *sym, uint64_t nsym, const uint8_t *str, uint64_t nstr,
                        struct ofl_bcsymtab *t, struct ofl_error *err)
{
	const char *ignored;
	size_t ignored_len;
	uint32_t off = ofl_le32(sym + 28), n = ofl_le32(sym + 32);
	if (!ofl_range_ok(off, (uint64_t)n * SYMBOL_SIZE, nsym))
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "bitcode symbol table: %u symbols past its end", n);
	if (!(t->syms = ofl_calloc(n, sizeof(*t->syms))))
		return OFL_NOMEM(err);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *s = sym + off + (uint64_t)i * SYMBOL_SIZE;
		struct ofl_bcsym *o = &t->syms[t->n];
		if (!str_ok(s, nstr, &o->name, &o->len, str) ||
		    !str_ok(s + 8, nstr, &ignored, &ignored_len, str))
			return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
			                     "bitcode symbol %u: name past the string table", i);
		o->flags = ofl_le32(s + 20);
		o->visibility = o->flags & 3;
		t->n++;
	}
	return 0;
}

int ofl_bitcode_symtab(const uint8_t *data, size_t size, struct ofl_bcsymtab *t,
                       struct ofl_error *err)
{
	const uint8_t *sym = NULL, *str = NULL;
	uint64_t nsym = 0, nstr = 0;
	*t = (struct ofl_bcsymtab)OFL_BCSYMTAB_INIT;
	int rc = find_blobs(data, size, &sym, &nsym, &str, &nstr, err);
	if (rc)
		return rc;
	if (nsym < HEADER_SIZE || !str_ok(sym + 4, nstr, &t->producer, &t->producer_len, str) ||
	    !str_ok(sym + 44, nstr, &t->triple, &t->triple_len, str))
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "malformed bitcode symbol table header");
	t->version = ofl_le32(sym);
	rc = read_symbols(sym, nsym, str, nstr, t, err);
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
