/* What the loader reads to start a program (loads.h). */
#include "loads.h"

#include <ctype.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/buf.h"
#include "offlink/io.h"
#include "symset.h"

#if defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#define PLATFORM "aarch64"
#define CACHE_ABI 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#define MACHINE EM_AARCH64
#else
#define MULTIARCH "x86_64-linux-gnu"
#define PLATFORM "x86_64"
#define CACHE_ABI 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#define MACHINE EM_X86_64
#endif

/* The loader's system folders, after its cache: a multiarch system's
 * (Debian's), else lib64's (Fedora's). */
static const char *const multiarch_dirs[] = {"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib",
                                             "/usr/lib", NULL};
static const char *const lib64_dirs[] = {"/lib64", "/usr/lib64", NULL};
/* Subfolders of a folder searched where the loader looks first, choosing
 * by the CPU it runs on: glibc-hwcaps/<level>, and before glibc 2.37 tls,
 * AT_PLATFORM's and the hwcaps' names. */
static const char *const cpu_subdirs[] = {"glibc-hwcaps", "tls",      PLATFORM,
                                          "haswell",      "xeon_phi", "avx512_1"};
#define CACHE "/etc/ld.so.cache"
#define PRELOAD "/etc/ld.so.preload"

/* More than any program loads (clang: 20): a loop of links is bounded;
 * places looked at, likewise. */
#define MAX_LIBS 512
#define MAX_LOOKED 8192
/* the kernel's #! levels */
#define MAX_SCRIPTS 4

struct walk {
	const char *ldpath;
	const char *exe_origin; /* $ORIGIN of LD_LIBRARY_PATH: the program's */
	ofl_load_fn *fn;
	void *ctx;
	struct ofl_symset seen; /* reported: files by real path, the rest by path */
	struct ofl_symset dirs; /* folders checked for CPU subfolders */
	struct ofl_error *err;
	size_t nfiles, nlooked;
	int cache; /* 0: not read yet; 1: read; -1: none to use */
	struct ofl_file cache_file;
	struct ofl_ldcache lc;
	const char *const *system;
};

/* The objects that loaded one, nearest first: their DT_RPATH (without a
 * DT_RUNPATH) is searched for its libraries, before LD_LIBRARY_PATH. */
struct chain {
	const char *rpath, *runpath, *origin;
	const struct chain *up;
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
		if (tag != DT_NEEDED && tag != DT_RPATH && tag != DT_RUNPATH && tag != DT_SONAME)
			continue;
		/* an offset into the string table (unsigned: wraps, then misses) */
		const char *str =
		    va_str(data, size, ph, nph, strtab + ofl_le64(e + i * DYN_SIZE + 8));
		if (tag == DT_NEEDED && str)
			d->needed[d->nneeded++] = str;
		else if (tag != DT_NEEDED)
			*(tag == DT_RPATH    ? &d->rpath
			  : tag == DT_SONAME ? &d->soname
			                     : &d->runpath) = str;
	}
	return 0;
}

void ofl_dynamic_release(struct ofl_dynamic *d)
{
	free(d->needed);
	*d = (struct ofl_dynamic){0};
}

/* ---- the loader's cache --------------------------------------------------- */

/* "glibc-ld.so.cache" "1.1", the number of entries and the strings' size
 * (u32), flags (u8: 2 little-endian, 0 unknown), 3 unused bytes, the
 * extensions' offset (u32), 12 unused bytes; then the entries: flags
 * (i32), the name's and the path's offsets from the cache's start (u32),
 * an unused u32, hwcaps (u64). */
enum { LC_HEAD = 48, LC_ENTRY = 24 };

int32_t ofl_ldcache_abi(void)
{
	return CACHE_ABI;
}

int ofl_ldcache_read(const uint8_t *data, size_t size, int32_t flags, struct ofl_ldcache *c)
{
	*c = (struct ofl_ldcache){0};
	if (size < LC_HEAD || memcmp(data, "glibc-ld.so.cache1.1", 20) ||
	    (data[28] != 0 && data[28] != 2))
		return 1;
	uint32_t n = ofl_le32(data + 20);
	if (n > (size - LC_HEAD) / LC_ENTRY)
		return 1;
	*c = (struct ofl_ldcache){data, size, n, flags};
	return 0;
}

static const char *lc_str(const struct ofl_ldcache *c, uint32_t off)
{
	return str_at(c->data, c->size, off);
}

