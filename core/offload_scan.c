/* Finding OffloadBinaries in ELF sections and in raw bytes. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "elf_priv.h"
#include "internal.h"
#include "offlink/bundle.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"

void ofl_found_list_release(struct ofl_found_list *l)
{
	free(l->v);
	*l = (struct ofl_found_list)OFL_FOUND_LIST_INIT;
}

static int found_push(struct ofl_found_list *l, struct ofl_found f, struct ofl_error *err)
{
	if (OFL_GROW(l->v, l->cap, l->n))
		return OFL_NOMEM(err);
	l->v[l->n++] = f;
	return 0;
}

void ofl_elf_sections_release(struct ofl_elf_sections *s)
{
	free(s->v);
	*s = (struct ofl_elf_sections)OFL_ELF_SECTIONS_INIT;
}

static bool section_wanted(uint32_t type, const char *name, unsigned how)
{
	if ((how & OFL_ELFSEC_BY_TYPE) && type == OFL_SHT_LLVM_OFFLOADING)
		return true;
	return (how & OFL_ELFSEC_BY_NAME) && name &&
	       !strncmp(name, OFL_OFFLOADING_SECTION, strlen(OFL_OFFLOADING_SECTION));
}

static void note_other(struct ofl_elf_sections *out, const char *name)
{
	if (!name)
		return;
	if (!strcmp(name, ".hip_fatbin") || !strcmp(name, ".nv_fatbin"))
		out->fatbin = true;
	else if (!strncmp(name, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN))
		out->bundle = true;
}

static int add_section(struct ofl_elf_sections *out, size_t idx, const GElf_Shdr *sh,
                       const char *name, size_t size, struct ofl_error *err)
{
	if (!ofl_range_ok(sh->sh_offset, sh->sh_size, size))
		return ofl_error_set(
		    err, OFL_EFORMAT, NULL, sh->sh_offset,
		    "section %zu ('%s') at %llu+%llu runs past the end of the file", idx,
		    name ? name : "", (unsigned long long)sh->sh_offset,
		    (unsigned long long)sh->sh_size);
	if (OFL_GROW(out->v, out->cap, out->n))
		return OFL_NOMEM(err);
	struct ofl_elf_section *s = &out->v[out->n++];
	s->index = idx;
	s->type = sh->sh_type;
	s->offset = sh->sh_offset;
	s->size = sh->sh_size;
	s->flags = sh->sh_flags;
	snprintf(s->name, sizeof s->name, "%s", name ? name : "");
	return 0;
}

/* The section table of an ELF64 little-endian file (the hosts' own form)
 * read from its bytes, the same walk as libelf's below: libelf copies an
 * archive member's table (members are only 2-aligned) and builds a
 * descriptor per section, most of the time a link without device code
 * takes.  1 for anything it does not take (other classes and byte orders,
 * extended numbering, a table or string section out of the file, a
 * compressed string table): libelf reads those and says what is wrong. */
static int direct_sections(const uint8_t *d, size_t size, unsigned how,
                           struct ofl_elf_sections *out, struct ofl_error *err)
{
	if (size < 64 || d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB ||
	    d[EI_VERSION] != EV_CURRENT || (how & OFL_ELFSEC_LIBELF))
		return 1;
	struct ofl_elf64_shtab t;
	/* as libelf reads: 64-byte headers, no extended numbering, names in
	 * an uncompressed string table */
	if (!ofl_elf64_shtab(d, size, &t) || t.entsize != 64 || t.strndx == 0)
		return 1;
	const uint8_t *strsh = t.sh + (uint64_t)t.strndx * 64;
	if (ofl_le32(strsh + 4) != SHT_STRTAB || (ofl_le64(strsh + 8) & SHF_COMPRESSED))
		return 1;
	int rc = 0;
	for (unsigned i = 1; i < t.n && !rc; i++) {
		const uint8_t *h = t.sh + (uint64_t)i * 64;
		GElf_Shdr sh = {.sh_name = ofl_le32(h),
		                .sh_type = ofl_le32(h + 4),
		                .sh_flags = ofl_le64(h + 8),
		                .sh_offset = ofl_le64(h + 0x18),
		                .sh_size = ofl_le64(h + 0x20)};
		const char *name =
		    sh.sh_name < t.strsize &&
		            memchr(t.strs + sh.sh_name, 0, (size_t)(t.strsize - sh.sh_name))
		        ? t.strs + sh.sh_name
		        : NULL;
		note_other(out, name);
		if (sh.sh_type != SHT_NOBITS && section_wanted(sh.sh_type, name, how))
			rc = add_section(out, i, &sh, name, size, err);
	}
	if (rc)
		ofl_elf_sections_release(out);
	return rc;
}

