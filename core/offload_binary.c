/* OffloadBinary reading and writing (docs/formats.md §5). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "internal.h"
#include "offlink/offload_binary.h"

#define STR_ENTRY_V1 16
#define STR_ENTRY_V2 24
#define HEADER_V3 40

bool ofl_obin_is(const uint8_t *data, size_t size)
{
	return size >= 4 && memcmp(data, OFL_OBIN_MAGIC, 4) == 0;
}

uint32_t ofl_obin_max_version(enum ofl_llvm_version v)
{
	return v >= OFL_LLVM_23 ? 2 : 1;
}

/* ---- reading ----------------------------------------------------------- */

/* What the string tables of a binary cost to read and copy.  Entries may
 * share one table (or strings overlap), so the bytes read are bounded by
 * STR_BUDGET times the binary's size, not by the table sizes. */
struct str_cost {
	uint64_t nstr, vbytes, left;
};
#define STR_BUDGET 8

static int over_budget(struct str_cost *c, uint64_t n, uint64_t field, struct ofl_error *err)
{
	if (n <= c->left) {
		c->left -= n;
		return 0;
	}
	return ofl_error_set(err, OFL_EFORMAT, NULL, field,
	                     "offload binary: string tables read more than %d times the "
	                     "binary's size (tables shared by many entries?)",
	                     STR_BUDGET);
}

/* The NUL-terminated string at off, which must end before bound, is read
 * (its bytes charged to c). */
static int cstr_at(const uint8_t *buf, uint64_t bound, uint64_t off, uint64_t field,
                   const char *what, struct str_cost *c, struct ofl_error *err)
{
	if (off >= bound)
		return ofl_error_set(err, OFL_EFORMAT, NULL, field,
		                     "offload binary: %s offset %llu is past the end (%llu bytes)",
		                     what, (unsigned long long)off, (unsigned long long)bound);
	/* Search no further than the budget allows. */
	uint64_t room = bound - off < c->left ? bound - off : c->left;
	const uint8_t *nul = memchr(buf + off, 0, (size_t)room);
	if (!nul && room < bound - off)
		return over_budget(c, room + 1, field, err);
	if (!nul)
		return ofl_error_set(err, OFL_EFORMAT, NULL, field,
		                     "offload binary: %s at %llu has no terminating NUL", what,
		                     (unsigned long long)off);
	return over_budget(c, (uint64_t)(nul - (buf + off)) + 1, field, err);
}

/* Checks one entry at eo of buf (bound bytes long) and counts its strings
 * and, for v2+, the bytes their value copies need. */
static int check_entry(const uint8_t *buf, uint64_t bound, uint64_t eo, uint32_t version,
                       struct str_cost *c, struct ofl_error *err)
{
	uint64_t so = ofl_le64(buf + eo + 8), n = ofl_le64(buf + eo + 16);
	uint64_t io = ofl_le64(buf + eo + 24), is = ofl_le64(buf + eo + 32);
	uint64_t esz = version == 1 ? STR_ENTRY_V1 : STR_ENTRY_V2, tab;
	if (so > bound)
		return ofl_error_set(
		    err, OFL_EFORMAT, NULL, eo + 8,
		    "offload binary: string offset %llu is past the end (%llu bytes)",
		    (unsigned long long)so, (unsigned long long)bound);
	if (io > bound || is > bound - io)
		return ofl_error_set(
		    err, OFL_EFORMAT, NULL, eo + 24,
		    "offload binary: image at %llu+%llu runs past the end (%llu bytes)",
		    (unsigned long long)io, (unsigned long long)is, (unsigned long long)bound);
	if (ofl_mul_overflow(n, esz, &tab) || !ofl_range_ok(so, tab, bound))
		return ofl_error_set(
		    err, OFL_EFORMAT, NULL, eo + 16,
		    "offload binary: %llu string entries at %llu do not fit in %llu bytes",
		    (unsigned long long)n, (unsigned long long)so, (unsigned long long)bound);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t se = so + i * esz, ko = ofl_le64(buf + se), vo = ofl_le64(buf + se + 8);
		int rc = over_budget(c, esz, se, err);
		rc = rc ? rc : cstr_at(buf, bound, ko, se, "key", c, err);
		if (rc)
			return rc;
		if (version == 1) {
			rc = cstr_at(buf, bound, vo, se + 8, "value", c, err);
			if (rc)
				return rc;
			continue;
		}
		uint64_t vs = ofl_le64(buf + se + 16);
		if (!ofl_range_ok(vo, vs, bound))
			return ofl_error_set(err, OFL_EFORMAT, NULL, se + 8,
			                     "offload binary: value at %llu+%llu runs past the end",
			                     (unsigned long long)vo, (unsigned long long)vs);
		rc = over_budget(c, vs + 1, se + 16, err);
		if (rc)
			return rc;
		c->vbytes += vs + 1;
	}
	c->nstr += n;
	return 0;
}

