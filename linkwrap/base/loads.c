/* What the loader reads to start a program (loads.h). */
#include "loads.h"

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/io.h"
#include "symset.h"

/* The loader's own folders, after LD_LIBRARY_PATH and RUNPATH (its cache
 * lists what they hold: keyed as a file). */
#if defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH "x86_64-linux-gnu"
#endif
static const char *const loader_dirs[] = {
    "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

/* More than any program loads (clang: 20): a loop of links is bounded. */
#define MAX_LIBS 512

struct walk {
	const char *ldpath;
	ofl_load_fn *fn;
	void *ctx;
	struct ofl_symset seen; /* real paths, and names not found */
	struct ofl_error *err;
	size_t n;
};

/* Record sizes and field offsets of ELF64 (the loader's x86-64 files:
 * little-endian), read by byte so that no header need be aligned. */
enum { EH_SIZE = 64, PH_SIZE = 56, DYN_SIZE = 16 };

struct phdr {
	uint32_t type;
	uint64_t offset, vaddr, filesz;
};

static struct phdr phdr_at(const uint8_t *p)
{
	return (struct phdr){ofl_le32(p), ofl_le64(p + 8), ofl_le64(p + 16), ofl_le64(p + 32)};
}

/* The NUL-terminated string at file offset at, or NULL. */
static const char *str_at(const uint8_t *data, size_t size, uint64_t at)
{
	return at < size && memchr(data + at, 0, size - at) ? (const char *)data + at : NULL;
}

/* The string at virtual address va, found through the PT_LOAD segments,
 * or NULL. */
static const char *va_str(const uint8_t *data, size_t size, const uint8_t *ph, size_t nph,
                          uint64_t va)
{
	for (size_t i = 0; i < nph; i++) {
		struct phdr p = phdr_at(ph + i * PH_SIZE);
		if (p.type != PT_LOAD || va < p.vaddr || va - p.vaddr >= p.filesz)
			continue;
		return p.offset < size && va - p.vaddr < size - p.offset
		           ? str_at(data, size, p.offset + (va - p.vaddr))
		           : NULL;
	}
	return NULL;
}

int ofl_dynamic_read(const uint8_t *data, size_t size, struct ofl_dynamic *d, struct ofl_error *err)
{
	*d = (struct ofl_dynamic){0};
	if (size < EH_SIZE || memcmp(data, ELFMAG, SELFMAG) || data[EI_CLASS] != ELFCLASS64 ||
	    data[EI_DATA] != ELFDATA2LSB || ofl_le16(data + 54) != PH_SIZE)
		return 1;
	uint64_t phoff = ofl_le64(data + 32), dyn = 0, ndyn = 0, strtab = 0, nneeded = 0;
	size_t nph = ofl_le16(data + 56);
	if (phoff > size || (size - phoff) / PH_SIZE < nph)
		return 1;
	const uint8_t *ph = data + phoff;
	for (size_t i = 0; i < nph; i++) {
		struct phdr p = phdr_at(ph + i * PH_SIZE);
		if (p.type == PT_INTERP)
			d->interp = str_at(data, size, p.offset);
		if (p.type == PT_DYNAMIC && p.offset <= size && p.filesz <= size - p.offset) {
			dyn = p.offset;
			ndyn = p.filesz / DYN_SIZE;
		}
	}
	const uint8_t *e = data + dyn;
	for (uint64_t i = 0; i < ndyn && ofl_le64(e + i * DYN_SIZE) != DT_NULL; i++) {
		uint64_t tag = ofl_le64(e + i * DYN_SIZE);
		strtab = tag == DT_STRTAB ? ofl_le64(e + i * DYN_SIZE + 8) : strtab;
		nneeded += tag == DT_NEEDED;
	}
	if (nneeded && !(d->needed = ofl_calloc(nneeded, sizeof(*d->needed))))
		return OFL_NOMEM(err);
	for (uint64_t i = 0; i < ndyn && ofl_le64(e + i * DYN_SIZE) != DT_NULL; i++) {
		uint64_t tag = ofl_le64(e + i * DYN_SIZE);
		if (tag != DT_NEEDED && tag != DT_RPATH && tag != DT_RUNPATH)
			continue;
		/* an offset into the string table (unsigned: wraps, then misses) */
		const char *str =
		    va_str(data, size, ph, nph, strtab + ofl_le64(e + i * DYN_SIZE + 8));
		if (tag == DT_NEEDED && str)
			d->needed[d->nneeded++] = str;
		else if (tag != DT_NEEDED)
			*(tag == DT_RPATH ? &d->rpath : &d->runpath) = str;
	}
	return 0;
}

void ofl_dynamic_release(struct ofl_dynamic *d)
{
	free(d->needed);
	*d = (struct ofl_dynamic){0};
}

/* Once per real path (or name not found): fn's call; 1 when seen
 * before. */
static int visit(struct walk *w, const char *path, bool found)
{
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&w->seen, path, 0, &s, &added))
		return OFL_NOMEM(w->err);
	if (!added)
		return 1;
	if (++w->n > MAX_LIBS)
		return ofl_error_set(w->err, OFL_EUNSUPPORTED, path, OFL_NO_OFFSET,
		                     "a program that loads more than %d libraries", MAX_LIBS);
	return w->fn(w->ctx, path, found);
}

