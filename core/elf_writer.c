/* Relocatable ELF64 LE writer on top of libelf (see elf_writer.h).
 *
 * Layout, fixed: ELF header, then each section's bytes in creation order,
 * each followed by its .rela section, then .symtab and .strtab (which also
 * holds the section names, as LLVM's writer does), then the section header
 * table, then the deferred sections below.  All offsets are computed here (ELF_F_LAYOUT), so libelf
 * only serialises.
 *
 * Sections made of borrowed pieces (device images, often many MiB) do not go
 * through libelf, which would copy them through user space: libelf sees them
 * as SHT_NOBITS of the right size and offset past its own layout, and
 * afterwards the bytes are copied there (copy_file_range from the input file where possible)
 * and the real section type is written into the header. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_writer.h"
#include "elf_priv.h"
#include "internal.h"

void ofl_ew_init(struct ofl_ew_obj *o, uint16_t machine, struct ofl_error *err)
{
	memset(o, 0, sizeof(*o));
	o->machine = machine;
	o->err = err;
}

void ofl_ew_release(struct ofl_ew_obj *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		ofl_buf_release(&o->secs[i].data);
		free(o->secs[i].pieces);
		free(o->secs[i].rel);
	}
	for (size_t i = 0; i < o->nnames; i++)
		free(o->names[i]);
	free(o->names);
	free(o->secs);
	free(o->syms);
	memset(o, 0, sizeof(*o));
}

int ofl_ew_section(struct ofl_ew_obj *o, const char *name, uint32_t type, uint64_t flags,
                   uint64_t align)
{
	if (OFL_GROW(o->secs, o->secs_cap, o->nsecs)) {
		OFL_NOMEM(o->err);
		return -1;
	}
	o->secs[o->nsecs] = (struct ofl_ew_sec){
	    .name = name, .type = type, .flags = flags, .align = align, .data = OFL_BUF_INIT};
	return (int)o->nsecs++;
}

uint32_t ofl_ew_symbol(struct ofl_ew_obj *o, const char *name, uint8_t bind, uint8_t type,
                       uint8_t vis, int sec, uint64_t value, uint64_t size)
{
	/* index 0 is the null symbol */
	size_t first = o->nsyms ? 0 : 1;
	char *copy = ofl_strdup(name);
	if (!copy || OFL_GROW(o->names, o->names_cap, o->nnames) ||
	    OFL_GROW(o->syms, o->syms_cap, o->nsyms + first)) {
		free(copy);
		OFL_NOMEM(o->err);
		return 0;
	}
	if (first)
		o->syms[o->nsyms++] = (struct ofl_ew_sym){0};
	o->names[o->nnames++] = copy;
	o->syms[o->nsyms] = (struct ofl_ew_sym){copy, bind, type, vis, sec, value, size};
	return (uint32_t)o->nsyms++;
}

uint32_t ofl_ew_secsym(struct ofl_ew_obj *o, int sec)
{
	if (!o->secs[sec].secsym)
		o->secs[sec].secsym =
		    ofl_ew_symbol(o, "", STB_LOCAL, STT_SECTION, STV_DEFAULT, sec, 0, 0);
	return o->secs[sec].secsym;
}

int ofl_ew_piece(struct ofl_ew_obj *o, int sec, const uint8_t *p, uint64_t len, uint64_t align,
                 int fd, uint64_t fd_off, uint64_t *off)
{
	struct ofl_ew_sec *s = &o->secs[sec];
	uint64_t start, end;
	if (OFL_GROW(s->pieces, s->pieces_cap, s->npieces))
		return OFL_NOMEM(o->err);
	if (!ofl_align_up(s->size, align, &start) || ofl_add_overflow(start, len, &end))
		return ofl_error_set(o->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "section '%s' too large", s->name);
	s->pieces[s->npieces++] = (struct ofl_ew_piece){p, len, start, fd, fd_off};
	s->size = end;
	*off = start;
	return 0;
}

int ofl_ew_reloc(struct ofl_ew_obj *o, int sec, uint64_t off, uint32_t type, uint32_t sym,
                 int64_t addend)
{
	struct ofl_ew_sec *s = &o->secs[sec];
	if (OFL_GROW(s->rel, s->rel_cap, s->nrel))
		return OFL_NOMEM(o->err);
	s->rel[s->nrel++] = (struct ofl_ew_reloc){off, type, sym, addend};
	return 0;
}

static uint64_t sec_size(const struct ofl_ew_sec *s)
{
	return s->npieces || s->type == SHT_NOBITS ? s->size : s->data.len;
}