/* Fills b from a checked entry; v2+ values are copied, NUL-terminated, to
 * *vpool so callers may treat every value as a C string. */
static void fill_entry(const uint8_t *buf, uint64_t eo, uint32_t version, uint64_t size,
                       struct ofl_obin *b, struct ofl_obin_string *strs, char **vpool)
{
	uint64_t so = ofl_le64(buf + eo + 8), esz = version == 1 ? STR_ENTRY_V1 : STR_ENTRY_V2;
	b->version = version;
	b->image_kind = ofl_le16(buf + eo);
	b->offload_kind = ofl_le16(buf + eo + 2);
	b->flags = ofl_le32(buf + eo + 4);
	b->nstrings = (size_t)ofl_le64(buf + eo + 16);
	b->image_offset = ofl_le64(buf + eo + 24);
	b->image_size = ofl_le64(buf + eo + 32);
	b->image = buf + b->image_offset;
	b->strings = strs;
	b->size = size;
	for (size_t i = 0; i < b->nstrings; i++) {
		const uint8_t *se = buf + so + i * esz;
		strs[i].key = (const char *)buf + ofl_le64(se);
		const char *v = (const char *)buf + ofl_le64(se + 8);
		if (version == 1) {
			strs[i].value = v;
			strs[i].value_size = strlen(v);
			continue;
		}
		uint64_t vs = ofl_le64(se + 16);
		memcpy(*vpool, v, vs);
		(*vpool)[vs] = '\0';
		strs[i].value = *vpool;
		strs[i].value_size = vs;
		*vpool += vs + 1;
	}
}

/* The checks LLVM 19/22 make on a header (in their order), then ours. */
static int check_v1_header(const uint8_t *data, size_t size, uint64_t *hsize, struct ofl_error *err)
{
	if (size < OFL_OBIN_MIN_SIZE)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0,
		                     "offload binary: %zu bytes, a binary needs at least 72", size);
	if (!ofl_obin_is(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "offload binary: bad magic");
	uint32_t v = ofl_le32(data + 4);
	if (v != 1)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 4,
		                     "offload binary: version %u is not read by LLVM 19/22", v);
	uint64_t s = ofl_le64(data + 8), eo = ofl_le64(data + 16), es = ofl_le64(data + 24);
	if (s > size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "offload binary: size %llu runs past the end (%zu bytes left)",
		                     (unsigned long long)s, size);
	if (s < OFL_OBIN_ENTRY_SIZE)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "offload binary: size %llu is too small",
		                     (unsigned long long)s);
	if (eo > s - OFL_OBIN_ENTRY_SIZE)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 16,
		                     "offload binary: entry offset %llu runs past the size %llu",
		                     (unsigned long long)eo, (unsigned long long)s);
	if (es > s - OFL_OBIN_HEADER_SIZE)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 24,
		                     "offload binary: entry size %llu runs past the size %llu",
		                     (unsigned long long)es, (unsigned long long)s);
	*hsize = s;
	return 0;
}

int ofl_obin_parse(const uint8_t *data, size_t size, struct ofl_obin *out, struct ofl_error *err)
{
	uint64_t s = 0;
	*out = (struct ofl_obin)OFL_OBIN_INIT;
	int rc = check_v1_header(data, size, &s, err);
	if (rc)
		return rc;
	uint64_t eo = ofl_le64(data + 16);
	struct str_cost c = {0, 0, s * STR_BUDGET};
	rc = check_entry(data, s, eo, 1, &c, err);
	if (rc)
		return rc;
	struct ofl_obin_string *strs = ofl_calloc(c.nstr ? (size_t)c.nstr : 1, sizeof *strs);
	if (!strs)
		return OFL_NOMEM(err);
	fill_entry(data, eo, 1, s, out, strs, NULL);
	return 0;
}

void ofl_obin_release(struct ofl_obin *b)
{
	free(b->strings);
	*b = (struct ofl_obin)OFL_OBIN_INIT;
}

