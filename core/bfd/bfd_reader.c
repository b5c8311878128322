/* Non-ELF objects through libbfd, reported to core's inspector. */
#include <string.h>
#include <sys/stat.h>

#include "ofl_bfd.h"

#define PACKAGE "offlink"
#include <bfd.h>

struct mem_stream {
	const uint8_t *data;
	uint64_t size;
};

static void *bfd_mem_open(struct bfd *b, void *closure)
{
	(void)b;
	return closure;
}

static file_ptr bfd_mem_pread(struct bfd *b, void *stream, void *buf, file_ptr n, file_ptr off)
{
	(void)b;
	const struct mem_stream *m = stream;
	if (off < 0 || (uint64_t)off >= m->size)
		return 0;
	uint64_t avail = m->size - (uint64_t)off;
	size_t len = (uint64_t)n < avail ? (size_t)n : (size_t)avail;
	memcpy(buf, m->data + off, len);
	return (file_ptr)len;
}

static int bfd_mem_close(struct bfd *b, void *stream)
{
	(void)b;
	(void)stream;
	return 0;
}

static int bfd_mem_stat(struct bfd *b, void *stream, struct stat *st)
{
	(void)b;
	memset(st, 0, sizeof *st);
	st->st_size = (off_t)((const struct mem_stream *)stream)->size;
	return 0;
}

int ofl_bfd_read(const uint8_t *data, uint64_t size, struct ofl_foreign_sink *sink)
{
	/* Idempotent, and this library lives only in the offlink process. */
	bfd_init();
	struct mem_stream m = {data, size};
	bfd *b = bfd_openr_iovec("input", NULL, bfd_mem_open, &m, bfd_mem_pread, bfd_mem_close,
	                         bfd_mem_stat);
	if (!b)
		return 0;
	/* Only formats whose section file positions are byte offsets in the
	 * file: not S-records or other text formats libbfd also accepts. */
	bool known = bfd_check_format(b, bfd_object);
	enum bfd_flavour fl = known ? bfd_get_flavour(b) : bfd_target_unknown_flavour;
	if (!known || (fl != bfd_target_coff_flavour && fl != bfd_target_mach_o_flavour &&
	               fl != bfd_target_xcoff_flavour)) {
		bfd_close(b);
		return 0;
	}
	int rc = ofl_foreign_object(sink, bfd_get_target(b));
	for (asection *s = b->sections; s && !rc; s = s->next)
		if (bfd_section_flags(s) & SEC_HAS_CONTENTS)
			rc = ofl_foreign_section(sink, bfd_section_name(s), (uint64_t)s->filepos,
			                         bfd_section_size(s));
	bfd_close(b);
	return rc ? rc : 1;
}
