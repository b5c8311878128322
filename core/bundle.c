/* Binary and text bundles (docs/formats.md §1.2, §1.3) and the reader that picks
 * the handler and undoes compression. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "offlink/archive.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
#include "offlink/format.h"

static const struct ofl_file_type file_types[] = {
    {"i", OFL_BH_TEXT, "//", false},     {"ii", OFL_BH_TEXT, "//", false},
    {"cui", OFL_BH_TEXT, "//", false},   {"hipi", OFL_BH_TEXT, "//", false},
    {"d", OFL_BH_TEXT, "#", false},      {"ll", OFL_BH_TEXT, ";", false},
    {"s", OFL_BH_TEXT, "#", false},      {"bc", OFL_BH_BINARY, NULL, false},
    {"gch", OFL_BH_BINARY, NULL, false}, {"ast", OFL_BH_BINARY, NULL, false},
    {"o", OFL_BH_OBJECT, NULL, false},   {"a", OFL_BH_OBJECT, NULL, true},
};

const struct ofl_file_type *ofl_file_type_find(const char *name)
{
	for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++)
		if (!strcmp(file_types[i].name, name))
			return &file_types[i];
	return NULL;
}

static const struct ofl_file_type *type_by_extension(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return NULL;
	return ofl_file_type_find(dot + 1);
}

const struct ofl_file_type *ofl_file_type_guess(const uint8_t *data, size_t size, const char *path)
{
	switch (ofl_format_of(data, size)) {
	case OFL_FMT_ELF:
		return ofl_file_type_find("o");
	case OFL_FMT_BUNDLE:
	case OFL_FMT_CCOB:
		return ofl_file_type_find("bc");
	case OFL_FMT_ARCHIVE:
		if (!ofl_archive_is_thin(data, size))
			return ofl_file_type_find("a");
		break;
	default:
		break;
	}
	const struct ofl_file_type *ext = type_by_extension(path);
	if (ext && ext->handler == OFL_BH_TEXT)
		return ext;
	for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++) {
		const struct ofl_file_type *t = &file_types[i];
		char start[64];
		int n = snprintf(start, sizeof start, "\n%s " OFL_BUNDLE_MAGIC "__START__ ",
		                 t->comment ? t->comment : "");
		if (t->handler == OFL_BH_TEXT && memmem(data, size, start, (size_t)n))
			return t;
	}
	return ext;
}

static int add_entry(struct ofl_bundle *b, const uint8_t *id, size_t idlen, uint64_t off,
                     uint64_t size, uint64_t record, struct ofl_error *err)
{
	if (OFL_GROW(b->entries, b->cap, b->n))
		return OFL_NOMEM(err);
	char *s = ofl_strndup((const char *)id, idlen);
	if (!s)
		return OFL_NOMEM(err);
	b->entries[b->n++] = (struct ofl_bundle_entry){s, off, size, record, false};
	return 0;
}

/* Entries of one bundle, sorted to find duplicates and overlaps in
 * O(n log n); the index breaks ties so the order is total. */
struct ent_ref {
	const struct ofl_bundle_entry *e;
	size_t i;
};

