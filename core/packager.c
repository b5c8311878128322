/* The packager's logic (docs/formats.md §5.8), shared by `offlink package` and
 * the clang-offload-packager / llvm-offload-binary personalities. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "offlink/archive.h"
#include "offlink/format.h"
#include "offlink/io.h"
#include "offlink/offload_scan.h"
#include "offlink/elf.h"
#include "offlink/packager.h"

void ofl_pkg_args_release(struct ofl_pkg_args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->keys[i]);
		free(a->values[i]);
	}
	free(a->keys);
	free(a->values);
	*a = (struct ofl_pkg_args)OFL_PKG_ARGS_INIT;
}

static ptrdiff_t args_find(const struct ofl_pkg_args *a, const char *key, size_t klen)
{
	for (size_t i = 0; i < a->n; i++)
		if (strlen(a->keys[i]) == klen && !memcmp(a->keys[i], key, klen))
			return (ptrdiff_t)i;
	return -1;
}

const char *ofl_pkg_args_get(const struct ofl_pkg_args *a, const char *key)
{
	ptrdiff_t i = args_find(a, key, strlen(key));
	return i < 0 ? NULL : a->values[i];
}

/* Adds one "key=value" piece of length len. */
static int args_add(struct ofl_pkg_args *a, const char *piece, size_t len)
{
	const char *eq = memchr(piece, '=', len);
	size_t klen = eq ? (size_t)(eq - piece) : len;
	const char *val = eq ? eq + 1 : piece + len;
	size_t vlen = (size_t)(piece + len - val);
	ptrdiff_t i = args_find(a, piece, klen);
	if (i >= 0) {
		size_t olen = strlen(a->values[i]);
		char *v = ofl_realloc(a->values[i], olen + vlen + 2);
		if (!v)
			return OFL_ENOMEM;
		v[olen] = ',';
		memcpy(v + olen + 1, val, vlen);
		v[olen + 1 + vlen] = '\0';
		a->values[i] = v;
		return 0;
	}
	if (OFL_GROW(a->keys, a->kcap, a->n) || OFL_GROW(a->values, a->vcap, a->n))
		return OFL_ENOMEM;
	char *ks = ofl_strndup(piece, klen), *vs = ofl_strndup(val, vlen);
	if (!ks || !vs) {
		free(ks);
		free(vs);
		return OFL_ENOMEM;
	}
	a->keys[a->n] = ks;
	a->values[a->n++] = vs;
	return 0;
}

int ofl_pkg_args_parse(const char *spec, struct ofl_pkg_args *out, struct ofl_error *err)
{
	*out = (struct ofl_pkg_args)OFL_PKG_ARGS_INIT;
	for (;;) {
		const char *c = strchr(spec, ',');
		size_t len = c ? (size_t)(c - spec) : strlen(spec);
		if (args_add(out, spec, len)) {
			ofl_pkg_args_release(out);
			return OFL_NOMEM(err);
		}
		if (!c)
			return 0;
		spec = c + 1;
	}
}

int ofl_pkg_args_check(const struct ofl_pkg_args *a, enum ofl_llvm_version v, struct ofl_error *err)
{
	if (v == OFL_LLVM_19 && (!ofl_pkg_args_get(a, "file") || !ofl_pkg_args_get(a, "triple")))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "'file' and 'triple' are required image arguments");
	if (!ofl_pkg_args_get(a, "file"))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "'file' is a required image arguments");
	return 0;
}

/* llvm::sys::path::extension without the dot. */
static const char *path_ext(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return "";
	const char *dot = strrchr(base, '.');
	return dot ? dot + 1 : "";
}

static uint16_t image_kind_of(const char *path, const uint8_t *data, size_t size,
                              enum ofl_llvm_version v)
{
	if (ofl_format_of(data, size) == OFL_FMT_BITCODE)
		return OFL_IMG_BITCODE;
	return ofl_image_kind_from_ext(path_ext(path), v);
}

/* One image to pack: its file, open, and its strings in the order LLVM's
 * DenseMap gives them ("file" and "kind" left out). */
struct pack_item {
	struct ofl_file f;
	struct ofl_obin_image img;
	const char **keys, **values;
};

