/* The bundles llvm-objdump 22 --offloading finds in ELF sections and writes
 * out entry by entry (see inspect.h for the rule it follows). */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "offlink/buf.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
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
 * be read again: *left, the bytes of records and IDs still allowed (the
 * file's and the inflated bytes' size), bounds the work to the input. */
static int read_entries(const uint8_t *d, size_t n, const uint8_t *src, size_t src_size,
                        uint64_t base, uint64_t at, size_t bundle, uint64_t *left,
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
		if (24 + idlen > *left)
			return ofl_error_set(err, OFL_EFORMAT, NULL, at + pos,
			                     "bundle headers overlap so often that their entries "
			                     "exceed the input's size");
		*left -= 24 + idlen;
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

/* A section's bundles, one after another, each found by searching for the
 * next magic after the current one's first bytes. */
static int section_bundles(const uint8_t *file, size_t file_size, uint64_t sec_off,
                           uint64_t sec_size, uint64_t *left, struct ofl_objdump_bundles *out,
                           struct ofl_error *err)
{
	const uint8_t *c = file + sec_off;
	size_t off = 0, next = 0;
	bool more = true;
	int rc = 0;
	while (!rc && more && off < sec_size) {
		const uint8_t *b = c + off;
		size_t n = (size_t)sec_size - off;
		const uint8_t *f = NULL;
		if (n >= 4 && !memcmp(b, "CCOB", 4)) {
			f = find_from(b, n, 4, "CCOB", 4);
			next = f ? (size_t)(f - b) : n;
			/* LLVM 22 then copies the entries out of the object file at
			 * their offsets in the inflated bytes; so do we. */
			struct ofl_buf inflated = OFL_BUF_INIT;
			rc = ofl_ccob_decompress(b, next, &inflated, NULL, NULL, err);
			size_t dlen = inflated.len;
			uint8_t *d = rc ? NULL : ofl_buf_detach(&inflated, NULL);
			ofl_buf_release(&inflated);
			rc = rc ? rc : keep(out, d, err);
			*left += dlen;
			rc = rc ? rc
			        : read_entries(d, dlen, file, file_size, 0, sec_off + off,
			                       out->nbundles++, left, out, err);
		} else if (n >= OFL_BUNDLE_MAGIC_LEN &&
		           !memcmp(b, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN)) {
			rc = read_entries(b, n, file, file_size, sec_off + off, sec_off + off,
			                  out->nbundles++, left, out, err);
			f = find_from(b, n, OFL_BUNDLE_MAGIC_LEN, OFL_BUNDLE_MAGIC,
			              OFL_BUNDLE_MAGIC_LEN);
			more = f != NULL;
			next = f ? (size_t)(f - b) : 0;
		} else {
			break; /* cannot happen: each step lands on a magic */
		}
		off += next;
	}
	return rc;
}

int ofl_objdump_bundles(const uint8_t *data, size_t size, struct ofl_objdump_bundles *out,
                        struct ofl_error *err)
{
	*out = (struct ofl_objdump_bundles)OFL_OBJDUMP_BUNDLES_INIT;
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)(uintptr_t)data, size);
	int rc = 0;
	uint64_t left = size;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, 0, "malformed ELF file: %s",
		                   elf_errmsg(-1));
		goto done;
	}
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s && !rc; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size < 4)
			continue;
		if (!ofl_range_ok(sh.sh_offset, sh.sh_size, size)) {
			rc = ofl_error_set(err, OFL_EFORMAT, NULL, sh.sh_offset,
			                   "section runs past the end of the file");
			break;
		}
		const uint8_t *c = data + sh.sh_offset;
		bool bundle = sh.sh_size >= OFL_BUNDLE_MAGIC_LEN &&
		              !memcmp(c, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
		if (bundle || !memcmp(c, "CCOB", 4))
			rc = section_bundles(data, size, sh.sh_offset, sh.sh_size, &left, out, err);
	}
done:
	if (elf)
		elf_end(elf);
	if (rc)
		ofl_objdump_bundles_release(out);
	return rc;
}
