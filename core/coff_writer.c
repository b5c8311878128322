/* COFF relocatable objects (coff_writer.h).  The layout is LLVM's: the file
 * header, the section headers, then each section's bytes followed by its
 * relocations, the symbol table and the string table; no padding anywhere,
 * time stamp 0. */
#include "coff_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "coff_priv.h"
#include "internal.h"

void ofl_cw_init(struct ofl_cw_obj *o, uint16_t machine, struct ofl_error *err)
{
	memset(o, 0, sizeof(*o));
	o->machine = machine;
	o->err = err;
}

void ofl_cw_release(struct ofl_cw_obj *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		ofl_buf_release(&o->secs[i].data);
		free(o->secs[i].rel);
	}
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	free(o->secs);
	free(o->syms);
	memset(o, 0, sizeof(*o));
}

int ofl_cw_section(struct ofl_cw_obj *o, const char *name, uint32_t characteristics)
{
	if (OFL_GROW(o->secs, o->secs_cap, o->nsecs)) {
		OFL_NOMEM(o->err);
		return 0;
	}
	o->secs[o->nsecs] = (struct ofl_cw_sec){.name = name, .characteristics = characteristics};
	return (int)++o->nsecs;
}

uint32_t ofl_cw_symbol(struct ofl_cw_obj *o, const char *name, uint32_t value, int16_t section,
                       uint16_t type, uint8_t storage_class, const uint8_t *aux, uint8_t naux)
{
	char *copy = ofl_strdup(name);
	if (!copy || naux > 2 || OFL_GROW(o->syms, o->syms_cap, o->nsyms)) {
		free(copy);
		OFL_NOMEM(o->err);
		return UINT32_MAX;
	}
	struct ofl_cw_sym *s = &o->syms[o->nsyms++];
	*s = (struct ofl_cw_sym){.name = copy,
	                         .value = value,
	                         .section = section,
	                         .type = type,
	                         .storage_class = storage_class,
	                         .naux = naux};
	if (naux)
		memcpy(s->aux, aux, (size_t)OFL_COFF_SYMBOL * naux);
	uint32_t index = o->nindex;
	o->nindex += 1u + naux;
	return index;
}

int ofl_cw_section_symbols(struct ofl_cw_obj *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		uint8_t aux[OFL_COFF_SYMBOL] = {0};
		o->secs[i].sym = ofl_cw_symbol(o, o->secs[i].name, 0, (int16_t)(i + 1), 0,
		                               OFL_CW_CLASS_STATIC, aux, 1);
		if (o->secs[i].sym == UINT32_MAX)
			return o->err->code;
		o->syms[o->nsyms - 1].secdef = (int)i + 1;
	}
	return 0;
}

int ofl_cw_reloc(struct ofl_cw_obj *o, int sec, uint32_t off, uint16_t type, uint32_t sym)
{
	struct ofl_cw_sec *s = &o->secs[sec - 1];
	if (OFL_GROW(s->rel, s->rel_cap, s->nrel))
		return OFL_NOMEM(o->err);
	s->rel[s->nrel++] = (struct ofl_cw_reloc){off, sym, type};
	return 0;
}

/* A name longer than 8 bytes lies in the string table: a symbol's record
 * holds its offset after four zero bytes, a section header "/N". */
static void put_name(uint8_t *p, const char *name, uint32_t stroff, bool symbol)
{
	char slash[16];
	if (!stroff) {
		memcpy(p, name, strlen(name));
		return;
	}
	if (symbol) {
		ofl_put_le32(p + 4, stroff);
		return;
	}
	/* "/N": tables of our few names stay far below 10 MB, the most N's
	 * seven digits can say */
	int n_written = snprintf(slash, sizeof(slash), "/%u", (unsigned)stroff);
	memcpy(p, slash, (size_t)n_written);
}

/* A name's string table entry: none (length 0) for a name short enough
 * to stay in its record. */
static struct ofl_strtab_ref name_ref(const char *name)
{
	size_t len = strlen(name);
	return (struct ofl_strtab_ref){name, len > OFL_COFF_SHORT_NAME ? len : 0, 0};
}

/* Lays out the string table as LLVM's StringTableBuilder makes a COFF one
 * (after its 4-byte size); each section and symbol takes its name's
 * offset, 0 for a name in its record.  refs: one per section then one per
 * symbol. */
static int layout_strtab(struct ofl_cw_obj *o, struct ofl_strtab_ref *refs, uint64_t *size)
{
	for (size_t i = 0; i < o->nsecs; i++)
		refs[i] = name_ref(o->secs[i].name);
	for (size_t i = 0; i < o->nsyms; i++)
		refs[o->nsecs + i] = name_ref(o->syms[i].name);
	if (ofl_strtab_layout(refs, o->nsecs + o->nsyms, 4, size))
		return OFL_NOMEM(o->err);
	for (size_t i = 0; i < o->nsecs; i++)
		o->secs[i].stroff = (uint32_t)refs[i].off;
	for (size_t i = 0; i < o->nsyms; i++)
		o->syms[i].stroff = (uint32_t)refs[o->nsecs + i].off;
	return 0;
}

