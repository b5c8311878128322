/* ELF objects copied with edits (elf_edit.h).  Removing sections shifts the
 * index of every later one, so everything that names a section by index
 * follows: sh_link, sh_info of relocation sections, symbols' st_shndx,
 * group members and e_shstrndx.  The string tables are written anew, as
 * llvm-objcopy writes them (objcopy_rewrite). */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

#include "elf_edit.h"
#include "elf_priv.h"
#include "internal.h"
#include "offlink/buf.h"

struct edit {
	const struct ofl_elf_edit *ed;
	const struct ofl_elf_add *add;
	size_t nadd;
	Elf *in;
	size_t size; /* of the input */
	size_t n;
	size_t *to; /* old index -> new index; 0 for removed sections */
	size_t shstrndx, strtab;
	/* the copy's names: of each section by its new index, of each symbol
	 * of the .symtab; they point into the input or the renames */
	const char **secnames, **symnames;
	size_t nsyms;
	struct ofl_buf tabs[2]; /* the new string tables */
	struct ofl_buf owned;   /* copies of rewritten data (pointers) */
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

/* name under the renames. */
static const char *renamed(const struct ofl_elf_rename *r, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, r[i].from))
			return r[i].to;
	return name;
}

/* The sections kept and their new indices and names.  What llvm-objcopy
 * (which reads every section) refuses is refused, in its words: libelf
 * would copy a truncated object into a broken one. */
static int build_map(struct edit *m)
{
	if (elf_getshdrnum(m->in, &m->n) != 0 || elf_getshdrstrndx(m->in, &m->shstrndx) != 0)
		return elf_fail(m->err, "cannot count sections");
	if (!(m->to = ofl_calloc(m->n, sizeof *m->to)) ||
	    !(m->secnames = ofl_calloc(m->n + m->nadd, sizeof *m->secnames)))
		return OFL_NOMEM(m->err);
	size_t next = 1;
	for (size_t i = 1; i < m->n; i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_getscn(m->in, i);
		if (!s || !gelf_getshdr(s, &sh))
			return elf_fail(m->err, "cannot read section header");
		if (sh.sh_type != SHT_NOBITS && !ofl_range_ok(sh.sh_offset, sh.sh_size, m->size))
			return ofl_error_set(
			    m->err, OFL_EFORMAT, NULL, sh.sh_offset,
			    "section [index %zu] has a sh_offset (0x%llx) + sh_size "
			    "(0x%llx) that is greater than the file size (0x%zx)",
			    i, (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size,
			    m->size);
		const char *name = elf_strptr(m->in, m->shstrndx, sh.sh_name);
		bool drop = m->ed->drop && m->ed->drop(m->ed->ctx, name, &sh);
		m->to[i] = drop ? 0 : next++;
		if (!drop)
			m->secnames[m->to[i]] =
			    renamed(m->ed->sections, m->ed->nsections, name ? name : "");
		if (sh.sh_type == SHT_SYMTAB && !m->strtab)
			m->strtab = sh.sh_link;
	}
	/* the symbol names are rewritten into that table: it must be one */
	GElf_Shdr st;
	if (m->strtab && (m->strtab >= m->n || !gelf_getshdr(elf_getscn(m->in, m->strtab), &st) ||
	                  st.sh_type != SHT_STRTAB))
		return ofl_error_set(m->err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "the symbol table's string table (section %zu) is no string "
		                     "table",
		                     m->strtab);
	return 0;
}

/* Symbols point at the sections' new indices; the .symtab's names are
 * noted for its new string table. */
static int rewrite_symbols(struct edit *m, const GElf_Shdr *sh, Elf_Data *d, size_t strtab)
{
	size_t n = d->d_size / gelf_fsize(m->in, ELF_T_SYM, 1, EV_CURRENT);
	bool names = sh->sh_type == SHT_SYMTAB && !m->symnames;
	if (names && !(m->symnames = ofl_calloc(n ? n : 1, sizeof *m->symnames)))
		return OFL_NOMEM(m->err);
	m->nsyms = names ? n : m->nsyms;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			return elf_fail(m->err, "cannot rewrite symbols");
		if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE)
			sym.st_shndx = (Elf64_Section)remap(m, sym.st_shndx);
		if (names) {
			const char *name = elf_strptr(m->in, strtab, sym.st_name);
			m->symnames[i] = renamed(m->ed->symbols, m->ed->nsymbols, name ? name : "");
		}
		if (!gelf_update_sym(d, (int)i, &sym))
			return elf_fail(m->err, "cannot rewrite symbols");
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
	else
		return rewrite_symbols(m, sh, nd, old_link);
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

/* The .symtab section of out (0: none) and its string table's index. */
static size_t find_symtab(Elf *out, size_t *strndx)
{
	for (Elf_Scn *s = NULL; (s = elf_nextscn(out, s));) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB) {
			*strndx = sh.sh_link;
			return elf_ndxscn(s);
		}
	}
	return 0;
}

