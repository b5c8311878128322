/* Non-ELF objects through libbfd, reported to core's inspector.  libbfd is
 * opened for each object read (OFL_BFD_SONAME, from the build), so that
 * the offlink binary does not load it for the links it runs. */
#include <dlfcn.h>
#include <stddef.h>
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

/* The four functions used (the rest of bfd.h's API here are macros and
 * inline functions over the structures), typed as bfd.h declares them. */
struct bfd_api {
	void *so;
	__typeof__(&bfd_init) init;
	__typeof__(&bfd_openr_iovec) openr_iovec;
	__typeof__(&bfd_check_format) check_format;
	__typeof__(&bfd_close) close;
};

/* RTLD_NODELETE: the next object's dlopen finds it loaded (an archive of
 * COFF members does not map and relocate it for each). */
static bool load(struct bfd_api *a)
{
	static const struct {
		const char *name;
		size_t at;
	} fns[] = {
	    {"bfd_init", offsetof(struct bfd_api, init)},
	    {"bfd_openr_iovec", offsetof(struct bfd_api, openr_iovec)},
	    {"bfd_check_format", offsetof(struct bfd_api, check_format)},
	    {"bfd_close", offsetof(struct bfd_api, close)},
	};
	if (!(a->so = dlopen(OFL_BFD_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)))
		return false;
	for (size_t i = 0; i < sizeof(fns) / sizeof(*fns); i++) {
		void *f = dlsym(a->so, fns[i].name);
		if (!f) {
			dlclose(a->so);
			return false;
		}
		memcpy((char *)a + fns[i].at, &f, sizeof(f));
	}
	return true;
}

/* Only formats whose section file positions are byte offsets in the file:
 * not S-records or other text formats libbfd also accepts. */
static int read_sections(const struct bfd_api *a, bfd *b, struct ofl_foreign_sink *sink)
{
	enum bfd_flavour fl =
	    a->check_format(b, bfd_object) ? bfd_get_flavour(b) : bfd_target_unknown_flavour;
	if (fl != bfd_target_coff_flavour && fl != bfd_target_mach_o_flavour &&
	    fl != bfd_target_xcoff_flavour)
		return 0;
	int rc = ofl_foreign_object(sink, bfd_get_target(b));
	for (asection *s = b->sections; s && !rc; s = s->next)
		if (bfd_section_flags(s) & SEC_HAS_CONTENTS)
			rc = ofl_foreign_section(sink, bfd_section_name(s), (uint64_t)s->filepos,
			                         bfd_section_size(s));
	return rc ? rc : 1;
}

/* Without libbfd (binutils' libbinutils not installed) no foreign object
 * is known: the inspector scans such files for binaries only. */
int ofl_bfd_read(const uint8_t *data, uint64_t size, struct ofl_foreign_sink *sink)
{
	struct bfd_api a;
	if (!load(&a))
		return 0;
	a.init(); /* this library lives only in the offlink process */
	struct mem_stream m = {data, size};
	bfd *b = a.openr_iovec("input", NULL, bfd_mem_open, &m, bfd_mem_pread, bfd_mem_close,
	                       bfd_mem_stat);
	int rc = b ? read_sections(&a, b, sink) : 0;
	if (b)
		a.close(b);
	dlclose(a.so);
	return rc;
}