int ofl_ldcache_lookup(const struct ofl_ldcache *c, const char *name, const char **path)
{
	const char *found = NULL;
	bool by_cpu = false;
	for (uint32_t i = 0; i < c->n; i++) {
		const uint8_t *e = c->data + LC_HEAD + (size_t)i * LC_ENTRY;
		const char *k =
		    (int32_t)ofl_le32(e) == c->flags ? lc_str(c, ofl_le32(e + 4)) : NULL;
		if (!k || strcmp(k, name))
			continue;
		if (ofl_le64(e + 16))
			by_cpu = true;
		else if (!found)
			found = lc_str(c, ofl_le32(e + 8));
	}
	*path = by_cpu ? NULL : found;
	return by_cpu ? 2 : found ? 0 : 1;
}

/* ---- the walk ------------------------------------------------------------- */

/* Once per key (a file's real path, another path): fn's call; 1 when
 * reported before. */
static int report(struct walk *w, enum ofl_load_kind kind, const char *path, const char *key,
                  const char *why)
{
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&w->seen, key, 0, &s, &added))
		return OFL_NOMEM(w->err);
	if (!added)
		return 1;
	if (kind == OFL_LOAD_FILE ? ++w->nfiles > MAX_LIBS : ++w->nlooked > MAX_LOOKED)
		return ofl_error_set(w->err, OFL_EUNSUPPORTED, path, OFL_NO_OFFSET,
		                     "a program that loads more than %d libraries", MAX_LIBS);
	return w->fn(w->ctx, kind, path, why);
}

static int say(struct walk *w, enum ofl_load_kind kind, const char *path, const char *why)
{
	int rc = report(w, kind, path, path, why);
	return rc > 0 ? 0 : rc;
}

/* A choice offlink does not model, said: 1 (the search ends there). */
static int unknown(struct walk *w, const char *path, const char *why)
{
	int rc = say(w, OFL_LOAD_UNKNOWN, path, why);
	return rc ? rc : 1;
}

static int walk_file(struct walk *w, const char *path, const struct ofl_file *opened,
                     const struct chain *up, unsigned depth);

/* Whether f is a file the loader takes for this machine: a 64-bit
 * little-endian ELF file of its CPU (it passes over others). */
static bool compatible(const struct ofl_file *f)
{
	const uint8_t *h = f->data;
	return f->size >= 20 && !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64 &&
	       h[EI_DATA] == ELFDATA2LSB && ofl_le16(h + 18) == MACHINE;
}

/* The library at path, a place where the loader looks for one: 1 found
 * (walked), 0 not there or another CPU's (read and passed over, as the
 * loader does), <0 on error. */
static int lib_at(struct walk *w, const char *path, const struct chain *up, unsigned depth)
{
	if (access(path, F_OK))
		return say(w, OFL_LOAD_LOOKED, path, NULL);
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	int rc;
	if (ofl_file_open_regular(&f, path, &ignored) || !compatible(&f))
		rc = say(w, OFL_LOAD_FILE, path, NULL);
	else if (!(rc = walk_file(w, path, &f, up, depth + 1)))
		rc = 1;
	ofl_file_close(&f);
	return rc;
}

/* A folder searched: its CPU subfolders, each looked at (once per
 * walk); 1 when one is there (the choice unknown), 2 when the folder is
 * not there, <0 on error. */
static int cpu_folders(struct walk *w, const char *dir)
{
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&w->dirs, dir, 0, &s, &added))
		return OFL_NOMEM(w->err);
	if (!added)
		return (int)s->value;
	struct stat st;
	if (stat(dir, &st)) { /* nothing there, nor below */
		s->value = 2;
		int rc = say(w, OFL_LOAD_LOOKED, dir, NULL);
		return rc ? rc : 2;
	}
	int rc = 0;
	for (size_t i = 0; !rc && i < sizeof(cpu_subdirs) / sizeof(*cpu_subdirs); i++) {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, cpu_subdirs[i]);
		if (stat(p, &st))
			rc = say(w, OFL_LOAD_LOOKED, p, NULL);
		else
			rc = unknown(w, p, "the loader chooses among its folders by the CPU");
	}
	s = ofl_symset_find(&w->dirs, dir);
	s->value = rc > 0;
	return rc;
}

/* name in folder dir: 1 found (walked), 0 not there, <0 on error. */
static int in_dir(struct walk *w, const char *dir, const char *name, const struct chain *up,
                  unsigned depth)
{
	char p[PATH_MAX];
	int rc = cpu_folders(w, dir);
	if (rc)
		return rc == 2 ? 0 : rc;
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return 0;
	return lib_at(w, p, up, depth);
}