/* Makes tab the whole contents of section idx (other data blocks empty). */
static int replace_data(Elf *out, size_t idx, const struct ofl_buf *tab, struct ofl_error *err)
{
	Elf_Scn *s = elf_getscn(out, idx);
	GElf_Shdr sh;
	if (!s || !gelf_getshdr(s, &sh) || (sh.sh_flags & SHF_COMPRESSED))
		return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
		                     "section %zu: a compressed string table", idx);
	Elf_Data *d = elf_getdata(s, NULL);
	if (!d)
		return elf_fail(err, "cannot read a string table");
	d->d_buf = tab->data;
	d->d_size = tab->len;
	d->d_type = ELF_T_BYTE;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	for (Elf_Data *x = d; (x = elf_getdata(s, x));)
		x->d_size = 0;
	return 0;
}

/* Lays out refs from offset 1 (ELF's empty string first) into tab. */
static int layout_table(struct ofl_strtab_ref *refs, size_t n, struct ofl_buf *tab,
                        struct ofl_error *err)
{
	uint64_t size;
	if (ofl_strtab_layout(refs, n, 1, &size) || ofl_buf_append_zeros(tab, (size_t)size))
		return OFL_NOMEM(err);
	ofl_strtab_fill(refs, n, tab->data);
	return 0;
}

static int set_section_names(Elf *out, const struct ofl_strtab_ref *refs, size_t nsec,
                             struct ofl_error *err)
{
	for (size_t i = 1; i < nsec; i++) {
		Elf_Scn *s = elf_getscn(out, i);
		GElf_Shdr sh;
		if (!s || !gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot read section header");
		sh.sh_name = (uint32_t)refs[i - 1].off;
		if (!gelf_update_shdr(s, &sh))
			return elf_fail(err, "cannot write section header");
	}
	return 0;
}

static int set_symbol_names(Elf *out, size_t symtab, const struct ofl_strtab_ref *refs,
                            size_t nsyms, struct ofl_error *err)
{
	Elf_Scn *s = elf_getscn(out, symtab);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;
	if (!d || d->d_size / gelf_fsize(out, ELF_T_SYM, 1, EV_CURRENT) != nsyms)
		return elf_fail(err, "cannot read symbols");
	for (size_t j = 0; j < nsyms; j++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)j, &sym))
			return elf_fail(err, "cannot read symbols");
		sym.st_name = (uint32_t)refs[j].off;
		if (!gelf_update_sym(d, (int)j, &sym))
			return elf_fail(err, "cannot rewrite symbols");
	}
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

/* A group whose signature symbol is local loses GRP_COMDAT: its section
 * data is the group's own (copied or read from the file, never shared with
 * the caller's input). */
static int local_groups(Elf *out, size_t symtab, struct ofl_error *err)
{
	Elf_Data *syms = elf_getdata(elf_getscn(out, symtab), NULL);
	for (Elf_Scn *s = NULL; syms && (s = elf_nextscn(out, s));) {
		GElf_Shdr sh;
		GElf_Sym sym;
		Elf_Data *d;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_GROUP || sh.sh_link != symtab ||
		    !gelf_getsym(syms, (int)sh.sh_info, &sym) ||
		    GELF_ST_BIND(sym.st_info) != STB_LOCAL || !(d = elf_getdata(s, NULL)) ||
		    d->d_size < 4)
			continue;
		uint32_t *flags = d->d_buf;
		if (!(*flags & GRP_COMDAT))
			continue;
		*flags &= ~(uint32_t)GRP_COMDAT;
		if (!elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY))
			return elf_fail(err, "cannot rewrite a group");
	}
	return 0;
}

/* What llvm-objcopy rewrites in every copy: the string tables, names[i]
 * for section i >= 1, syms[j] for symbol j of the .symtab, and the groups
 * (local_groups); the tables' bytes are kept in tabs until the write. */
static int objcopy_rewrite(Elf *out, const char *const *names, size_t nsec, const char *const *syms,
                           size_t nsyms, struct ofl_buf tabs[2], struct ofl_error *err)
{
	size_t shstrndx, strndx = 0;
	if (elf_getshdrstrndx(out, &shstrndx) != 0)
		return elf_fail(err, "cannot read section names");
	size_t symtab = find_symtab(out, &strndx);
	bool shared = symtab && strndx == shstrndx, named = shstrndx && shstrndx < nsec;
	bool own = symtab && !shared && strndx && strndx < nsec;
	/* refs: the sections' names, then the symbols' (when in the same table) */
	size_t nsecref = nsec ? nsec - 1 : 0;
	struct ofl_strtab_ref *refs = ofl_calloc(nsecref + nsyms + 1, sizeof *refs);
	if (!refs)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < nsecref; i++)
		refs[i] = (struct ofl_strtab_ref){names[i + 1], strlen(names[i + 1]), 0};
	for (size_t j = 0; symtab && j < nsyms; j++)
		refs[nsecref + j] = (struct ofl_strtab_ref){syms[j], strlen(syms[j]), 0};
	int rc = 0;
	if (named) {
		size_t n = nsecref + (shared ? nsyms : 0);
		rc = layout_table(refs, n, &tabs[0], err);
		rc = rc ? rc : replace_data(out, shstrndx, &tabs[0], err);
		rc = rc ? rc : set_section_names(out, refs, nsec, err);
	}
	if (!rc && own) {
		rc = layout_table(refs + nsecref, nsyms, &tabs[1], err);
		rc = rc ? rc : replace_data(out, strndx, &tabs[1], err);
	}
	if (!rc && symtab && (own || (shared && named)))
		rc = set_symbol_names(out, symtab, refs + nsecref, nsyms, err);
	free(refs);
	return rc || !symtab ? rc : local_groups(out, symtab, err);
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