static int walk_file(struct walk *w, const char *path, unsigned depth);

/* One library a file names, found as the loader finds it. */
static int find_lib(struct walk *w, const char *name, const char *origin, const char *rpath,
                    const char *runpath, unsigned depth)
{
	const char *lists[] = {runpath ? NULL : rpath, w->ldpath, runpath};
	char p[PATH_MAX];
	for (size_t i = 0; i < 3; i++)
		for (const char *d = lists[i], *e; d && *d; d = *e ? e + 1 : e) {
			e = strchr(d, ':');
			e = e ? e : d + strlen(d);
			int n = (int)(e - d);
			int len =
			    n >= 7 && !strncmp(d, "$ORIGIN", 7)
			        ? snprintf(p, sizeof(p), "%s%.*s/%s", origin, n - 7, d + 7, name)
			        : snprintf(p, sizeof(p), "%.*s/%s", n, d, name);
			if (n && (size_t)len < sizeof(p) && !access(p, R_OK))
				return walk_file(w, p, depth + 1);
		}
	for (size_t i = 0; i < sizeof(loader_dirs) / sizeof(*loader_dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", loader_dirs[i], name);
		if (!access(p, R_OK))
			return walk_file(w, p, depth + 1);
	}
	int rc = visit(w, name, false);
	return rc > 0 ? 0 : rc;
}

/* A file the loader maps (the program, a library) and what it needs. */
static int walk_file(struct walk *w, const char *path, unsigned depth)
{
	char real[PATH_MAX];
	const char *rp = realpath(path, real) ? real : path;
	int rc = visit(w, rp, true);
	if (rc)
		return rc > 0 ? 0 : rc;
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct ofl_dynamic d;
	if (depth > 32 || ofl_file_open_regular(&f, rp, &ignored) ||
	    (rc = ofl_dynamic_read(f.data, f.size, &d, w->err))) {
		ofl_file_close(&f);
		return rc < 0 ? rc : 0; /* a script, or no ELF: its name alone */
	}
	if (!depth && d.interp) {
		rc = walk_file(w, d.interp, depth + 1);
		rc = rc ? rc : visit(w, "/etc/ld.so.cache", !access("/etc/ld.so.cache", R_OK));
		rc = rc ? (rc > 0 ? 0 : rc)
		        : visit(w, "/etc/ld.so.preload", !access("/etc/ld.so.preload", R_OK));
		rc = rc > 0 ? 0 : rc;
	}
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", rp);
	char *slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(origin, sizeof(origin), ".");
	for (size_t i = 0; !rc && i < d.nneeded; i++)
		if (!strchr(d.needed[i], '/'))
			rc = find_lib(w, d.needed[i], origin, d.rpath, d.runpath, depth);
	ofl_dynamic_release(&d);
	ofl_file_close(&f);
	return rc;
}

int ofl_program_loads(const char *exe, const char *ld_library_path, ofl_load_fn *fn, void *ctx,
                      struct ofl_error *err)
{
	struct walk w = {ld_library_path, fn, ctx, OFL_SYMSET_INIT, err, 0};
	int rc = walk_file(&w, exe, 0);
	ofl_symset_release(&w.seen);
	return rc;
}