int ofl_elf_offload_sections(const uint8_t *data, size_t size, unsigned how,
                             struct ofl_elf_sections *out, struct ofl_error *err)
{
	*out = (struct ofl_elf_sections)OFL_ELF_SECTIONS_INIT;
	if (!ofl_is_elf(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an ELF file");
	int direct = direct_sections(data, size, how, out, err);
	if (direct != 1)
		return direct;
	Elf *elf = ofl_elf_memory(data, size, ELF_K_ELF);
	size_t shstrndx;
	int rc = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, 0, "malformed ELF file: %s",
		                   elf_errmsg(-1));
		goto done;
	}
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !rc; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh)) {
			out->unread = true;
			continue;
		}
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		note_other(out, name);
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (section_wanted(sh.sh_type, name, how))
			rc = add_section(out, elf_ndxscn(scn), &sh, name, size, err);
	}
done:
	if (elf)
		ofl_elf_end(elf, data);
	if (rc)
		ofl_elf_sections_release(out);
	return rc;
}

/* Candidates are positions with 0x10 at +0 and 0xAD at +3, tested 16 at a
 * time; false candidates are rare enough that the check is cheap. */
const uint8_t *ofl_find_magic(const uint8_t *p, const uint8_t *end)
{
#ifdef __SSE2__
	const __m128i b0 = _mm_set1_epi8(0x10), b3 = _mm_set1_epi8((char)0xad);
	while (end - p >= 67) {
		unsigned m[4], any = 0;
		for (int k = 0; k < 4; k++) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
			__m128i d =
			    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k + 3));
			m[k] = (unsigned)_mm_movemask_epi8(
			    _mm_and_si128(_mm_cmpeq_epi8(a, b0), _mm_cmpeq_epi8(d, b3)));
			any |= m[k];
		}
		for (int k = 0; any && k < 4; k++)
			for (unsigned mask = m[k]; mask; mask &= mask - 1) {
				const uint8_t *c = p + 16 * k + __builtin_ctz(mask);
				if (c[1] == 0xff && c[2] == 0x10)
					return c;
			}
		p += 64;
	}
#endif
	if (end - p < 4)
		return NULL;
	return memmem(p, (size_t)(end - p), OFL_OBIN_MAGIC, 4);
}

int ofl_scan_each(const uint8_t *data, size_t size, uint64_t base, unsigned flags, ofl_scan_fn fn,
                  void *ctx, struct ofl_error *err)
{
	bool exact = flags & OFL_SCAN_EXACT;
	size_t pos = 0;
	while (exact ? pos < size : size - pos >= 4) {
		if (exact || ofl_obin_is(data + pos, size - pos)) {
			uint64_t span = 0;
			int rc = fn(ctx, data + pos, size - pos, base + pos, &span, err);
			if (rc == 0) {
				if (span >= size - pos)
					break;
				pos += (size_t)span;
				continue;
			}
			if (rc == OFL_ENOMEM || (flags & (OFL_SCAN_STRICT | OFL_SCAN_EXACT))) {
				ofl_error_locate(err, NULL, base + pos);
				return rc;
			}
			ofl_error_clear(err);
		}
		const uint8_t *next = ofl_find_magic(data + pos + 1, data + size);
		if (!next)
			break;
		pos = (size_t)(next - data);
	}
	return 0;
}

struct found_ctx {
	struct ofl_found_list *out;
	size_t section;
};

static int found_one(void *ctx, const uint8_t *p, size_t left, uint64_t off, uint64_t *span,
                     struct ofl_error *err)
{
	struct found_ctx *c = ctx;
	struct ofl_obin_set set;
	int rc = ofl_obin_parse_set(p, left, &set, err);
	if (rc)
		return rc;
	struct ofl_found f = {off, set.span, set.version, c->section};
	ofl_obin_set_release(&set);
	*span = f.size;
	return found_push(c->out, f, err);
}

int ofl_scan_walk(const uint8_t *data, size_t size, uint64_t base, size_t section, unsigned flags,
                  struct ofl_found_list *out, struct ofl_error *err)
{
	struct found_ctx c = {out, section};
	return ofl_scan_each(data, size, base, flags, found_one, &c, err);
}

int ofl_scan_raw(const uint8_t *data, size_t size, unsigned flags, struct ofl_found_list *out,
                 struct ofl_error *err)
{
	return ofl_scan_walk(data, size, 0, 0, flags, out, err);
}

int ofl_scan_file(const uint8_t *data, size_t size, unsigned flags, struct ofl_found_list *out,
                  struct ofl_error *err)
{
	struct ofl_elf_sections secs;
	if (!ofl_is_elf(data, size) ||
	    ofl_elf_offload_sections(data, size, OFL_ELFSEC_BY_TYPE | OFL_ELFSEC_BY_NAME, &secs,
	                             err) != 0) {
		if (err && err->code == OFL_ENOMEM)
			return OFL_ENOMEM;
		/* Not ELF, or an ELF we cannot read: the raw scan still works. */
		ofl_error_clear(err);
		return ofl_scan_raw(data, size, 0, out, err);
	}
	int rc = 0;
	for (size_t i = 0; i < secs.n && !rc; i++)
		rc = ofl_scan_walk(data + secs.v[i].offset, (size_t)secs.v[i].size,
		                   secs.v[i].offset, secs.v[i].index, flags, out, err);
	bool none = secs.n == 0;
	ofl_elf_sections_release(&secs);
	if (!rc && none)
		rc = ofl_scan_raw(data, size, 0, out, err);
	return rc;
}
