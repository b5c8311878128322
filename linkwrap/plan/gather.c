/* The inputs of a link gathered (docs/design.md, "The link pipeline", 1):
 * each file of the host command line in its order, archives' members, the
 * files linker scripts name, a plugin's hints; every OffloadBinary of their
 * offloading sections (several per section after ld -r) and old-driver
 * bundles are images; wrapper objects say who linked device code before
 * this link. */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/coff.h"
#include "offlink/elf.h"
#include "offlink/format.h"
#include "offlink/ldscript.h"
#include "offlink/offload_scan.h"

static int add_script(struct ofl_link *l, size_t fi, struct ofl_error *err);

/* Producer of device code: clang's .comment in an ELF file, the
 * irsymtab's producer in bitcode; 0 when neither says. */
static unsigned bytes_llvm(const uint8_t *d, size_t n)
{
	return ofl_is_elf(d, n) ? ofl_elf_clang_version(d, n) : ofl_bitcode_producer(d, n);
}

/* Producer of an image: its bytes, or the HIP offload kind's numbering (3
 * until LLVM 19). */
static unsigned image_llvm(const struct ofl_obin *b)
{
	return b->offload_kind == OFL_OFK_HIP19 ? 19 : bytes_llvm(b->image, b->image_size);
}

/* A target from an input reaches command lines (--target=, -mcpu=) and
 * clang makes program names of triples (<triple>-ld): only the characters
 * triples and target IDs are made of, no path, no option, bounded. */
