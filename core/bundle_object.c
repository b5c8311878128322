/* The bundler's object handler (formats.md §1.4): device entries live in
 * SHF_EXCLUDE sections named __CLANG_OFFLOAD_BUNDLE__<id> of the host ELF
 * object.  LLVM runs llvm-objcopy for this; we edit the ELF with libelf in
 * process. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/bundle.h"

static int elf_fail(struct ofl_error *err, const char *what)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET, "%s: %s", what, elf_errmsg(-1));
}

static Elf *open_mem(const uint8_t *data, size_t size, size_t *shstrndx, struct ofl_error *err)
{
	elf_version(EV_CURRENT);
	/* libelf wants a mutable pointer; ELF_C_READ never writes through it */
	Elf *e = elf_memory((char *)data, size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an ELF object");
		return NULL;
	}
	if (elf_getshdrstrndx(e, shstrndx) != 0) {
		elf_fail(err, "cannot read section names");
		elf_end(e);
		return NULL;
	}
	return e;
}

static const char *bundle_id_of(Elf *e, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(e, shstrndx, sh->sh_name);
	if (!name || strncmp(name, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN) != 0)
		return NULL;
	return name + OFL_BUNDLE_MAGIC_LEN;
}

int ofl_bundle_object_scan(struct ofl_bundle *b, const uint8_t *data, size_t size,
                           struct ofl_error *err)
{
	size_t shstrndx;
	Elf *e = open_mem(data, size, &shstrndx, err);
	if (!e)
		return err ? err->code : OFL_EFORMAT;
	int rc = 0;
	for (Elf_Scn *s = NULL; !rc && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh)) {
			rc = elf_fail(err, "cannot read section header");
			break;
		}
		const char *id = bundle_id_of(e, shstrndx, &sh);
		if (!id)
			continue;
		uint64_t len = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
		if (!ofl_range_ok(sh.sh_offset, len, size)) {
			rc = ofl_error_set(err, OFL_EFORMAT, NULL, sh.sh_offset,
			                   "section '%s%s' past end of file", OFL_BUNDLE_MAGIC, id);
			break;
		}
		struct ofl_bundle_entry *n = ofl_realloc(b->entries, (b->n + 1) * sizeof *n);
		char *sid = ofl_strdup(id);
		if (!n || !sid) {
			free(sid);
			if (n)
				b->entries = n;
			rc = OFL_NOMEM(err);
			break;
		}
		b->entries = n;
		bool stub = len == 1 && data[sh.sh_offset] == 0 && !strncmp(id, "host-", 5);
		n[b->n++] = (struct ofl_bundle_entry){sid, sh.sh_offset, len, sh.sh_offset, stub};
		b->found = true;
	}
	elf_end(e);
	return rc;
}

static int write_all(int fd, const uint8_t *p, size_t n, struct ofl_error *err)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0)
			return ofl_error_errno(err, NULL, "cannot write");
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int add_bundle_sections(Elf *e, const char *const *ids, const uint8_t *const *datas,
                               const uint64_t *sizes, size_t n, struct ofl_buf *names,
                               struct ofl_error *err)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return elf_fail(err, "cannot read section names");
	Elf_Scn *strscn = elf_getscn(e, shstrndx);
	GElf_Shdr strsh;
	if (!strscn || !gelf_getshdr(strscn, &strsh))
		return elf_fail(err, "cannot read section name table");
	uint64_t base = strsh.sh_size;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *s = elf_newscn(e);
		Elf_Data *d = s ? elf_newdata(s) : NULL;
		GElf_Shdr sh;
		if (!d || !gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot add section");
		sh.sh_name = (uint64_t)(base + names->len);
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = SHF_EXCLUDE;
		sh.sh_addralign = 1;
		if (ofl_buf_printf(names, OFL_BUNDLE_MAGIC "%s", ids[i]) ||
		    ofl_buf_append_zeros(names, 1))
			return OFL_NOMEM(err);
		d->d_buf = (void *)datas[i];
		d->d_size = (size_t)sizes[i];
		d->d_type = ELF_T_BYTE;
		d->d_align = 1;
		if (!gelf_update_shdr(s, &sh))
			return elf_fail(err, "cannot add section");
	}
	Elf_Data *nd = elf_newdata(strscn);
	if (!nd)
		return elf_fail(err, "cannot extend section name table");
	nd->d_buf = names->data;
	nd->d_size = names->len;
	nd->d_type = ELF_T_BYTE;
	nd->d_align = 1;
	return 0;
}

int ofl_bundle_object_write(int fd, const uint8_t *host, size_t host_size, const char *const *ids,
                            const uint8_t *const *datas, const uint64_t *sizes, size_t n,
                            struct ofl_error *err)
{
	elf_version(EV_CURRENT);
	int rc = write_all(fd, host, host_size, err);
	if (rc)
		return rc;
	Elf *e = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "host input is not an ELF object");
	}
	struct ofl_buf names = OFL_BUF_INIT;
	rc = add_bundle_sections(e, ids, datas, sizes, n, &names, err);
	if (!rc && elf_update(e, ELF_C_WRITE) < 0)
		rc = elf_fail(err, "cannot write object");
	elf_end(e);
	ofl_buf_release(&names);
	return rc;
}

/* Removing sections shifts the index of every later one; everything that
 * names a section by index must follow: sh_link, sh_info of relocation
 * sections, symbols' st_shndx, group members and e_shstrndx. */