/* One folder of a list, its dynamic string tokens expanded into out:
 * false when it has one the loader knows and offlink does not model. */
static bool expand(const char *d, size_t n, const char *origin, char *out, size_t outsz)
{
	struct ofl_buf b = OFL_BUF_INIT;
	bool ok = true;
	for (size_t i = 0; ok && i < n;) {
		size_t k =
		    d[i] != '$'                                     ? 0
		    : n - i >= 9 && !strncmp(d + i, "${ORIGIN}", 9) ? 9
		    : n - i >= 7 && !strncmp(d + i, "$ORIGIN", 7) &&
		            (n - i == 7 || !(isalnum((unsigned char)d[i + 7]) || d[i + 7] == '_'))
		        ? 7
		        : 0;
		if (d[i] == '$' && !k)
			ok = false; /* $LIB, $PLATFORM */
		else if (k)
			ofl_buf_printf(&b, "%s", origin);
		else
			ofl_buf_append(&b, d + i, 1);
		i += k ? k : 1;
	}
	ok = ok && ofl_buf_append(&b, "", 1) == 0 && b.len <= outsz;
	if (ok)
		memcpy(out, b.len > 1 ? (const char *)b.data : ".", b.len > 1 ? b.len : 2);
	ofl_buf_release(&b);
	return ok;
}

/* name in the folders of list (':'-separated; an empty one is the
 * working folder): as in_dir. */
static int in_list(struct walk *w, const char *list, const char *origin, const char *name,
                   const struct chain *up, unsigned depth)
{
	int rc = 0;
	for (const char *d = list, *e; !rc && d; d = *e ? e + 1 : NULL) {
		char dir[PATH_MAX];
		e = d + strcspn(d, ":");
		if (expand(d, (size_t)(e - d), origin, dir, sizeof(dir)))
			rc = in_dir(w, dir, name, up, depth);
		else
			rc = unknown(w, list, "a library folder with $LIB or $PLATFORM");
	}
	return rc;
}

/* name through the loader's cache: as in_dir. */
static int in_cache(struct walk *w, const char *name, const struct chain *up, unsigned depth)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!w->cache && access(CACHE, F_OK)) {
		w->cache = -1;
		return say(w, OFL_LOAD_LOOKED, CACHE, NULL);
	}
	if (!w->cache) {
		bool read =
		    !ofl_file_open_regular(&w->cache_file, CACHE, &ignored) &&
		    !ofl_ldcache_read(w->cache_file.data, w->cache_file.size, CACHE_ABI, &w->lc);
		w->cache = read ? 1 : -1;
		int rc = read ? say(w, OFL_LOAD_CACHE, CACHE, NULL)
		              : unknown(w, CACHE, "a loader cache offlink cannot read");
		if (rc)
			return rc;
	}
	const char *path = NULL;
	int found = w->cache > 0 ? ofl_ldcache_lookup(&w->lc, name, &path) : 1;
	if (found == 2)
		return unknown(w, name, "the loader's cache chooses the library by the CPU");
	if (found)
		return 0;
	/* a file it names that is gone or another CPU's: the loader goes on
	 * to its folders */
	return lib_at(w, path, up, depth);
}

/* One library an object (me) names, found as the loader finds it. */
static int find_lib(struct walk *w, const char *name, const struct chain *me, unsigned depth)
{
	int rc = 0;
	if (strchr(name, '/'))
		return access(name, F_OK) ? say(w, OFL_LOAD_MISSING, name, NULL)
		                          : walk_file(w, name, NULL, me, depth + 1);
	for (const struct chain *c = me; !rc && !me->runpath && c; c = c->up)
		rc = c->rpath ? in_list(w, c->rpath, c->origin, name, me, depth) : 0;
	rc = rc || !w->ldpath ? rc : in_list(w, w->ldpath, w->exe_origin, name, me, depth);
	rc = rc || !me->runpath ? rc : in_list(w, me->runpath, me->origin, name, me, depth);
	rc = rc ? rc : in_cache(w, name, me, depth);
	for (const char *const *d = w->system; !rc && *d; d++)
		rc = in_dir(w, *d, name, me, depth);
	return rc < 0 ? rc : rc ? 0 : say(w, OFL_LOAD_MISSING, name, NULL);
}

