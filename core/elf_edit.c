/* ELF objects copied with edits (elf_edit.h).  Removing sections shifts the
 * index of every later one, so everything that names a section by index
 * follows: sh_link, sh_info of relocation sections, symbols' st_shndx,
 * group members and e_shstrndx.  New names are appended to the string
 * tables in a data block of their own; the old strings stay. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

#include "elf_edit.h"
#include "elf_priv.h"
#include "internal.h"
#include "offlink/buf.h"

struct edit {
	const struct ofl_elf_edit *ed;
	Elf *in;
	size_t n;
	size_t *to; /* old index -> new index; 0 for removed sections */
	size_t shstrndx, strtab;
	/* new names: section names for .shstrtab, symbol names for the
	 * symbol table's strings; offsets from each table's old size */
	struct ofl_buf shnames, symnames;
	uint64_t shstr_size, str_size;
	struct ofl_buf owned; /* copies of rewritten data (pointers) */
	struct ofl_error *err;
};

static int elf_fail(struct ofl_error *err, const char *what)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET, "%s: %s", what, elf_errmsg(-1));
}

static size_t remap(const struct edit *m, size_t old)
{
	return old < m->n ? m->to[old] : old;
}

/* The new name of `name` under the renames, as an offset into its string
 * table (base: the table's old size), or 0 when it keeps its name. */
static uint32_t renamed(const struct ofl_elf_rename *r, size_t n, const char *name,
                        struct ofl_buf *names, uint64_t base)
{
	for (size_t i = 0; name && i < n; i++) {
		if (strcmp(name, r[i].from))
			continue;
		uint64_t off = base + names->len;
		if (off > UINT32_MAX || ofl_buf_append(names, r[i].to, strlen(r[i].to) + 1))
			return UINT32_MAX;
		return (uint32_t)off;
	}
	return 0;
}

static int build_map(struct edit *m)
{
	if (elf_getshdrnum(m->in, &m->n) != 0 || elf_getshdrstrndx(m->in, &m->shstrndx) != 0)
		return elf_fail(m->err, "cannot count sections");
	if (!(m->to = ofl_calloc(m->n, sizeof *m->to)))
		return OFL_NOMEM(m->err);
	size_t next = 1;
	for (size_t i = 1; i < m->n; i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_getscn(m->in, i);
		if (!s || !gelf_getshdr(s, &sh))
			return elf_fail(m->err, "cannot read section header");
		const char *name = elf_strptr(m->in, m->shstrndx, sh.sh_name);
		bool drop = m->ed->drop && m->ed->drop(m->ed->ctx, name, &sh);
		m->to[i] = drop ? 0 : next++;
		if (i == m->shstrndx)
			m->shstr_size = sh.sh_size;
		if (sh.sh_type == SHT_SYMTAB) {
			m->strtab = sh.sh_link;
			GElf_Shdr st;
			Elf_Scn *ss = elf_getscn(m->in, sh.sh_link);
			m->str_size = ss && gelf_getshdr(ss, &st) ? st.sh_size : 0;
		}
	}
	return 0;
}

static int rewrite_symbols(struct edit *m, Elf_Data *d, size_t strtab)
{
	size_t n = d->d_size / gelf_fsize(m->in, ELF_T_SYM, 1, EV_CURRENT);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			return -1;
		if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE)
			sym.st_shndx = (Elf64_Section)remap(m, sym.st_shndx);
		uint32_t nn = strtab != m->strtab ? 0
		                                  : renamed(m->ed->symbols, m->ed->nsymbols,
		                                            elf_strptr(m->in, strtab, sym.st_name),
		                                            &m->symnames, m->str_size);
		if (nn == UINT32_MAX)
			return -1;
		if (nn)
			sym.st_name = nn;
		if (!gelf_update_sym(d, (int)i, &sym))
			return -1;
	}
	return 0;
}

static void remap_words(Elf_Data *d, const struct edit *m, size_t first)
{
	uint32_t *w = d->d_buf;
	for (size_t i = first; i < d->d_size / 4; i++)
		if (w[i])
			w[i] = (uint32_t)remap(m, w[i]);
}