/* The strings of an --image, in the packager's order. */
static int item_strings(const struct ofl_pkg_args *a, enum ofl_llvm_version v, struct pack_item *it,
                        struct ofl_error *err)
{
	size_t *order = ofl_calloc(a->n ? a->n : 1, sizeof *order), m = 0;
	it->keys = ofl_calloc(a->n ? a->n : 1, sizeof *it->keys);
	it->values = ofl_calloc(a->n ? a->n : 1, sizeof *it->values);
	if (!order || !it->keys || !it->values ||
	    ofl_obin_llvm_key_order((const char *const *)a->keys, a->n, v, order) < 0) {
		free(order);
		return OFL_NOMEM(err);
	}
	for (size_t i = 0; i < a->n; i++) {
		const char *key = a->keys[order[i]];
		if (!strcmp(key, "file") || !strcmp(key, "kind"))
			continue;
		it->keys[m] = key;
		it->values[m++] = a->values[order[i]];
	}
	free(order);
	it->img.nstrings = m;
	it->img.keys = it->keys;
	it->img.values = it->values;
	return 0;
}

/* Opens the files of every --image, in order (one item per piece of each
 * file=), as LLVM reads them all before it writes. */
struct pack_list {
	struct pack_item *v;
	size_t n, cap;
};

static int open_items(const struct ofl_pkg_args *a, enum ofl_llvm_version v, struct pack_list *l,
                      struct ofl_error *err)
{
	int rc = ofl_pkg_args_check(a, v, err);
	const char *kind = ofl_pkg_args_get(a, "kind");
	char *files = rc ? NULL : ofl_strdup(ofl_pkg_args_get(a, "file"));
	if (!rc && !files)
		rc = OFL_NOMEM(err);
	for (char *p = files, *c = NULL; !rc; p = c + 1) {
		if ((c = strchr(p, ',')))
			*c = '\0';
		if (OFL_GROW(l->v, l->cap, l->n)) {
			rc = OFL_NOMEM(err);
			break;
		}
		struct pack_item *it = &l->v[l->n++];
		*it = (struct pack_item){OFL_FILE_INIT, {0}, NULL, NULL};
		rc = ofl_file_open(&it->f, p, err);
		rc = rc ? rc : item_strings(a, v, it, err);
		if (!rc) {
			it->img.image_kind = image_kind_of(p, it->f.data, it->f.size, v);
			it->img.offload_kind =
			    kind ? ofl_offload_kind_parse(kind, v) : OFL_OFK_NONE;
			it->img.image_size = it->f.size;
		}
		if (!c)
			break;
	}
	free(files);
	return rc;
}

static void release_items(struct pack_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		ofl_file_close(&l->v[i].f);
		free(l->v[i].keys);
		free(l->v[i].values);
	}
	free(l->v);
}

/* The head built in memory, the images copied from their files. */
static int write_v1(const struct pack_item *it, struct ofl_out *out, struct ofl_error *err)
{
	struct ofl_buf head = OFL_BUF_INIT;
	int rc = ofl_obin_write(&it->img, &head, err);
	rc = rc ? rc : ofl_out_write(out, head.data, head.len, err);
	rc = rc ? rc : ofl_out_copy(out, &it->f, 0, it->f.size, err);
	rc = rc ? rc : ofl_out_zeros(out, (8 - it->f.size % 8) % 8, err);
	ofl_buf_release(&head);
	return rc;
}

static int write_v2(const struct pack_list *l, struct ofl_out *out, struct ofl_error *err)
{
	struct ofl_obin_image *imgs = ofl_calloc(l->n ? l->n : 1, sizeof *imgs);
	struct ofl_buf head = OFL_BUF_INIT;
	uint64_t total = 0, written;
	int rc = imgs ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->n; i++)
		imgs[i] = l->v[i].img;
	rc = rc ? rc : ofl_obin_write_v2(imgs, l->n, &head, &total, err);
	rc = rc ? rc : ofl_out_write(out, head.data, head.len, err);
	written = head.len;
	for (size_t i = 0; !rc && i < l->n; i++) {
		rc = ofl_out_copy(out, &l->v[i].f, 0, l->v[i].f.size, err);
		written += l->v[i].f.size;
	}
	rc = rc ? rc : ofl_out_zeros(out, (size_t)(total - written), err);
	ofl_buf_release(&head);
	free(imgs);
	return rc;
}

int ofl_pkg_pack(const struct ofl_pkg_args *args, size_t n, enum ofl_llvm_version v,
                 struct ofl_out *out, struct ofl_error *err)
{
	struct pack_list l = {NULL, 0, 0};
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = open_items(&args[i], v, &l, err);
	if (!rc && ofl_obin_max_version(v) >= 2)
		rc = write_v2(&l, out, err);
	for (size_t i = 0; !rc && ofl_obin_max_version(v) < 2 && i < l.n; i++)
		rc = write_v1(&l.v[i], out, err);
	release_items(&l);
	return rc;
}

/* ---- extraction -------------------------------------------------------- */

