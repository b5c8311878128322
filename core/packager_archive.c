/* Archive inputs and --archive output of the packager, through archive.h. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "offlink/archive.h"
#include "packager_priv.h"

int ofl_pkg_collect_archive(const uint8_t *data, size_t size, uint64_t base, unsigned flags,
                            unsigned depth, struct ofl_pkg_inputs *out,
                            enum ofl_obin_llvm_diag *diag, struct ofl_error *err)
{
	if (depth >= OFL_MAX_NESTING) {
		if (diag)
			*diag = OFL_OBIN_INVALID_DATA;
		return ofl_error_set(err, OFL_EFORMAT, NULL, base, "archives nested deeper than %d",
		                     OFL_MAX_NESTING);
	}
	/* Each archive is its own allocation: a nested member adds archives
	 * while this one is being walked. */
	struct ofl_archive *a = ofl_malloc(sizeof *a);
	if (!a || ofl_ptrs_push(&out->archives, a))
		return OFL_NOMEM(err);
	*a = (struct ofl_archive)OFL_ARCHIVE_INIT;
	int rc = ofl_archive_parse(data, size, a, err);
	if (rc) {
		if (diag)
			*diag = OFL_OBIN_INVALID_DATA;
		ofl_error_locate(err, NULL, base);
		return rc;
	}
	/* Thin members live in other files; LLVM reads them, we skip them. */
	for (size_t i = 0; i < a->nmembers && !rc; i++)
		if (a->members[i].data)
			rc = ofl_pkg_collect_buffer(a->members[i].data, (size_t)a->members[i].size,
			                            base + a->members[i].data_offset,
			                            a->members[i].name, flags, depth + 1, out, diag,
			                            err);
	return rc;
}

void ofl_pkg_release_archives(struct ofl_pkg_inputs *in)
{
	for (size_t i = 0; i < in->archives.n; i++)
		ofl_archive_release(in->archives.v[i]);
	ofl_ptrs_release(&in->archives);
}

int ofl_pkg_write_archive(const struct ofl_pkg_entry *const *e, size_t n, struct ofl_buf *out,
                          struct ofl_error *err)
{
	struct ofl_ar_input *m = ofl_calloc(n ? n : 1, sizeof *m);
	if (!m)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++)
		m[i] = (struct ofl_ar_input){e[i]->ident, e[i]->bin.image, e[i]->bin.image_size};
	int rc = ofl_archive_write_gnu(m, n, out, err);
	free(m);
	return rc;
}