/* The section headers, each section's bytes then its relocations. */
static int put_sections(struct ofl_cw_obj *o, struct ofl_buf *out, uint32_t *symtab)
{
	size_t head = out->len;
	uint32_t at = (uint32_t)(head + o->nsecs * OFL_COFF_SECTION_HEADER);
	if (ofl_buf_append_zeros(out, o->nsecs * OFL_COFF_SECTION_HEADER))
		return OFL_NOMEM(o->err);
	for (size_t i = 0; i < o->nsecs; i++) {
		struct ofl_cw_sec *s = &o->secs[i];
		uint8_t *h = out->data + head + i * OFL_COFF_SECTION_HEADER;
		put_name(h, s->name, s->stroff, false);
		bool bss = s->characteristics & OFL_CW_BSS;
		ofl_put_le32(h + 16, (uint32_t)s->data.len);
		ofl_put_le32(h + 20, bss ? 0 : at);
		ofl_put_le32(h + 24, s->nrel ? at + (uint32_t)s->data.len : 0);
		ofl_put_le16(h + 32, (uint16_t)s->nrel);
		ofl_put_le32(h + 36, s->characteristics);
		at += (uint32_t)(s->data.len + s->nrel * OFL_COFF_RELOC);
	}
	for (size_t i = 0; i < o->nsecs; i++) {
		struct ofl_cw_sec *s = &o->secs[i];
		if (ofl_buf_append(out, s->data.data, s->data.len))
			return OFL_NOMEM(o->err);
		for (size_t r = 0; r < s->nrel; r++) {
			uint8_t b[OFL_COFF_RELOC];
			ofl_put_le32(b, s->rel[r].off);
			ofl_put_le32(b + 4, s->rel[r].sym);
			ofl_put_le16(b + 8, s->rel[r].type);
			if (ofl_buf_append(out, b, OFL_COFF_RELOC))
				return OFL_NOMEM(o->err);
		}
	}
	*symtab = at;
	return 0;
}

/* LLVM's section checksum: a JamCRC (CRC-32 without the final inversion)
 * started at 0 instead of ~0, of the bytes with their addends in place. */
static uint32_t checksum(const struct ofl_cw_sec *s)
{
	if (!s->data.len)
		return 0;
	return (uint32_t)crc32_z(0xffffffffUL, s->data.data, s->data.len) ^ 0xffffffffu;
}

static int put_symbols(struct ofl_cw_obj *o, struct ofl_buf *out)
{
	for (size_t i = 0; i < o->nsyms; i++) {
		struct ofl_cw_sym *s = &o->syms[i];
		uint8_t b[OFL_COFF_SYMBOL] = {0};
		put_name(b, s->name, s->stroff, true);
		ofl_put_le32(b + 8, s->value);
		ofl_put_le16(b + 12, (uint16_t)s->section);
		ofl_put_le16(b + 14, s->type);
		b[16] = s->storage_class;
		b[17] = s->naux;
		if (s->secdef) { /* length, relocations, line numbers 0, checksum, number */
			const struct ofl_cw_sec *sec = &o->secs[s->secdef - 1];
			ofl_put_le32(s->aux, (uint32_t)sec->data.len);
			ofl_put_le16(s->aux + 4, (uint16_t)sec->nrel);
			ofl_put_le32(s->aux + 8, checksum(sec));
			ofl_put_le16(s->aux + 12, (uint16_t)s->secdef);
		}
		if (ofl_buf_append(out, b, OFL_COFF_SYMBOL) ||
		    ofl_buf_append(out, s->aux, (size_t)OFL_COFF_SYMBOL * s->naux))
			return OFL_NOMEM(o->err);
	}
	return 0;
}

int ofl_cw_write(struct ofl_cw_obj *o, struct ofl_buf *out)
{
	struct ofl_strtab_ref *refs = ofl_calloc(o->nsecs + o->nsyms + 1, sizeof(*refs));
	size_t head = out->len, table;
	uint64_t tabsize = 0;
	uint32_t symtab = 0;
	int rc = o->err->code ? o->err->code : !refs ? OFL_NOMEM(o->err) : 0;
	rc = rc ? rc : layout_strtab(o, refs, &tabsize);
	if (!rc && ofl_buf_append_zeros(out, OFL_COFF_FILE_HEADER))
		rc = OFL_NOMEM(o->err);
	rc = rc ? rc : put_sections(o, out, &symtab);
	rc = rc ? rc : put_symbols(o, out);
	table = out->len;
	if (!rc && ofl_buf_append_zeros(out, (size_t)tabsize))
		rc = OFL_NOMEM(o->err);
	if (!rc) {
		ofl_put_le32(out->data + table, (uint32_t)tabsize);
		ofl_strtab_fill(refs, o->nsecs + o->nsyms, out->data + table);
		uint8_t *h = out->data + head;
		ofl_put_le16(h, o->machine);
		ofl_put_le16(h + 2, (uint16_t)o->nsecs);
		ofl_put_le32(h + 8, symtab);
		ofl_put_le32(h + 12, o->nindex);
	}
	free(refs);
	return rc;
}
