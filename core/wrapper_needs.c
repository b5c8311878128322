/* Which registration a host object needs, from its offload entry tables
 * (docs/abi.md, "Entry tables"): the flavour follows from the inputs, so users
 * rarely name it.  Read with libelf, like every other ELF input. */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/elf.h"
#include "offlink/wrapper_obj.h"

static int bad(struct ofl_error *err, uint64_t off, const char *what)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, off, "malformed ELF object: %s", what);
}

/* True when a symbol's name starts with LLVM 14's entry prefix, or is the
 * dummy LLVM 14's wrapper defines. */
static bool has_old_entry_names(Elf *e)
{
	static const char prefix[] = ".omp_offloading.entry.";
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(s, NULL)))
			continue;
		GElf_Sym sym;
		for (int k = 0; gelf_getsym(d, k, &sym); k++) {
			const char *n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && (!strncmp(n, prefix, sizeof(prefix) - 1) ||
			          !strcmp(n, "__dummy.omp_offloading.entry")))
				return true;
		}
	}
	return false;
}

/* Adds the kinds of the 56-byte entries in d (Kind, a u16, at offset 10). */
static void new_entry_kinds(const Elf_Data *d, bool big_endian, unsigned *kinds)
{
	const uint8_t *p = d->d_buf;
	for (size_t k = 0; p && k + 56 <= d->d_size; k += 56) {
		uint16_t kind =
		    big_endian ? (uint16_t)(p[k + 10] << 8 | p[k + 11]) : ofl_le16(p + k + 10);
		if (kind == 1)
			*kinds |= 1u << OFL_WRAP_OPENMP;
		else if (kind == 2)
			*kinds |= 1u << OFL_WRAP_CUDA;
		else if (kind == 4)
			*kinds |= 1u << OFL_WRAP_HIP;
	}
}

static void note_section(Elf *e, Elf_Scn *s, const GElf_Shdr *sh, const char *name,
                         struct ofl_wrap_needs *n)
{
	if (!strcmp(name, "llvm_offload_entries")) {
		n->abis |= 1u << OFL_WRAP_LLVM20;
		Elf_Data *d = sh->sh_type != SHT_NOBITS ? elf_rawdata(s, NULL) : NULL;
		if (d)
			new_entry_kinds(d, elf_getident(e, NULL)[EI_DATA] == ELFDATA2MSB,
			                &n->kinds);
	} else if (!strcmp(name, "cuda_offloading_entries")) {
		n->abis |= 1u << OFL_WRAP_LLVM19;
		n->kinds |= 1u << OFL_WRAP_CUDA;
	} else if (!strcmp(name, "hip_offloading_entries")) {
		n->abis |= 1u << OFL_WRAP_LLVM19;
		n->kinds |= 1u << OFL_WRAP_HIP;
	} else if (!strcmp(name, "omp_offloading_entries")) {
		n->abis |= 1u << (has_old_entry_names(e) ? OFL_WRAP_LLVM14 : OFL_WRAP_LLVM19);
		n->kinds |= 1u << OFL_WRAP_OPENMP;
	}
}

static int scan_sections(Elf *e, size_t size, struct ofl_wrap_needs *n, struct ofl_error *err)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return bad(err, 0, "bad section name table index");
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			return bad(err, 0, "unreadable section header");
		if (sh.sh_type != SHT_NOBITS && !ofl_range_ok(sh.sh_offset, sh.sh_size, size))
			return bad(err, sh.sh_offset, "section contents past the end");
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name)
			note_section(e, s, &sh, name, n);
	}
	return 0;
}

int ofl_wrap_needs_of_object(const uint8_t *data, size_t size, struct ofl_wrap_needs *needs,
                             struct ofl_error *err)
{
	if (!ofl_is_elf(data, size))
		return 0;
	Elf *e = ofl_elf_memory(data, size, ELF_K_ELF);
	GElf_Ehdr eh;
	int rc = 0;
	if (!e || !gelf_getehdr(e, &eh))
		rc = bad(err, 0, "unreadable ELF header");
	else if (eh.e_type == ET_REL)
		rc = scan_sections(e, size, needs, err);
	ofl_elf_end(e, data);
	return rc;
}
