#include "harness.h"
#include "offlink/bitcode.h"
#include "offlink/buf.h"
#include "offlink/offload_binary.h"

/* Fixtures live next to this file's directory; OFL_SRC overrides. */
static struct ofl_buf load(const char *rel)
{
	char path[4096];
	const char *src = getenv("OFL_SRC");
	const char *f = __FILE__, *cut = strstr(f, "unit/test_bitcode.c");
	if (src)
		snprintf(path, sizeof path, "%s/tests/fixtures/%s", src, rel);
	else
		snprintf(path, sizeof path, "%.*sfixtures/%s", (int)(cut - f), f, rel);
	struct ofl_buf b = OFL_BUF_INIT;
	FILE *fp = fopen(path, "rb");
	char tmp[4096];
	size_t n;
	while (fp && (n = fread(tmp, 1, sizeof tmp, fp)) > 0)
		if (ofl_buf_append(&b, tmp, n) < 0)
			break;
	if (fp)
		fclose(fp);
	return b;
}

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
	struct ofl_buf b = load("llvm22/omp-gfx90a.bc");
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
	struct ofl_buf b = load("llvm19/omp-gfx90a.bc");
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_bitcode_symtab(b.data, b.len, &t, &e), 0);
	CHECK_EQ_U(ofl_bitcode_llvm_major(&t), 19);
	check_omp_symbols(&t);
	ofl_bitcode_symtab_release(&t);
	ofl_buf_release(&b);
}

/* The bitcode wrapper header (as Darwin tools write) in front. */
OFL_TEST(bitcode_symtab_through_wrapper)
{
	struct ofl_buf b = load("llvm22/omp-gfx90a.bc"), w = OFL_BUF_INIT;
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
	struct ofl_buf b = load("llvm22/omp-gfx90a.bc");
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
	struct ofl_buf b = load(fixture);
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
	struct ofl_buf b = load("bitcode/llvm22-two-modules.bc");
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
	struct ofl_buf b = load(fixture);
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
	struct ofl_buf b = load(fixture);
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
	struct ofl_buf b = load("bitcode/llvm22-embed3.bc"), w = wrapped(&b);
	struct ofl_buf s = load("bitcode/llvm22-sections.bc"), ws = wrapped(&s);
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
	struct ofl_buf b = load(fixture);
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
