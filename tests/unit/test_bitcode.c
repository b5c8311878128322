#include "harness.h"
#include "offlink/bitcode.h"
#include "offlink/buf.h"
#include "offlink/offload_binary.h"

static const struct ofl_bcsym *find(const struct ofl_bcsymtab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->syms[i].len == strlen(name) &&
		    !memcmp(t->syms[i].name, name, t->syms[i].len))
			return &t->syms[i];
	return NULL;
}

/* What llvm-nm 22 prints for the fixture: U for the two runtime calls, W
 * for the kernels and their environments, D for the two globals. */
static void check_omp_symbols(const struct ofl_bcsymtab *t)
{
	static const char *const weak[] = {
	    "__omp_offloading_fe00_510144_k1_l10", "__omp_offloading_fe00_510144_k2_l16",
	    "__omp_offloading_fe00_510144_k1_l10_kernel_environment"};
	for (size_t i = 0; i < 3; i++) {
		const struct ofl_bcsym *s = find(t, weak[i]);
		CHECK(s && (s->flags & OFL_BCSYM_WEAK) && (s->flags & OFL_BCSYM_GLOBAL) &&
		      !(s->flags & OFL_BCSYM_UNDEFINED));
	}
	const struct ofl_bcsym *u = find(t, "__kmpc_target_init");
	CHECK(u && (u->flags & OFL_BCSYM_UNDEFINED));
	const struct ofl_bcsym *gv = find(t, "gv");
	CHECK(gv && !(gv->flags & (OFL_BCSYM_UNDEFINED | OFL_BCSYM_WEAK)));
	CHECK(find(t, "arr"));
}

OFL_TEST(bitcode_symtab_llvm22)
{
	struct ofl_buf b = ofl_test_fixture("llvm22/omp-gfx90a.bc");
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_bitcode_is(b.data, b.len));
	CHECK_EQ_U(ofl_bitcode_symtab(b.data, b.len, &t, &e), 0);
	CHECK_EQ_U(t.n, 12);
	CHECK_EQ_U(ofl_bitcode_llvm_major(&t), 22);
	CHECK(t.triple_len == 17 && !memcmp(t.triple, "amdgcn-amd-amdhsa", 17));
	check_omp_symbols(&t);
	ofl_bitcode_symtab_release(&t);
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_symtab_llvm19)
{
	struct ofl_buf b = ofl_test_fixture("llvm19/omp-gfx90a.bc");
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_bitcode_symtab(b.data, b.len, &t, &e), 0);
	CHECK_EQ_U(ofl_bitcode_llvm_major(&t), 19);
	check_omp_symbols(&t);
	ofl_bitcode_symtab_release(&t);
	ofl_buf_release(&b);
}

/* The header alone: what the full read gives, without the symbols. */
OFL_TEST(bitcode_symtab_header)
{
	static const char *const files[] = {"llvm22/omp-gfx90a.bc", "llvm19/omp-gfx90a.bc"};
	for (size_t i = 0; i < 2; i++) {
		struct ofl_buf b = ofl_test_fixture(files[i]);
		struct ofl_bcsymtab t, h;
		struct ofl_error e = OFL_ERROR_INIT;
		CHECK_EQ_U(ofl_bitcode_symtab(b.data, b.len, &t, &e), 0);
		CHECK_EQ_U(ofl_bitcode_symtab_header(b.data, b.len, &h, &e), 0);
		CHECK(h.n == 0 && h.syms == NULL && h.version == t.version);
		CHECK_EQ_U(ofl_bitcode_llvm_major(&h), i ? 19 : 22);
		CHECK(h.producer == t.producer && h.producer_len == t.producer_len);
		CHECK(h.triple == t.triple && h.triple_len == t.triple_len);
		CHECK(ofl_bitcode_symtab_header(b.data, 2000, &h, &e) == OFL_EFORMAT);
		ofl_error_clear(&e);
		ofl_bitcode_symtab_release(&t);
		ofl_buf_release(&b);
	}
}

