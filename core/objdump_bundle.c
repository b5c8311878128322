/* The bundles llvm-objdump 22 --offloading finds in ELF sections and writes
 * out entry by entry (see inspect.h for the rule it follows). */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_priv.h"
#include "internal.h"
#include "offlink/buf.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
#include "offlink/elf.h"
#include "offlink/format.h"
#include "offlink/inspect.h"

void ofl_objdump_bundles_release(struct ofl_objdump_bundles *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].id);
	free(b->v);
	ofl_ptrs_release(&b->owned);
	*b = (struct ofl_objdump_bundles)OFL_OBJDUMP_BUNDLES_INIT;
}

static int bad(struct ofl_error *err, uint64_t off)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, off, OFL_OBJDUMP_SHORT_STREAM);
}

/* One bundle header at d[0..n); entry bytes are taken from src at
 * base + entry offset (the file, or the inflated bytes).  The next bundle
 * is searched from just after a magic, so headers may overlap and entries
 * be read again: the records and IDs read in all (out->charged) may not
 * exceed the file's size plus the inflated bytes (limit), which bounds the
 * work to the input. */
static int read_entries(const uint8_t *d, size_t n, const uint8_t *src, size_t src_size,
                        uint64_t base, uint64_t at, size_t bundle, uint64_t limit,
                        struct ofl_objdump_bundles *out, struct ofl_error *err)
{
	if (n < 32)
		return bad(err, at);
	uint64_t count = ofl_le64(d + 24), pos = 32;
	for (uint64_t i = 0; i < count; i++) {
		if (!ofl_range_ok(pos, 24, n))
			return bad(err, at + pos);
		uint64_t off = ofl_le64(d + pos), size = ofl_le64(d + pos + 8),
		         idlen = ofl_le64(d + pos + 16), abs;
		if (!ofl_range_ok(pos + 24, idlen, n))
			return bad(err, at + pos + 16);
		if (24 + idlen > limit - out->charged)
			return ofl_error_set(err, OFL_EFORMAT, NULL, at + pos,
			                     "bundle headers overlap so often that their entries "
			                     "exceed the input's size");
		out->charged += 24 + idlen;
		/* LLVM copies without a check; here the bytes must exist. */
		if (ofl_add_overflow(base, off, &abs) || !ofl_range_ok(abs, size, src_size))
			return ofl_error_set(
			    err, OFL_EFORMAT, NULL, at + pos,
			    "bundle entry of %llu bytes at %llu is outside the file",
			    (unsigned long long)size, (unsigned long long)abs);
		if (OFL_GROW(out->v, out->cap, out->n))
			return OFL_NOMEM(err);
		struct ofl_objdump_entry *v = out->v;
		v[out->n] = (struct ofl_objdump_entry){bundle, src + abs, size, NULL};
		v[out->n].id = ofl_strndup((const char *)d + pos + 24, (size_t)idlen);
		if (!v[out->n++].id)
			return OFL_NOMEM(err);
		pos += 24 + idlen;
	}
	return 0;
}

static int keep(struct ofl_objdump_bundles *out, void *p, struct ofl_error *err)
{
	return ofl_ptrs_push(&out->owned, p) ? OFL_NOMEM(err) : 0;
}

static const uint8_t *find_from(const uint8_t *d, size_t n, size_t from, const char *m, size_t mlen)
{
	return from < n ? memmem(d + from, n - from, m, mlen) : NULL;
}

