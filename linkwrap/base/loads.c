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
static const char *const loader_dirs[] = {"/lib/x86_64-linux-gnu",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/lib64",
                                          "/usr/lib64",
                                          "/lib",
                                          "/usr/lib"};

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

/* The dynamic section of a 64-bit ELF file: its entries and what their
 * string offsets are relative to (a virtual address). */
struct dyn {
	const struct ofl_file *f;
	const Elf64_Phdr *ph;
	size_t nph, ndyn;
	const Elf64_Dyn *d;
	uint64_t strtab;
};

/* The string at a virtual address's file offset, or NULL. */
static const char *dyn_str(const struct dyn *y, uint64_t off)
{
	uint64_t va = y->strtab + off;
	for (size_t i = 0; i < y->nph; i++) {
		const Elf64_Phdr *p = &y->ph[i];
		if (p->p_type != PT_LOAD || va < p->p_vaddr || va - p->p_vaddr >= p->p_filesz)
			continue;
		uint64_t at = p->p_offset + (va - p->p_vaddr);
		return at < y->f->size && memchr(y->f->data + at, 0, y->f->size - at)
		           ? (const char *)y->f->data + at
		           : NULL;
	}
	return NULL;
}

/* f's program headers and dynamic section; false when f is no 64-bit
 * ELF file with them in bounds. */
static bool read_dyn(const struct ofl_file *f, struct dyn *y)
{
	const Elf64_Ehdr *eh = (const void *)f->data;
	*y = (struct dyn){f, NULL, 0, 0, NULL, 0};
	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > f->size || (f->size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return false;
	y->ph = (const void *)(f->data + eh->e_phoff);
	y->nph = eh->e_phnum;
	for (size_t i = 0; i < y->nph; i++)
		if (y->ph[i].p_type == PT_DYNAMIC && y->ph[i].p_offset <= f->size &&
		    y->ph[i].p_filesz <= f->size - y->ph[i].p_offset) {
			y->d = (const void *)(f->data + y->ph[i].p_offset);
			y->ndyn = y->ph[i].p_filesz / sizeof(Elf64_Dyn);
		}
	for (size_t i = 0; i < y->ndyn && y->d[i].d_tag != DT_NULL; i++)
		if (y->d[i].d_tag == DT_STRTAB)
			y->strtab = y->d[i].d_un.d_ptr;
	return true;
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
	int rc = visit(w, realpath(path, real) ? real : path, true);
	if (rc)
		return rc > 0 ? 0 : rc;
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct dyn y;
	if (depth > 32 || ofl_file_open_regular(&f, real, &ignored) || !read_dyn(&f, &y)) {
		ofl_file_close(&f);
		return 0; /* a script, or no ELF: its name alone */
	}
	for (size_t i = 0; !rc && !depth && i < y.nph; i++)
		if (y.ph[i].p_type == PT_INTERP && y.ph[i].p_offset < f.size &&
		    memchr(f.data + y.ph[i].p_offset, 0, f.size - y.ph[i].p_offset)) {
			rc = walk_file(w, (const char *)f.data + y.ph[i].p_offset, depth + 1);
			rc = rc ? rc
			        : visit(w, "/etc/ld.so.cache", !access("/etc/ld.so.cache", R_OK));
			rc = rc ? (rc > 0 ? 0 : rc)
			        : visit(w, "/etc/ld.so.preload",
			                !access("/etc/ld.so.preload", R_OK));
			rc = rc > 0 ? 0 : rc;
		}
	const char *rpath = NULL, *runpath = NULL;
	for (size_t i = 0; i < y.ndyn && y.d[i].d_tag != DT_NULL; i++)
		if (y.d[i].d_tag == DT_RPATH || y.d[i].d_tag == DT_RUNPATH)
			*(y.d[i].d_tag == DT_RPATH ? &rpath : &runpath) =
			    dyn_str(&y, y.d[i].d_un.d_val);
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", real);
	*strrchr(origin, '/') = '\0';
	for (size_t i = 0; !rc && i < y.ndyn && y.d[i].d_tag != DT_NULL; i++) {
		const char *name =
		    y.d[i].d_tag == DT_NEEDED ? dyn_str(&y, y.d[i].d_un.d_val) : NULL;
		if (name && !strchr(name, '/'))
			rc = find_lib(w, name, origin, rpath, runpath, depth);
	}
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