/* The bitcode wrapper header (as Darwin tools write) in front. */
OFL_TEST(bitcode_symtab_through_wrapper)
{
	struct ofl_buf b = ofl_test_fixture("llvm22/omp-gfx90a.bc"), w = OFL_BUF_INIT;
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(b.len > 0);
	uint32_t hdr[5] = {0x0b17c0de, 0, 20, (uint32_t)b.len, 7};
	CHECK_EQ_U(ofl_buf_append(&w, hdr, sizeof hdr), 0);
	CHECK_EQ_U(ofl_buf_append(&w, b.data, b.len), 0);
	CHECK_EQ_U(ofl_bitcode_symtab(w.data, w.len, &t, &e), 0);
	CHECK_EQ_U(t.n, 12);
	ofl_bitcode_symtab_release(&t);
	ofl_buf_release(&w);
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_bad_input)
{
	struct ofl_buf b = ofl_test_fixture("llvm22/omp-gfx90a.bc");
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(b.len > 2000);
	/* cut inside the module block: its length runs past the end */
	CHECK(ofl_bitcode_symtab(b.data, 2000, &t, &e) == OFL_EFORMAT);
	CHECK(strstr(e.msg, "malformed bitcode"));
	ofl_error_clear(&e);
	CHECK(ofl_bitcode_symtab((const uint8_t *)"\177ELF", 4, &t, &e) == OFL_EFORMAT);
	CHECK(!ofl_bitcode_is((const uint8_t *)"BC", 2));
	ofl_buf_release(&b);
}

/* ---- module walk: section names and the globals of a section ------------ */

struct want_global {
	const char *name;
	const char *bytes;
	size_t size;
	unsigned module;
};

static void check_globals(const struct ofl_bcglobals *g, const struct want_global *w, size_t n)
{
	CHECK_EQ_U(g->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct ofl_bcglobal *o = &g->globals[i];
		CHECK(o->name_len == strlen(w[i].name) && !memcmp(o->name, w[i].name, o->name_len));
		CHECK_EQ_U(o->module, w[i].module);
		CHECK_EQ_U(o->size, w[i].size);
		CHECK_MEM(o->data, w[i].bytes, o->size);
	}
}

/* The files given to -fembed-offload-object (fixtures/bitcode/make.sh):
 * clang writes a CSTRING of char6 elements, a CSTRING of 7-bit ones and a
 * STRING of 8-bit ones; each global holds exactly its file's bytes. */
static const struct want_global embed3[] = {
    {"llvm.embedded.object", "hello_World.9", 14, 0},
    {"llvm.embedded.object.1", "Hi there!", 10, 0},
    {"llvm.embedded.object.2",
     "\x10\xff\x10\xad"
     "abc",
     7, 0},
};

static void check_embed3(const char *fixture)
{
	struct ofl_buf b = ofl_test_fixture(fixture);
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_bitcode_section_globals(b.data, b.len, ".llvm.offloading", &g, &e), 0);
	check_globals(&g, embed3, 3);
	CHECK_EQ_U(g.nmodules, 1);
	CHECK_EQ_U(g.nsections, 2);
	CHECK_STR(g.sections[0].name, ".llvm.offloading");
	CHECK_STR(g.sections[1].name, "llvm.metadata");
	CHECK(ofl_bcglobals_has_section(&g, "llvm.metadata"));
	CHECK(!ofl_bcglobals_has_section(&g, "llvm_offload_entries"));
	ofl_bcglobals_release(&g);
	ofl_bcglobals_release(&g); /* harmless twice */
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_globals_embed3_llvm22)
{
	check_embed3("bitcode/llvm22-embed3.bc");
}

OFL_TEST(bitcode_globals_embed3_llvm19)
{
	check_embed3("bitcode/llvm19-embed3.bc");
}

/* llvm-cat -b: two modules, each with its own BLOCKINFO, abbreviations and
 * value numbers, each followed by its STRTAB. */
