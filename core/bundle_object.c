/* The bundler's object handler (docs/formats.md §1.4): device entries live in
 * SHF_EXCLUDE sections named __CLANG_OFFLOAD_BUNDLE__<id> of the host ELF
 * object.  LLVM runs llvm-objcopy for this; we edit the ELF with libelf in
 * process. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

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
		ofl_elf_end(e, data);
		return NULL;
	}
	return e;
}

/* What LLVM's reader refuses is refused here too, in its words (the
 * sections llvm-objcopy reads: ofl_elf_edit_add_copy). */
static int llvm_reads(const uint8_t *data, size_t size, struct ofl_error *err)
{
	if (!ofl_is_elf(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not an ELF object");
	return ofl_elf_llvm_check(data, size, err);
}

bool ofl_bundle_is_object(const uint8_t *data, size_t size)
{
	struct ofl_error err = OFL_ERROR_INIT;
	return llvm_reads(data, size, &err) == 0;
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
	ofl_elf_end(e, data);
	return rc;
}

/* The host object with one section per entry, as llvm-objcopy
 * --add-section writes it (elf_edit.h). */
int ofl_bundle_object_write(int fd, const uint8_t *host, size_t host_size, const char *const *ids,
                            const uint8_t *const *datas, const uint64_t *sizes, size_t n,
                            struct ofl_error *err)
{
	struct ofl_elf_add *add = ofl_calloc(n ? n : 1, sizeof *add);
	struct ofl_ptrs names = OFL_PTRS_INIT;
	int rc = add ? llvm_reads(host, host_size, err) : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < n; i++) {
		struct ofl_buf b = OFL_BUF_INIT;
		if (ofl_buf_printf(&b, OFL_BUNDLE_MAGIC "%s", ids[i]) ||
		    ofl_buf_append(&b, "", 1) || ofl_ptrs_push(&names, b.data)) {
			ofl_buf_release(&b);
			rc = OFL_NOMEM(err);
		} else {
			add[i] = (struct ofl_elf_add){(const char *)b.data, datas[i], sizes[i]};
		}
	}
	struct ofl_elf_edit ed = {NULL, NULL, NULL, 0, NULL, 0};
	rc = rc ? rc : ofl_elf_edit_add_copy(fd, host, host_size, &ed, add, n, err);
	ofl_ptrs_release(&names);
	free(add);
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