static int by_id(const void *pa, const void *pb)
{
	const struct ent_ref *a = pa, *b = pb;
	int c = strcmp(a->e->id, b->e->id);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int by_offset(const void *pa, const void *pb)
{
	const struct ent_ref *a = pa, *b = pb;
	if (a->e->offset != b->e->offset)
		return a->e->offset < b->e->offset ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The first pair (by the later entry's place) of entries with one ID or
 * overlapping data: *later and *earlier index e; false when none. */
static bool find_dup(struct ent_ref *r, size_t n, size_t *later, size_t *earlier)
{
	bool found = false;
	qsort(r, n, sizeof *r, by_id);
	for (size_t k = 1; k < n; k++)
		if (!strcmp(r[k].e->id, r[k - 1].e->id) && (!found || r[k].i < *later)) {
			*later = r[k].i;
			*earlier = r[k - 1].i;
			found = true;
		}
	return found;
}

static bool find_overlap(struct ent_ref *r, size_t n, size_t *later, size_t *earlier)
{
	bool found = false;
	size_t m = 0, k = 0; /* m: among r[0..k), the entry reaching furthest */
	for (size_t i = 0; i < n; i++)
		if (r[i].e->size)
			r[k++] = r[i];
	qsort(r, k, sizeof *r, by_offset);
	for (size_t i = 1; i < k; i++) {
		const struct ofl_bundle_entry *e = r[i].e, *f = r[m].e;
		size_t hi = r[i].i > r[m].i ? r[i].i : r[m].i;
		if (e->offset < f->offset + f->size && (!found || hi < *later)) {
			*later = hi;
			*earlier = r[i].i ^ r[m].i ^ hi;
			found = true;
		}
		if (e->offset + e->size > f->offset + f->size)
			m = i;
	}
	return found;
}

static int check_pairs(const struct ofl_bundle_entry *v, size_t n, struct ofl_error *err)
{
	struct ent_ref *r = ofl_calloc(n, sizeof *r);
	if (!r)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ent_ref){&v[i], i};
	size_t dl = 0, de = 0, ol = 0, oe = 0;
	bool dup = find_dup(r, n, &dl, &de);
	bool ovl = find_overlap(r, n, &ol, &oe);
	free(r);
	if (dup && (!ovl || dl <= ol))
		return ofl_error_set(err, OFL_EFORMAT, NULL, v[dl].record,
		                     "duplicate bundle entry ID '%s'", v[dl].id);
	if (ovl)
		return ofl_error_set(err, OFL_EFORMAT, NULL, v[ol].record,
		                     "bundle entries '%s' and '%s' overlap", v[oe].id, v[ol].id);
	return 0;
}

/* Parses one binary bundle starting at base; *end gets the first byte after
 * its header and data.  Only d[0..have) may be read, while entries are
 * checked against the bundle's full size: when the header runs past have,
 * *need gets how many bytes it takes and parsing stops (have == size for a
 * whole bundle in memory; a shorter have serves -list of compressed
 * bundles, which decompresses only the header). */
static int parse_binary_one(struct ofl_bundle *b, const uint8_t *d, uint64_t have, uint64_t size,
                            uint64_t base, uint64_t *end, uint64_t *need, struct ofl_error *err)
{
	uint64_t avail = size - base;
	if (avail < 32)
		return ofl_error_set(err, OFL_EFORMAT, NULL, base + OFL_BUNDLE_MAGIC_LEN,
		                     "truncated bundle header");
	if (have < base + 32)
		return *need = base + 32, 0;
	uint64_t count = ofl_le64(d + base + 24);
	if (count > (avail - 32) / 24)
		return ofl_error_set(err, OFL_EFORMAT, NULL, base + 24,
		                     "bundle entry count %llu does not fit in the file",
		                     (unsigned long long)count);
	uint64_t pos = base + 32, hdr_end;
	size_t first = b->n;
	for (uint64_t k = 0; k < count; k++) {
		if (size - pos < 24)
			return ofl_error_set(err, OFL_EFORMAT, NULL, pos, "truncated bundle entry");
		if (have - pos < 24)
			return *need = pos + 24, 0;
		uint64_t off = ofl_le64(d + pos), len = ofl_le64(d + pos + 8);
		uint64_t idlen = ofl_le64(d + pos + 16);
		if (idlen > size - pos - 24)
			return ofl_error_set(err, OFL_EFORMAT, NULL, pos + 16,
			                     "bundle entry ID length %llu past end of file",
			                     (unsigned long long)idlen);
		if (idlen > have - pos - 24)
			return *need = pos + 24 + idlen, 0;
		if (!ofl_range_ok(off, len, avail))
			return ofl_error_set(
			    err, OFL_EFORMAT, NULL, pos,
			    "bundle entry data (offset %llu, size %llu) past end of file",
			    (unsigned long long)off, (unsigned long long)len);
		int rc = add_entry(b, d + pos + 24, (size_t)idlen, base + off, len, pos, err);
		if (rc)
			return rc;
		pos += 24 + idlen;
	}
	hdr_end = pos;
	*end = hdr_end;
	for (size_t i = first; i < b->n; i++) {
		struct ofl_bundle_entry *e = &b->entries[i];
		if (e->size && e->offset < hdr_end)
			return ofl_error_set(err, OFL_EFORMAT, NULL, e->record,
			                     "bundle entry '%s' overlaps the header", e->id);
		if (e->offset + e->size > *end)
			*end = e->offset + e->size;
	}
	/* a bundle of no entries may leave entries NULL: no NULL + 0 */
	return b->n > first ? check_pairs(b->entries + first, b->n - first, err) : 0;
}

static uint64_t skip_zeros(const uint8_t *d, uint64_t pos, uint64_t size)
{
	while (pos < size && d[pos] == 0)
		pos++;
	return pos;
}

/* Several bundles may follow each other (cat, or padding between them);
 * LLVM reads only the first, we read them all. */
static int parse_binary(struct ofl_bundle *b, struct ofl_error *err)
{
	uint64_t pos = 0, end = 0;
	const uint8_t *d = b->data;
	while (pos < b->size) {
		if (ofl_format_of(d + pos, (size_t)(b->size - pos)) != OFL_FMT_BUNDLE) {
			if (pos == 0)
				return 0;
			return ofl_error_set(err, OFL_EFORMAT, NULL, pos,
			                     "unexpected bytes after the bundle");
		}
		uint64_t need = 0;
		int rc = parse_binary_one(b, d, b->size, b->size, pos, &end, &need, err);
		if (rc)
			return rc;
		b->found = true;
		pos = skip_zeros(d, end, b->size);
	}
	return 0;
}

static const uint8_t *find(const uint8_t *hay, size_t hlen, const char *needle, size_t nlen)
{
	return memmem(hay, hlen, needle, nlen);
}

static int parse_text(struct ofl_bundle *b, const char *comment, struct ofl_error *err)
{
	char start[64], stop[64];
	int sl = snprintf(start, sizeof start, "\n%s " OFL_BUNDLE_MAGIC "__START__ ", comment);
	int el = snprintf(stop, sizeof stop, "\n%s " OFL_BUNDLE_MAGIC "__END__ ", comment);
	const uint8_t *d = b->data, *p = d, *e = d + b->size;
	const uint8_t *m;
	while ((m = find(p, (size_t)(e - p), start, (size_t)sl))) {
		const uint8_t *id = m + sl;
		const uint8_t *nl = memchr(id, '\n', (size_t)(e - id));
		if (!nl)
			return ofl_error_set(err, OFL_EFORMAT, NULL, (uint64_t)(m - d),
			                     "unterminated bundle start marker");
		size_t idlen = (size_t)(nl - id);
		const uint8_t *body = nl + 1;
		const uint8_t *end = find(body, (size_t)(e - body), stop, (size_t)el);
		if (!end)
			return ofl_error_set(err, OFL_EFORMAT, NULL, (uint64_t)(m - d),
			                     "bundle entry '%.*s' has no end marker", (int)idlen,
			                     id);
		const uint8_t *eid = end + el;
		const uint8_t *enl = memchr(eid, '\n', (size_t)(e - eid));
		size_t eidlen = enl ? (size_t)(enl - eid) : (size_t)(e - eid);
		if (eidlen != idlen || memcmp(eid, id, idlen) != 0)
			return ofl_error_set(err, OFL_EFORMAT, NULL, (uint64_t)(end + 1 - d),
			                     "end marker '%.*s' does not match start marker '%.*s'",
			                     (int)eidlen, eid, (int)idlen, id);
		uint64_t off = (uint64_t)(body - d);
		uint64_t len = (uint64_t)(end - body);
		int rc = add_entry(b, id, idlen, off, len, (uint64_t)(m + 1 - d), err);
		if (rc)
			return rc;
		b->found = true;
		p = enl ? enl : e;
	}
	return 0;
}

/* Decompresses one or more CCOBs back to back (zero padding allowed
 * between and after them) into b->inflated. */
static int inflate_all(struct ofl_bundle *b, const uint8_t *data, size_t size,
                       struct ofl_error *err)
{
	size_t pos = 0;
	while (pos < size) {
		if (!ofl_ccob_is(data + pos, size - pos))
			return ofl_error_set(err, OFL_EFORMAT, NULL, pos,
			                     "unexpected bytes after the compressed bundle");
		size_t used = 0;
		/* LLVM does not check the hash; computing it would double the cost */
		int rc =
		    ofl_ccob_decompress(data + pos, size - pos, &b->inflated, &used, NULL, err);
		if (rc) {
			ofl_error_locate(err, NULL, pos);
			return rc;
		}
		pos = (size_t)skip_zeros(data, pos + used, size);
	}
	b->data = b->inflated.data ? b->inflated.data : (const uint8_t *)"";
	b->size = b->inflated.len;
	b->compressed = true;
	return 0;
}

int ofl_bundle_read(struct ofl_bundle *b, const uint8_t *data, size_t size,
                    const struct ofl_file_type *type, struct ofl_error *err)
{
	*b = (struct ofl_bundle)OFL_BUNDLE_INIT;
	b->data = data;
	b->size = size;
	if (ofl_ccob_is(data, size)) {
		int rc = inflate_all(b, data, size, err);
		if (rc)
			return rc;
	}
	b->handler = type->handler;
	if (b->handler == OFL_BH_OBJECT && !ofl_bundle_is_object(b->data, b->size))
		b->handler = OFL_BH_BINARY;
	switch (b->handler) {
	case OFL_BH_TEXT:
		return parse_text(b, type->comment, err);
	case OFL_BH_OBJECT:
		return ofl_bundle_object_scan(b, b->data, b->size, err);
	case OFL_BH_BINARY:
		break;
	}
	return parse_binary(b, err);
}

static void drop_entries(struct ofl_bundle *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->entries[i].id);
	b->n = 0;
}

/* Inflates the first `want` bytes and parses the header from them; *need
 * says how much more the header takes. */
static int peek_header(struct ofl_bundle *b, const uint8_t *data, size_t size, size_t want,
                       struct ofl_ccob_header *h, uint64_t *end, uint64_t *need,
                       struct ofl_error *err)
{
	drop_entries(b);
	ofl_buf_reset(&b->inflated);
	*need = 0;
	int rc = ofl_ccob_peek(data, size, want, &b->inflated, h, err);
	if (rc)
		return rc;
	const uint8_t *d = b->inflated.data;
	if (ofl_format_of(d, b->inflated.len) != OFL_FMT_BUNDLE)
		return 0; /* not a binary bundle: no entries */
	return parse_binary_one(b, d, b->inflated.len, h->raw_size, 0, end, need, err);
}

int ofl_bundle_read_header_only(struct ofl_bundle *b, const uint8_t *data, size_t size,
                                bool *complete, struct ofl_error *err)
{
	*b = (struct ofl_bundle)OFL_BUNDLE_INIT;
	*complete = false;
	struct ofl_ccob_header h;
	if (!ofl_ccob_is(data, size))
		return 0;
	int rc = ofl_ccob_parse_header(data, size, &h, err);
	/* several CCOBs, or bytes after one, are the full reader's business */
	if (rc || skip_zeros(data, h.total_size, size) != size)
		return rc;
	uint64_t end = 0, need = 0;
	for (size_t want = 65536;; want = need > want * 4 ? (size_t)need : want * 4) {
		rc = peek_header(b, data, size, want, &h, &end, &need, err);
		if (rc || !need)
			break;
	}
	if (rc || !b->n || end != h.raw_size) {
		/* an error, no bundle, or more after the first bundle: read it all */
		drop_entries(b);
		return rc;
	}
	b->found = b->compressed = *complete = true;
	b->data = b->inflated.data;
	b->size = b->inflated.len;
	return 0;
}

void ofl_bundle_release(struct ofl_bundle *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->entries[i].id);
	free(b->entries);
	ofl_buf_release(&b->inflated);
	*b = (struct ofl_bundle)OFL_BUNDLE_INIT;
}