OFL_TEST(bitcode_globals_two_modules)
{
	static const struct want_global second = {"llvm.embedded.object", "second\x80module\n", 14,
	                                          1};
	struct want_global w[4];
	struct ofl_buf b = ofl_test_fixture("bitcode/llvm22-two-modules.bc");
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	memcpy(w, embed3, sizeof embed3);
	w[3] = second;
	CHECK_EQ_U(ofl_bitcode_section_globals(b.data, b.len, ".llvm.offloading", &g, &e), 0);
	check_globals(&g, w, 4);
	CHECK_EQ_U(g.nmodules, 2);
	CHECK_EQ_U(g.nsections, 4);
	CHECK(g.sections[2].module == 1 && !strcmp(g.sections[2].name, ".llvm.offloading"));
	ofl_bcglobals_release(&g);
	ofl_buf_release(&b);
}

/* A host object of clang -flto -fopenmp -fopenmp-targets=x86_64: its one
 * global is an OffloadBinary, exactly (its size field is the global's
 * size), holding the device's ELF object; the entry table's section tells the
 * release: llvm_offload_entries from 20 on, omp_offloading_entries in 19. */
static void check_omp_lto(const char *fixture, const char *entries, const char *not_entries)
{
	struct ofl_buf b = ofl_test_fixture(fixture);
	struct ofl_bcglobals g;
	struct ofl_obin bin = OFL_OBIN_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_bitcode_section_globals(b.data, b.len, ".llvm.offloading", &g, &e), 0);
	CHECK(ofl_bcglobals_has_section(&g, entries) &&
	      !ofl_bcglobals_has_section(&g, not_entries));
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_U(ofl_obin_parse(g.globals[0].data, g.globals[0].size, &bin, &e), 0);
	CHECK_EQ_U(bin.size, g.globals[0].size);
	CHECK_STR(ofl_obin_get(&bin, "triple"), "x86_64-pc-linux-gnu");
	CHECK(bin.image_kind == 1 && bin.image_size > 4 && !memcmp(bin.image, "\177ELF", 4));
	ofl_obin_release(&bin);
	ofl_bcglobals_release(&g);
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_globals_omp_lto_llvm22)
{
	check_omp_lto("bitcode/llvm22-omp-lto.bc", "llvm_offload_entries",
	              "omp_offloading_entries");
}

OFL_TEST(bitcode_globals_omp_lto_llvm19)
{
	check_omp_lto("bitcode/llvm19-omp-lto.bc", "omp_offloading_entries",
	              "llvm_offload_entries");
}

/* sections.c: one global per section; only byte strings are read, any
 * other initializer (or none) is an error at its record, never skipped. */
static void check_sections(const char *fixture)
{
	static const struct {
		const char *section, *msg;
	} bad[] = {
	    {"s.data", "constant code 22,"}, /* CST_CODE_DATA: [3 x i32] */
	    {"s.agg", "constant code 7,"},   /* AGGREGATE: a struct */
	    {"s.zero", "constant code 2,"},  /* NULL: zeroinitializer */
	    {"s.int", "constant code 4,"},   /* INTEGER */
	    {"s.ptr", "by a global value"},  /* @d itself */
	    {"s.decl", "has no initializer"},
	};
	static const struct want_global str[] = {{"s", "abc", 4, 0},
	                                         {"t", "\xff\x01\x02\x03", 4, 0}};
	struct ofl_buf b = ofl_test_fixture(fixture);
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ofl_error_clear(&e);
		CHECK(ofl_bitcode_section_globals(b.data, b.len, bad[i].section, &g, &e) ==
		      OFL_EUNSUPPORTED);
		CHECK(strstr(e.msg, bad[i].msg) && strstr(e.msg, bad[i].section));
		CHECK(e.offset > 0 && e.offset < b.len);
		CHECK(g.n == 0 && !g.globals && !g.sections); /* released on error */
	}
	CHECK_EQ_U(ofl_bitcode_section_globals(b.data, b.len, "s.str", &g, &e), 0);
	check_globals(&g, str, 2);
	ofl_bcglobals_release(&g);
	CHECK_EQ_U(ofl_bitcode_section_globals(b.data, b.len, NULL, &g, &e), 0);
	CHECK(g.n == 0 && g.nsections == 7 && ofl_bcglobals_has_section(&g, "s.decl"));
	ofl_bcglobals_release(&g);
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_globals_initializer_kinds_llvm22)
{
	check_sections("bitcode/llvm22-sections.bc");
}

