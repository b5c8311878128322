/* Symbols the link pipeline resolves with: ELF symbol tables read with
 * libelf, archive indexes through libelf's elf_getarsym. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/bitcode.h"
#include "offlink/elf.h"
#include "offlink/wrapper_obj.h"
#include "syms.h"

/* A callback's failure (0 or OFL_ENOMEM) as the walkers return it. */
static int failed(int rc, struct ofl_error *err)
{
	return rc == OFL_ENOMEM ? OFL_NOMEM(err) : rc;
}

/* Every entry is read, not only those from sh_info on: CUDA 13's ptxas
 * puts local section symbols after the globals of an sm_90 cubin and sets
 * sh_info past all of them, so the globals sit below it. */
static int symbols_of(Elf *e, Elf_Scn *s, const GElf_Shdr *sh, ofl_sym_fn fn, void *ctx)
{
	Elf_Data *d = elf_getdata(s, NULL);
	GElf_Sym sym;
	for (size_t k = 1; d && gelf_getsym(d, (int)k, &sym); k++) {
		unsigned bind = GELF_ST_BIND(sym.st_info);
		bool def = sym.st_shndx != SHN_UNDEF;
		if ((bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
		    (!def && bind == STB_WEAK))
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		int rc = name && *name ? fn(ctx, name, def) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int ofl_elf_global_symbols(const uint8_t *data, size_t size, ofl_sym_fn fn, void *ctx,
                           struct ofl_error *err)
{
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh)) {
		ofl_elf_end(e, data);
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "not a readable ELF file");
	}
	bool dyn = eh.e_type == ET_DYN;
	int rc = 0;
	for (Elf_Scn *s = NULL; !rc && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && sh.sh_type == (dyn ? SHT_DYNSYM : SHT_SYMTAB))
			rc = symbols_of(e, s, &sh, fn, ctx);
	}
	ofl_elf_end(e, data);
	return failed(rc, err);
}

int ofl_archive_index(const uint8_t *data, size_t size, ofl_arsym_fn fn, void *ctx,
                      struct ofl_error *err)
{
	Elf *e = ofl_elf_memory(data, size, ELF_K_AR);
	size_t n = 0;
	Elf_Arsym *syms = e ? elf_getarsym(e, &n) : NULL;
	int rc = syms && n > 1 ? 0 : 1;
	/* the last entry is libelf's terminator */
	for (size_t i = 0; !rc && i + 1 < n; i++)
		if (syms[i].as_name)
			rc = fn(ctx, syms[i].as_name, (uint64_t)syms[i].as_off);
	ofl_elf_end(e, data);
	return failed(rc, err);
}

/* The section named name (its header in *sh), or NULL. */
static Elf_Scn *section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		const char *n = gelf_getshdr(s, sh) ? elf_strptr(e, shstrndx, sh->sh_name) : NULL;
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

/* The bytes of the .comment section, *end past them; NULL when none. */
static const char *comment(Elf *e, const char **end)
{
	GElf_Shdr sh;
	Elf_Scn *s = e ? section_named(e, ".comment", &sh) : NULL;
	Elf_Data *d = s ? elf_rawdata(s, NULL) : NULL;
	if (!d || !d->d_buf)
		return NULL;
	*end = (const char *)d->d_buf + d->d_size;
	return d->d_buf;
}

unsigned ofl_elf_clang_version(const uint8_t *data, size_t size)
{
	static const char tag[] = "clang version ";
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	const char *end = NULL, *c = comment(e, &end);
	const char *p = c ? memmem(c, (size_t)(end - c), tag, sizeof(tag) - 1) : NULL;
	unsigned v = 0;
	for (p = p ? p + sizeof(tag) - 1 : end; p < end && *p >= '0' && *p <= '9' && v < 1000; p++)
		v = v * 10 + (unsigned)(*p - '0');
	ofl_elf_end(e, data);
	return v;
}

bool ofl_elf_by_offlink(const uint8_t *data, size_t size)
{
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	const char *end = NULL, *p = comment(e, &end);
	size_t n = strlen(OFL_WRAP_COMMENT);
	bool ours = false;
	/* a string of its own, as compilers and linkers write them */
	for (; p && p < end && !ours; p += strnlen(p, (size_t)(end - p)) + 1)
		ours = (size_t)(end - p) >= n && !memcmp(p, OFL_WRAP_COMMENT, n);
	ofl_elf_end(e, data);
	return ours;
}

