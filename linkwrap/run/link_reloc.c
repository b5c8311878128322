/* LLVM's relocatable mode (--offload-relocatable): the device code of a -r
 * link is linked and registered now, and the merged object is made
 * self-contained: the input images leave (the final link must not link
 * them again) and the entry tables become private to it, their sections
 * renamed to <sec>_<hash> along with the __start_/__stop_ symbols the
 * wrapper's descriptor uses (docs/integration.md, "Relocatable links").
 * LLVM runs llvm-objcopy for this; here it is elf_edit.c in process. */
#include <stdio.h>
#include <stdlib.h>

#include "elf_edit.h"
#include "internal.h"
#include "offlink/ccob.h"
#include "entries.h"
#include "link_priv.h"
#include "offlink/io.h"
#include "offlink/link.h"
#include "offlink/offload_scan.h"

/* The input images: offloading sections the host link does not load. */
static bool is_input_image(void *ctx, const char *name, const GElf_Shdr *sh)
{
	return sh->sh_type == OFL_SHT_LLVM_OFFLOADING && !(sh->sh_flags & SHF_ALLOC);
}

/* Each entry section and its relocation section get "_<hash>", and so do
 * the __start_/__stop_ symbols of each. */
enum { NAMES = 4 }; /* <sec>, .rela<sec>, __start_<sec>, __stop_<sec> */
struct renames {
	char from[OFL_NENTRY_SECTIONS][NAMES][96], to[OFL_NENTRY_SECTIONS][NAMES][128];
	struct ofl_elf_rename secs[2 * OFL_NENTRY_SECTIONS], syms[2 * OFL_NENTRY_SECTIONS];
};

static void make_renames(struct renames *r, const char *hash)
{
	static const char *const prefix[NAMES] = {"", ".rela", "__start_", "__stop_"};
	for (size_t i = 0; i < OFL_NENTRY_SECTIONS; i++) {
		for (int k = 0; k < NAMES; k++) {
			snprintf(r->from[i][k], 96, "%s%s", prefix[k], ofl_entry_sections()[i]);
			snprintf(r->to[i][k], 128, "%s%s_%s", prefix[k], ofl_entry_sections()[i],
			         hash);
		}
		for (int k = 0; k < 2; k++) {
			r->secs[2 * i + k] = (struct ofl_elf_rename){r->from[i][k], r->to[i][k]};
			r->syms[2 * i + k] =
			    (struct ofl_elf_rename){r->from[i][2 + k], r->to[i][2 + k]};
		}
	}
}

int ofl_link_finish_relocatable(const char *merged, const char *output, struct ofl_error *err)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_out out = OFL_OUT_INIT;
	struct renames *r = ofl_calloc(1, sizeof(*r));
	char hash[17];
	int rc = r ? ofl_file_open(&f, merged, err) : OFL_NOMEM(err);
	if (!rc) {
		ofl_entry_hash(f.data, f.size, hash);
		make_renames(r, hash);
	}
	struct ofl_elf_edit ed = {is_input_image,     NULL,
	                          r ? r->secs : NULL, 2 * OFL_NENTRY_SECTIONS,
	                          r ? r->syms : NULL, 2 * OFL_NENTRY_SECTIONS};
	rc = rc ? rc : ofl_out_open(&out, output, err);
	rc = rc ? rc : ofl_elf_edit_copy(out.fd, f.data, f.size, &ed, err);
	rc = rc ? rc : ofl_out_commit(&out, err);
	if (rc)
		ofl_out_abort(&out);
	ofl_file_close(&f);
	free(r);
	return rc;
}