static bool target_word(const char *s, bool id)
{
	size_t n = strlen(s);
	if (n > 200 || (n && !isalnum((unsigned char)s[0])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(id ? "_.+-:" : "_.-", s[i]))
			return false;
	return true;
}

static int check_target(const char *triple, const char *arch, uint64_t offset,
                        struct ofl_error *err)
{
	char t[64], a[64];
	if (*triple && target_word(triple, false) && target_word(arch, true))
		return 0;
	ofl_printable(triple, t, sizeof(t), false);
	ofl_printable(arch, a, sizeof(a), false);
	return ofl_error_set(err, OFL_EFORMAT, NULL, offset,
	                     "invalid target in an offload binary: triple '%s', arch '%s'", t, a);
}

/* The release that wrote a binary of version v at least: 23 writes
 * version 2, older releases 1. */
static unsigned release_of_version(uint32_t v)
{
	return v >= 2 ? 23 : 0;
}

/* Entry k of set as an image of unit: its strings its own, its image a
 * view into the unit (a copy, owned, of an inflated one); made by LLVM
 * `floor` at least (what the binaries holding it say). */
static int add_entry(struct ofl_link *l, size_t unit, const struct ofl_obin_set *set, size_t k,
                     uint64_t at, unsigned floor, struct ofl_error *err)
{
	struct link_image im = {unit,  OFL_OBIN_INIT,      NULL, NULL, 0,
	                        false, OFL_BUNDLE_ID_INIT, NULL};
	int rc = ofl_obin_set_entry(set, k, &im.b, err);
	if (!rc && set->inflated && !(im.owned = ofl_malloc(im.b.image_size ? im.b.image_size : 1)))
		rc = OFL_NOMEM(err);
	if (!rc && OFL_GROW(l->images, l->capimages, l->nimages))
		rc = OFL_NOMEM(err);
	if (rc) {
		ofl_obin_release(&im.b);
		free(im.owned);
		return rc;
	}
	if (im.owned)
		im.b.image = memcpy(im.owned, im.b.image, (size_t)im.b.image_size);
	im.triple = ofl_obin_get(&im.b, "triple");
	im.arch = ofl_obin_get(&im.b, "arch");
	if (!im.triple)
		im.triple = "";
	if (!im.arch)
		im.arch = "";
	im.llvm = image_llvm(&im.b);
	if (im.llvm < floor)
		im.llvm = floor;
	if (check_target(im.triple, im.arch, at, err)) {
		ofl_obin_release(&im.b);
		free(im.owned);
		return err->code;
	}
	l->images[l->nimages++] = im;
	l->units[unit].nimages++;
	return 0;
}

/* Every entry of the binary at p (a multi-entry one from LLVM 23 gives
 * several images), but metadata-only entries; an image that is an
 * OffloadBinary itself (23's nested containers) gives its own images, as
 * 23's tools look inside; what no release offlink knows writes is an
 * error, never a guess.  at: where the binary is in the unit, for
 * messages (bitcode: the initializer holding it is a copy). */
static int add_binary(struct ofl_link *l, size_t unit, const uint8_t *p, uint64_t size, uint64_t at,
                      unsigned depth, unsigned floor, struct ofl_error *err)
{
	struct ofl_obin_set set;
	int rc = ofl_obin_parse_set(p, size, &set, err);
	/* a binary's version names the oldest release that writes it */
	if (!rc && floor < release_of_version(set.version))
		floor = release_of_version(set.version);
	for (size_t k = 0; !rc && k < set.nentries; k++) {
		const struct ofl_obin *e = &set.entries[k];
		bool nested = ofl_obin_is(e->image, (size_t)e->image_size);
		if ((rc = ofl_obin_check_known(e, err)))
			err->offset = at; /* the binary's: it names no field */
		else if (nested && (set.inflated || depth >= OFL_MAX_NESTING))
			rc = ofl_error_set(err, OFL_EUNSUPPORTED, NULL, at, "offload binary: %s",
			                   set.inflated ? "a compressed binary holds another"
			                                : "binaries nested too deep");
		else if (nested)
			rc =
			    add_binary(l, unit, e->image, e->image_size, at, depth + 1, floor, err);
		else if (e->flags & OFL_OBIN_FLAG_METADATA)
			continue;
		else
			rc = add_entry(l, unit, &set, k, at, floor, err);
	}
	ofl_obin_set_release(&set);
	return rc;
}

static int add_image(struct ofl_link *l, size_t unit, const uint8_t *p, uint64_t size, uint64_t at,
                     struct ofl_error *err)
{
	return add_binary(l, unit, p, size, at, 0, 0, err);
}

/* An old-driver bundle entry: kind, triple and target ID from its ID. */
static int add_bundle_entry(struct ofl_link *l, size_t unit, const char *id, const uint8_t *p,
                            uint64_t n, struct ofl_error *err)
{
	struct link_image im = {unit, OFL_OBIN_INIT, NULL, NULL, 0, true, OFL_BUNDLE_ID_INIT, NULL};
	int rc = ofl_bundle_id_split(id, strlen(id), OFL_LLVM23, &im.id, err);
	const char *k = rc ? "" : im.id.kind;
	uint16_t kind = !strncmp(k, "hip", 3)  ? OFL_OFK_HIP
	                : !strcmp(k, "openmp") ? OFL_OFK_OPENMP
	                                       : 0;
	if (rc || !kind || !n || ofl_bundle_id_is_host(&im.id)) {
		if (!rc && !kind && !ofl_bundle_id_is_host(&im.id))
			ofl_link_logf(l, OFL_LOG_WARNING,
			              "%s: bundle entry '%s' left out: no linker for kind '%s'",
			              l->units[unit].name, id, k);
		ofl_bundle_id_release(&im.id);
		return rc;
	}
	size_t tl = strlen(im.id.triple);
	while (tl && im.id.triple[tl - 1] == '-') /* "amdgcn-amd-amdhsa-": 4 fields, env empty */
		im.id.triple[--tl] = '\0';
	const struct link_unit *un = &l->units[unit];
	uint64_t at =
	    p >= un->data && p < un->data + un->size ? (uint64_t)(p - un->data) : OFL_NO_OFFSET;
	if (check_target(im.id.triple, im.id.target_id ? im.id.target_id : "", at, err)) {
		ofl_bundle_id_release(&im.id);
		return err->code;
	}
	if (!(im.owned = ofl_malloc(n)) || OFL_GROW(l->images, l->capimages, l->nimages)) {
		free(im.owned);
		ofl_bundle_id_release(&im.id);
		return OFL_NOMEM(err);
	}
	memcpy(im.owned, p, n);
	enum ofl_format f = ofl_format_of(p, n);
	im.b.image_kind = f == OFL_FMT_BITCODE ? OFL_IMG_BITCODE
	                  : f == OFL_FMT_ELF   ? OFL_IMG_OBJECT
	                                       : OFL_IMG_NONE;
	im.b.offload_kind = kind;
	im.b.image = im.owned;
	im.b.image_size = n;
	im.triple = im.id.triple;
	im.arch = im.id.target_id;
	im.llvm = image_llvm(&im.b);
	l->images[l->nimages++] = im;
	l->units[unit].nimages++;
	return 0;
}

/* Old-driver fat objects (one __CLANG_OFFLOAD_BUNDLE__ section per
 * entry) and binary bundles, plain or compressed (device archive members). */
static int scan_bundles(struct ofl_link *l, size_t u, struct ofl_error *err)
{
	const struct link_unit *un = &l->units[u];
	struct ofl_bundle b = OFL_BUNDLE_INIT;
	bool elf = ofl_is_elf(un->data, un->size);
	int rc = 0;
	/* by the section headers: a search of the bytes would read every
	 * page of every object (the plugin maps them, reading none) */
	if (elf)
		rc = ofl_bundle_object_scan(&b, un->data, un->size, err);
	else
		rc = ofl_bundle_read(&b, un->data, un->size, ofl_file_type_find("bc"), err);
	/* object handler offsets are the sections' file offsets */
	const uint8_t *base = elf ? un->data : b.data;
	for (size_t i = 0; !rc && i < b.n; i++)
		rc = add_bundle_entry(l, u, b.entries[i].id, base + b.entries[i].offset,
		                      b.entries[i].size, err);
	ofl_bundle_release(&b);
	return rc;
}

/* Unit u registers device code linked before this link, by who. */
static void note_linked(struct ofl_link *l, size_t u, enum linked_by by)
{
	if (by <= l->linked_by)
		return;
	l->linked_by = by;
	l->linked_unit = l->units[u].name;
}

/* An image offlink's wrapper object registers, made by LLVM llvm (0: it
 * does not say; then the newest installed, as for bitcode); image NULL
 * when its bytes are not the unit's (inflated). */
static int add_registered(struct ofl_link *l, size_t u, uint16_t kind, unsigned llvm,
                          const uint8_t *image, size_t size, bool whole)
{
	if (!llvm && l->o.nllvm_roots && l->o.llvm_roots[0])
		llvm = ofl_llvm_newest(l->o.llvm_roots[0]);
	if (OFL_GROW(l->registered, l->capregistered, l->nregistered))
		return -1;
	l->registered[l->nregistered++] =
	    (struct link_registered){u, kind, llvm, image, size, whole};
	return 0;
}

/* An offloading section the host link loads: a wrapper object's images,
 * registered already.  clang-linker-wrapper's own object (.llvm.offloading)
 * means LLVM did the device work.  offlink's (its .comment says so)
 * registers its images: offlink wrap's (.llvm.offloading: OffloadBinaries,
 * or without --pack one raw OpenMP image) with the program's whole entry
 * table, a relocatable link's (.llvm.offloading.relocatable) with that
 * object's own; both leave the runtime library to add. */
static int note_registered(struct ofl_link *l, size_t u, const struct ofl_elf_section *s)
{
	const struct link_unit *un = &l->units[u];
	const uint8_t *sec = un->data + s->offset;
	struct ofl_found_list found = OFL_FOUND_LIST_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	bool whole = !strcmp(s->name, OFL_OFFLOADING_SECTION);
	ofl_link_logf(l, OFL_LOG_DECISION, "%s: %s left out: registered already", un->name,
	              s->name);
	if (whole && !ofl_elf_by_offlink(un->data, un->size)) {
		note_linked(l, u, LINKED_LLVM);
		return 0;
	}
	ofl_scan_walk(sec, s->size, s->offset, s->index, 0, &found, &ignored);
	int rc = 0;
	for (size_t i = 0; !rc && i < found.n; i++) {
		struct ofl_obin_set set;
		if (ofl_obin_parse_set(un->data + found.v[i].offset, found.v[i].size, &set,
		                       &ignored))
			continue;
		unsigned floor = release_of_version(set.version);
		for (size_t k = 0; !rc && k < set.nentries; k++) {
			const struct ofl_obin *b = &set.entries[k];
			unsigned v = image_llvm(b);
			rc = add_registered(l, u, b->offload_kind, v < floor ? floor : v,
			                    set.inflated ? NULL : b->image,
			                    set.inflated ? 0 : (size_t)b->image_size, whole);
		}
		ofl_obin_set_release(&set);
	}
	if (!rc && whole && !found.n && s->size)
		rc = add_registered(l, u, OFL_OFK_OPENMP, bytes_llvm(sec, s->size), sec, s->size,
		                    true);
	ofl_found_list_release(&found);
	return rc;
}

/* What a bitcode object's entry tables ask for, from its section names
 * (LLVM 20-22 put every kind's entries in llvm_offload_entries, 19 one
 * section per language) and its images' kinds. */
static struct ofl_wrap_needs bitcode_needs(const struct ofl_link *l, const struct link_unit *un)
{
	static const char *const llvm19[] = {"omp_offloading_entries", "cuda_offloading_entries",
	                                     "hip_offloading_entries"};
	struct ofl_wrap_needs n = {0, 0};
	for (size_t i = un->first_image; i < un->first_image + un->nimages; i++)
		n.kinds |= 1u << ofl_wrap_kind_of(l->images[i].b.offload_kind);
	if (ofl_bcglobals_has_section(un->bc, "llvm_offload_entries"))
		n.abis |= 1u << OFL_WRAP_LLVM20;
	for (size_t i = 0; i < 3; i++)
		if (ofl_bcglobals_has_section(un->bc, llvm19[i]))
			n.abis |= 1u << OFL_WRAP_LLVM19;
	return n;
}

/* LLVM bitcode (clang -flto): each OffloadBinary is the initializer of a
 * global in section .llvm.offloading, several back to back in one. */
static int scan_bitcode(struct ofl_link *l, size_t u, struct ofl_error *err)
{
	struct link_unit *un = &l->units[u];
	struct ofl_found_list found = OFL_FOUND_LIST_INIT;
	if (!(un->bc = ofl_malloc(sizeof(*un->bc))))
		return OFL_NOMEM(err);
	*un->bc = (struct ofl_bcglobals)OFL_BCGLOBALS_INIT;
	int rc =
	    ofl_bitcode_section_globals(un->data, un->size, OFL_OFFLOADING_SECTION, un->bc, err);
	un->first_image = l->nimages;
	for (size_t g = 0; !rc && g < un->bc->n; g++) {
		const struct ofl_bcglobal *gl = &un->bc->globals[g];
		ofl_found_list_release(&found);
		rc = ofl_scan_walk(gl->data, gl->size, 0, 0, OFL_SCAN_STRICT, &found, err);
		for (size_t i = 0; !rc && i < found.n; i++)
			rc = add_image(l, u, gl->data + found.v[i].offset, found.v[i].size,
			               OFL_NO_OFFSET, err);
		if (rc)
			ofl_error_prefix(err, "global %.*s in section %s", (int)gl->name_len,
			                 gl->name, OFL_OFFLOADING_SECTION);
	}
	if (!rc && un->nimages)
		un->needs = bitcode_needs(l, un);
	if (rc)
		ofl_error_locate(err, un->name, 0);
	ofl_found_list_release(&found);
	return rc;
}

/* A COFF object's offloading sections: clang's input images are left out
 * of the link (IMAGE_SCN_LNK_REMOVE), as ELF's are excluded; one that is
 * kept is a wrapper object's, registered already.  LLVM reads every
 * section whose name starts with .llvm.offloading. */
static int coff_images(struct ofl_link *l, size_t u, struct ofl_found_list *found,
                       struct ofl_error *err)
{
	struct link_unit *un = &l->units[u];
	struct ofl_coff_sections secs = OFL_COFF_SECTIONS_INIT;
	int rc = ofl_coff_sections(un->data, un->size, OFL_OFFLOADING_SECTION, &secs, err);
	for (size_t i = 0; !rc && i < secs.n; i++) {
		const struct ofl_coff_section *s = &secs.v[i];
		if (!(s->characteristics & OFL_COFF_SCN_LNK_REMOVE)) {
			ofl_link_logf(l, OFL_LOG_DECISION, "%s: %.*s left out: registered already",
			              un->name, (int)s->name_len, s->name);
			note_linked(l, u, LINKED_LLVM);
			continue;
		}
		rc = ofl_scan_walk(un->data + s->offset, s->size, s->offset, s->index,
		                   OFL_SCAN_STRICT, found, err);
		if (rc)
			ofl_error_prefix(err, "section %.*s", (int)s->name_len, s->name);
	}
	ofl_coff_sections_release(&secs);
	return rc;
}

/* Every OffloadBinary in the unit's offloading sections (several per
 * section after ld -r), or the unit itself when it is one. */
static int scan_unit(struct ofl_link *l, size_t u, struct ofl_error *err)
{
	struct link_unit *un = &l->units[u];
	struct ofl_found_list found = OFL_FOUND_LIST_INIT;
	struct ofl_elf_sections secs = OFL_ELF_SECTIONS_INIT;
	int rc = 0;
	enum ofl_format f = ofl_format_of(un->data, un->size);
	if (f == OFL_FMT_BITCODE)
		return scan_bitcode(l, u, err);
	if (f == OFL_FMT_OFFLOAD)
		rc = ofl_scan_walk(un->data, un->size, 0, 0, OFL_SCAN_STRICT, &found, err);
	else if (f == OFL_FMT_ELF)
		rc = ofl_elf_offload_sections(un->data, un->size,
		                              OFL_ELFSEC_BY_TYPE | OFL_ELFSEC_BY_NAME, &secs, err);
	else if (ofl_coff_is(un->data, un->size))
		rc = coff_images(l, u, &found, err);
	for (size_t i = 0; !rc && i < secs.n; i++) {
		const struct ofl_elf_section *s = &secs.v[i];
		/* loaded by the host link: a wrapper object's image, registered
		 * already (clang-linker-wrapper's, or a relocatable link's) */
		if (s->flags & SHF_ALLOC) {
			if (note_registered(l, u, s))
				rc = OFL_NOMEM(err);
			continue;
		}
		rc = ofl_scan_walk(un->data + s->offset, s->size, s->offset, s->index,
		                   OFL_SCAN_STRICT, &found, err);
		if (rc)
			ofl_error_prefix(err, "section %s", s->name);
	}
	/* a CUDA or HIP fat binary registered already: by LLVM's wrapper
	 * object, or the old HIP driver's link; offlink's own (offlink wrap,
	 * relocatable mode) registers its images alone, and needs no runtime */
	enum ofl_fatbin_reg fb = !rc && f == OFL_FMT_ELF && secs.fatbin
	                             ? ofl_elf_fatbin_registration(un->data, un->size)
	                             : OFL_FATBIN_NONE;
	if (fb == OFL_FATBIN_WRAPPER && !ofl_elf_by_offlink(un->data, un->size))
		note_linked(l, u, LINKED_LLVM);
	else if (fb == OFL_FATBIN_HIP_LINKED)
		note_linked(l, u, LINKED_CLANG);
	l->units[u].first_image = l->nimages;
	for (size_t i = 0; !rc && i < found.n; i++)
		rc = add_image(l, u, un->data + found.v[i].offset, found.v[i].size,
		               found.v[i].offset, err);
	/* an ELF file is read again only when its section names ask for it:
	 * most of a link's objects and archive members hold nothing */
	if (!rc && !found.n && (f != OFL_FMT_ELF || secs.bundle || secs.unread))
		rc = scan_bundles(l, u, err);
	/* what its entry tables ask for; an object that cannot be read
	 * asks for nothing (the host linker will judge it) */
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!rc && l->units[u].nimages &&
	    ofl_wrap_needs_of_object(un->data, un->size, &l->units[u].needs, &ignored))
		l->units[u].needs = (struct ofl_wrap_needs){0, 0};
	if (rc)
		ofl_error_locate(err, l->units[u].name, 0);
	ofl_elf_sections_release(&secs);
	ofl_found_list_release(&found);
	return rc;
}