/* Where the next bundle of either kind starts at or after from, or 0. */
static size_t next_magic(const uint8_t *d, size_t n, size_t from)
{
	const uint8_t *c = find_from(d, n, from, "CCOB", 4);
	const uint8_t *u = find_from(d, n, from, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
	const uint8_t *f = !c ? u : !u ? c : c < u ? c : u;
	return f ? (size_t)(f - d) : 0;
}

/* A CCOB ends where its header's total size says (v1 has none: the rest
 * of the section), never at the next "CCOB": its zstd stream may hold
 * those bytes (LLVM 22 cuts it there).  Its entries are taken from the
 * inflated bytes (LLVM 22 reads them from the object at the inflated
 * offsets, past its end for any real bundle). */
static int ccob_bundle(const uint8_t *b, size_t n, uint64_t at, uint64_t file_size, size_t *next,
                       struct ofl_objdump_bundles *out, struct ofl_error *err)
{
	struct ofl_buf inflated = OFL_BUF_INIT;
	size_t used = 0;
	int rc = ofl_ccob_decompress(b, n, &inflated, &used, NULL, err);
	size_t dlen = inflated.len;
	uint8_t *d = rc ? NULL : ofl_buf_detach(&inflated, NULL);
	ofl_buf_release(&inflated);
	rc = rc ? rc : keep(out, d, err);
	out->inflated += dlen;
	rc = rc ? rc
	        : read_entries(d, dlen, d, dlen, 0, at, out->nbundles++, file_size + out->inflated,
	                       out, err);
	*next = next_magic(b, n, used);
	return rc;
}

int ofl_objdump_section_bundles(const uint8_t *file, size_t file_size, uint64_t sec_off,
                                uint64_t sec_size, struct ofl_objdump_bundles *out,
                                struct ofl_error *err)
{
	if (!ofl_range_ok(sec_off, sec_size, file_size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, sec_off,
		                     "section runs past the end of the file");
	const uint8_t *c = file + sec_off;
	size_t off = 0, next = 0;
	int rc = 0;
	do {
		const uint8_t *b = c + off;
		size_t n = (size_t)sec_size - off;
		/* LLVM 22 takes a CCOB's magic alone, shorter than its header */
		if (n >= 4 && !memcmp(b, "CCOB", 4)) {
			rc = ccob_bundle(b, n, sec_off + off, file_size, &next, out, err);
		} else if (ofl_format_of(b, n) == OFL_FMT_BUNDLE) {
			rc = read_entries(b, n, file, file_size, sec_off + off, sec_off + off,
			                  out->nbundles++, file_size + out->inflated, out, err);
			const uint8_t *f = find_from(b, n, OFL_BUNDLE_MAGIC_LEN, OFL_BUNDLE_MAGIC,
			                             OFL_BUNDLE_MAGIC_LEN);
			next = f ? (size_t)(f - b) : 0;
		} else {
			break; /* a section that starts with no magic holds no bundle */
		}
		off += next;
	} while (!rc && next && off < sec_size);
	return rc;
}

int ofl_objdump_bundles(const uint8_t *data, size_t size, struct ofl_objdump_bundles *out,
                        struct ofl_error *err)
{
	*out = (struct ofl_objdump_bundles)OFL_OBJDUMP_BUNDLES_INIT;
	Elf *elf = ofl_elf_memory(data, size, ELF_K_ELF);
	int rc = 0;
	if (!elf) {
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, 0, "malformed ELF file: %s",
		                   elf_errmsg(-1));
		goto done;
	}
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s && !rc; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size < 4)
			continue;
		rc = ofl_objdump_section_bundles(data, size, sh.sh_offset, sh.sh_size, out, err);
	}
done:
	if (elf)
		ofl_elf_end(elf, data);
	if (rc)
		ofl_objdump_bundles_release(out);
	return rc;
}

/* A member prints as "lib.a(m.o)", and files extracted from it are named
 * after the member, flattened. */
static int walk_member(const char *path, const struct ofl_archive *a, const struct ofl_ar_member *m,
                       bool read_thin, ofl_objdump_visit_fn fn, void *ctx, struct ofl_error *err)
{
	struct ofl_buf name = OFL_BUF_INIT;
	char *flat = ofl_strdup(m->name);
	struct ofl_file f = OFL_FILE_INIT;
	int rc = 0;
	if (!flat || ofl_buf_append_str(&name, path) || ofl_buf_append(&name, "(", 1) ||
	    ofl_buf_append_str(&name, m->name) || ofl_buf_append(&name, ")", 2 /* NUL too */))
		rc = OFL_NOMEM(err);
	else
		ofl_name_flatten(flat);
	if (!rc && a->thin && !read_thin)
		rc = ofl_error_set(err, OFL_EUNSUPPORTED, path, 0,
		                   "thin archive member '%s' is not read", m->name);
	else if (!rc && a->thin)
		rc = ofl_archive_open_thin(path, m, &f, err);
	if (!rc)
		rc = fn(ctx, &(struct ofl_objdump_object){(const char *)name.data, flat, m->name,
		                                          path, a->thin ? f.data : m->data,
		                                          a->thin ? f.size : (size_t)m->size});
	ofl_file_close(&f);
	free(flat);
	ofl_buf_release(&name);
	return rc;
}

int ofl_objdump_walk(const uint8_t *data, size_t size, const char *path, bool read_thin,
                     ofl_objdump_visit_fn fn, void *ctx, struct ofl_error *err)
{
	if (ofl_format_of(data, size) != OFL_FMT_ARCHIVE)
		return fn(ctx, &(struct ofl_objdump_object){path, path, path, NULL, data, size});
	struct ofl_archive a;
	int rc = ofl_archive_parse(data, size, &a, err);
	if (rc) {
		ofl_error_locate(err, path, 0);
		return rc;
	}
	for (size_t i = 0; i < a.nmembers && !rc; i++)
		rc = walk_member(path, &a, &a.members[i], read_thin, fn, ctx, err);
	ofl_archive_release(&a);
	return rc;
}