struct strip_map {
	size_t n;
	size_t *to; /* old index -> new index; 0 for removed sections */
};

static size_t remap(const struct strip_map *m, size_t old)
{
	return old < m->n ? m->to[old] : old;
}

static int build_map(Elf *e, size_t shstrndx, struct strip_map *m, struct ofl_error *err)
{
	if (elf_getshdrnum(e, &m->n) != 0)
		return elf_fail(err, "cannot count sections");
	m->to = ofl_calloc(m->n, sizeof *m->to);
	if (!m->to)
		return OFL_NOMEM(err);
	size_t next = 1;
	for (size_t i = 1; i < m->n; i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_getscn(e, i);
		if (!s || !gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot read section header");
		m->to[i] = bundle_id_of(e, shstrndx, &sh) ? 0 : next++;
	}
	return 0;
}

static int remap_symbols(Elf *e, Elf_Data *d, const struct strip_map *m)
{
	size_t n = d->d_size / gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			return -1;
		if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE) {
			sym.st_shndx = (Elf64_Section)remap(m, sym.st_shndx);
			if (!gelf_update_sym(d, (int)i, &sym))
				return -1;
		}
	}
	return 0;
}

static void remap_words(Elf_Data *d, const struct strip_map *m, size_t first)
{
	uint32_t *w = d->d_buf;
	for (size_t i = first; i < d->d_size / 4; i++)
		if (w[i])
			w[i] = (uint32_t)remap(m, w[i]);
}

/* Copies one kept section; data that holds section indices is copied and
 * rewritten, everything else is shared with the input. */
static int copy_section(Elf *in, Elf_Scn *from, Elf_Scn *to, const struct strip_map *m,
                        struct ofl_buf *owned, struct ofl_error *err)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(from, &sh))
		return elf_fail(err, "cannot read section header");
	sh.sh_link = (uint32_t)remap(m, sh.sh_link);
	if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA || (sh.sh_flags & SHF_INFO_LINK))
		sh.sh_info = (uint32_t)remap(m, sh.sh_info);
	bool rewrite = sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM ||
	               sh.sh_type == SHT_GROUP || sh.sh_type == SHT_SYMTAB_SHNDX;
	for (Elf_Data *d = NULL; (d = elf_getdata(from, d));) {
		Elf_Data *nd = elf_newdata(to);
		if (!nd)
			return elf_fail(err, "cannot copy section");
		*nd = *d;
		if (!rewrite || !d->d_size)
			continue;
		void *copy = ofl_malloc(d->d_size);
		if (!copy || ofl_buf_append(owned, &copy, sizeof copy)) {
			free(copy);
			return OFL_NOMEM(err);
		}
		memcpy(copy, d->d_buf, d->d_size);
		nd->d_buf = copy;
		if (sh.sh_type == SHT_GROUP)
			remap_words(nd, m, 1); /* word 0 holds the group flags */
		else if (sh.sh_type == SHT_SYMTAB_SHNDX)
			remap_words(nd, m, 0);
		else if (remap_symbols(in, nd, m) < 0)
			return elf_fail(err, "cannot rewrite symbols");
	}
	if (!gelf_update_shdr(to, &sh))
		return elf_fail(err, "cannot write section header");
	return 0;
}

static int copy_headers(Elf *in, Elf *out, const struct strip_map *m, size_t shstrndx,
                        struct ofl_error *err)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(in, &eh) || !gelf_newehdr(out, gelf_getclass(in)))
		return elf_fail(err, "cannot read ELF header");
	size_t phnum;
	if (elf_getphdrnum(in, &phnum) != 0)
		return elf_fail(err, "cannot read program headers");
	if (phnum) {
		if (!gelf_newphdr(out, phnum))
			return elf_fail(err, "cannot copy program headers");
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
				return elf_fail(err, "cannot copy program headers");
		}
	}
	eh.e_shstrndx = (uint16_t)remap(m, shstrndx);
	if (!gelf_update_ehdr(out, &eh))
		return elf_fail(err, "cannot write ELF header");
	return 0;
}

static void free_owned(struct ofl_buf *owned)
{
	for (size_t i = 0; i < owned->len / sizeof(void *); i++)
		free(((void **)owned->data)[i]);
	ofl_buf_release(owned);
}

int ofl_bundle_object_strip(int fd, const uint8_t *data, size_t size, struct ofl_error *err)
{
	size_t shstrndx;
	Elf *in = open_mem(data, size, &shstrndx, err);
	if (!in)
		return err ? err->code : OFL_EFORMAT;
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	struct strip_map m = {0, NULL};
	struct ofl_buf owned = OFL_BUF_INIT;
	int rc = out ? build_map(in, shstrndx, &m, err) : elf_fail(err, "cannot create object");
	if (!rc)
		rc = copy_headers(in, out, &m, shstrndx, err);
	for (size_t i = 1; !rc && i < m.n; i++) {
		if (!m.to[i])
			continue;
		Elf_Scn *to = elf_newscn(out);
		rc = to ? copy_section(in, elf_getscn(in, i), to, &m, &owned, err)
		        : elf_fail(err, "cannot add section");
	}
	if (!rc && elf_update(out, ELF_C_WRITE) < 0)
		rc = elf_fail(err, "cannot write object");
	if (out)
		elf_end(out);
	elf_end(in);
	free_owned(&owned);
	free(m.to);
	return rc;
}