/* thin: the unit's own file (a thin member), owned from here on. */
static int add_unit(struct ofl_link *l, size_t file, const char *member, const uint8_t *data,
                    size_t size, struct ofl_file *thin, struct ofl_error *err)
{
	if (OFL_GROW(l->units, l->capunits, l->nunits)) {
		if (thin)
			ofl_file_close(thin);
		free(thin);
		return OFL_NOMEM(err);
	}
	struct link_unit *u = &l->units[l->nunits];
	*u = (struct link_unit){NULL, data, size,   file, false, false, NULL,
	                        0,    0,    {0, 0}, thin, NULL,  false, NULL};
	const char *path = l->files[file].in.path;
	if (member ? asprintf(&u->name, "%s(%s)", path, member) < 0 : !(u->name = ofl_strdup(path)))
		return OFL_NOMEM(err);
	l->files[file].nunits++;
	return scan_unit(l, l->nunits++, err);
}

/* A thin archive's member is a file of its own, named relative to the
 * archive, read as the host linker reads it.  One that cannot be read adds
 * nothing: the host linker reports it if the link needs it. */
static int add_thin_member(struct ofl_link *l, size_t fi, const struct ofl_ar_member *m,
                           struct ofl_error *err)
{
	struct ofl_file *f = ofl_malloc(sizeof(*f));
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!f)
		return OFL_NOMEM(err);
	*f = (struct ofl_file)OFL_FILE_INIT;
	int rc = ofl_archive_open_thin(l->files[fi].in.path, m, f, &ignored);
	if (rc == OFL_ENOMEM)
		rc = OFL_NOMEM(err);
	else if (rc)
		rc = add_unit(l, fi, m->name, NULL, 0, NULL, err);
	if (rc || ignored.code) {
		free(f);
		return rc;
	}
	return add_unit(l, fi, m->name, f->data, f->size, f, err);
}