/* Final symbol order: null, locals, globals (ELF requires locals first). */
struct layout {
	uint32_t *symidx; /* builder id -> final index */
	size_t *elfsec;   /* builder section id -> section header index */
	size_t *relsec;   /* section header index of its .rela, 0 = none */
	uint32_t nlocal;
	struct ofl_buf strtab, symtab, *rela;
	size_t *name_off; /* per builder section, in strtab */
	uint64_t *offset; /* per builder section, in the file */
	size_t *rela_name_off;
	size_t symtab_name, strtab_name, nshdr;
};

static int add_str(struct ofl_buf *b, const char *s, size_t *off)
{
	*off = b->len;
	return ofl_buf_append(b, s, strlen(s) + 1);
}

static int build_tables(struct ofl_ew_obj *o, struct layout *l)
{
	size_t n = o->nsyms ? o->nsyms : 1;
	l->symidx = ofl_calloc(n, sizeof(*l->symidx));
	l->elfsec = ofl_calloc(o->nsecs + 1, sizeof(*l->elfsec));
	l->relsec = ofl_calloc(o->nsecs + 1, sizeof(*l->relsec));
	l->name_off = ofl_calloc(o->nsecs + 1, sizeof(*l->name_off));
	l->rela_name_off = ofl_calloc(o->nsecs + 1, sizeof(*l->rela_name_off));
	l->rela = ofl_calloc(o->nsecs + 1, sizeof(*l->rela));
	l->offset = ofl_calloc(o->nsecs + 1, sizeof(*l->offset));
	if (!l->symidx || !l->elfsec || !l->relsec || !l->name_off || !l->rela_name_off ||
	    !l->rela || !l->offset)
		return OFL_NOMEM(o->err);
	size_t idx = 1;
	int rc = ofl_buf_append(&l->strtab, "", 1);
	for (size_t i = 0; i < o->nsecs; i++) {
		l->elfsec[i] = idx++;
		if (o->secs[i].nrel)
			l->relsec[i] = idx++;
	}
	l->nshdr = idx + 2; /* .symtab, .strtab */
	uint32_t next = 1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 1; i < o->nsyms; i++)
			if ((o->syms[i].bind == STB_LOCAL) == (pass == 0))
				l->symidx[i] = next++;
	l->nlocal = 1;
	for (size_t i = 1; i < o->nsyms; i++)
		l->nlocal += o->syms[i].bind == STB_LOCAL;
	/* symbol names first, then section names, as in LLVM's string table */
	uint8_t ent[24];
	memset(ent, 0, sizeof(ent));
	rc |= ofl_buf_reserve(&l->symtab, 24 * n);
	rc |= ofl_buf_append(&l->symtab, ent, 24);
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (size_t i = 1; i < o->nsyms && !rc; i++) {
			const struct ofl_ew_sym *s = &o->syms[i];
			if ((s->bind == STB_LOCAL) != (pass == 0))
				continue;
			size_t name = 0;
			if (s->name[0])
				rc |= add_str(&l->strtab, s->name, &name);
			uint16_t shndx = s->sec == -2 ? SHN_ABS
			                 : s->sec < 0 ? SHN_UNDEF
			                              : (uint16_t)l->elfsec[s->sec];
			ofl_put_le32(ent, (uint32_t)name);
			ent[4] = (uint8_t)((s->bind << 4) | s->type);
			ent[5] = s->vis;
			ofl_put_le16(ent + 6, shndx);
			ofl_put_le64(ent + 8, s->value);
			ofl_put_le64(ent + 16, s->size);
			rc |= ofl_buf_append(&l->symtab, ent, 24);
		}
	}
	for (size_t i = 0; i < o->nsecs && !rc; i++) {
		rc |= add_str(&l->strtab, o->secs[i].name, &l->name_off[i]);
		if (!o->secs[i].nrel)
			continue;
		/* ".rela" + name; the bytes of name follow in the table */
		l->rela_name_off[i] = l->strtab.len;
		rc |= ofl_buf_append(&l->strtab, ".rela", 5);
		rc |= ofl_buf_append_str(&l->strtab, o->secs[i].name);
		rc |= ofl_buf_append(&l->strtab, "", 1);
		for (size_t r = 0; r < o->secs[i].nrel && !rc; r++) {
			const struct ofl_ew_reloc *rl = &o->secs[i].rel[r];
			uint8_t e[24];
			ofl_put_le64(e, rl->off);
			ofl_put_le64(e + 8, ((uint64_t)l->symidx[rl->sym] << 32) | rl->type);
			ofl_put_le64(e + 16, (uint64_t)rl->addend);
			rc |= ofl_buf_append(&l->rela[i], e, 24);
		}
	}
	rc |= add_str(&l->strtab, ".symtab", &l->symtab_name);
	rc |= add_str(&l->strtab, ".strtab", &l->strtab_name);
	return rc ? OFL_NOMEM(o->err) : 0;
}

