/* The key of a device-link command: everything the command reads,
 * resolved as the command resolves it.  docs/design.md, "Device-link
 * cache", lists every item; keep the two in step.  What the key cannot
 * resolve (an unreadable response file, a temporary inside a word, a tool
 * that is not there) makes the command uncached: a miss is always safe.
 * What the device linker reads beyond this (clang's crt files, libc,
 * libgcc, its runtime) the manifest of devlink_cache.c covers. */
#include <dirent.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cache_priv.h"
#include "internal.h"
#include "run_priv.h"
#include "offlink/io.h"
#include "offlink/ldcmd.h"
#include "offlink/proc.h"

/* What a variable of these names says changes which files the tools read
 * or how they link (CUDA's tools, gcc's and clang's drivers, the loader). */
static const char *const key_env[] = {"PATH",
                                      "CUDA_PATH",
                                      "CUDA_HOME",
                                      "LIBRARY_PATH",
                                      "COMPILER_PATH",
                                      "GCC_EXEC_PREFIX",
                                      "LD_LIBRARY_PATH",
                                      "CCC_OVERRIDE_OPTIONS",
                                      "CLANG_CONFIG_FILE_SYSTEM_DIR",
                                      "CLANG_CONFIG_FILE_USER_DIR"};

/* The programs clang may run for a device link of a CPU (the linker the
 * command names; all of them when a response file may name one), AMDGPU
 * or NVPTX target, looked for beside it, then on PATH, as its driver
 * does. */
static const char *const cpu_programs[] = {"ld.lld", "ld.gold", "ld.bfd", "ld", NULL};
static const char *const amdgpu_programs[] = {"ld.lld", NULL};
static const char *const nvptx_programs[] = {"clang-nvlink-wrapper", "ptxas", "nvlink", "fatbinary",
                                             NULL};

/* The loader's own folders, after LD_LIBRARY_PATH and RUNPATH. */
static const char *const loader_dirs[] = {"/lib/x86_64-linux-gnu",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/lib64",
                                          "/usr/lib64",
                                          "/lib",
                                          "/usr/lib"};

#define MAX_RSP_DEPTH 16
/* Response files read for one key, all told: a file that includes itself
 * (which clang refuses) or a fan of them is unknown, not unbounded work. */
#define MAX_RSP_FILES 64

struct keyer {
	struct ofl_cache_key k;
	const struct ofl_link *l;
	struct ofl_ptrs *keyed; /* paths keyed by content or identity */
	struct ofl_ptrs strs;   /* words split or read from response files */
	struct ofl_ptrs loaded; /* programs whose libraries are keyed (real paths) */
	const char **dirs, **libs;
	size_t ndirs, nlibs, capdirs, caplibs;
	unsigned nrsp; /* response files read */
	/* the digests of the command's small inputs not written yet, in its
	 * order (digest_inputs), and the next to take */
	struct ofl_key_digest *digests;
	size_t nextdigest;
	bool unknown; /* something the command reads cannot be resolved */
	bool nomem;
};

/* A file the key covers, by its real path: the manifest leaves it out. */
static void remember(struct keyer *r, const char *path)
{
	char real[PATH_MAX];
	char *p = ofl_strdup(realpath(path, real) ? real : path);
	r->nomem |= !p || ofl_ptrs_push(r->keyed, p);
}

static char *own_str(struct keyer *r, const char *s, size_t n)
{
	char *p = ofl_strndup(s, n);
	if (!p || ofl_ptrs_push(&r->strs, p)) {
		r->nomem = true;
		return NULL;
	}
	return p;
}

/* A file's identity keyed (ofl_key_identity); one that changed too lately
 * makes the link uncached.  false: no regular file there. */
static bool identity(struct keyer *r, const char *path, char *real)
{
	int rc = ofl_key_identity(&r->k, path, real);
	r->unknown |= rc < 0;
	return rc != 0;
}