static int add_archive(struct ofl_link *l, size_t fi, struct ofl_error *err)
{
	struct link_file *f = &l->files[fi];
	int rc = ofl_archive_parse(f->f.data, f->f.size, &f->ar, err);
	if (rc) {
		ofl_error_locate(err, f->in.path, 0);
		return rc;
	}
	for (size_t i = 0; !rc && i < f->ar.nmembers; i++) {
		const struct ofl_ar_member *m = &f->ar.members[i];
		rc = m->data ? add_unit(l, fi, m->name, m->data, m->size, NULL, err)
		             : add_thin_member(l, fi, m, err);
	}
	return rc;
}

static enum file_kind classify(const uint8_t *d, size_t n)
{
	switch (ofl_format_of(d, n)) {
	case OFL_FMT_ARCHIVE:
		return FILE_ARCHIVE;
	case OFL_FMT_OFFLOAD:
		return FILE_OBIN;
	case OFL_FMT_BITCODE:
		return FILE_BITCODE;
	case OFL_FMT_ELF:
		break;
	default:
		return ofl_coff_is(d, n) ? FILE_OBJECT : FILE_OTHER;
	}
	unsigned type = d[5] == 2 ? (unsigned)(d[16] << 8 | d[17]) : (unsigned)(d[16] | d[17] << 8);
	return type == 1 ? FILE_OBJECT : type == 3 ? FILE_SHARED : FILE_OTHER;
}