static void release_layout(struct ofl_ew_obj *o, struct layout *l)
{
	if (l->rela)
		for (size_t i = 0; i < o->nsecs; i++)
			ofl_buf_release(&l->rela[i]);
	ofl_buf_release(&l->strtab);
	ofl_buf_release(&l->symtab);
	free(l->symidx);
	free(l->elfsec);
	free(l->relsec);
	free(l->name_off);
	free(l->rela_name_off);
	free(l->rela);
	free(l->offset);
}

struct shspec {
	size_t name;
	uint32_t type, link, info;
	uint64_t flags, align, entsize, size;
};

/* Adds a section whose bytes are given as pieces; *pos is the file offset,
 * advanced past it. */
static int add_scn(struct ofl_ew_obj *o, Elf *e, const struct shspec *sp,
                   const struct ofl_ew_piece *pc, size_t npc, uint64_t *pos, uint64_t *at)
{
	Elf_Scn *scn = elf_newscn(e);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh))
		goto fail;
	uint64_t off;
	if (!ofl_align_up(*pos, sp->align ? sp->align : 1, &off))
		goto fail;
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = sp->name;
	sh.sh_type = sp->type;
	sh.sh_flags = sp->flags;
	sh.sh_offset = off;
	sh.sh_size = sp->size;
	sh.sh_link = sp->link;
	sh.sh_info = sp->info;
	sh.sh_addralign = sp->align;
	sh.sh_entsize = sp->entsize;
	for (size_t i = 0; i < npc; i++) {
		Elf_Data *d = elf_newdata(scn);
		if (!d)
			goto fail;
		d->d_buf = (void *)pc[i].p;
		d->d_size = pc[i].len;
		d->d_off = (int64_t)pc[i].off;
		d->d_align = 1;
		d->d_type = ELF_T_BYTE;
		d->d_version = EV_CURRENT;
	}
	if (!gelf_update_shdr(scn, &sh))
		goto fail;
	*pos = off + (sp->type == SHT_NOBITS ? 0 : sp->size);
	*at = off;
	return 0;
fail:
	return ofl_error_set(o->err, OFL_EIO, NULL, OFL_NO_OFFSET, "libelf: %s", elf_errmsg(-1));
}

static int add_buf_scn(struct ofl_ew_obj *o, Elf *e, struct shspec *sp, const struct ofl_buf *b,
                       uint64_t *pos)
{
	struct ofl_ew_piece pc = {b->data, b->len, 0, -1, 0};
	uint64_t at;
	sp->size = b->len;
	return add_scn(o, e, sp, &pc, b->len ? 1 : 0, pos, &at);
}

static int write_sections(struct ofl_ew_obj *o, Elf *e, struct layout *l, uint64_t *pos)
{
	size_t symtab_idx = l->nshdr - 2;
	for (size_t i = 0; i < o->nsecs; i++) {
		struct ofl_ew_sec *s = &o->secs[i];
		struct shspec sp = {l->name_off[i], s->type,  0, 0,
		                    s->flags,       s->align, 0, sec_size(s)};
		struct ofl_ew_piece own = {s->data.data, s->data.len, 0, -1, 0};
		size_t npc = s->type != SHT_NOBITS && own.len ? 1 : 0;
		uint64_t later = 0;
		if (s->npieces) { /* deferred: placed after everything, see place_deferred */
			sp.type = SHT_NOBITS;
			npc = 0;
		}
		if (add_scn(o, e, &sp, &own, npc, s->npieces ? &later : pos, &l->offset[i]))
			return o->err->code;
		if (!s->nrel)
			continue;
		struct shspec rp = {l->rela_name_off[i],
		                    SHT_RELA,
		                    (uint32_t)symtab_idx,
		                    (uint32_t)l->elfsec[i],
		                    SHF_INFO_LINK,
		                    8,
		                    24,
		                    0};
		if (add_buf_scn(o, e, &rp, &l->rela[i], pos))
			return o->err->code;
	}
	struct shspec st = {
	    l->symtab_name, SHT_SYMTAB, (uint32_t)(l->nshdr - 1), l->nlocal, 0, 8, 24, 0};
	struct shspec ss = {l->strtab_name, SHT_STRTAB, 0, 0, 0, 1, 0, 0};
	if (add_buf_scn(o, e, &st, &l->symtab, pos) || add_buf_scn(o, e, &ss, &l->strtab, pos))
		return o->err->code;
	return 0;
}

