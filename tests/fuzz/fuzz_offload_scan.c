/* Fuzzes the finders: the section walker (tolerant and strict), the raw
 * magic scanner, the ELF section finder (its own reader against libelf's),
 * what LLVM refuses on opening an ELF object and the packager's collector.
 * Every hit must lie inside the input and parse again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/elf.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"
#include "offlink/packager.h"

static void check_hits(const uint8_t *data, size_t size, const struct ofl_found_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ofl_found *f = &l->v[i];
		if (f->offset >= size || !ofl_obin_is(data + f->offset, size - f->offset))
			abort();
		struct ofl_obin_set s;
		struct ofl_error err = OFL_ERROR_INIT;
		if (ofl_obin_parse_set(data + f->offset, size - f->offset, &s, &err) != 0)
			abort();
		ofl_obin_set_release(&s);
	}
}

/* The section table read from the bytes and through libelf: the same
 * answer, or the same error. */
static void compare_readers(const uint8_t *data, size_t size, unsigned how)
{
	struct ofl_elf_sections a, b;
	struct ofl_error ea = OFL_ERROR_INIT, eb = OFL_ERROR_INIT;
	int ra = ofl_elf_offload_sections(data, size, how, &a, &ea);
	int rb = ofl_elf_offload_sections(data, size, how | OFL_ELFSEC_LIBELF, &b, &eb);
	if (ra != rb || (!ra && (a.n != b.n || a.fatbin != b.fatbin || a.bundle != b.bundle)))
		abort();
	for (size_t i = 0; !ra && i < a.n; i++)
		if (a.v[i].index != b.v[i].index || a.v[i].type != b.v[i].type ||
		    a.v[i].offset != b.v[i].offset || a.v[i].size != b.v[i].size ||
		    a.v[i].flags != b.v[i].flags || strcmp(a.v[i].name, b.v[i].name))
			abort();
	ofl_elf_sections_release(&a);
	ofl_elf_sections_release(&b);
}

/* member= selects by the name each entry was found under (an archive
 * member's, read from the input): it must match itself, whatever it is. */
static void match_members(const struct ofl_pkg_inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		struct ofl_pkg_args a = OFL_PKG_ARGS_INIT;
		struct ofl_error err = OFL_ERROR_INIT;
		/* a name holding ',' or '=' cannot be written as member= */
		if (strpbrk(in->v[i].ident, ",="))
			continue;
		size_t n = strlen(in->v[i].ident) + sizeof("member=");
		char *spec = malloc(n);
		if (!spec)
			abort();
		snprintf(spec, n, "member=%s", in->v[i].ident);
		if (ofl_pkg_args_parse(spec, &a, &err) == 0 &&
		    !ofl_pkg_match(&a, &in->v[i], OFL_LLVM_23, true))
			abort();
		ofl_pkg_args_release(&a);
		free(spec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_found_list l = OFL_FOUND_LIST_INIT;
	if (ofl_scan_file(data, size, 0, &l, &err) == 0)
		check_hits(data, size, &l);
	ofl_found_list_release(&l);
	ofl_error_clear(&err);
	if (ofl_scan_walk(data, size, 0, 0, OFL_SCAN_STRICT, &l, &err) == 0)
		check_hits(data, size, &l);
	ofl_found_list_release(&l);
	/* The magic finder agrees with a byte-at-a-time search. */
	const uint8_t *want = NULL;
	for (size_t i = 0; i + 4 <= size && !want; i++)
		if (ofl_obin_is(data + i, size - i))
			want = data + i;
	if (ofl_find_magic(data, data + size) != want)
		abort();
	for (unsigned how = OFL_ELFSEC_BY_TYPE; how <= (OFL_ELFSEC_BY_TYPE | OFL_ELFSEC_BY_NAME);
	     how++)
		compare_readers(data, size, how);
	/* LLVM's refusal of an ELF object always says why */
	ofl_error_clear(&err);
	if (ofl_is_elf(data, size) && ofl_elf_llvm_check(data, size, &err) != 0 && !err.msg[0])
		abort();
	struct ofl_pkg_inputs in;
	enum ofl_obin_llvm_diag diag;
	ofl_error_clear(&err);
	for (unsigned flags = 0; flags <= OFL_PKG_V2; flags++)
		if (ofl_pkg_collect(data, size, "fuzz", flags, &in, &diag, &err) == 0) {
			match_members(&in);
			ofl_pkg_inputs_release(&in);
		}
	return 0;
}