enum ofl_obin_llvm_diag ofl_obin_llvm_diag(const uint8_t *data, size_t size,
                                           enum ofl_llvm_version v)
{
	if (size < OFL_OBIN_MIN_SIZE || !ofl_obin_is(data, size))
		return OFL_OBIN_INVALID_DATA;
	uint32_t ver = ofl_le32(data + 4);
	if (ver < 1 || ver > ofl_obin_max_version(v))
		return OFL_OBIN_INVALID_DATA;
	return OFL_OBIN_UNEXPECTED_EOF;
}

const char *ofl_obin_llvm_diag_text(enum ofl_obin_llvm_diag d, const struct ofl_error *err)
{
	switch (d) {
	case OFL_OBIN_INVALID_DATA:
		return "Invalid data was encountered while parsing the file";
	case OFL_OBIN_UNEXPECTED_EOF:
		return "The end of the file was unexpectedly encountered";
	default:
		return err->msg;
	}
}

/* Inflates a v3 payload into a buffer that starts with a copy of the header,
 * so that the stored absolute offsets keep their meaning. */
static int inflate_v3(const uint8_t *data, uint64_t s, uint64_t hdr, uint64_t isz,
                      struct ofl_obin_set *set, struct ofl_error *err)
{
	const uint8_t *src = data + hdr;
	size_t srclen = (size_t)(s - hdr), want = (size_t)(isz - hdr);
	/* Refuse absurd claims before allocating: zstd and zlib cannot expand
	 * beyond ~1:32K and ~1:1K per input byte respectively. */
	if (isz < hdr || isz > (uint64_t)srclen * 65536 + 65536 || isz > ((uint64_t)1 << 34))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 32,
		                     "offload binary: implausible inflated size %llu",
		                     (unsigned long long)isz);
	uint8_t *out = ofl_malloc(isz ? (size_t)isz : 1);
	if (!out)
		return OFL_NOMEM(err);
	memcpy(out, data, (size_t)hdr);
	bool zstd = srclen >= 4 && memcmp(src, "\x28\xb5\x2f\xfd", 4) == 0;
	bool ok;
	if (zstd) {
		size_t r = ZSTD_decompress(out + hdr, want, src, srclen);
		ok = !ZSTD_isError(r) && r == want;
	} else {
		uLongf got = (uLongf)want;
		ok = uncompress(out + hdr, &got, src, (uLong)srclen) == Z_OK && got == want;
	}
	if (!ok) {
		free(out);
		return ofl_error_set(err, OFL_EFORMAT, NULL, hdr,
		                     "offload binary: %s payload does not inflate to %llu bytes",
		                     zstd ? "zstd" : "zlib", (unsigned long long)isz);
	}
	set->inflated = out;
	set->compression = zstd ? 2 : 1;
	return 0;
}

/* Header of any version: size, where entries live, how many. */
static int check_any_header(const uint8_t *data, size_t size, struct ofl_obin_set *set,
                            uint64_t *eo, uint64_t *count, struct ofl_error *err)
{
	if (size < OFL_OBIN_HEADER_SIZE || !ofl_obin_is(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0,
		                     size < OFL_OBIN_HEADER_SIZE
		                         ? "offload binary: truncated header"
		                         : "offload binary: bad magic");
	uint32_t v = ofl_le32(data + 4);
	uint64_t hdr = v >= 3 ? HEADER_V3 : OFL_OBIN_HEADER_SIZE;
	if (v < 1 || v > 3)
		return ofl_error_set(
		    err, OFL_EUNSUPPORTED, NULL, 4,
		    "offload binary: version %u is not one offlink knows (1 to 3)%s", v,
		    v ? ": a newer LLVM wrote it" : "");
	if (size < hdr)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "offload binary: truncated header");
	set->version = v;
	set->size = ofl_le64(data + 8);
	if (set->size > size || set->size < hdr)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "offload binary: size %llu does not fit the %zu bytes left",
		                     (unsigned long long)set->size, size);
	*eo = ofl_le64(data + 16);
	*count = v == 1 ? 1 : ofl_le64(data + 24);
	set->span = set->size;
	if (v == 3)
		set->inflated_size = ofl_le64(data + 32);
	if (v == 3 && set->inflated_size) {
		if (*eo < hdr || *eo > set->size)
			return ofl_error_set(
			    err, OFL_EFORMAT, NULL, 16,
			    "offload binary: entry offset %llu is not after the header",
			    (unsigned long long)*eo);
		if (!ofl_align_up(set->size, 8, &set->span))
			return ofl_error_set(err, OFL_EFORMAT, NULL, 8, "offload binary: bad size");
		return inflate_v3(data, set->size, *eo, set->inflated_size, set, err);
	}
	return 0;
}