OFL_TEST(bitcode_globals_initializer_kinds_llvm19)
{
	check_sections("bitcode/llvm19-sections.bc");
}

static struct ofl_buf wrapped(const struct ofl_buf *b)
{
	struct ofl_buf w = OFL_BUF_INIT;
	uint32_t hdr[5] = {0x0b17c0de, 0, 20, (uint32_t)b->len, 7};
	if (ofl_buf_append(&w, hdr, sizeof hdr) || ofl_buf_append(&w, b->data, b->len))
		ofl_buf_release(&w);
	return w;
}

/* Behind a wrapper header: the same globals, error offsets count the header. */
OFL_TEST(bitcode_globals_through_wrapper)
{
	struct ofl_buf b = ofl_test_fixture("bitcode/llvm22-embed3.bc"), w = wrapped(&b);
	struct ofl_buf s = ofl_test_fixture("bitcode/llvm22-sections.bc"), ws = wrapped(&s);
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT, ew = OFL_ERROR_INIT;
	CHECK(w.len == b.len + 20 && ws.len == s.len + 20);
	CHECK_EQ_U(ofl_bitcode_section_globals(w.data, w.len, ".llvm.offloading", &g, &e), 0);
	check_globals(&g, embed3, 3);
	ofl_bcglobals_release(&g);
	CHECK(ofl_bitcode_section_globals(s.data, s.len, "s.data", &g, &e) == OFL_EUNSUPPORTED);
	CHECK(ofl_bitcode_section_globals(ws.data, ws.len, "s.data", &g, &ew) == OFL_EUNSUPPORTED);
	CHECK_EQ_U(ew.offset, e.offset + 20);
	ofl_buf_release(&b);
	ofl_buf_release(&w);
	ofl_buf_release(&s);
	ofl_buf_release(&ws);
}

/* A prefix of a file is an error with a message (the STRTAB, last, is cut
 * at least), never a crash or a partial module; a cut between two modules
 * leaves a whole first one.  The symbol table reader copes as well. */
static void check_prefixes(const char *fixture, unsigned modules)
{
	struct ofl_buf b = ofl_test_fixture(fixture);
	size_t whole = 0;
	CHECK(b.len > 1000);
	for (size_t n = 0; n < b.len; n++) {
		struct ofl_bcglobals g;
		struct ofl_bcsymtab t;
		struct ofl_error e = OFL_ERROR_INIT;
		int rc = ofl_bitcode_section_globals(b.data, n, ".llvm.offloading", &g, &e);
		if (!rc) { /* two-modules.bc cut after the first: embed3.bc */
			CHECK(g.nmodules < modules && g.n == 3 && g.globals[2].size == 7);
			whole++;
		} else {
			CHECK(rc == OFL_EFORMAT && e.msg[0]);
			CHECK(e.offset == OFL_NO_OFFSET || e.offset <= n);
			CHECK(g.n == 0 && !g.names);
		}
		ofl_bcglobals_release(&g);
		ofl_error_clear(&e);
		if (!ofl_bitcode_symtab(b.data, n, &t, &e))
			ofl_bitcode_symtab_release(&t);
	}
	CHECK(modules > 1 ? whole > 0 : whole == 0);
	ofl_buf_release(&b);
}

OFL_TEST(bitcode_globals_truncated)
{
	check_prefixes("bitcode/llvm22-embed3.bc", 1);
	check_prefixes("bitcode/llvm19-omp-lto.bc", 1);
	check_prefixes("bitcode/llvm22-two-modules.bc", 2);
}

/* ---- crafted streams ---------------------------------------------------- */

/* A bit writer: the bitstream as docs/formats.md §8 describes it. */
struct bw {
	uint8_t *p;
	size_t cap;
	uint64_t pos;
};

