/* The bundler's object handler (docs/formats.md §1.4): device entries live in
 * SHF_EXCLUDE sections named __CLANG_OFFLOAD_BUNDLE__<id> of the host ELF
 * object.  LLVM runs llvm-objcopy for this; we edit the ELF with libelf in
 * process. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "elf_edit.h"
#include "elf_priv.h"
#include "internal.h"
#include "offlink/bundle.h"
#include "offlink/elf.h"

static int elf_fail(struct ofl_error *err, const char *what)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, OFL_NO_OFFSET, "%s: %s", what, elf_errmsg(-1));
}

static Elf *open_mem(const uint8_t *data, size_t size, size_t *shstrndx, struct ofl_error *err)
{
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	if (!e) {
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

bool ofl_bundle_is_object(const uint8_t *data, size_t size)
{
	struct ofl_error err = OFL_ERROR_INIT;
	return ofl_is_elf(data, size) && ofl_elf_llvm_check(data, size, &err) == 0;
}

/* What LLVM's reader refuses is refused here too, in its words: libelf
 * would copy a truncated object into a broken one. */
static int llvm_reads(const uint8_t *data, size_t size, struct ofl_error *err)
{
	if (!ofl_is_elf(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an ELF object");
	return ofl_elf_llvm_check(data, size, err);
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
		char *sid = OFL_GROW(b->entries, b->cap, b->n) ? NULL : ofl_strdup(id);
		if (!sid) {
			rc = OFL_NOMEM(err);
			break;
		}
		bool stub = len == 1 && data[sh.sh_offset] == 0 && !strncmp(id, "host-", 5);
		b->entries[b->n++] =
		    (struct ofl_bundle_entry){sid, sh.sh_offset, len, sh.sh_offset, stub};
		b->found = true;
	}
	elf_end(e);
	return rc;
}

static int write_all(int fd, const uint8_t *p, size_t n, struct ofl_error *err)
{
	return ofl_fd_write_all(fd, p, n) ? ofl_error_errno(err, NULL, "cannot write") : 0;
}

static int add_bundle_sections(Elf *e, const uint8_t *const *datas, const uint64_t *sizes, size_t n,
                               struct ofl_error *err)
{
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *s = elf_newscn(e);
		Elf_Data *d = s ? elf_newdata(s) : NULL;
		GElf_Shdr sh;
		if (!d || !gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot add section");
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = SHF_EXCLUDE;
		sh.sh_addralign = 1;
		d->d_buf = (void *)datas[i];
		d->d_size = (size_t)sizes[i];
		d->d_type = ELF_T_BYTE;
		d->d_align = 1;
		if (!gelf_update_shdr(s, &sh))
			return elf_fail(err, "cannot add section");
	}
	return 0;
}

/* The names llvm-objcopy writes the tables with: the host's sections'
 * (each file offset noted in orig), the bundle sections', the symbols'. */
struct names {
	const char **sec, **sym;
	size_t nsym;
	uint64_t *orig;
	struct ofl_ptrs owned;
};

static int host_names(Elf *e, size_t nsec, struct names *nm, struct ofl_error *err)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return elf_fail(err, "cannot read section names");
	for (size_t i = 1; i < nsec; i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_getscn(e, i);
		if (!s || !gelf_getshdr(s, &sh))
			return elf_fail(err, "cannot read section header");
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		nm->sec[i] = name ? name : "";
		nm->orig[i] = sh.sh_offset;
		if (sh.sh_type != SHT_SYMTAB || nm->sym)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		nm->nsym = d ? d->d_size / gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT) : 0;
		if (!(nm->sym = ofl_calloc(nm->nsym + 1, sizeof *nm->sym)))
			return OFL_NOMEM(err);
		for (size_t j = 0; j < nm->nsym; j++) {
			GElf_Sym sym;
			const char *sn = gelf_getsym(d, (int)j, &sym)
			                     ? elf_strptr(e, sh.sh_link, sym.st_name)
			                     : NULL;
			nm->sym[j] = sn ? sn : "";
		}
	}
	return 0;
}

static int bundle_names(const char *const *ids, size_t n, size_t nsec, struct names *nm,
                        struct ofl_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct ofl_buf b = OFL_BUF_INIT;
		if (ofl_buf_printf(&b, OFL_BUNDLE_MAGIC "%s", ids[i]) ||
		    ofl_buf_append(&b, "", 1) || ofl_ptrs_push(&nm->owned, b.data)) {
			ofl_buf_release(&b);
			return OFL_NOMEM(err);
		}
		nm->sec[nsec + i] = (const char *)b.data;
		nm->orig[nsec + i] = UINT64_MAX;
	}
	return 0;
}

/* The host object with one section per entry, written as llvm-objcopy
 * --add-section writes it: the names read before the string tables are
 * rewritten, the host's sections in their file order, the new ones last. */
int ofl_bundle_object_write(int fd, const uint8_t *host, size_t host_size, const char *const *ids,
                            const uint8_t *const *datas, const uint64_t *sizes, size_t n,
                            struct ofl_error *err)
{
	int rc = llvm_reads(host, host_size, err);
	rc = rc ? rc : write_all(fd, host, host_size, err);
	if (rc)
		return rc;
	Elf *e = ofl_elf_begin(fd, ELF_C_RDWR);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "host input is not an ELF object");
	}
	size_t nsec = 0;
	struct names nm = {NULL, NULL, 0, NULL, OFL_PTRS_INIT};
	struct ofl_buf tabs[2] = {OFL_BUF_INIT, OFL_BUF_INIT};
	if (elf_getshdrnum(e, &nsec) != 0)
		rc = elf_fail(err, "cannot count sections");
	else if (!(nm.sec = ofl_calloc(nsec + n, sizeof *nm.sec)) ||
	         !(nm.orig = ofl_calloc(nsec + n, sizeof *nm.orig)))
		rc = OFL_NOMEM(err);
	rc = rc ? rc : host_names(e, nsec, &nm, err);
	rc = rc ? rc : bundle_names(ids, n, nsec, &nm, err);
	rc = rc ? rc : add_bundle_sections(e, datas, sizes, n, err);
	rc = rc ? rc : ofl_elf_objcopy_rewrite(e, nm.sec, nsec + n, nm.sym, nm.nsym, tabs, err);
	rc = rc ? rc : ofl_elf_relayout(e, nm.orig, nsec + n, err);
	if (!rc && elf_update(e, ELF_C_WRITE) < 0)
		rc = elf_fail(err, "cannot write object");
	elf_end(e);
	free(nm.sec);
	free(nm.sym);
	free(nm.orig);
	ofl_ptrs_release(&nm.owned);
	ofl_buf_release(&tabs[0]);
	ofl_buf_release(&tabs[1]);
	return rc;
}

static bool is_bundle_section(void *ctx, const char *name, const GElf_Shdr *sh)
{
	return name && !strncmp(name, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
}

int ofl_bundle_object_strip(int fd, const uint8_t *data, size_t size, struct ofl_error *err)
{
	struct ofl_elf_edit ed = {is_bundle_section, NULL, NULL, 0, NULL, 0};
	int rc = llvm_reads(data, size, err);
	return rc ? rc : ofl_elf_edit_copy(fd, data, size, &ed, err);
}