/* -L dirs and -l names, in the command's order, for key_library. */
static void note_name(struct keyer *r, const char *w)
{
	if (!strncmp(w, "-L", 2) && w[2])
		r->nomem |=
		    OFL_GROW(r->dirs, r->capdirs, r->ndirs) || !(r->dirs[r->ndirs++] = w + 2);
	else if (!strncmp(w, "-l", 2) && w[2])
		r->nomem |=
		    OFL_GROW(r->libs, r->caplibs, r->nlibs) || !(r->libs[r->nlibs++] = w + 2);
}

/* A file a word names, relative to the command's working directory (ours)
 * or absolute: its bytes; that it is absent (it may appear later). */
static void key_file(struct keyer *r, const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		ofl_key_str(&r->k, "absent", path);
	} else if (S_ISREG(st.st_mode)) {
		ofl_key_str(&r->k, "named", path);
		if (ofl_key_content(&r->k, path))
			r->unknown = true;
		else
			remember(r, path);
	}
}

static void key_named(struct keyer *r, const char *w, unsigned depth);

/* A response file, as clang and the linkers read it (GNU quoting): its
 * bytes, and every word in it as a word of the command. */
static void key_rsp(struct keyer *r, const char *path, unsigned depth)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (depth >= MAX_RSP_DEPTH || ++r->nrsp > MAX_RSP_FILES ||
	    ofl_file_open_regular(&f, path, &ignored)) {
		r->unknown = true;
		return;
	}
	ofl_key_str(&r->k, "response file", path);
	ofl_key_bytes(&r->k, "content", f.data, f.size);
	remember(r, path);
	/* a NUL would hide the words after it from the scan */
	char *text = memchr(f.data, 0, f.size) ? NULL : own_str(r, (const char *)f.data, f.size);
	r->unknown |= !text;
	for (char *w; text && !r->nomem && (w = ofl_argv_next_word(&text));)
		if (*w)
			key_named(r, w, depth + 1);
	ofl_file_close(&f);
}

/* What a word makes the command read: the words of -Wl, one by one; a
 * response file; -L and -l for key_library; else the file the word or its
 * "=value" names. */
static void key_named(struct keyer *r, const char *w, unsigned depth)
{
	if (w[0] == '@') {
		key_rsp(r, w + 1, depth);
		return;
	}
	if (!strncmp(w, "-Wl,", 4)) {
		const char *p = w + 4;
		for (const char *e; !r->nomem; p = e + 1) {
			e = strchr(p, ',');
			e = e ? e : p + strlen(p);
			const char *piece = own_str(r, p, (size_t)(e - p));
			if (piece && *piece)
				key_named(r, piece, depth);
			if (!*e)
				break;
		}
		return;
	}
	note_name(r, w);
	if (!strncmp(w, "-L", 2) || !strncmp(w, "-l", 2))
		return;
	const char *eq = strchr(w, '=');
	const char *path = w[0] != '-' ? w : eq ? eq + 1 : NULL;
	if (path && *path)
		key_file(r, path);
}

/* The input file whose mapping holds a large input's bytes (their
 * identity can stand for them), or NULL. */
static const struct ofl_file *holder(const struct ofl_link *l, const uint8_t *p, size_t n)
{
	for (size_t i = 0; n >= OFL_KEY_MEMO_MIN && i < l->nfiles; i++)
		if (ofl_file_offset_of(&l->files[i].f, p, n) >= 0)
			return &l->files[i].f;
	for (size_t i = 0; n >= OFL_KEY_MEMO_MIN && i < l->nunits; i++)
		if (l->units[i].thin && ofl_file_offset_of(l->units[i].thin, p, n) >= 0)
			return l->units[i].thin;
	return NULL;
}

/* The digests of the command's inputs not written yet and too small for a
 * memo, computed together before key_words takes them in order. */