/* A private copy of d's bytes in nd, for rewriting. */
static int own_copy(struct edit *m, Elf_Data *nd)
{
	void *copy = ofl_malloc(nd->d_size);
	if (!copy || ofl_buf_append(&m->owned, &copy, sizeof copy)) {
		free(copy);
		return OFL_NOMEM(m->err);
	}
	memcpy(copy, nd->d_buf, nd->d_size);
	nd->d_buf = copy;
	return 0;
}

static int rewrite_data(struct edit *m, const GElf_Shdr *sh, size_t old_link, Elf_Data *nd)
{
	if (own_copy(m, nd))
		return m->err->code;
	if (sh->sh_type == SHT_GROUP)
		remap_words(nd, m, 1); /* word 0 holds the group flags */
	else if (sh->sh_type == SHT_SYMTAB_SHNDX)
		remap_words(nd, m, 0);
	else if (rewrite_symbols(m, nd, old_link) < 0)
		return elf_fail(m->err, "cannot rewrite symbols");
	return 0;
}

/* Copies one kept section; data that holds section indices or symbol names
 * is copied and rewritten, everything else is shared with the input. */
static int copy_section(struct edit *m, size_t i, Elf_Scn *to)
{
	Elf_Scn *from = elf_getscn(m->in, i);
	GElf_Shdr sh;
	if (!from || !gelf_getshdr(from, &sh))
		return elf_fail(m->err, "cannot read section header");
	uint32_t nn =
	    renamed(m->ed->sections, m->ed->nsections, elf_strptr(m->in, m->shstrndx, sh.sh_name),
	            &m->shnames, m->shstr_size);
	if (nn == UINT32_MAX)
		return OFL_NOMEM(m->err);
	sh.sh_name = nn ? nn : sh.sh_name;
	size_t old_link = sh.sh_link;
	sh.sh_link = (uint32_t)remap(m, sh.sh_link);
	if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA || (sh.sh_flags & SHF_INFO_LINK))
		sh.sh_info = (uint32_t)remap(m, sh.sh_info);
	bool rewrite = sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM ||
	               sh.sh_type == SHT_GROUP || sh.sh_type == SHT_SYMTAB_SHNDX;
	for (Elf_Data *d = NULL; (d = elf_getdata(from, d));) {
		Elf_Data *nd = elf_newdata(to);
		if (!nd)
			return elf_fail(m->err, "cannot copy section");
		*nd = *d;
		int rc = rewrite && d->d_size ? rewrite_data(m, &sh, old_link, nd) : 0;
		if (rc)
			return rc;
	}
	if (!gelf_update_shdr(to, &sh))
		return elf_fail(m->err, "cannot write section header");
	return 0;
}

/* The new names, after the old strings of their table. */
static int append_names(Elf_Scn *to, const struct ofl_buf *names, struct ofl_error *err)
{
	if (!names->len)
		return 0;
	Elf_Data *d = elf_newdata(to);
	if (!d)
		return elf_fail(err, "cannot extend a string table");
	d->d_buf = names->data;
	d->d_size = names->len;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	return 0;
}

struct placed {
	uint64_t key;
	size_t index;
};

static int by_offset(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

int ofl_elf_relayout(Elf *out, const uint64_t *orig, size_t n, struct ofl_error *err)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(out, &eh))
		return elf_fail(err, "cannot read ELF header");
	if (eh.e_type != ET_REL || eh.e_phnum)
		return 0;
	/* sizes first, as libelf computes them */
	if (elf_update(out, ELF_C_NULL) < 0)
		return elf_fail(err, "cannot lay out object");
	struct placed *v = ofl_calloc(n ? n : 1, sizeof *v);
	if (!v)
		return OFL_NOMEM(err);
	for (size_t i = 1; i < n; i++)
		v[i - 1] = (struct placed){orig[i], i};
	qsort(v, n ? n - 1 : 0, sizeof *v, by_offset);
	uint64_t cur = gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT);
	int rc = 0;
	for (size_t k = 0; !rc && k + 1 < n; k++) {
		Elf_Scn *s = elf_getscn(out, v[k].index);
		GElf_Shdr sh;
		if (!s || !gelf_getshdr(s, &sh)) {
			rc = elf_fail(err, "cannot read section header");
			break;
		}
		cur = align_up(cur, sh.sh_addralign);
		sh.sh_offset = cur;
		if (sh.sh_type != SHT_NOBITS)
			cur += sh.sh_size;
		if (!gelf_update_shdr(s, &sh))
			rc = elf_fail(err, "cannot write section header");
	}
	free(v);
	eh.e_shoff = align_up(cur, gelf_getclass(out) == ELFCLASS64 ? 8 : 4);
	if (!rc && !gelf_update_ehdr(out, &eh))
		rc = elf_fail(err, "cannot write ELF header");
	if (!rc)
		elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	return rc;
}