/* An input the host linker chose that cannot hold device code (a shared
 * object, a linker script): told by its first bytes, so a plugin does not
 * read all of libc for nothing.  A whole archive offered too (ld.bfd does
 * so under --whole-archive) is skipped: its members come one by one. */
static bool skip_by_header(const struct link_file *f)
{
	uint8_t h[64];
	if (!f->in.pulled || f->in.size < sizeof(h))
		return false;
	ssize_t n = pread(f->in.fd, h, sizeof(h), (off_t)f->in.offset);
	if (n != (ssize_t)sizeof(h))
		return false;
	enum file_kind k = classify(h, sizeof(h));
	return k == FILE_SHARED || k == FILE_ARCHIVE ||
	       (k == FILE_OTHER && !ofl_is_elf(h, sizeof(h)));
}

static int load(struct link_file *f, struct ofl_error *err)
{
	if (f->in.fd >= 0)
		return skip_by_header(f) ? 1
		                         : ofl_file_read_range(&f->f, f->in.fd, f->in.offset,
		                                               f->in.size, f->in.path, err);
	/* files that cannot be read (missing, directories) are the host
	 * linker's to report */
	struct ofl_error ignored = OFL_ERROR_INIT;
	int rc = ofl_file_open(&f->f, f->in.path, &ignored);
	return rc == OFL_ENOMEM ? OFL_NOMEM(err) : rc ? 1 : 0;
}

int ofl_link_add(struct ofl_link *l, const struct ofl_link_input *in, struct ofl_error *err)
{
	if (l->ran)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the link ran already: no input can be added");
	if (OFL_GROW(l->files, l->capfiles, l->nfiles))
		return OFL_NOMEM(err);
	struct link_file *f = &l->files[l->nfiles];
	*f = (struct link_file){OFL_FILE_INIT, FILE_OTHER, *in, OFL_ARCHIVE_INIT, l->nunits, 0, 0};
	if (!(f->in.path = ofl_strdup(in->path)))
		return OFL_NOMEM(err);
	size_t fi = l->nfiles++;
	int rc = load(f, err);
	if (rc)
		return rc < 0 ? rc : 0;
	f->kind = classify(f->f.data, f->f.size);
	if (f->kind == FILE_ARCHIVE)
		return add_archive(l, fi, err);
	if (f->kind == FILE_OBJECT || f->kind == FILE_OBIN || f->kind == FILE_BITCODE)
		return add_unit(l, fi, NULL, f->f.data, f->f.size, NULL, err);
	/* a plugin is offered what a script names by its linker */
	if (f->kind == FILE_OTHER && f->in.fd < 0 && !f->in.pulled)
		return add_script(l, fi, err);
	return 0;
}

/* Scripts inside scripts, as deep as ld takes them in practice. */
#define MAX_SCRIPT_DEPTH 16
/* Scripts read in one link: scripts naming or including others several
 * times over stop here rather than read without end. */
#define MAX_SCRIPTS 1000
/* A script larger than this is no input script (libc.so's is 300 bytes). */
#define MAX_SCRIPT_SIZE (1u << 20)

/* The INCLUDEs of a script's text, each read in its place among the
 * other names: where it stands (its name is in the text), the next to read. */
struct includes {
	struct include {
		const char *name;
		size_t len;
	} * v;
	size_t n, cap, next;
};

struct script {
	struct ofl_link *l;
	struct ofl_link_input parent;
	const char *beside; /* the script whose folder relative names are looked in */
	unsigned group;     /* this script's GROUP number, 0 until one is met */
	struct ofl_error *err;
	struct includes *inc; /* the text being read's */
	bool option;          /* -T's (--default-script's) script, or one it INCLUDEs */
	/* the first walk over the option scripts, for their SEARCH_DIRs and
	 * STARTUP only (ld.bfd, gold: read_option_dirs): where STARTUP's name
	 * goes; NULL in the walk that adds inputs */
	char **startup;
};

static int script_exists(void *ctx, const char *path, bool *there)
{
	(void)ctx;
	*there = !access(path, F_OK);
	return 0;
}

static int script_library(void *ctx, const char *word, char **found)
{
	struct script *s = ctx;
	struct ofl_ldarg a = {0};
	a.kind = OFL_LDARG_LIBRARY;
	a.value = word + 2;
	*found = ofl_hostlink_find_library(s->l, &a, s->err);
	return s->err->code;
}

/* Where the host linker finds a name the script gives (ofl_ldscript_find);
 * a name in the sysroot there, as the command line's.  Owned, or NULL when
 * it is nowhere. */