int ofl_obin_parse_set(const uint8_t *data, size_t size, struct ofl_obin_set *set,
                       struct ofl_error *err)
{
	uint64_t eo = 0, count = 0, tab;
	*set = (struct ofl_obin_set)OFL_OBIN_SET_INIT;
	int rc = check_any_header(data, size, set, &eo, &count, err);
	if (rc)
		goto fail;
	const uint8_t *buf = set->inflated ? set->inflated : data;
	uint64_t bound = set->inflated ? set->inflated_size : set->size;
	if (ofl_mul_overflow(count, OFL_OBIN_ENTRY_SIZE, &tab) || !ofl_range_ok(eo, tab, bound)) {
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, set->version == 1 ? 16 : 24,
		                   "offload binary: %llu entries at %llu do not fit in %llu bytes",
		                   (unsigned long long)count, (unsigned long long)eo,
		                   (unsigned long long)bound);
		goto fail;
	}
	/* Every entry could be valid with bound bytes: bound * STR_BUDGET
	 * does not overflow for anything held in memory. */
	struct str_cost c = {0, 0, bound * STR_BUDGET};
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = check_entry(buf, bound, eo + i * OFL_OBIN_ENTRY_SIZE, set->version, &c, err);
	if (rc)
		goto fail;
	/* One block: entries, then string records, then value copies; each
	 * term is bounded by the budget, so the sum cannot overflow. */
	uint64_t nstr = c.nstr;
	size_t need = (size_t)(count * sizeof(struct ofl_obin) +
	                       nstr * sizeof(struct ofl_obin_string) + c.vbytes);
	set->pool = ofl_calloc(need ? need : 1, 1);
	if (!set->pool) {
		rc = OFL_NOMEM(err);
		goto fail;
	}
	set->entries = set->pool;
	set->nentries = (size_t)count;
	struct ofl_obin_string *strs = (struct ofl_obin_string *)(set->entries + count);
	char *vpool = (char *)(strs + nstr);
	for (size_t i = 0; i < count; i++) {
		fill_entry(buf, eo + i * OFL_OBIN_ENTRY_SIZE, set->version, set->size,
		           &set->entries[i], strs, &vpool);
		strs += set->entries[i].nstrings;
	}
	return 0;
fail:
	ofl_obin_set_release(set);
	return rc;
}

int ofl_obin_set_entry(const struct ofl_obin_set *s, size_t i, struct ofl_obin *b,
                       struct ofl_error *err)
{
	const struct ofl_obin *e = &s->entries[i];
	size_t need = e->nstrings * sizeof(*e->strings);
	for (size_t k = 0; k < e->nstrings; k++)
		need += strlen(e->strings[k].key) + 1 + (size_t)e->strings[k].value_size + 1;
	*b = *e;
	b->strings = ofl_malloc(need ? need : 1);
	if (!b->strings) {
		*b = (struct ofl_obin)OFL_OBIN_INIT;
		return OFL_NOMEM(err);
	}
	char *text = (char *)(b->strings + e->nstrings);
	for (size_t k = 0; k < e->nstrings; k++) {
		size_t kl = strlen(e->strings[k].key) + 1, vl = (size_t)e->strings[k].value_size;
		b->strings[k].key = memcpy(text, e->strings[k].key, kl);
		text += kl;
		b->strings[k].value = memcpy(text, e->strings[k].value, vl);
		text[vl] = '\0';
		text += vl + 1;
		b->strings[k].value_size = vl;
	}
	return 0;
}

int ofl_obin_check_known(const struct ofl_obin *b, struct ofl_error *err)
{
	static const char newer[] = ": a newer LLVM wrote it, which offlink does not know";
	uint16_t ok = b->offload_kind;
	if (b->image_kind > OFL_IMG_SPIRV)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "offload binary: image kind %u%s", b->image_kind, newer);
	if (ok > OFL_OFK_HIP && ok != OFL_OFK_SYCL)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "offload binary: offload kind %u%s", ok, newer);
	if (b->flags & ~(b->version >= 2 ? OFL_OBIN_FLAG_METADATA : 0u))
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "offload binary: entry flags %#x%s", b->flags, newer);
	return 0;
}

