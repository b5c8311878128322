#include "harness.h"
#include "offlink/bitcode.h"
#include "offlink/buf.h"

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
