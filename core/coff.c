/* COFF section tables (offlink/coff.h, docs/formats.md §10). */
#include "offlink/coff.h"

#include <stdlib.h>
#include <string.h>

#include "coff_priv.h"
#include "internal.h"

enum {
	BIGOBJ_HEADER = 56,
	BIGOBJ_SYMBOL = 20,
	/* longer names are refused: a section name is a few dozen bytes, and
	 * the bound keeps a name's scan short whatever the string table holds */
	MAX_NAME = 4096,
};

/* The bigobj header's class ID, as LLVM and MSVC write it. */
static const uint8_t bigobj_class[16] = {0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
                                         0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8};

struct header {
	uint64_t nsections, sections; /* count, and where the table starts */
	uint64_t strtab;              /* where the string table starts; 0: none */
};

static bool known_machine(uint16_t m)
{
	return m == OFL_COFF_MACHINE_AMD64 || m == OFL_COFF_MACHINE_ARM64 ||
	       m == OFL_COFF_MACHINE_I386 || m == OFL_COFF_MACHINE_ARMNT;
}

static bool is_bigobj(const uint8_t *d, size_t n)
{
	return n >= BIGOBJ_HEADER && ofl_le16(d) == 0 && ofl_le16(d + 2) == 0xffff &&
	       ofl_le16(d + 4) >= 2 && !memcmp(d + 12, bigobj_class, 16);
}

/* The header's counts, unchecked; false when the bytes are no COFF header. */
static bool read_header(const uint8_t *d, size_t n, struct header *h)
{
	uint64_t symtab, nsyms, symsize;
	if (is_bigobj(d, n) && known_machine(ofl_le16(d + 6))) {
		h->nsections = ofl_le32(d + 44);
		h->sections = BIGOBJ_HEADER;
		symtab = ofl_le32(d + 48);
		nsyms = ofl_le32(d + 52);
		symsize = BIGOBJ_SYMBOL;
	} else if (n >= OFL_COFF_FILE_HEADER && known_machine(ofl_le16(d)) &&
	           ofl_le16(d + 16) == 0) {
		h->nsections = ofl_le16(d + 2);
		h->sections = OFL_COFF_FILE_HEADER;
		symtab = ofl_le32(d + 8);
		nsyms = ofl_le32(d + 12);
		symsize = OFL_COFF_SYMBOL;
	} else {
		return false;
	}
	/* 32-bit fields: no product overflows 64 bits */
	h->strtab = symtab ? symtab + nsyms * symsize : 0;
	return true;
}

bool ofl_coff_is(const uint8_t *data, size_t size)
{
	struct header h;
	return read_header(data, size, &h) && h.nsections &&
	       h.sections + h.nsections * OFL_COFF_SECTION_HEADER <= size;
}

/* bigobj's "//" names: six base64 digits of the string table offset. */
static bool base64_offset(const uint8_t *p, uint64_t *v)
{
	static const char digits[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	*v = 0;
	for (int i = 2; i < 8; i++) {
		const char *c = p[i] ? memchr(digits, p[i], 64) : NULL;
		if (!c)
			return false;
		*v = *v * 64 + (uint64_t)(c - digits);
	}
	return true;
}

/* "/1234": a decimal offset, up to 7 digits. */
static bool decimal_offset(const uint8_t *p, uint64_t *v)
{
	int i = 1;
	*v = 0;
	for (; i < 8 && p[i]; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		*v = *v * 10 + (uint64_t)(p[i] - '0');
	}
	return i > 1;
}

/* The name of the section whose header is at p (at offset at). */
static int section_name(const uint8_t *d, size_t n, const struct header *h, const uint8_t *p,
                        uint64_t at, struct ofl_coff_section *s, struct ofl_error *err)
{
	uint64_t off;
	if (p[0] != '/') {
		s->name = (const char *)p;
		s->name_len = strnlen((const char *)p, OFL_COFF_SHORT_NAME);
		return 0;
	}
	bool ok = p[1] == '/' ? base64_offset(p, &off) : decimal_offset(p, &off);
	if (!ok)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at, "malformed COFF section name");
	if (!h->strtab || h->strtab > n || n - h->strtab < 4 || off < 4 ||
	    off >= ofl_le32(d + h->strtab) || off >= n - h->strtab)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at,
		                     "COFF section name outside the string table");
	const char *name = (const char *)d + h->strtab + off;
	size_t room = n - h->strtab - off;
	s->name = name;
	s->name_len = strnlen(name, room < MAX_NAME ? room : MAX_NAME);
	if (s->name_len == room || s->name_len == MAX_NAME)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at, "unterminated COFF section name");
	return 0;
}

static int add(struct ofl_coff_sections *out, const struct ofl_coff_section *s,
               struct ofl_error *err)
{
	if (OFL_GROW(out->v, out->cap, out->n))
		return OFL_NOMEM(err);
	out->v[out->n++] = *s;
	return 0;
}

int ofl_coff_sections(const uint8_t *data, size_t size, const char *prefix,
                      struct ofl_coff_sections *out, struct ofl_error *err)
{
	struct header h;
	size_t plen = strlen(prefix);
	*out = (struct ofl_coff_sections)OFL_COFF_SECTIONS_INIT;
	if (!read_header(data, size, &h))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not a COFF object");
	if (h.sections + h.nsections * OFL_COFF_SECTION_HEADER > size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, h.sections,
		                     "COFF section table (%llu sections) past the end",
		                     (unsigned long long)h.nsections);
	int rc = 0;
	for (uint64_t i = 0; !rc && i < h.nsections; i++) {
		uint64_t at = h.sections + i * OFL_COFF_SECTION_HEADER;
		const uint8_t *p = data + at;
		struct ofl_coff_section s = {
		    NULL, 0, ofl_le32(p + 20), ofl_le32(p + 16), ofl_le32(p + 36), (unsigned)i + 1};
		if (!s.offset) /* uninitialized data: nothing in the file */
			s.size = 0;
		rc = section_name(data, size, &h, p, at, &s, err);
		if (rc || s.name_len < plen || memcmp(s.name, prefix, plen))
			continue;
		if (s.offset > size || s.size > size - s.offset)
			rc = ofl_error_set(err, OFL_EFORMAT, NULL, at,
			                   "COFF section %.*s: its data is past the end",
			                   (int)s.name_len, s.name);
		else
			rc = add(out, &s, err);
	}
	if (rc)
		ofl_coff_sections_release(out);
	return rc;
}

void ofl_coff_sections_release(struct ofl_coff_sections *s)
{
	free(s->v);
	*s = (struct ofl_coff_sections)OFL_COFF_SECTIONS_INIT;
}