static char *script_file(struct script *s, enum ofl_ldscript_kind kind, const char *name)
{
	struct ofl_ldscript_search q = {script_exists, script_library, s, s->l->o.host_linker};
	char *found = NULL;
	if (s->l->o.host_cmd && (name[0] == '=' || !strncmp(name, "$SYSROOT", 8)))
		return ofl_ldcmd_sysroot_path(s->l->o.host_cmd, name);
	ofl_ldscript_find(&q, s->beside, kind, name, &found, s->err);
	return found;
}

/* Where the host linker finds the script an option names, or the file a
 * STARTUP names: as INCLUDE's (the working folder, then the library
 * folders).  Owned, or NULL. */
static char *option_file(struct ofl_link *l, const char *name, struct ofl_error *err)
{
	struct script s = {.l = l, .parent = {.fd = -1}, .beside = "", .err = err, .option = true};
	return script_file(&s, OFL_LDSCRIPT_INCLUDE, name);
}

static int read_script(struct script *s, const uint8_t *d, size_t n);

/* A SEARCH_DIR's folder or STARTUP's file (word, owned here) where the host
 * linker takes it (tried with ld.bfd 2.40, ld.lld 22, gold 2.40; all look
 * in the -L folders first, a relative folder is the working folder's):
 * ld.bfd and gold read an option script's before they look for any
 * library (the first walk), ld.bfd its folders before the built-in ones,
 * an input script's after them; ld.lld each where it reads it; gold none
 * from an input script (it warns).  Only ld.bfd has STARTUP, from an
 * option script alone (an input script's it ignores). */
static int script_command(struct script *s, enum ofl_ldscript_kind kind, char *word)
{
	struct ofl_link *l = s->l;
	enum ofl_linker ld = l->o.host_linker;
	bool first = s->option && (ld == OFL_LINKER_BFD || ld == OFL_LINKER_GOLD);
	bool startup = kind == OFL_LDSCRIPT_STARTUP;
	int rc = 0;
	if (first != (s->startup != NULL)) {
		free(word); /* the other walk's */
		return 0;
	}
	if (startup && first && ld == OFL_LINKER_BFD) {
		if (!*s->startup) { /* a second is ld.bfd's error */
			*s->startup = word;
			word = NULL;
		}
	} else if (startup || (ld == OFL_LINKER_GOLD && !s->option)) {
		ofl_link_logf(l, OFL_LOG_DECISION, "%s: %s(%s) not followed: %s",
		              s->parent.path ? s->parent.path : "a script",
		              startup ? "STARTUP" : "SEARCH_DIR", word,
		              startup ? "only ld.bfd links it, from a -T script"
		                      : "gold takes it from a -T script only");
	} else {
		/* kept as searched: '=' in the sysroot */
		char *dir =
		    l->o.host_cmd ? ofl_ldcmd_sysroot_path(l->o.host_cmd, word) : ofl_strdup(word);
		rc = !dir ? OFL_NOMEM(s->err)
		          : ofl_argv_push(first || ld != OFL_LINKER_BFD ? &l->script_dirs
		                                                        : &l->script_dirs_late,
		                          dir, s->err);
		free(dir);
	}
	free(word);
	return rc;
}

/* The script an INCLUDE names, at path, read in its place, its names
 * found where the host linker finds them (ofl_ldscript_included_place).
 * One it cannot open is the host linker's to report. */
static int include(struct script *s, const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (ofl_file_open_regular(&f, path, &ignored))
		return 0;
	const char *beside = s->beside;
	s->beside = ofl_ldscript_included_place(s->l->o.host_linker, beside, path);
	int rc = read_script(s, f.data, f.size);
	s->beside = beside;
	ofl_file_close(&f);
	return rc;
}

/* A name of kind the script gives: an input added, an INCLUDE read, an
 * EXTERN kept. */
static int script_word(struct script *s, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	bool command = kind == OFL_LDSCRIPT_SEARCH_DIR || kind == OFL_LDSCRIPT_STARTUP;
	if (s->startup && !command && kind != OFL_LDSCRIPT_INCLUDE)
		return 0; /* the first walk adds no input */
	char *word = ofl_strndup(name, len);
	if (!word)
		return OFL_NOMEM(s->err);
	if (command)
		return script_command(s, kind, word);
	if (kind == OFL_LDSCRIPT_EXTERN) {
		int rc = ofl_argv_push(&s->l->script_externs, word, s->err);
		free(word);
		return rc;
	}
	bool group = kind == OFL_LDSCRIPT_GROUP;
	char *path = script_file(s, kind, word);
	free(word);
	if (s->err->code)
		return s->err->code;
	if (group && !s->group)
		s->group = (1u << 30) + ++s->l->script_groups; /* past --start-group's */
	struct ofl_link_input in = {
	    path, -1, 0, 0, s->parent.whole_archive, group ? s->group : s->parent.group, false};
	/* a name it cannot find is the host linker's to report */
	int rc = !path                          ? 0
	         : kind == OFL_LDSCRIPT_INCLUDE ? include(s, path)
	                                        : ofl_link_add(s->l, &in, s->err);
	free(path);
	return rc;
}

/* The INCLUDEs standing before the name at `at` (NULL: all that are
 * left), read. */
static int includes_before(struct script *s, const char *at)
{
	struct includes *inc = s->inc;
	int rc = 0;
	while (!rc && inc->next < inc->n && (!at || inc->v[inc->next].name < at)) {
		const struct include *i = &inc->v[inc->next++];
		rc = script_word(s, OFL_LDSCRIPT_INCLUDE, i->name, i->len);
	}
	return rc;
}

static int script_name(void *ctx, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	struct script *s = ctx;
	if (kind == OFL_LDSCRIPT_INSERT) {
		s->l->script_inserts = true;
		return 0;
	}
	int rc = includes_before(s, name);
	return rc ? rc : script_word(s, kind, name, len);
}