uint64_t ofl_bundle_header_size(const char *const *ids, size_t n)
{
	uint64_t h = 32;
	for (size_t i = 0; i < n; i++)
		h += 24 + strlen(ids[i]);
	return h;
}

int ofl_bundle_write_header(const char *const *ids, const uint64_t *sizes, size_t n, uint64_t align,
                            struct ofl_buf *out, uint64_t *offsets, struct ofl_error *err)
{
	if (align == 0)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "bundle alignment must be at least 1");
	uint64_t pos = ofl_bundle_header_size(ids, n);
	for (size_t i = 0; i < n; i++) {
		if (!ofl_align_up(pos, align, &offsets[i]) ||
		    ofl_add_overflow(offsets[i], sizes[i], &pos))
			return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "bundle too large");
	}
	int rc = ofl_buf_append(out, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
	rc = rc ? rc : ofl_buf_append_u64le(out, n);
	for (size_t i = 0; i < n && !rc; i++) {
		size_t idlen = strlen(ids[i]);
		rc = ofl_buf_append_u64le(out, offsets[i]);
		rc = rc ? rc : ofl_buf_append_u64le(out, sizes[i]);
		rc = rc ? rc : ofl_buf_append_u64le(out, idlen);
		rc = rc ? rc : ofl_buf_append(out, ids[i], idlen);
	}
	return rc ? OFL_NOMEM(err) : 0;
}

int ofl_bundle_text_start(struct ofl_buf *out, const char *comment, const char *id)
{
	return ofl_buf_printf(out, "\n%s " OFL_BUNDLE_MAGIC "__START__ %s\n", comment, id);
}

int ofl_bundle_text_end(struct ofl_buf *out, const char *comment, const char *id)
{
	return ofl_buf_printf(out, "\n%s " OFL_BUNDLE_MAGIC "__END__ %s\n", comment, id);
}