struct wop { /* an abbreviation operand: kind 0 a literal, else the encoding */
	unsigned kind;
	uint64_t value;
};

static void put(struct bw *w, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, w->pos++)
		if ((v >> i & 1) && w->pos / 8 < w->cap)
			w->p[w->pos / 8] |= (uint8_t)(1u << (w->pos & 7));
}

static void put_vbr(struct bw *w, uint64_t v, unsigned n)
{
	uint64_t more = 1ull << (n - 1);
	do {
		uint64_t piece = v & (more - 1);
		v >>= n - 1;
		put(w, piece | (v ? more : 0), n);
	} while (v);
}

static void put_align(struct bw *w)
{
	w->pos = (w->pos + 31) & ~(uint64_t)31;
}

static struct bw bw_new(size_t cap)
{
	struct bw w = {calloc(cap, 1), cap, 0};
	put(&w, 0xdec04342, 32);
	return w;
}

/* ENTER_SUBBLOCK from a block of `outer`-bit ids; where its length goes. */
static uint64_t put_enter(struct bw *w, unsigned outer, unsigned id, unsigned width)
{
	put(w, 1, outer);
	put_vbr(w, id, 8);
	put_vbr(w, width, 4);
	put_align(w);
	put(w, 0, 32);
	return w->pos - 32;
}

static void put_end(struct bw *w, unsigned width, uint64_t len_at)
{
	uint64_t end;
	put(w, 0, width);
	put_align(w);
	end = w->pos;
	w->pos = len_at;
	put(w, (end - len_at - 32) / 32, 32);
	w->pos = end;
}

static void put_unabbrev(struct bw *w, unsigned width, unsigned code, const uint64_t *ops,
                         unsigned n)
{
	put(w, 3, width);
	put_vbr(w, code, 6);
	put_vbr(w, n, 6);
	for (unsigned i = 0; i < n; i++)
		put_vbr(w, ops[i], 6);
}

static void put_define(struct bw *w, unsigned width, const struct wop *ops, unsigned n)
{
	put(w, 2, width);
	put_vbr(w, n, 5);
	for (unsigned i = 0; i < n; i++) {
		put(w, !ops[i].kind, 1);
		if (!ops[i].kind) {
			put_vbr(w, ops[i].value, 8);
			continue;
		}
		put(w, ops[i].kind, 3);
		if (ops[i].kind <= 2) /* fixed, vbr: the width */
			put_vbr(w, ops[i].value, 5);
	}
}

enum { W_LIT = 0, W_FIXED = 1, W_VBR = 2, W_ARRAY = 3, W_CHAR6 = 4, W_BLOB = 5 };
enum { QUAD_SIZE = 64 * 1024 };

/* The quadratic walk: abbreviation [literal 2, array, elt], then records
 * whose arrays claim as many elements as there are bits left, 64 KiB of
 * them, in a top-level SYMTAB block or a module's CONSTANTS block.  An
 * element reading no bits made each record loop that often: 10 s of work
 * (tests/fuzz/corpus/bitcode/quadratic-array.bc).  *define: the byte
 * offset of the DEFINE_ABBREV. */
static struct bw quadratic(struct wop elt, bool module, uint64_t *define)
{
	struct bw w = bw_new(QUAD_SIZE);
	uint64_t mod = 0, blk, version = 2;
	struct wop ops[3] = {{W_LIT, 2}, {W_ARRAY, 0}, elt};
	if (module) {
		mod = put_enter(&w, 2, 8, 3);
		put_unabbrev(&w, 3, 1, &version, 1);
		blk = put_enter(&w, 3, 11, 4);
	} else {
		blk = put_enter(&w, 2, 25, 4);
	}
	*define = w.pos / 8;
	put_define(&w, 4, ops, 3);
	while (w.pos + 4 + 30 + 64 < QUAD_SIZE * 8) {
		put(&w, 4, 4);
		put_vbr(&w, QUAD_SIZE * 8 - (w.pos + 24), 6);
	}
	put_end(&w, 4, blk);
	if (module)
		put_end(&w, 3, mod);
	return w;
}