/* /etc/ld.so.preload's libraries, loaded into every program first. */
static int preload(struct walk *w, const struct chain *me, unsigned depth)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (access(PRELOAD, F_OK))
		return say(w, OFL_LOAD_LOOKED, PRELOAD, NULL);
	int rc = say(w, OFL_LOAD_FILE, PRELOAD, NULL);
	char *text = rc || ofl_file_open_regular(&f, PRELOAD, &ignored) ? NULL
	             : f.size ? ofl_strndup((const char *)f.data, f.size)
	                      : ofl_strdup("");
	ofl_file_close(&f);
	if (!rc && !text)
		rc = unknown(w, PRELOAD, "it cannot be read");
	if (!text)
		return rc < 0 ? rc : 0;
	char *save = NULL;
	for (char *t = strtok_r(text, " \t\n:", &save); !rc && t;
	     t = strtok_r(NULL, " \t\n:", &save))
		rc = find_lib(w, t, me, depth);
	free(text);
	return rc;
}

/* A script's interpreter: what the kernel runs for it. */
static char *interpreter(const struct ofl_file *f)
{
	if (f->size < 3 || memcmp(f->data, "#!", 2))
		return NULL;
	size_t end = 2;
	while (end < f->size && end < 256 && f->data[end] != '\n')
		end++;
	const char *p = (const char *)f->data + 2;
	size_t n = end - 2;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	size_t len = 0;
	while (len < n && p[len] != ' ' && p[len] != '\t')
		len++;
	return len ? ofl_strndup(p, len) : NULL;
}

/* A file the loader (or, for a program, the kernel) reads, and what it
 * needs; a program (up NULL at depth 0, or a script's interpreter) has
 * its interpreter and the preloaded libraries too.  opened: the file, as
 * the caller read it (NULL: opened here, once it is known to be new). */
static int walk_file(struct walk *w, const char *path, const struct ofl_file *opened,
                     const struct chain *up, unsigned depth)
{
	char real[PATH_MAX];
	const char *rp = realpath(path, real) ? real : path;
	int rc = report(w, OFL_LOAD_FILE, path, rp, NULL);
	if (rc)
		return rc > 0 ? 0 : rc;
	bool program = depth < MAX_SCRIPTS && !up;
	struct ofl_file own = OFL_FILE_INIT;
	const struct ofl_file *f = opened ? opened : &own;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct ofl_dynamic d;
	if (depth > 32 || (!opened && ofl_file_open_regular(&own, rp, &ignored)))
		return 0;
	char *script = program ? interpreter(f) : NULL;
	if (script || (rc = ofl_dynamic_read(f->data, f->size, &d, w->err))) {
		rc = script ? walk_file(w, script, NULL, NULL, depth + 1) : rc < 0 ? rc : 0;
		free(script);
		ofl_file_close(&own);
		return rc; /* a script, or no ELF: its name alone */
	}
	/* $ORIGIN: the program's real folder, a library's as the loader
	 * found it */
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", program ? rp : path);
	char *slash = strrchr(origin, '/');
	if (slash)
		*(slash == origin ? slash + 1 : slash) = '\0';
	else
		snprintf(origin, sizeof(origin), ".");
	struct chain me = {d.runpath ? NULL : d.rpath, d.runpath, origin, up};
	if (program && !w->exe_origin)
		w->exe_origin = origin;
	if (program && d.interp)
		rc = walk_file(w, d.interp, NULL, NULL, MAX_SCRIPTS);
	rc = rc || !program || !d.interp ? rc : preload(w, &me, depth);
	for (size_t i = 0; !rc && i < d.nneeded; i++)
		rc = find_lib(w, d.needed[i], &me, depth);
	if (w->exe_origin == origin)
		w->exe_origin = NULL;
	ofl_dynamic_release(&d);
	ofl_file_close(&own);
	return rc;
}

int ofl_program_loads(const char *exe, const char *ld_library_path, ofl_load_fn *fn, void *ctx,
                      struct ofl_error *err)
{
	struct walk w = {.ldpath = ld_library_path && *ld_library_path ? ld_library_path : NULL,
	                 .fn = fn,
	                 .ctx = ctx,
	                 .err = err,
	                 .cache_file = OFL_FILE_INIT};
	struct stat st;
	w.system =
	    !stat("/lib/" MULTIARCH, &st) && S_ISDIR(st.st_mode) ? multiarch_dirs : lib64_dirs;
	int rc = walk_file(&w, exe, NULL, NULL, 0);
	ofl_symset_release(&w.seen);
	ofl_symset_release(&w.dirs);
	ofl_file_close(&w.cache_file);
	return rc;
}