void ofl_obin_set_release(struct ofl_obin_set *s)
{
	free(s->inflated);
	free(s->pool);
	*s = (struct ofl_obin_set)OFL_OBIN_SET_INIT;
}

const char *ofl_obin_get(const struct ofl_obin *b, const char *key)
{
	/* LLVM fills a map entry by entry, so the last duplicate wins. */
	for (size_t i = b->nstrings; i-- > 0;)
		if (!strcmp(b->strings[i].key, key))
			return b->strings[i].value;
	return NULL;
}

/* ---- enumerations ------------------------------------------------------ */

/* The image kinds a release names: SPIR-V from 23 on. */
static uint16_t named_kinds(enum ofl_llvm_version v)
{
	return v >= OFL_LLVM_23 ? OFL_IMG_SPIRV + 1 : OFL_IMG_SPIRV;
}

const char *ofl_image_kind_objdump_name(uint16_t kind, enum ofl_llvm_version v)
{
	static const char *const names[] = {"<none>",    "elf", "llvm ir", "cubin",
	                                    "fatbinary", "ptx", "spir-v"};
	return kind < named_kinds(v) ? names[kind] : "<none>";
}

static const char *const suffixes[] = {"", "o", "bc", "cubin", "fatbin", "s", "spv"};

const char *ofl_image_kind_suffix(uint16_t kind, enum ofl_llvm_version v)
{
	return kind < named_kinds(v) ? suffixes[kind] : "";
}

uint16_t ofl_image_kind_from_ext(const char *ext, enum ofl_llvm_version v)
{
	for (uint16_t k = 1; k < named_kinds(v); k++)
		if (!strcmp(ext, suffixes[k]))
			return k;
	return OFL_IMG_NONE;
}

const char *ofl_offload_kind_name(uint16_t kind, enum ofl_llvm_version v)
{
	switch (kind) {
	case OFL_OFK_OPENMP:
		return "openmp";
	case OFL_OFK_CUDA:
		return "cuda";
	case OFL_OFK_HIP19:
		return v == OFL_LLVM_19 ? "hip" : "none";
	case OFL_OFK_HIP:
		return v == OFL_LLVM_19 ? "none" : "hip";
	case OFL_OFK_SYCL:
		return v == OFL_LLVM_19 ? "none" : "sycl";
	default:
		return "none";
	}
}

uint16_t ofl_offload_kind_parse(const char *s, enum ofl_llvm_version v)
{
	if (!strcmp(s, "openmp"))
		return OFL_OFK_OPENMP;
	if (!strcmp(s, "cuda"))
		return OFL_OFK_CUDA;
	if (!strcmp(s, "hip"))
		return v == OFL_LLVM_19 ? OFL_OFK_HIP19 : OFL_OFK_HIP;
	if (!strcmp(s, "sycl") && v != OFL_LLVM_19)
		return OFL_OFK_SYCL;
	return OFL_OFK_NONE;
}

/* ---- writing ----------------------------------------------------------- */