OFL_TEST(bitcode_array_elements_read_bits)
{
	static const struct wop none[] = {{W_FIXED, 0}, {W_VBR, 0}, {W_LIT, 7}};
	for (size_t i = 0; i < 3; i++) {
		for (int module = 0; module < 2; module++) {
			uint64_t define;
			struct bw w = quadratic(none[i], module, &define);
			struct ofl_bcsymtab t;
			struct ofl_bcglobals g;
			struct ofl_error e = OFL_ERROR_INIT;
			CHECK(w.pos <= QUAD_SIZE * 8);
			int rc = module ? ofl_bitcode_section_globals(w.p, QUAD_SIZE, "s", &g, &e)
			                : ofl_bitcode_symtab(w.p, QUAD_SIZE, &t, &e);
			free(w.p);
			CHECK(rc == OFL_EFORMAT);
			CHECK(strstr(e.msg, "array element is not a fixed, vbr or char6 operand"));
			CHECK_EQ_U(e.offset, define);
		}
	}
}

/* Abbreviations LLVM rejects are errors at their definition. */
OFL_TEST(bitcode_bad_abbreviations)
{
	static const struct {
		struct wop ops[4];
		unsigned n;
		const char *msg;
	} bad[] = {
	    {{{W_LIT, 2}, {W_ARRAY, 0}, {W_ARRAY, 0}}, 3, "array element is not"},
	    {{{W_LIT, 2}, {W_ARRAY, 0}, {W_BLOB, 0}}, 3, "array element is not"},
	    {{{W_LIT, 2}, {W_ARRAY, 0}, {W_FIXED, 8}, {W_FIXED, 8}}, 4, "second-to-last"},
	    {{{W_LIT, 2}, {W_BLOB, 0}, {W_FIXED, 8}}, 3, "blob is not the last"},
	    {{{W_ARRAY, 0}, {W_FIXED, 8}}, 2, "record code is an array"},
	    {{{W_LIT, 2}, {W_FIXED, 33}}, 2, "wider than 32"},
	    {{{W_LIT, 2}, {6, 0}}, 2, "unknown operand encoding"},
	    {{{W_LIT, 2}}, 0, "without operands"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct bw w = bw_new(64);
		struct ofl_bcsymtab t;
		struct ofl_error e = OFL_ERROR_INIT;
		uint64_t blk = put_enter(&w, 2, 25, 3), define = w.pos / 8;
		put_define(&w, 3, bad[i].ops, bad[i].n);
		put_end(&w, 3, blk);
		CHECK(ofl_bitcode_symtab(w.p, w.pos / 8, &t, &e) == OFL_EFORMAT);
		free(w.p);
		CHECK(strstr(e.msg, bad[i].msg));
		CHECK_EQ_U(e.offset, define);
	}
}

struct crafted {
	uint64_t version, init; /* init: the initializer's value id + 1 */
	uint64_t last;          /* the STRING's last element */
	bool reuse;             /* the second CONSTANTS block uses the first's abbreviation */
	bool twice;             /* SECTIONNAME "sec" written twice */
};

/* A module with one global "g" in section "sec": value 0; a CONSTANTS block
 * [SETTYPE, INTEGER 5 (its own abbreviation)]: value 1; another [SETTYPE,
 * STRING {1, 2, last}, CSTRING "ab"], unabbreviated: values 2 and 3; then
 * the STRTAB. */
static struct bw crafted_module(const struct crafted *c)
{
	static const struct wop integer[] = {{W_LIT, 4}, {W_VBR, 6}};
	static const struct wop blob[] = {{W_LIT, 1}, {W_BLOB, 0}};
	struct bw w = bw_new(256);
	uint64_t sec[] = {'s', 'e', 'c'}, gv[] = {0, 1, 0, 1, c->init, 0, 0, 1};
	uint64_t type = 0, str[] = {1, 2, c->last}, cstr[] = {'a', 'b'};
	uint64_t mod = put_enter(&w, 2, 8, 3), blk;
	put_unabbrev(&w, 3, 1, &c->version, 1);
	put_unabbrev(&w, 3, 5, sec, 3);
	if (c->twice)
		put_unabbrev(&w, 3, 5, sec, 3);
	put_unabbrev(&w, 3, 7, gv, 8);
	blk = put_enter(&w, 3, 11, 4);
	put_unabbrev(&w, 4, 1, &type, 1);
	put_define(&w, 4, integer, 2);
	put(&w, 4, 4);
	put_vbr(&w, 10, 6);
	put_end(&w, 4, blk);
	blk = put_enter(&w, 3, 11, 4);
	put_unabbrev(&w, 4, 1, &type, 1);
	if (c->reuse) {
		put(&w, 4, 4);
		put_vbr(&w, 10, 6);
	}
	put_unabbrev(&w, 4, 8, str, 3);
	put_unabbrev(&w, 4, 9, cstr, 2);
	put_end(&w, 4, blk);
	put_end(&w, 3, mod);
	blk = put_enter(&w, 2, 23, 3);
	put_define(&w, 3, blob, 2);
	put(&w, 4, 3);
	put_vbr(&w, 1, 6);
	put_align(&w);
	put(&w, 'g', 8);
	put_align(&w);
	put_end(&w, 3, blk);
	return w;
}

/* Global names point into the stream: the caller frees w->p after use. */
static int run_crafted(const struct crafted *c, struct bw *w, struct ofl_bcglobals *g,
                       struct ofl_error *e)
{
	*w = crafted_module(c);
	return ofl_bitcode_section_globals(w->p, w->pos / 8, "sec", g, e);
}

/* Unabbreviated (vbr6) strings, value ids across two CONSTANTS blocks. */
OFL_TEST(bitcode_crafted_module)
{
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	struct crafted c = {2, 3, 255, false, false};
	struct bw w;
	CHECK_EQ_U(run_crafted(&c, &w, &g, &e), 0);
	CHECK(g.n == 1 && g.globals[0].name_len == 1 && g.globals[0].name[0] == 'g');
	CHECK(g.globals[0].size == 3 && !memcmp(g.globals[0].data, "\x01\x02\xff", 3));
	ofl_bcglobals_release(&g);
	free(w.p);
	c.init = 4;
	CHECK_EQ_U(run_crafted(&c, &w, &g, &e), 0);
	CHECK(g.n == 1 && g.globals[0].size == 3 && !memcmp(g.globals[0].data, "ab", 3));
	ofl_bcglobals_release(&g);
	free(w.p);
}

OFL_TEST(bitcode_crafted_module_errors)
{
	static const struct {
		struct crafted c;
		int rc;
		const char *msg;
	} bad[] = {
	    {{1, 3, 1, false, false}, OFL_EUNSUPPORTED, "module version 1: only version 2"},
	    {{2, 2, 1, false, false}, OFL_EUNSUPPORTED, "constant code 4, not a byte string"},
	    {{2, 1, 1, false, false}, OFL_EUNSUPPORTED, "initialized by a global value"},
	    {{2, 9, 1, false, false}, OFL_EFORMAT, "initializer 8 past the module's 4 values"},
	    {{2, 3, 256, false, false}, OFL_EFORMAT, "string operand 256 above 255"},
	    {{2, 3, 1, true, false}, OFL_EFORMAT, "undefined abbreviation 4"},
	    {{2, 3, 1, false, true}, OFL_EUNSUPPORTED, "names section \"sec\" twice"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ofl_bcglobals g;
		struct ofl_error e = OFL_ERROR_INIT;
		struct bw w;
		int rc = run_crafted(&bad[i].c, &w, &g, &e);
		free(w.p);
		CHECK_EQ_U(rc, bad[i].rc);
		if (!strstr(e.msg, bad[i].msg))
			fprintf(stderr, "message: %s\n", e.msg);
		CHECK(strstr(e.msg, bad[i].msg) && e.offset > 0 && e.offset < 256);
	}
}