/* A registration function of LLVM's (and offlink's) wrapper objects, or a
 * __hip_fatbin_<cuid> that the old HIP driver's link defines in the fat
 * binary's section, among the symbols of symtab. */
static enum ofl_fatbin_reg fatbin_symbols(Elf *e, Elf_Scn *symtab, const GElf_Shdr *sh,
                                          size_t fatbin)
{
	Elf_Data *d = elf_getdata(symtab, NULL);
	enum ofl_fatbin_reg r = OFL_FATBIN_NONE;
	GElf_Sym sym;
	for (size_t k = 1; d && r != OFL_FATBIN_WRAPPER && gelf_getsym(d, (int)k, &sym); k++) {
		const char *n = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!n)
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    (!strcmp(n, ".hip.fatbin_reg") || !strcmp(n, ".cuda.fatbin_reg")))
			r = OFL_FATBIN_WRAPPER;
		else if (GELF_ST_BIND(sym.st_info) != STB_LOCAL && sym.st_shndx == fatbin &&
		         !strncmp(n, "__hip_fatbin_", 13))
			r = OFL_FATBIN_HIP_LINKED;
	}
	return r;
}

enum ofl_fatbin_reg ofl_elf_fatbin_registration(const uint8_t *data, size_t size)
{
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	GElf_Shdr sh, symsh;
	Elf_Scn *fb = e ? section_named(e, ".hip_fatbin", &sh) : NULL;
	if (e && !fb)
		fb = section_named(e, ".nv_fatbin", &sh);
	Elf_Scn *symtab = NULL;
	for (Elf_Scn *s = NULL;
	     fb && (sh.sh_flags & SHF_ALLOC) && !symtab && (s = elf_nextscn(e, s));)
		if (gelf_getshdr(s, &symsh) && symsh.sh_type == SHT_SYMTAB)
			symtab = s;
	enum ofl_fatbin_reg r =
	    symtab ? fatbin_symbols(e, symtab, &symsh, elf_ndxscn(fb)) : OFL_FATBIN_NONE;
	ofl_elf_end(e, data);
	return r;
}

/* Bitcode's global symbols, as the ELF reader gives them. */
static int bitcode_symbols(const struct ofl_bcsymtab *t, ofl_sym_fn fn, void *ctx)
{
	char small[256];
	int rc = 0;
	for (size_t i = 0; !rc && i < t->n; i++) {
		const struct ofl_bcsym *s = &t->syms[i];
		bool undef = s->flags & OFL_BCSYM_UNDEFINED;
		if (!(s->flags & OFL_BCSYM_GLOBAL) || (s->flags & OFL_BCSYM_FORMAT_SPECIFIC) ||
		    (undef && (s->flags & OFL_BCSYM_WEAK)) || !s->len)
			continue;
		char *name = s->len < sizeof(small) ? small : ofl_malloc(s->len + 1);
		if (!name)
			return OFL_ENOMEM;
		memcpy(name, s->name, s->len);
		name[s->len] = '\0';
		rc = fn(ctx, name, !undef);
		if (name != small)
			free(name);
	}
	return rc;
}

int ofl_image_symbols(const uint8_t *data, size_t size, ofl_sym_fn fn, void *ctx,
                      struct ofl_error *err)
{
	if (ofl_is_elf(data, size))
		return ofl_elf_global_symbols(data, size, fn, ctx, err);
	struct ofl_bcsymtab t;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!ofl_bitcode_is(data, size) || ofl_bitcode_symtab(data, size, &t, &ignored))
		return ignored.code == OFL_ENOMEM ? OFL_NOMEM(err) : 1;
	int rc = bitcode_symbols(&t, fn, ctx);
	ofl_bitcode_symtab_release(&t);
	return failed(rc, err);
}

/* Only the symbol table's header: the link asks this of every unit and
 * device image, and needs no symbol. */
unsigned ofl_bitcode_producer(const uint8_t *data, size_t size)
{
	struct ofl_bcsymtab t;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!ofl_bitcode_is(data, size) || ofl_bitcode_symtab_header(data, size, &t, &ignored))
		return 0;
	return ofl_bitcode_llvm_major(&t);
}