int ofl_obin_write(const struct ofl_obin_image *img, struct ofl_buf *out, struct ofl_error *err)
{
	size_t n = img->nstrings, nrefs = 2 * n;
	struct ofl_strtab_ref *refs = ofl_calloc(nrefs ? nrefs : 1, sizeof *refs);
	uint64_t tabsize = 0;
	int rc = 0;
	if (!refs) {
		rc = OFL_NOMEM(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		refs[2 * i] = (struct ofl_strtab_ref){img->keys[i], strlen(img->keys[i]), 0};
		refs[2 * i + 1] =
		    (struct ofl_strtab_ref){img->values[i], strlen(img->values[i]), 0};
	}
	/* the table starts with the empty string, as an ELF one */
	if (ofl_strtab_layout(refs, nrefs, 1, &tabsize)) {
		rc = OFL_NOMEM(err);
		goto out;
	}
	uint64_t soff = OFL_OBIN_MIN_SIZE, stab = soff + 16 * (uint64_t)n, ioff, total;
	if (!ofl_align_up(stab + tabsize, 8, &ioff) ||
	    ofl_add_overflow(ioff, img->image_size, &total) || !ofl_align_up(total, 8, &total) ||
	    total > SIZE_MAX - out->len) {
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "offload binary: image too large");
		goto out;
	}
	/* without image bytes only the head is appended: the caller streams the
	 * image from its file and pads to total */
	size_t base = out->len, emit = (size_t)(img->image ? total : ioff);
	if (ofl_buf_reserve(out, emit)) {
		rc = OFL_NOMEM(err);
		goto out;
	}
	uint8_t *p = out->data + base;
	memset(p, 0, emit);
	memcpy(p, OFL_OBIN_MAGIC, 4);
	ofl_put_le32(p + 4, 1);
	ofl_put_le64(p + 8, total);
	ofl_put_le64(p + 16, OFL_OBIN_HEADER_SIZE);
	ofl_put_le64(p + 24, OFL_OBIN_ENTRY_SIZE);
	ofl_put_le16(p + 32, img->image_kind);
	ofl_put_le16(p + 34, img->offload_kind);
	ofl_put_le32(p + 36, img->flags);
	ofl_put_le64(p + 40, soff);
	ofl_put_le64(p + 48, n);
	ofl_put_le64(p + 56, ioff);
	ofl_put_le64(p + 64, img->image_size);
	for (size_t i = 0; i < n; i++) {
		ofl_put_le64(p + soff + 16 * i, stab + refs[2 * i].off);
		ofl_put_le64(p + soff + 16 * i + 8, stab + refs[2 * i + 1].off);
	}
	ofl_strtab_fill(refs, nrefs, p + stab);
	if (img->image && img->image_size)
		memcpy(p + ioff, img->image, (size_t)img->image_size);
	out->len += emit;
out:
	free(refs);
	return rc;
}

/* Every image's keys and values in one table refs[2 * total strings]; the
 * table's size in *tabsize. */
static int v2_strings(const struct ofl_obin_image *imgs, size_t n, struct ofl_strtab_ref **refs,
                      uint64_t *nstr, uint64_t *tabsize)
{
	*nstr = 0;
	for (size_t i = 0; i < n; i++)
		*nstr += imgs[i].nstrings;
	*refs = ofl_calloc(*nstr ? 2 * (size_t)*nstr : 1, sizeof(**refs));
	if (!*refs)
		return OFL_ENOMEM;
	struct ofl_strtab_ref *r = *refs;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < imgs[i].nstrings; k++) {
			const char *key = imgs[i].keys[k], *val = imgs[i].values[k];
			*r++ = (struct ofl_strtab_ref){key, strlen(key), 0};
			*r++ = (struct ofl_strtab_ref){val, strlen(val), 0};
		}
	return ofl_strtab_layout(*refs, 2 * (size_t)*nstr, 1, tabsize) ? OFL_ENOMEM : 0;
}

/* Header, entries and string entries of a v2 binary whose string table
 * starts at stab and first image at ioff. */
static void v2_head(uint8_t *p, const struct ofl_obin_image *imgs, size_t n,
                    const struct ofl_strtab_ref *refs, uint64_t stab, uint64_t ioff, uint64_t total)
{
	uint64_t se = OFL_OBIN_HEADER_SIZE + (uint64_t)n * OFL_OBIN_ENTRY_SIZE;
	memcpy(p, OFL_OBIN_MAGIC, 4);
	ofl_put_le32(p + 4, 2);
	ofl_put_le64(p + 8, total);
	ofl_put_le64(p + 16, OFL_OBIN_HEADER_SIZE);
	ofl_put_le64(p + 24, n);
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = p + OFL_OBIN_HEADER_SIZE + i * OFL_OBIN_ENTRY_SIZE;
		ofl_put_le16(e, imgs[i].image_kind);
		ofl_put_le16(e + 2, imgs[i].offload_kind);
		ofl_put_le32(e + 4, imgs[i].flags);
		ofl_put_le64(e + 8, se);
		ofl_put_le64(e + 16, imgs[i].nstrings);
		ofl_put_le64(e + 24, ioff);
		ofl_put_le64(e + 32, imgs[i].image_size);
		for (size_t k = 0; k < imgs[i].nstrings; k++, refs += 2, se += STR_ENTRY_V2) {
			ofl_put_le64(p + se, stab + refs[0].off);
			ofl_put_le64(p + se + 8, stab + refs[1].off);
			ofl_put_le64(p + se + 16, refs[1].len);
		}
		ioff += imgs[i].image_size;
	}
}