/* The zeros alignment may put between sections, at most: a hostile
 * sh_addralign would otherwise have gigabytes written, by our layout or
 * libelf's (legitimate ones, page or huge-page alignment, need far less). */
#define MAX_PADDING ((uint64_t)64 << 20)

static int check_alignments(Elf *out, struct ofl_error *err)
{
	uint64_t pad = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(out, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot read section header");
		if (sh.sh_addralign > MAX_PADDING || (pad += sh.sh_addralign) > MAX_PADDING)
			return ofl_error_set(
			    err, OFL_EFORMAT, NULL, OFL_NO_OFFSET,
			    "section %zu: its alignment (%llu) and those before it "
			    "could pad the object with more than %llu bytes",
			    elf_ndxscn(s), (unsigned long long)sh.sh_addralign,
			    (unsigned long long)MAX_PADDING);
	}
	return 0;
}

/* Sections in the order of orig[i] (their file offsets in the input;
 * UINT64_MAX for new ones, which go last in index order), before the
 * elf_update(ELF_C_WRITE). */
static int relayout(Elf *out, const uint64_t *orig, size_t n, struct ofl_error *err)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(out, &eh))
		return elf_fail(err, "cannot read ELF header");
	int rc = check_alignments(out, err);
	if (rc || eh.e_type != ET_REL || eh.e_phnum)
		return rc;
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

/* The added sections, numbered from *kept on. */
static int add_sections(struct edit *m, Elf *out, size_t *kept, uint64_t *orig)
{
	size_t shstrndx;
	GElf_Shdr strsh;
	if (m->nadd &&
	    (elf_getshdrstrndx(out, &shstrndx) != 0 || !shstrndx ||
	     !gelf_getshdr(elf_getscn(out, shstrndx), &strsh) || strsh.sh_type != SHT_STRTAB))
		return ofl_error_set(m->err, OFL_EFORMAT, NULL, 0,
		                     "the object has no section name table for the names of the "
		                     "sections added");
	for (size_t i = 0; i < m->nadd; i++) {
		const struct ofl_elf_add *a = &m->add[i];
		Elf_Scn *s = elf_newscn(out);
		Elf_Data *d = s ? elf_newdata(s) : NULL;
		GElf_Shdr sh;
		if (!d || !gelf_getshdr(s, &sh))
			return elf_fail(m->err, "cannot add section");
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = SHF_EXCLUDE;
		sh.sh_addralign = 1;
		*d = (Elf_Data){.d_buf = (void *)a->data,
		                .d_type = ELF_T_BYTE,
		                .d_size = a->size,
		                .d_align = 1,
		                .d_version = EV_CURRENT};
		if (!gelf_update_shdr(s, &sh))
			return elf_fail(m->err, "cannot add section");
		m->secnames[*kept] = a->name;
		orig[(*kept)++] = UINT64_MAX;
	}
	return 0;
}

/* The kept sections are copied (their symbols' names noted), the added
 * ones follow; the string tables and the layout come once every name is
 * known. */
static int copy_sections(struct edit *m, Elf *out)
{
	Elf_Scn **to = ofl_calloc(m->n, sizeof(*to));
	uint64_t *orig = ofl_calloc(m->n + m->nadd, sizeof *orig); /* by new index */
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
	rc = rc ? rc : add_sections(m, out, &kept, orig);
	rc = rc ? rc
	        : objcopy_rewrite(out, m->secnames, kept, m->symnames, m->nsyms, m->tabs, m->err);
	rc = rc ? rc : relayout(out, orig, kept, m->err);
	free(orig);
	free(to);
	return rc;
}

int ofl_elf_edit_add_copy(int fd, const uint8_t *data, size_t size, const struct ofl_elf_edit *ed,
                          const struct ofl_elf_add *add, size_t nadd, struct ofl_error *err)
{
	struct edit m = {.ed = ed,
	                 .add = add,
	                 .nadd = nadd,
	                 .size = size,
	                 .tabs = {OFL_BUF_INIT, OFL_BUF_INIT},
	                 .owned = OFL_BUF_INIT,
	                 .err = err};
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
	ofl_elf_end(m.in, data);
	for (size_t i = 0; i < m.owned.len / sizeof(void *); i++)
		free(((void **)m.owned.data)[i]);
	ofl_buf_release(&m.owned);
	ofl_buf_release(&m.tabs[0]);
	ofl_buf_release(&m.tabs[1]);
	free(m.secnames);
	free(m.symnames);
	free(m.to);
	return rc;
}