static int note_include(void *ctx, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	struct script *s = ctx;
	struct includes *inc = s->inc;
	(void)kind;
	if (OFL_GROW(inc->v, inc->cap, inc->n))
		return OFL_NOMEM(s->err);
	inc->v[inc->n++] = (struct include){name, len};
	return 0;
}

/* The names of the script d of n bytes, in their order, those of the
 * scripts it INCLUDEs in their place.  Text of another kind is the host
 * linker's. */
static int read_script(struct script *s, const uint8_t *d, size_t n)
{
	struct ofl_link *l = s->l;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!n || n > MAX_SCRIPT_SIZE || memchr(d, 0, n))
		return 0;
	if (l->script_depth >= MAX_SCRIPT_DEPTH)
		return ofl_error_set(s->err, OFL_EUNSUPPORTED, s->parent.path, OFL_NO_OFFSET,
		                     "linker scripts nested more than %d deep", MAX_SCRIPT_DEPTH);
	if (++l->scripts_read > MAX_SCRIPTS)
		return ofl_error_set(s->err, OFL_EUNSUPPORTED, s->parent.path, OFL_NO_OFFSET,
		                     "more than %d linker scripts read", MAX_SCRIPTS);
	struct includes inc = {NULL, 0, 0, 0}, *outer = s->inc;
	s->inc = &inc;
	l->script_depth++;
	int rc = ofl_ldscript_includes(d, n, note_include, s, &ignored);
	rc = rc ? rc : ofl_ldscript_inputs(d, n, script_name, s, &ignored);
	rc = rc ? rc : includes_before(s, NULL);
	l->script_depth--;
	s->inc = outer;
	free(inc.v);
	return s->err->code ? s->err->code : rc == OFL_EINVAL ? 0 : rc;
}

static int add_script(struct ofl_link *l, size_t fi, struct ofl_error *err)
{
	struct link_file *f = &l->files[fi];
	/* the bytes and the input stay valid; f does not (files grow) */
	struct script s = {l,
	                   f->in,
	                   l->script_place ? l->script_place : f->in.path,
	                   0,
	                   err,
	                   NULL,
	                   l->script_option,
	                   NULL};
	/* the scripts it names are found and read as input scripts */
	l->script_place = NULL;
	l->script_option = false;
	return read_script(&s, f->f.data, f->f.size);
}

/* The file at path (owned here) as the host link's input for argument i
 * of its line, with what it leads to (a script's names). */
static int add_host_file(struct ofl_link *l, size_t i, char *path, struct ofl_ldstate st,
                         struct ofl_error *err)
{
	struct ofl_link_input in = {path, -1, 0, 0, st.whole_archive, st.group, false};
	size_t at = l->nfiles; /* a script's files come after it, of its argument */
	int rc = path ? ofl_link_add(l, &in, err) : err->code;
	for (size_t k = at; !rc && k < l->nfiles; k++)
		l->files[k].host_arg = i + 1;
	free(path);
	return rc;
}

/* The script -T or --default-script names (argument i), read in state
 * st: found where INCLUDE's is (the working folder, then the library
 * folders; tried with ld.bfd 2.40 and ld.lld 22), its names found where
 * the host linker finds them (ofl_ldscript_option_place). */
static int add_option_script(struct ofl_link *l, size_t i, struct ofl_ldstate st,
                             struct ofl_error *err)
{
	char *path = option_file(l, l->o.host_cmd->args[i].value, err);
	l->script_place = path ? ofl_ldscript_option_place(l->o.host_linker, path) : NULL;
	l->script_option = path != NULL;
	int rc = add_host_file(l, i, path, st, err);
	l->script_place = NULL; /* a script that is not read */
	l->script_option = false;
	return rc;
}

/* Whether the -T script just read replaces the default script (which
 * --default-script's then is): ld.lld's always, ld.bfd's unless it
 * INSERTs. */
static bool replaces_default(const struct ofl_link *l)
{
	return l->o.host_linker == OFL_LINKER_LLD || !l->script_inserts;
}

/* The option script of argument i read for its SEARCH_DIRs and STARTUP
 * only (script_command), STARTUP's name put in *startup, and *arg set to
 * i when it is this script's. */
static int option_dirs(struct ofl_link *l, size_t i, char **startup, size_t *arg,
                       struct ofl_error *err)
{
	struct script s = {.l = l,
	                   .parent = {.fd = -1},
	                   .beside = "",
	                   .err = err,
	                   .option = true,
	                   .startup = startup};
	char *path = option_file(l, l->o.host_cmd->args[i].value, err);
	bool had = *startup != NULL;
	s.parent.path = path;
	int rc = path ? include(&s, path) : err->code;
	if (!had && *startup)
		*arg = i;
	free(path);
	return rc;
}

/* ld.bfd and gold read the option scripts as they read the line, before
 * they look for any library, and ld.bfd links the file the STARTUP of one
 * names first of all (found as INCLUDE's; tried with ld.bfd 2.40, gold
 * 2.40): their SEARCH_DIRs taken (the -T scripts, then --default-script's
 * where it is read), STARTUP's file added. */