int ofl_obin_write_v2(const struct ofl_obin_image *imgs, size_t n, struct ofl_buf *out,
                      uint64_t *total, struct ofl_error *err)
{
	struct ofl_strtab_ref *refs = NULL;
	uint64_t nstr = 0, tabsize = 0, stab, ioff, sum = 0;
	bool with_images = n && imgs[0].image;
	int rc = v2_strings(imgs, n, &refs, &nstr, &tabsize);
	if (rc) {
		free(refs);
		return OFL_NOMEM(err);
	}
	stab = OFL_OBIN_HEADER_SIZE + (uint64_t)n * OFL_OBIN_ENTRY_SIZE + nstr * STR_ENTRY_V2;
	bool ok = ofl_align_up(stab + tabsize, 8, &ioff);
	for (size_t i = 0; ok && i < n; i++)
		ok = !ofl_add_overflow(sum, imgs[i].image_size, &sum);
	ok = ok && !ofl_add_overflow(ioff, sum, total) && ofl_align_up(*total, 8, total) &&
	     *total <= SIZE_MAX - out->len;
	size_t base = out->len, emit = (size_t)(with_images ? *total : ioff);
	if (!ok)
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "offload binary: images too large");
	else if (ofl_buf_reserve(out, emit))
		rc = OFL_NOMEM(err);
	if (!rc) {
		uint8_t *p = out->data + base;
		memset(p, 0, emit);
		v2_head(p, imgs, n, refs, stab, ioff, *total);
		ofl_strtab_fill(refs, 2 * (size_t)nstr, p + stab);
		for (size_t i = 0; with_images && i < n; ioff += imgs[i++].image_size)
			if (imgs[i].image_size)
				memcpy(p + ioff, imgs[i].image, (size_t)imgs[i].image_size);
		out->len += emit;
	}
	free(refs);
	return rc;
}

/* ---- LLVM's string hash and DenseMap order ------------------------------ */

#define SEED 0xff51afd7ed558ccdULL
#define K0 0xc3a5c85c97cb3127ULL
#define K1 0xb492b66fbe98f273ULL
#define K2 0x9ae16a3b2f90404fULL
#define K3 0xc949d7c7509e6557ULL
#define KMUL 0x9ddfea08eb382d69ULL

static uint64_t rotr(uint64_t x, unsigned r)
{
	return r ? (x >> r) | (x << (64 - r)) : x;
}

static uint64_t sm(uint64_t x)
{
	return x ^ (x >> 47);
}

static uint64_t h16(uint64_t u, uint64_t v)
{
	uint64_t a = (u ^ v) * KMUL;
	a ^= a >> 47;
	uint64_t b = (v ^ a) * KMUL;
	b ^= b >> 47;
	return b * KMUL;
}

static uint64_t r64(const uint8_t *p)
{
	return ofl_le64(p);
}

static uint64_t hash_1to3(const uint8_t *s, size_t len)
{
	uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len / 2] << 8);
	uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
	return sm(((uint64_t)y * K2) ^ ((uint64_t)z * K3) ^ SEED) * K2;
}

static uint64_t hash_17to32(const uint8_t *s, size_t len)
{
	uint64_t a = r64(s) * K1, b = r64(s + 8), c = r64(s + len - 8) * K2;
	uint64_t d = r64(s + len - 16) * K0;
	return h16(rotr(a - b, 43) + rotr(c ^ SEED, 30) + d, a + rotr(b ^ K3, 20) - c + len + SEED);
}

static uint64_t hash_33to64(const uint8_t *s, size_t len)
{
	uint64_t z = r64(s + 24), a = r64(s) + (len + r64(s + len - 16)) * K0;
	uint64_t b = rotr(a + z, 52), c = rotr(a, 37);
	a += r64(s + 8);
	c += rotr(a, 7);
	a += r64(s + 16);
	uint64_t vf = a + z, vs = b + rotr(a, 31) + c;
	a = r64(s + 16) + r64(s + len - 32);
	z = r64(s + len - 8);
	b = rotr(a + z, 52);
	c = rotr(a, 37);
	a += r64(s + len - 24);
	c += rotr(a, 7);
	a += r64(s + len - 16);
	uint64_t wf = a + z, ws = b + rotr(a, 31) + c;
	uint64_t r = sm((vf + ws) * K2 + (wf + vs) * K0);
	return sm((SEED ^ (r * K0)) + vs) * K2;
}

struct hstate {
	uint64_t h0, h1, h2, h3, h4, h5, h6;
};