static int keep_owned(struct ofl_pkg_inputs *in, void *p, struct ofl_error *err)
{
	return ofl_ptrs_push(&in->owned, p) ? OFL_NOMEM(err) : 0;
}

static int add_entry(struct ofl_pkg_inputs *in, const char *ident, uint64_t off,
                     const struct ofl_obin *b, struct ofl_error *err)
{
	if (OFL_GROW(in->v, in->cap, in->n))
		return OFL_NOMEM(err);
	in->v[in->n++] = (struct ofl_pkg_entry){ident, off, *b};
	return 0;
}

/* The bytes of one binary at p: v1 exactly as LLVM 19/22 read it, v1 or
 * v2 as 23 does (OFL_PKG_V2), or any version (OFL_PKG_ANY_VERSION).  Sets
 * *len to the bytes consumed. */
static int take_binary(const uint8_t *p, size_t left, uint64_t off, const char *ident,
                       unsigned flags, struct ofl_pkg_inputs *in, uint64_t *len,
                       struct ofl_error *err)
{
	int rc;
	if (!(flags & (OFL_PKG_ANY_VERSION | OFL_PKG_V2))) {
		struct ofl_obin b;
		rc = ofl_obin_parse(p, left, &b, err);
		if (rc)
			return rc;
		*len = b.size;
		rc = keep_owned(in, b.strings, err);
		return rc ? rc : add_entry(in, ident, off, &b, err);
	}
	struct ofl_obin_set s;
	rc = ofl_obin_parse_set(p, left, &s, err);
	if (rc)
		return rc;
	if (!(flags & OFL_PKG_ANY_VERSION) && s.version > 2) {
		ofl_obin_set_release(&s);
		return ofl_error_set(err, OFL_EFORMAT, NULL, 4,
		                     "offload binary: version %u is not read by LLVM 23",
		                     s.version);
	}
	*len = s.span;
	/* 23 reads the next binary right after this one; main at the next
	 * multiple of 8 */
	if ((flags & OFL_PKG_ANY_VERSION) && *len < left && !ofl_align_up(*len, 8, len))
		*len = left;
	for (size_t i = 0; i < s.nentries && !rc; i++)
		rc = add_entry(in, ident, off, &s.entries[i], err);
	int rc2 = keep_owned(in, s.pool, err);
	if (s.inflated && !rc2)
		rc2 = keep_owned(in, s.inflated, err);
	return rc ? rc : rc2;
}

struct walk {
	const char *ident;
	unsigned flags;
	struct ofl_pkg_inputs *in;
	enum ofl_obin_llvm_diag *diag;
};

static int take_one(void *ctx, const uint8_t *p, size_t left, uint64_t off, uint64_t *span,
                    struct ofl_error *err)
{
	struct walk *w = ctx;
	int rc = take_binary(p, left, off, w->ident, w->flags, w->in, span, err);
	if (rc && w->diag)
		*w->diag = ofl_obin_llvm_diag(p, left,
		                              (w->flags & OFL_PKG_V2) ? OFL_LLVM_23 : OFL_LLVM_22);
	return rc;
}

/* Binaries back to back from the start of a stream or section. */
static int walk_exact(const uint8_t *data, size_t size, uint64_t base, const char *ident,
                      unsigned flags, struct ofl_pkg_inputs *in, enum ofl_obin_llvm_diag *diag,
                      struct ofl_error *err)
{
	struct walk w = {ident, flags, in, diag};
	return ofl_scan_each(data, size, base, OFL_SCAN_EXACT, take_one, &w, err);
}

static int collect_archive(const uint8_t *data, size_t size, uint64_t base, unsigned flags,
                           unsigned depth, struct ofl_pkg_inputs *out,
                           enum ofl_obin_llvm_diag *diag, struct ofl_error *err);

/* Collects from one buffer (a file or an archive member) at absolute offset
 * base, whose binaries LLVM names ident, inside depth archives. */
