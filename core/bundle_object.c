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
	int rc = write_all(fd, host, host_size, err);
	if (rc)
		return rc;
	Elf *e = ofl_elf_begin(fd, ELF_C_RDWR);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "host input is not an ELF object");
	}
	/* the host's sections keep their file order, as with llvm-objcopy
	 * --add-section; the new ones go after them */
	size_t nsec = 0;
	uint64_t *orig = NULL;
	if (elf_getshdrnum(e, &nsec) != 0 || !(orig = ofl_calloc(nsec + n, sizeof *orig)))
		rc = nsec ? OFL_NOMEM(err) : elf_fail(err, "cannot count sections");
	for (size_t i = 1; !rc && i < nsec; i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_getscn(e, i);
		orig[i] = s && gelf_getshdr(s, &sh) ? sh.sh_offset : UINT64_MAX;
	}
	for (size_t i = 0; orig && i < n; i++)
		orig[nsec + i] = UINT64_MAX;
	struct ofl_buf names = OFL_BUF_INIT;
	rc = rc ? rc : add_bundle_sections(e, ids, datas, sizes, n, &names, err);
	rc = rc ? rc : ofl_elf_relayout(e, orig, nsec + n, err);
	free(orig);
	if (!rc && elf_update(e, ELF_C_WRITE) < 0)
		rc = elf_fail(err, "cannot write object");
	elf_end(e);
	ofl_buf_release(&names);
	return rc;
}

static bool is_bundle_section(void *ctx, const char *name, const GElf_Shdr *sh)
{
	return name && !strncmp(name, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
}

int ofl_bundle_object_strip(int fd, const uint8_t *data, size_t size, struct ofl_error *err)
{
	struct ofl_elf_edit ed = {is_bundle_section, NULL, NULL, 0, NULL, 0};
	return ofl_elf_edit_copy(fd, data, size, &ed, err);
}