static void m32(const uint8_t *q, uint64_t *a, uint64_t *b)
{
	*a += r64(q);
	uint64_t c = r64(q + 24);
	*b = rotr(*b + *a + c, 21);
	uint64_t d = *a;
	*a += r64(q + 8) + r64(q + 16);
	*b += rotr(*a, 44) + d;
	*a += c;
}

static void mix(struct hstate *h, const uint8_t *p)
{
	h->h0 = rotr(h->h0 + h->h1 + h->h3 + r64(p + 8), 37) * K1;
	h->h1 = rotr(h->h1 + h->h4 + r64(p + 48), 42) * K1;
	h->h0 ^= h->h6;
	h->h1 += h->h3 + r64(p + 40);
	h->h2 = rotr(h->h2 + h->h5, 33) * K1;
	h->h3 = h->h4 * K1;
	h->h4 = h->h0 + h->h5;
	m32(p, &h->h3, &h->h4);
	h->h5 = h->h2 + h->h6;
	h->h6 = h->h1 + r64(p + 16);
	m32(p + 32, &h->h5, &h->h6);
	uint64_t t = h->h0;
	h->h0 = h->h2;
	h->h2 = t;
}

static uint64_t hash_long(const uint8_t *s, size_t len)
{
	struct hstate h = {0, SEED, h16(SEED, K1), rotr(SEED ^ K1, 49), SEED * K1, sm(SEED), 0};
	h.h6 = h16(h.h4, h.h5);
	size_t full = len & ~(size_t)63;
	for (size_t off = 0; off < full; off += 64)
		mix(&h, s + off);
	if (len % 64)
		mix(&h, s + len - 64);
	return h16(h16(h.h3, h.h5) + sm(h.h1) * K1 + h.h2,
	           h16(h.h4, h.h6) + sm((uint64_t)len) * K1 + h.h0);
}

uint64_t ofl_llvm_string_hash(const char *str, size_t len, enum ofl_llvm_version v)
{
	const uint8_t *s = (const uint8_t *)str;
	/* 23's combine_bytes: xxh3 with the seed XORed in after it */
	if (v >= OFL_LLVM_23)
		return XXH3_64bits(str, len) ^ SEED;
	if (len == 0)
		return K2 ^ SEED;
	if (len <= 3)
		return hash_1to3(s, len);
	if (len <= 8)
		return h16(len + ((uint64_t)ofl_le32(s) << 3), SEED ^ ofl_le32(s + len - 4));
	if (len <= 16) {
		uint64_t a = r64(s), b = r64(s + len - 8);
		return h16(SEED ^ a, rotr(b + len, (unsigned)len)) ^ b;
	}
	if (len <= 32)
		return hash_17to32(s, len);
	if (len <= 64)
		return hash_33to64(s, len);
	return hash_long(s, len);
}

static void dm_insert(size_t *buckets, size_t nb, uint32_t hash, size_t idx)
{
	size_t b = hash & (nb - 1);
	for (size_t probe = 1; buckets[b] != SIZE_MAX; probe++)
		b = (b + probe) & (nb - 1);
	buckets[b] = idx;
}

int ofl_obin_llvm_key_order(const char *const *keys, size_t n, enum ofl_llvm_version v,
                            size_t *order)
{
	size_t nb = 0, *buckets = NULL;
	uint32_t *hash = ofl_calloc(n ? n : 1, sizeof *hash);
	if (!hash)
		return OFL_ENOMEM;
	for (size_t i = 0; i < n; i++)
		hash[i] = (uint32_t)ofl_llvm_string_hash(keys[i], strlen(keys[i]), v);
	for (size_t m = 1; m <= n; m++) {
		if ((uint64_t)m * 4 >= (uint64_t)nb * 3) {
			size_t nnb = nb ? nb * 2 : 64;
			size_t *nbk = ofl_malloc(nnb * sizeof *nbk);
			if (!nbk) {
				free(buckets);
				free(hash);
				return OFL_ENOMEM;
			}
			memset(nbk, 0xff, nnb * sizeof *nbk);
			for (size_t b = 0; b < nb; b++)
				if (buckets[b] != SIZE_MAX)
					dm_insert(nbk, nnb, hash[buckets[b]], buckets[b]);
			free(buckets);
			buckets = nbk;
			nb = nnb;
		}
		dm_insert(buckets, nb, hash[m - 1], m - 1);
	}
	size_t k = 0;
	for (size_t b = 0; b < nb; b++)
		if (buckets[b] != SIZE_MAX)
			order[k++] = buckets[b];
	free(buckets);
	free(hash);
	return (int)k;
}
