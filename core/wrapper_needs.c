/* Which registration a host object needs, from its offload entry tables
 * (linking.md §1.1, §1.4): the flavour follows from the inputs, so users
 * rarely name it.  Reads section headers and symbol names directly from the
 * little-endian ELF64 bytes, without casting structs over them. */
#include <string.h>

#include "internal.h"
#include "offlink/wrapper_obj.h"

struct shdr {
	uint32_t name, type, link;
	uint64_t offset, size, entsize;
};

struct elf_view {
	const uint8_t *d;
	size_t size;
	uint64_t shoff;
	uint16_t shnum, shstrndx;
};

static int bad(struct ofl_error *err, uint64_t off, const char *what)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, off, "malformed ELF object: %s", what);
}

static int get_shdr(const struct elf_view *v, size_t i, struct shdr *s, struct ofl_error *err)
{
	uint64_t at = v->shoff + 64 * (uint64_t)i;
	if (!ofl_range_ok(at, 64, v->size))
		return bad(err, at, "section header past the end");
	const uint8_t *p = v->d + at;
	*s = (struct shdr){ofl_le32(p),      ofl_le32(p + 4),  ofl_le32(p + 40),
	                   ofl_le64(p + 24), ofl_le64(p + 32), ofl_le64(p + 56)};
	if (s->type != 8 /* SHT_NOBITS */ && !ofl_range_ok(s->offset, s->size, v->size))
		return bad(err, at + 24, "section contents past the end");
	return 0;
}

/* The NUL-terminated string at off in section strsec, or NULL. */
static const char *str_at(const struct elf_view *v, const struct shdr *strsec, uint64_t off)
{
	/* a NOBITS table passes get_shdr without a range check */
	if (off >= strsec->size || !ofl_range_ok(strsec->offset, strsec->size, v->size))
		return NULL;
	const char *s = (const char *)v->d + strsec->offset + off;
	return memchr(s, 0, strsec->size - off) ? s : NULL;
}

/* True when a symbol's name starts with LLVM 14's entry prefix, or is the
 * dummy LLVM 14's wrapper defines. */
static int has_old_entry_names(const struct elf_view *v, bool *old, struct ofl_error *err)
{
	static const char prefix[] = ".omp_offloading.entry.";
	struct shdr s, str;
	*old = false;
	for (size_t i = 0; i < v->shnum; i++) {
		if (get_shdr(v, i, &s, err))
			return err->code;
		if (s.type != 2 /* SHT_SYMTAB */ || s.entsize != 24)
			continue;
		if (s.link >= v->shnum || get_shdr(v, s.link, &str, err))
			return err->code ? err->code : bad(err, v->shoff, "bad symtab link");
		for (uint64_t k = 0; k + 24 <= s.size; k += 24) {
			const char *n = str_at(v, &str, ofl_le32(v->d + s.offset + k));
			if (n && (!strncmp(n, prefix, sizeof(prefix) - 1) ||
			          !strcmp(n, "__dummy.omp_offloading.entry")))
				*old = true;
		}
	}
	return 0;
}

/* Adds the kinds of the 56-byte entries in s (Kind at offset 10). */
static void new_entry_kinds(const struct elf_view *v, const struct shdr *s, unsigned *kinds)
{
	for (uint64_t k = 0; k + 56 <= s->size; k += 56) {
		uint16_t kind = ofl_le16(v->d + s->offset + k + 10);
		if (kind == 1)
			*kinds |= 1u << OFL_WRAP_OPENMP;
		else if (kind == 2)
			*kinds |= 1u << OFL_WRAP_CUDA;
		else if (kind == 4)
			*kinds |= 1u << OFL_WRAP_HIP;
	}
}

static int scan_sections(const struct elf_view *v, struct ofl_wrap_needs *n, struct ofl_error *err)
{
	struct shdr s, names;
	if (v->shstrndx >= v->shnum || get_shdr(v, v->shstrndx, &names, err))
		return err->code ? err->code : bad(err, 62, "bad section name table index");
	for (size_t i = 0; i < v->shnum; i++) {
		if (get_shdr(v, i, &s, err))
			return err->code;
		const char *name = str_at(v, &names, s.name);
		if (!name)
			continue;
		if (!strcmp(name, "llvm_offload_entries")) {
			n->abis |= 1u << OFL_WRAP_LLVM20;
			if (s.type != 8)
				new_entry_kinds(v, &s, &n->kinds);
		} else if (!strcmp(name, "cuda_offloading_entries")) {
			n->abis |= 1u << OFL_WRAP_LLVM19;
			n->kinds |= 1u << OFL_WRAP_CUDA;
		} else if (!strcmp(name, "hip_offloading_entries")) {
			n->abis |= 1u << OFL_WRAP_LLVM19;
			n->kinds |= 1u << OFL_WRAP_HIP;
		} else if (!strcmp(name, "omp_offloading_entries")) {
			bool old;
			if (has_old_entry_names(v, &old, err))
				return err->code;
			n->abis |= 1u << (old ? OFL_WRAP_LLVM14 : OFL_WRAP_LLVM19);
			n->kinds |= 1u << OFL_WRAP_OPENMP;
		}
	}
	return 0;
}

int ofl_wrap_needs_of_object(const uint8_t *data, size_t size, struct ofl_wrap_needs *needs,
                             struct ofl_error *err)
{
	static const uint8_t ident[6] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */};
	if (size < 64 || memcmp(data, ident, sizeof(ident)) || ofl_le16(data + 16) != 1 /* REL */)
		return 0;
	struct elf_view v = {data, size, ofl_le64(data + 40), ofl_le16(data + 60),
	                     ofl_le16(data + 62)};
	if (v.shnum && ofl_le16(data + 58) != 64)
		return bad(err, 58, "section header size is not 64");
	return v.shnum ? scan_sections(&v, needs, err) : 0;
}