static void digest_inputs(struct keyer *r, size_t gi, const struct ofl_proc *cmd)
{
	const struct ofl_link *l = r->l;
	size_t tl = strlen(l->tmpdir), next = 0, n = 0;
	const uint8_t **p = ofl_calloc(cmd->argc, sizeof(*p));
	size_t *len = ofl_calloc(cmd->argc, sizeof(*len));
	r->digests = ofl_calloc(cmd->argc, sizeof(*r->digests));
	r->nomem |= !p || !len || !r->digests;
	for (size_t i = l->o.nlauncher + 1; !r->nomem && i < cmd->argc; i++) {
		const char *w = cmd->argv[i];
		const struct pending_write *pw = !strncmp(w, l->tmpdir, tl) && w[tl] == '/'
		                                     ? ofl_devlink_pending(&l->groups[gi], w, &next)
		                                     : NULL;
		if (pw && pw->size < OFL_KEY_MEMO_MIN)
			p[n] = pw->data, len[n++] = pw->size;
	}
	if (!r->nomem)
		ofl_key_digests(p, len, n, r->digests);
	free(p);
	free(len);
}

/* Every word: its bytes, or for the link's own files their content (an
 * input, written or still to be written) or a placeholder (an output),
 * and what it names. */
static void key_words(struct keyer *r, size_t gi, const struct ofl_proc *cmd)
{
	const struct ofl_link *l = r->l;
	size_t tl = strlen(l->tmpdir), next = 0;
	for (size_t i = l->o.nlauncher + 1; i < cmd->argc && !r->unknown; i++) {
		const char *w = cmd->argv[i];
		struct stat st;
		bool own = !strncmp(w, l->tmpdir, tl) && w[tl] == '/';
		const struct pending_write *p =
		    own ? ofl_devlink_pending(&l->groups[gi], w, &next) : NULL;
		if (p && p->size < OFL_KEY_MEMO_MIN) {
			ofl_key_add_digest(&r->k, "input", &r->digests[r->nextdigest++]);
		} else if (p) {
			ofl_key_input(&r->k, l->cache, "input", holder(l, p->data, p->size),
			              p->data, p->size);
		} else if (own && !stat(w, &st)) {
			r->unknown |= ofl_key_content(&r->k, w) != 0;
		} else if (own) {
			ofl_key_str(&r->k, "output", strrchr(w, '.'));
		} else if (strstr(w, l->tmpdir)) {
			r->unknown = true; /* a temporary inside a word: its bytes unknown */
		} else if (!strncmp(w, "-B", 2) || !strncmp(w, "--prefix", 8)) {
			r->unknown = true; /* where clang finds its linker first: not resolved */
		} else {
			ofl_key_str(&r->k, "arg", w);
			key_named(r, w, 0);
		}
	}
}