static int read_option_dirs(struct ofl_link *l, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = l->o.host_cmd;
	enum ofl_linker ld = l->o.host_linker;
	bool early = ld == OFL_LINKER_BFD || ld == OFL_LINKER_GOLD;
	char *startup = NULL;
	size_t dflt = 0, arg = 0;
	bool replaced = false;
	int rc = 0;
	if (!early || !c)
		return 0; /* ld.lld reads each script where it stands */
	for (size_t i = 0; !rc && i < c->nargs; i++) {
		if (c->args[i].opt == OFL_LD_DEFAULT_SCRIPT)
			dflt = i + 1;
		if (c->args[i].opt != OFL_LD_SCRIPT)
			continue;
		l->script_inserts = false;
		rc = option_dirs(l, i, &startup, &arg, err);
		replaced |= replaces_default(l);
	}
	if (!rc && dflt && !replaced)
		rc = option_dirs(l, dflt - 1, &startup, &arg, err);
	if (!rc && startup) {
		rc = add_host_file(l, arg, option_file(l, startup, err),
		                   (struct ofl_ldstate){false, false, false, 0}, err);
		l->startup = l->nfiles;
	}
	free(startup);
	return rc;
}

/* The last --default-script's script (index + 1 of its argument; 0:
 * none), read as the line ends, where ld.bfd and ld.lld read it (its
 * INPUTs come after every input of the line, --whole-archive and groups
 * closed), when no -T is given; ld.bfd reads it also after -T scripts that
 * all INSERT (they add to the default script, not replace it): tried with
 * ld.bfd 2.40 and ld.lld 22.  gold has no --default-script. */
static int add_default_script(struct ofl_link *l, size_t dflt, bool replaced, struct ofl_error *err)
{
	const struct ofl_ldarg *a = &l->o.host_cmd->args[dflt - 1];
	if (replaced) {
		ofl_link_logf(l, OFL_LOG_DECISION, "%s: not read: a -T script replaces it",
		              a->value);
		return 0;
	}
	return add_option_script(l, dflt - 1, (struct ofl_ldstate){false, false, false, 0}, err);
}

int ofl_link_add_host_inputs(struct ofl_link *l, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = l->o.host_cmd;
	size_t dflt = 0;
	bool replaced = false; /* by a -T script: --default-script's is not read */
	l->host_inputs = true;
	int rc = read_option_dirs(l, err);
	for (size_t i = 0; c && !rc && i < c->nargs; i++) {
		const struct ofl_ldarg *a = &c->args[i];
		if (a->opt == OFL_LD_DEFAULT_SCRIPT)
			dflt = i + 1;
		if (a->opt == OFL_LD_SCRIPT) {
			/* its INPUTs come where it stands (tried with ld.bfd 2.40,
			 * ld.lld 22), found as an input script's */
			l->script_inserts = false;
			rc = add_option_script(l, i, a->state, err);
			replaced |= replaces_default(l);
			continue;
		}
		char *path = a->kind == OFL_LDARG_FILE      ? ofl_ldcmd_input_path(c, a)
		             : a->kind == OFL_LDARG_LIBRARY ? ofl_hostlink_find_library(l, a, err)
		                                            : NULL;
		if (err->code)
			rc = err->code;
		else if (a->kind == OFL_LDARG_FILE && !path)
			rc = OFL_NOMEM(err);
		else if (a->kind == OFL_LDARG_LIBRARY && !path && l->o.llvm_wrapper)
			rc = ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
			                   "unable to find library -l%s", a->value);
		if (rc)
			free(path);
		else
			rc = add_host_file(l, i, path, a->state, err);
	}
	return rc || !dflt ? rc : add_default_script(l, dflt, replaced, err);
}

/* The unit of archive f whose bytes start at offset in it (the linker names
 * a member by its archive and where its data is), or SIZE_MAX. */
static size_t member_at(const struct ofl_link *l, const struct link_file *f, uint64_t offset)
{
	size_t lo = 0, hi = f->ar.nmembers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint8_t *d = f->ar.members[mid].data;
		if (!d)
			return SIZE_MAX; /* a thin archive: its members are files of their own */
		uint64_t at = (uint64_t)(d - f->f.data);
		if (at < offset)
			lo = mid + 1;
		else if (at > offset)
			hi = mid;
		else
			return f->first_unit + mid < l->nunits ? f->first_unit + mid : SIZE_MAX;
	}
	return SIZE_MAX;
}

static bool same_file(const struct ofl_file *f, const struct stat *st)
{
	return f->data && f->dev == (uint64_t)st->st_dev && f->ino == (uint64_t)st->st_ino;
}

/* Marks what the hint names among the inputs of the command line: a member
 * by its archive and offset, a thin archive's member by its own file.
 * False when the hint names none of them. */
static bool mark_known(struct ofl_link *l, const struct ofl_link_input *in, const struct stat *st)
{
	for (size_t i = 0; i < l->nfiles; i++) {
		const struct link_file *f = &l->files[i];
		if (!f->host_arg || !same_file(&f->f, st))
			continue;
		size_t u = f->kind == FILE_ARCHIVE ? member_at(l, f, in->offset) : SIZE_MAX;
		if (u != SIZE_MAX)
			l->units[u].chosen = true;
		return true;
	}
	for (size_t u = 0; !in->offset && u < l->nunits; u++)
		if (l->units[u].thin && l->files[l->units[u].file].host_arg &&
		    same_file(l->units[u].thin, st)) {
			l->units[u].chosen = true;
			return true;
		}
	return false;
}

int ofl_link_hint(struct ofl_link *l, const struct ofl_link_input *in, struct ofl_error *err)
{
	struct stat st;
	if (!stat(in->path, &st) && mark_known(l, in, &st))
		return 0;
	/* a member of an archive the command line does not name: "lib.a@0x<offset>" */
	struct ofl_link_input pulled = *in;
	char *name = NULL;
	if (in->offset &&
	    asprintf(&name, "%s@0x%llx", in->path, (unsigned long long)in->offset) < 0)
		return OFL_NOMEM(err);
	pulled.path = name ? name : in->path;
	pulled.pulled = true;
	int rc = ofl_link_add(l, &pulled, err);
	free(name);
	return rc;
}
