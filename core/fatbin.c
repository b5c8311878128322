/* CUDA fatbinary headers (see fatbin.h for what is known of the layout). */
#include <stdlib.h>

#include "internal.h"
#include "offlink/fatbin.h"

bool ofl_fatbin_is(const uint8_t *data, size_t size)
{
	return size >= 4 && ofl_le32(data) == OFL_FATBIN_MAGIC;
}

void ofl_fatbin_release(struct ofl_fatbin *f)
{
	free(f->entries);
	*f = (struct ofl_fatbin)OFL_FATBIN_INIT;
}

static int read_entry(const uint8_t *data, uint64_t pos, uint64_t end, struct ofl_fatbin_entry *e,
                      struct ofl_error *err)
{
	if (!ofl_range_ok(pos, OFL_FATBIN_ENTRY_MIN, end))
		return ofl_error_set(err, OFL_EFORMAT, NULL, pos,
		                     "fatbinary entry header runs past the end of the fatbinary");
	const uint8_t *p = data + pos;
	e->kind = ofl_le16(p);
	e->header_size = ofl_le32(p + 4);
	e->payload_size = ofl_le64(p + 8);
	e->compressed_size = ofl_le32(p + 16);
	e->minor = ofl_le16(p + 24);
	e->major = ofl_le16(p + 26);
	e->sm = ofl_le32(p + 28);
	e->flags = ofl_le64(p + 40);
	e->uncompressed_size = ofl_le64(p + 56);
	e->offset = pos;
	if (e->header_size < OFL_FATBIN_ENTRY_MIN)
		return ofl_error_set(err, OFL_EFORMAT, NULL, pos + 4,
		                     "fatbinary entry header size %u is below %d", e->header_size,
		                     OFL_FATBIN_ENTRY_MIN);
	e->payload_offset = pos + e->header_size;
	if (!ofl_range_ok(e->payload_offset, e->payload_size, end))
		return ofl_error_set(err, OFL_EFORMAT, NULL, pos + 8,
		                     "fatbinary entry of %llu bytes runs past the end of the "
		                     "fatbinary",
		                     (unsigned long long)e->payload_size);
	return 0;
}

int ofl_fatbin_parse(const uint8_t *data, size_t size, struct ofl_fatbin *out,
                     struct ofl_error *err)
{
	*out = (struct ofl_fatbin)OFL_FATBIN_INIT;
	if (size < OFL_FATBIN_HEADER_SIZE || !ofl_fatbin_is(data, size))
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "truncated fatbinary header");
	out->version = ofl_le16(data + 4);
	out->header_size = ofl_le16(data + 6);
	uint64_t body = ofl_le64(data + 8), end;
	if (out->header_size < OFL_FATBIN_HEADER_SIZE)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 6,
		                     "fatbinary header size %u is below %d", out->header_size,
		                     OFL_FATBIN_HEADER_SIZE);
	if (ofl_add_overflow(out->header_size, body, &end) || end > size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "fatbinary of %llu bytes runs past the end of its data",
		                     (unsigned long long)body);
	out->size = end;
	/* Each entry takes at least OFL_FATBIN_ENTRY_MIN bytes, which bounds
	 * the count before anything is allocated. */
	size_t cap = (size_t)(body / OFL_FATBIN_ENTRY_MIN);
	out->entries = cap ? ofl_calloc(cap, sizeof *out->entries) : NULL;
	if (cap && !out->entries)
		return OFL_NOMEM(err);
	uint64_t pos = out->header_size;
	while (pos < end && out->n < cap) {
		struct ofl_fatbin_entry *e = &out->entries[out->n];
		int rc = read_entry(data, pos, end, e, err);
		if (rc) {
			ofl_fatbin_release(out);
			return rc;
		}
		out->n++;
		pos = e->payload_offset + e->payload_size;
	}
	return 0;
}