/* ELF64 little-endian: the string at a virtual address's file offset. */
static const char *elf_str(const struct ofl_file *f, const Elf64_Phdr *ph, size_t nph,
                           uint64_t strtab, uint64_t off)
{
	for (size_t i = 0; i < nph; i++) {
		uint64_t va = strtab + off;
		if (ph[i].p_type != PT_LOAD || va < ph[i].p_vaddr ||
		    va - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		uint64_t at = ph[i].p_offset + (va - ph[i].p_vaddr);
		return at < f->size && memchr(f->data + at, 0, f->size - at)
		           ? (const char *)f->data + at
		           : NULL;
	}
	return NULL;
}

/* One library the program names, found as the loader finds it: RPATH
 * (without RUNPATH), LD_LIBRARY_PATH, RUNPATH, the loader's folders. */
static void key_needed_lib(struct keyer *r, const char *name, const char *origin, const char *rpath,
                           const char *runpath)
{
	const char *ldpath = ofl_proc_env_get(r->l->o.device_env, "LD_LIBRARY_PATH");
	const char *lists[] = {runpath ? NULL : rpath, ldpath, runpath};
	char p[PATH_MAX];
	for (size_t i = 0; i < 3; i++) {
		for (const char *d = lists[i], *e; d && *d; d = *e ? e + 1 : e) {
			e = strchr(d, ':');
			e = e ? e : d + strlen(d);
			int n = (int)(e - d);
			int len =
			    n >= 7 && !strncmp(d, "$ORIGIN", 7)
			        ? snprintf(p, sizeof(p), "%s%.*s/%s", origin, n - 7, d + 7, name)
			        : snprintf(p, sizeof(p), "%.*s/%s", n, d, name);
			if ((size_t)len < sizeof(p) && identity(r, p, NULL))
				return;
		}
	}
	for (size_t i = 0; i < sizeof(loader_dirs) / sizeof(*loader_dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", loader_dirs[i], name);
		if (identity(r, p, NULL))
			return;
	}
	ofl_key_str(&r->k, "library absent", name);
}

/* The shared libraries a program loads (its DT_NEEDED, one level): Debian's
 * clang and lld load libLLVM.so.N and libclang-cpp.so.N from RUNPATH
 * $ORIGIN/../lib, which hold the compiler and the linker. */
static void key_needed(struct keyer *r, const char *exe)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (ofl_file_open_regular(&f, exe, &ignored))
		return;
	const Elf64_Ehdr *eh = (const void *)f.data;
	if (f.size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > f.size || (f.size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) {
		ofl_key_str(&r->k, "not ELF64", exe); /* its identity is keyed */
		ofl_file_close(&f);
		return;
	}
	const Elf64_Phdr *ph = (const void *)(f.data + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	size_t ndyn = 0;
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC && ph[i].p_offset <= f.size &&
		    ph[i].p_filesz <= f.size - ph[i].p_offset)
			dyn = (const void *)(f.data + ph[i].p_offset),
			ndyn = ph[i].p_filesz / sizeof(Elf64_Dyn);
	uint64_t strtab = 0;
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
	const char *rpath = NULL, *runpath = NULL;
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_RPATH || dyn[i].d_tag == DT_RUNPATH)
			*(dyn[i].d_tag == DT_RPATH ? &rpath : &runpath) =
			    elf_str(&f, ph, eh->e_phnum, strtab, dyn[i].d_un.d_val);
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", exe);
	*strrchr(origin, '/') = '\0';
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		const char *name = dyn[i].d_tag == DT_NEEDED
		                       ? elf_str(&f, ph, eh->e_phnum, strtab, dyn[i].d_un.d_val)
		                       : NULL;
		if (name && !strchr(name, '/'))
			key_needed_lib(r, name, origin, rpath, runpath);
	}
	ofl_file_close(&f);
}

/* A program found beside dir (NULL: none) or on the PATH of the device
 * links' environment, where clang looks: its identity and its libraries',
 * into real; false when there is none. */
static bool key_program(struct keyer *r, const char *name, const char *dir, char *real)
{
	const char *dirs[1] = {dir};
	char *path = strchr(name, '/')
	                 ? ofl_strdup(name)
	                 : ofl_proc_find(name, dirs, dir ? 1 : 0,
	                                 ofl_proc_env_get(r->l->o.device_env, "PATH"));
	bool found = path && identity(r, path, real);
	ofl_key_str(&r->k, found ? "program" : "program absent", name);
	/* ld.lld and lld, ld and ld.bfd: one program, its libraries once */
	bool seen = false;
	for (size_t i = 0; found && i < r->loaded.n && !seen; i++)
		seen = !strcmp(r->loaded.v[i], real);
	if (found && !seen) {
		key_needed(r, real);
		char *copy = ofl_strdup(real);
		r->nomem |= !copy || ofl_ptrs_push(&r->loaded, copy);
	}
	free(path);
	return found;
}

/* The names in a folder, sorted (clang picks the newest GCC of those it
 * lists, and its resource folder by name). */
static void key_listing(struct keyer *r, const char *dir, struct ofl_ptrs *subdirs)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	ofl_key_str(&r->k, "listing", dir);
	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		if (strcmp(e, ".") && strcmp(e, "..")) {
			ofl_key_str(&r->k, "entry", e);
			char *sub = NULL;
			if (subdirs &&
			    (asprintf(&sub, "%s/%s", dir, e) < 0 || ofl_ptrs_push(subdirs, sub)))
				r->nomem = true;
		}
		free(ents[i]);
	}
	free(ents);
}