/* Deferred sections go after the section header table, at the end of the
 * file: libelf fills every gap it sees with explicit writes, and a hole for a
 * 64 MiB image inside its layout would be written twice.  Big ones start on a
 * 64 KiB boundary: the kernel copies into the page cache's large folios
 * faster there (a 64 MiB copy_file_range: 25 ms at 64 KiB, 33 ms at 4 KiB on
 * ext4), and file systems can share the input's blocks (reflink). */
static int place_deferred(struct ofl_ew_obj *o, Elf *e, struct layout *l, uint64_t end)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		const struct ofl_ew_sec *s = &o->secs[i];
		if (!s->npieces)
			continue;
		uint64_t size = sec_size(s), align = size >= 65536 ? 65536
		                                     : s->align    ? s->align
		                                                   : 1;
		Elf_Scn *scn = elf_getscn(e, l->elfsec[i]);
		Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
		if (!sh || !ofl_align_up(end, align, &l->offset[i]) ||
		    ofl_add_overflow(l->offset[i], size, &end))
			return ofl_error_set(o->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			                     "object too large");
		sh->sh_offset = l->offset[i];
		elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY);
	}
	return 0;
}

/* Writes one piece at file offset at: from its file (ofl_fd_copy), else
 * from memory. */
static int put_piece(struct ofl_ew_obj *o, int fd, const struct ofl_ew_piece *pc, uint64_t at)
{
	uint64_t done = 0;
	if (pc->fd >= 0) {
		if (ofl_fd_copy(pc->fd, pc->fd_off, fd, &at, pc->len, &done))
			return ofl_error_errno(o->err, NULL, "cannot write object");
		return 0;
	}
	while (done < pc->len) {
		ssize_t c = pwrite(fd, pc->p + done, pc->len - done, (off_t)(at + done));
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0)
			return ofl_error_errno(o->err, NULL, "cannot write object");
		done += (uint64_t)c;
	}
	return 0;
}

/* Fills the deferred sections and gives them their real type. */
static int fill_deferred(struct ofl_ew_obj *o, int fd, const struct layout *l, uint64_t shoff)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		const struct ofl_ew_sec *s = &o->secs[i];
		uint8_t type[4];
		if (!s->npieces)
			continue;
		for (size_t k = 0; k < s->npieces; k++)
			if (put_piece(o, fd, &s->pieces[k], l->offset[i] + s->pieces[k].off))
				return o->err->code;
		ofl_put_le32(type, s->type);
		struct ofl_ew_piece t = {type, 4, 0, -1, 0};
		if (put_piece(o, fd, &t, shoff + l->elfsec[i] * sizeof(Elf64_Shdr) + 4))
			return o->err->code;
	}
	return 0;
}

int ofl_ew_write_fd(struct ofl_ew_obj *o, int fd)
{
	struct layout l;
	memset(&l, 0, sizeof(l));
	int rc = build_tables(o, &l);
	if (rc) {
		release_layout(o, &l);
		return rc;
	}
	Elf *e = ofl_elf_begin(fd, ELF_C_WRITE);
	Elf64_Ehdr *eh = e ? elf64_newehdr(e) : NULL;
	if (!eh) {
		rc = ofl_error_set(o->err, OFL_EIO, NULL, OFL_NO_OFFSET, "libelf: %s",
		                   elf_errmsg(-1));
		goto out;
	}
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_REL;
	eh->e_machine = o->machine;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shstrndx = (uint16_t)(l.nshdr - 1);
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	uint64_t pos = sizeof(Elf64_Ehdr);
	rc = write_sections(o, e, &l, &pos);
	if (rc)
		goto out;
	if (!ofl_align_up(pos, 8, &pos)) {
		rc = ofl_error_set(o->err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "object too large");
		goto out;
	}
	eh->e_shoff = pos;
	elf_flagehdr(e, ELF_C_SET, ELF_F_DIRTY);
	rc = place_deferred(o, e, &l, pos + l.nshdr * sizeof(Elf64_Shdr));
	if (rc)
		goto out;
	if (elf_update(e, ELF_C_WRITE) < 0)
		rc = ofl_error_set(o->err, OFL_EIO, NULL, OFL_NO_OFFSET, "cannot write object: %s",
		                   elf_errmsg(-1));
	else
		rc = fill_deferred(o, fd, &l, pos);
out:
	if (e)
		elf_end(e);
	release_layout(o, &l);
	return rc;
}
