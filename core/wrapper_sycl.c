/* LLVM 22's SYCL registration as data (wrapper_sycl.h). */
#include "wrapper_sycl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "offlink/offload_scan.h"

struct collect {
	struct ofl_sycl_desc *d;
	size_t cap;
};

static int collect_set(void *ctx, const uint8_t *p, size_t left, uint64_t off, uint64_t *span,
                       struct ofl_error *err)
{
	struct collect *c = ctx;
	struct ofl_sycl_desc *d = c->d;
	(void)off;
	if (OFL_GROW(d->sets, c->cap, d->nsets))
		return OFL_NOMEM(err);
	int rc = ofl_obin_parse_set(p, left, &d->sets[d->nsets], err);
	if (rc)
		return rc;
	const struct ofl_obin_set *set = &d->sets[d->nsets++];
	*span = set->span;
	d->nimages += set->nentries;
	/* its images would be copies the writers do not keep: clang-sycl-linker
	 * 22 compresses nothing */
	return set->inflated ? ofl_error_set(err, OFL_EUNSUPPORTED, NULL, 0,
	                                     "a compressed OffloadBinary: LLVM 22 registers none")
	                     : 0;
}

/* The kernels of image im, one per line of its "symbols" (blank lines
 * skipped, a line's "\r\n" ending as "\n", as LLVM's line iterator reads
 * them), appended to d->kernels. */
static int kernels_of(struct ofl_sycl_desc *d, struct ofl_sycl_image *im, size_t *cap,
                      struct ofl_error *err)
{
	const char *p = ofl_obin_get(im->b, "symbols");
	im->first = d->nkernels;
	for (p = p ? p : ""; *p;) {
		size_t len = strcspn(p, "\n"),
		       n = len - (len && p[len] == '\n' && p[len - 1] == '\r');
		const char *name = p;
		p += len + (p[len] == '\n');
		if (!n)
			continue;
		if (OFL_GROW(d->kernels, *cap, d->nkernels))
			return OFL_NOMEM(err);
		d->kernels[d->nkernels++] = (struct ofl_sycl_kernel){name, n, 0, 0};
		im->n++;
	}
	return 0;
}

/* The kernels' names copied, each NUL-terminated (the writers embed the
 * NUL; in "symbols" a newline follows). */
static int own_names(struct ofl_sycl_desc *d, struct ofl_error *err)
{
	size_t total = 1;
	for (size_t k = 0; k < d->nkernels; k++)
		total += d->kernels[k].len + 1;
	char *p = d->names = ofl_malloc(total);
	if (!p)
		return OFL_NOMEM(err);
	for (size_t k = 0; k < d->nkernels; k++) {
		memcpy(p, d->kernels[k].name, d->kernels[k].len);
		p[d->kernels[k].len] = '\0';
		d->kernels[k].name = p;
		p += d->kernels[k].len + 1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct ofl_sycl_kernel *x = *(struct ofl_sycl_kernel *const *)a,
	                             *y = *(struct ofl_sycl_kernel *const *)b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	c = c ? c : (x->len > y->len) - (x->len < y->len);
	return c ? c : (x > y) - (x < y);
}

/* The suffixes, in the order LLVM 22 makes the globals: per image its
 * kernels' .offloading.entry_name (every one but the module's first
 * renamed) and .offloading.entry.<name> (renamed when an earlier kernel
 * has the name), then its entries_arr (every image's but the first's). */
static int suffixes(struct ofl_sycl_desc *d, struct ofl_error *err)
{
	struct ofl_sycl_kernel **sorted = ofl_calloc(d->nkernels + 1, sizeof(*sorted));
	bool *again = ofl_calloc(d->nkernels + 1, sizeof(*again));
	if (!sorted || !again) {
		free(sorted);
		free(again);
		return OFL_NOMEM(err);
	}
	for (size_t k = 0; k < d->nkernels; k++)
		sorted[k] = &d->kernels[k];
	qsort(sorted, d->nkernels, sizeof(*sorted), by_name);
	for (size_t k = 1; k < d->nkernels; k++)
		again[sorted[k] - d->kernels] =
		    sorted[k]->len == sorted[k - 1]->len &&
		    !memcmp(sorted[k]->name, sorted[k - 1]->name, sorted[k]->len);
	unsigned n = 0;
	for (size_t i = 0; i < d->nimages; i++) {
		struct ofl_sycl_image *im = &d->images[i];
		for (size_t k = im->first; k < im->first + im->n; k++) {
			d->kernels[k].name_sfx = k ? ++n : 0;
			d->kernels[k].entry_sfx = again[k] ? ++n : 0;
		}
		im->arr_sfx = i ? ++n : 0;
	}
	free(sorted);
	free(again);
	return 0;
}

int ofl_sycl_desc_read(const struct ofl_wrap_image *img, struct ofl_sycl_desc *d,
                       struct ofl_error *err)
{
	memset(d, 0, sizeof(*d));
	struct collect c = {d, 0};
	size_t cap = 0;
	int rc = ofl_scan_each(img->data, img->size, 0, OFL_SCAN_EXACT, collect_set, &c, err);
	if (!rc && (!d->nimages || d->nimages > UINT16_MAX))
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "SYCL: %zu images (LLVM 22 registers 1 to 65535)", d->nimages);
	if (!rc && !(d->images = ofl_calloc(d->nimages, sizeof(*d->images))))
		rc = OFL_NOMEM(err);
	for (size_t s = 0, i = 0; !rc && s < d->nsets; s++)
		for (size_t k = 0; !rc && k < d->sets[s].nentries; k++, i++) {
			d->images[i].b = &d->sets[s].entries[k];
			rc = kernels_of(d, &d->images[i], &cap, err);
		}
	rc = rc ? rc : own_names(d, err);
	rc = rc ? rc : suffixes(d, err);
	if (rc)
		ofl_sycl_desc_release(d);
	return rc;
}

const char *ofl_sycl_suffix(unsigned n, char buf[16])
{
	if (n)
		snprintf(buf, 16, ".%u", n);
	else
		buf[0] = '\0';
	return buf;
}

void ofl_sycl_desc_release(struct ofl_sycl_desc *d)
{
	for (size_t s = 0; s < d->nsets; s++)
		ofl_obin_set_release(&d->sets[s]);
	free(d->sets);
	free(d->images);
	free(d->kernels);
	free(d->names);
	memset(d, 0, sizeof(*d));
}