/* The linker clang runs for a CPU: --ld-path's, else ld.<X> for the last
 * -fuse-ld=X (X when a path), else ld; NULL when a response file of
 * clang's may say otherwise. */
static const char *cpu_linker(const struct ofl_proc *cmd, size_t from, char *buf, size_t bufsz)
{
	const char *fuse = NULL, *path = NULL;
	for (size_t i = from; i < cmd->argc; i++) {
		const char *w = cmd->argv[i];
		if (w[0] == '@')
			return NULL;
		if (!strncmp(w, "-fuse-ld=", 9))
			fuse = w + 9;
		else if (!strncmp(w, "--ld-path=", 10) && w[10])
			path = w + 10;
	}
	if (path)
		return path;
	if (!fuse || !*fuse)
		return "ld";
	snprintf(buf, bufsz, strchr(fuse, '/') ? "%s" : "ld.%s", fuse);
	return buf;
}

/* The device compiler, found where the front end runs it (its PATH), and
 * the programs it runs for the target; CUDA's under cuda_path for NVPTX.
 * Its folder as named (a link to clang in another tree) and its real one
 * to named and clangdir. */
static void key_tools(struct keyer *r, const struct ofl_proc *cmd, const char *triple, char *named,
                      char *clangdir)
{
	const struct ofl_link *l = r->l;
	const char *tool = cmd->argv[l->o.nlauncher];
	bool nvptx = ofl_target_nvptx(triple);
	char buf[PATH_MAX];
	const char *linker[2] = {cpu_linker(cmd, l->o.nlauncher + 1, buf, sizeof(buf)), NULL};
	const char *const *programs = nvptx                    ? nvptx_programs
	                              : ofl_target_gpu(triple) ? amdgpu_programs
	                              : linker[0]              ? linker
	                                                       : cpu_programs;
	ofl_key_str(&r->k, "search path", l->o.search_path ? l->o.search_path : "");
	char *path =
	    strchr(tool, '/') ? ofl_strdup(tool) : ofl_proc_find(tool, NULL, 0, l->o.search_path);
	if (!path || !key_program(r, path, NULL, clangdir)) {
		r->unknown = true; /* the command cannot run */
		free(path);
		return;
	}
	snprintf(named, PATH_MAX, "%s", path);
	free(path);
	*strrchr(named, '/') = '\0';
	*strrchr(clangdir, '/') = '\0';
	char real[PATH_MAX], p[PATH_MAX + 64];
	for (size_t i = 0; programs[i]; i++)
		key_program(r, programs[i], clangdir, real);
	bool toolkit = nvptx && (*l->cuda || !l->o.cuda_path);
	for (size_t i = 1; toolkit && programs[i]; i++) {
		snprintf(p, sizeof(p), "%s/bin/%s", *l->cuda ? l->cuda : "/usr/local/cuda",
		         programs[i]);
		key_program(r, p, NULL, real);
	}
}

/* The library -l<name> finds, searched as ld does (without -Bstatic) in the
 * command's -L dirs, then clang's own folders, then the linker's. */
static void key_library(struct keyer *r, const struct ofl_ptrs *implicit, const char *name)
{
	const struct ofl_argv *defaults = &r->l->libdirs;
	size_t n = r->ndirs + implicit->n + defaults->n;
	struct ofl_error ignored = OFL_ERROR_INIT;
	char *found = NULL;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		size_t j = i - r->ndirs, d = j - implicit->n;
		const char *dir = i < r->ndirs      ? r->dirs[i]
		                  : j < implicit->n ? (const char *)implicit->v[j]
		                                    : defaults->v[d];
		rc = ofl_ldcmd_find_in_dir(dir, name, false, &found, &ignored);
	}
	if (rc == 1 && identity(r, found, NULL))
		remember(r, found);
	else if (!rc)
		ofl_key_str(&r->k, "library not found", name);
	r->nomem |= rc < 0;
	free(found);
}