static int copy_headers(struct edit *m, Elf *out)
{
	GElf_Ehdr eh;
	size_t phnum;
	if (!gelf_getehdr(m->in, &eh) || !gelf_newehdr(out, gelf_getclass(m->in)) ||
	    elf_getphdrnum(m->in, &phnum) != 0)
		return elf_fail(m->err, "cannot read ELF header");
	if (phnum && !gelf_newphdr(out, phnum))
		return elf_fail(m->err, "cannot copy program headers");
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			return elf_fail(m->err, "cannot copy program headers");
	}
	eh.e_shstrndx = (uint16_t)remap(m, m->shstrndx);
	if (!gelf_update_ehdr(out, &eh))
		return elf_fail(m->err, "cannot write ELF header");
	return 0;
}

/* Symbols are rewritten before the string tables get their new names, so
 * the sections are copied in two passes: all, then the names appended. */
static int copy_sections(struct edit *m, Elf *out)
{
	Elf_Scn **to = ofl_calloc(m->n, sizeof(*to));
	uint64_t *orig = ofl_calloc(m->n, sizeof *orig); /* by new index */
	int rc = to && orig ? 0 : OFL_NOMEM(m->err);
	size_t kept = 1;
	for (size_t i = 1; !rc && i < m->n; i++) {
		if (!m->to[i])
			continue;
		GElf_Shdr sh;
		Elf_Scn *from = elf_getscn(m->in, i);
		orig[kept++] = from && gelf_getshdr(from, &sh) ? sh.sh_offset : UINT64_MAX;
		to[i] = elf_newscn(out);
		rc = to[i] ? copy_section(m, i, to[i]) : elf_fail(m->err, "cannot add section");
	}
	if (!rc && m->shstrndx < m->n && to[m->shstrndx])
		rc = append_names(to[m->shstrndx], &m->shnames, m->err);
	if (!rc && m->strtab && m->strtab < m->n && to[m->strtab])
		rc = append_names(to[m->strtab], &m->symnames, m->err);
	rc = rc ? rc : ofl_elf_relayout(out, orig, kept, m->err);
	free(orig);
	free(to);
	return rc;
}

int ofl_elf_edit_copy(int fd, const uint8_t *data, size_t size, const struct ofl_elf_edit *ed,
                      struct ofl_error *err)
{
	struct edit m = {ed,           NULL, 0, NULL,         0,  0, OFL_BUF_INIT,
	                 OFL_BUF_INIT, 0,    0, OFL_BUF_INIT, err};
	m.in = ofl_elf_memory(data, size, ELF_K_ELF);
	if (!m.in)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an ELF object");
	Elf *out = ofl_elf_begin(fd, ELF_C_WRITE);
	int rc = out ? build_map(&m) : elf_fail(err, "cannot create object");
	rc = rc ? rc : copy_headers(&m, out);
	rc = rc ? rc : copy_sections(&m, out);
	if (!rc && elf_update(out, ELF_C_WRITE) < 0)
		rc = elf_fail(err, "cannot write object");
	elf_end(out);
	elf_end(m.in);
	for (size_t i = 0; i < m.owned.len / sizeof(void *); i++)
		free(((void **)m.owned.data)[i]);
	ofl_buf_release(&m.owned);
	ofl_buf_release(&m.shnames);
	ofl_buf_release(&m.symnames);
	free(m.to);
	return rc;
}