static int collect_buffer(const uint8_t *data, size_t size, uint64_t base, const char *ident,
                          unsigned flags, unsigned depth, struct ofl_pkg_inputs *out,
                          enum ofl_obin_llvm_diag *diag, struct ofl_error *err)
{
	switch (ofl_format_of(data, size)) {
	case OFL_FMT_OFFLOAD:
		return walk_exact(data, size, base, ident, flags, out, diag, err);
	case OFL_FMT_ARCHIVE:
		return collect_archive(data, size, base, flags, depth, out, diag, err);
	case OFL_FMT_ELF:
		if (ofl_elf_llvm_object(data))
			break;
		return 0;
	default:
		return 0;
	}
	struct ofl_elf_sections secs;
	/* LLVM refuses the object on opening it; past that, a section whose
	 * contents lie outside the file is the end of the file to it */
	enum ofl_obin_llvm_diag why = OFL_OBIN_OBJECT;
	int rc = ofl_elf_llvm_check(data, size, err);
	if (!rc) {
		why = OFL_OBIN_UNEXPECTED_EOF;
		rc = ofl_elf_offload_sections(data, size, OFL_ELFSEC_BY_TYPE, &secs, err);
	}
	if (rc) {
		if (diag)
			*diag = why;
		ofl_error_locate(err, NULL, base);
		return rc;
	}
	for (size_t i = 0; i < secs.n && !rc; i++)
		rc = walk_exact(data + secs.v[i].offset, (size_t)secs.v[i].size,
		                base + secs.v[i].offset, ident, flags, out, diag, err);
	ofl_elf_sections_release(&secs);
	return rc;
}

/* Collects from every member of an archive, inside depth archives. */
static int collect_archive(const uint8_t *data, size_t size, uint64_t base, unsigned flags,
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
			rc = collect_buffer(a->members[i].data, (size_t)a->members[i].size,
			                    base + a->members[i].data_offset, a->members[i].name,
			                    flags, depth + 1, out, diag, err);
	return rc;
}

int ofl_pkg_collect(const uint8_t *data, size_t size, const char *path, unsigned flags,
                    struct ofl_pkg_inputs *out, enum ofl_obin_llvm_diag *diag,
                    struct ofl_error *err)
{
	*out = (struct ofl_pkg_inputs)OFL_PKG_INPUTS_INIT;
	int rc = collect_buffer(data, size, 0, path, flags, 0, out, diag, err);
	if (rc) {
		ofl_error_locate(err, path, 0);
		ofl_pkg_inputs_release(out);
	}
	return rc;
}

static void release_archives(struct ofl_pkg_inputs *in)
{
	for (size_t i = 0; i < in->archives.n; i++)
		ofl_archive_release(in->archives.v[i]);
	ofl_ptrs_release(&in->archives);
}

void ofl_pkg_inputs_release(struct ofl_pkg_inputs *in)
{
	ofl_ptrs_release(&in->owned);
	free(in->v);
	release_archives(in);
	*in = (struct ofl_pkg_inputs)OFL_PKG_INPUTS_INIT;
}

static const char *str_or_empty(const struct ofl_obin *b, const char *key)
{
	const char *s = ofl_obin_get(b, key);
	return s ? s : "";
}

bool ofl_pkg_match(const struct ofl_pkg_args *a, const struct ofl_pkg_entry *e,
                   enum ofl_llvm_version v, bool member)
{
	const struct ofl_obin *b = &e->bin;
	for (size_t i = 0; i < a->n; i++) {
		const char *k = a->keys[i];
		if (!strcmp(k, "file"))
			continue;
		if (member && !strcmp(k, "member")) {
			if (strcmp(e->ident, a->values[i]))
				return false;
			continue;
		}
		if (!strcmp(k, "kind")) {
			if (b->offload_kind != ofl_offload_kind_parse(a->values[i], v))
				return false;
			continue;
		}
		if (strcmp(str_or_empty(b, k), a->values[i]))
			return false;
	}
	return true;
}

char *ofl_pkg_extract_name(const char *input, const struct ofl_obin *b, size_t i,
                           enum ofl_llvm_version v)
{
	/* llvm::sys::path::stem: the file name up to its last dot */
	const char *base = strrchr(input, '/');
	base = base ? base + 1 : input;
	const char *dot = strrchr(base, '.');
	size_t stem = (!dot || !strcmp(base, ".") || !strcmp(base, "..")) ? strlen(base)
	                                                                  : (size_t)(dot - base);
	/* 23 leaves out the dash of an empty arch */
	const char *arch = str_or_empty(b, "arch");
	const char *dash = *arch || v < OFL_LLVM_23 ? "-" : "";
	struct ofl_buf n = OFL_BUF_INIT;
	if (ofl_buf_printf(&n, "%.*s-%s%s%s.%zu.%s", (int)stem, base, str_or_empty(b, "triple"),
	                   dash, arch, i, ofl_image_kind_suffix(b->image_kind, v)) ||
	    ofl_buf_append(&n, "", 1)) {
		ofl_buf_release(&n);
		return NULL;
	}
	/* The triple and arch come from the input: they name no directory. */
	char *name = (char *)ofl_buf_detach(&n, NULL);
	ofl_name_flatten(name);
	return name;
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