/* clang's folders for a target, beside clang as named and as it really
 * is: <llvm>/lib/<triple> (LLVM 20+'s libompdevice.a), <llvm>/lib, the
 * resource folder's lib/<triple>; the folders it chooses from (resource
 * folders, GCC installations) listed. */
static void key_clang_dirs(struct keyer *r, const char *named, const char *clangdir,
                           const char *triple, struct ofl_ptrs *implicit)
{
	struct ofl_ptrs res = OFL_PTRS_INIT, gccs = OFL_PTRS_INIT;
	char *p = NULL;
	if (asprintf(&p, "%s/../lib/%s", named, triple) < 0 || ofl_ptrs_push(implicit, p) ||
	    asprintf(&p, "%s/../lib/%s", clangdir, triple) < 0 || ofl_ptrs_push(implicit, p) ||
	    asprintf(&p, "%s/../lib", clangdir) < 0 || ofl_ptrs_push(implicit, p) ||
	    asprintf(&p, "%s/../lib/clang", clangdir) < 0) {
		r->nomem = true;
		return;
	}
	key_listing(r, p, &res);
	free(p);
	for (size_t i = 0; i < res.n && !r->nomem; i++)
		r->nomem |= asprintf(&p, "%s/lib/%s", (char *)res.v[i], triple) < 0 ||
		            ofl_ptrs_push(implicit, p);
	key_listing(r, "/usr/lib/gcc", &gccs);
	for (size_t i = 0; i < gccs.n; i++)
		key_listing(r, gccs.v[i], NULL);
	ofl_ptrs_release(&res);
	ofl_ptrs_release(&gccs);
}

int ofl_devlink_key(const struct ofl_link *l, size_t gi, const struct ofl_proc *cmd,
                    uint8_t key[OFL_CACHE_KEY_SIZE], struct ofl_ptrs *keyed)
{
	if (!l->tmpdir || cmd->argc <= l->o.nlauncher || !l->o.device_env)
		return -1;
	struct keyer r = {.l = l, .keyed = keyed, .strs = OFL_PTRS_INIT, .loaded = OFL_PTRS_INIT};
	struct ofl_ptrs implicit = OFL_PTRS_INIT;
	char named[PATH_MAX], clangdir[PATH_MAX];
	const char *triple = l->groups[gi].triple;
	ofl_key_init(&r.k);
	/* clang's driver finds its tools in COMPILER_PATH before its own
	 * folder: programs the key does not resolve */
	const char *cpath = ofl_proc_env_get(l->o.device_env, "COMPILER_PATH");
	r.unknown = cpath && *cpath;
	key_tools(&r, cmd, triple, named, clangdir);
	ofl_key_str(&r.k, "triple", triple);
	if (!r.unknown)
		digest_inputs(&r, gi, cmd);
	if (!r.unknown && !r.nomem)
		key_words(&r, gi, cmd);
	if (!r.unknown)
		key_clang_dirs(&r, named, clangdir, triple, &implicit);
	for (size_t i = 0; !r.unknown && !r.nomem && i < r.nlibs; i++)
		key_library(&r, &implicit, r.libs[i]);
	for (size_t i = 0; i < sizeof(key_env) / sizeof(*key_env); i++) {
		const char *v = ofl_proc_env_get(l->o.device_env, key_env[i]);
		ofl_key_str(&r.k, key_env[i], v ? v : "");
	}
	ofl_key_final(&r.k, key);
	int rc = r.unknown || r.nomem ? -1 : 0;
	ofl_ptrs_release(&implicit);
	ofl_ptrs_release(&r.strs);
	ofl_ptrs_release(&r.loaded);
	free(r.digests);
	free(r.dirs);
	free(r.libs);
	return rc;
}
