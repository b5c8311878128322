/* A device link's command, cached (offlink/cache.h, docs/design.md
 * "Device-link cache").  The key covers everything that decides the
 * output: every word of the command, with each file of the link's own
 * directory replaced by the hash of its bytes (an input) or a placeholder
 * (the output, not written yet); the identity (path, size, time) of the
 * tools the command runs and of the files it names or finds with -L/-l;
 * and the environment variables that change what those tools do.  The
 * launcher, which changes where a command runs, not what it makes, is
 * left out. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_priv.h"
#include "internal.h"
#include "link_priv.h"
#include "offlink/ldcmd.h"
#include "offlink/proc.h"

/* What a variable of these names says changes which files the tools read
 * or how they link (CUDA's tools, gcc's and clang's drivers, the loader). */
static const char *const key_env[] = {"CUDA_PATH",
                                      "CUDA_HOME",
                                      "LIBRARY_PATH",
                                      "COMPILER_PATH",
                                      "GCC_EXEC_PREFIX",
                                      "LD_LIBRARY_PATH",
                                      "CCC_OVERRIDE_OPTIONS",
                                      "CLANG_CONFIG_FILE_SYSTEM_DIR",
                                      "CLANG_CONFIG_FILE_USER_DIR"};

/* A tool's identity, or that it is missing; its real path to real when
 * not NULL. */
static bool key_tool(struct ofl_cache_key *k, const char *path, char *real)
{
	bool found = ofl_key_identity(k, path, real);
	if (!found)
		ofl_key_str(k, "absent", path);
	return found;
}

/* The tools a device link may run besides clang: those of its LLVM
 * install, and CUDA's for NVPTX. */
static void key_tools(struct ofl_cache_key *k, const struct ofl_link *l, const char *clang,
                      bool cuda_tools)
{
	static const char *const beside[] = {"ld.lld",
	                                     "lld",
	                                     "clang-nvlink-wrapper",
	                                     "llvm-lto2",
	                                     "../lib/libLLVM.so",
	                                     "../lib/libclang-cpp.so"};
	static const char *const cuda[] = {"ptxas", "nvlink", "fatbinary"};
	char real[PATH_MAX], p[PATH_MAX + 64];
	if (!key_tool(k, clang, real))
		return;
	*strrchr(real, '/') = '\0';
	for (size_t i = 0; i < sizeof(beside) / sizeof(*beside); i++) {
		snprintf(p, sizeof(p), "%s/%s", real, beside[i]);
		key_tool(k, p, NULL);
	}
	for (size_t i = 0; cuda_tools && i < sizeof(cuda) / sizeof(*cuda); i++) {
		if (*l->cuda || !l->o.cuda_path) {
			snprintf(p, sizeof(p), "%s/bin/%s", *l->cuda ? l->cuda : "/usr/local/cuda",
			         cuda[i]);
			key_tool(k, p, NULL);
		}
		char *found = ofl_proc_find(cuda[i], NULL, 0, l->o.search_path);
		ofl_key_str(k, "found", found ? found : "");
		if (found)
			key_tool(k, found, NULL);
		free(found);
	}
}

/* The linker's view of an argument: "-Wl,a,b" and "-Xlinker a" pass a and
 * b; -L dirs and -l names are collected, files named by path too. */
struct names {
	const char **dirs, **libs;
	size_t ndirs, nlibs, capdirs, caplibs;
};

static int note_name(struct names *n, const char *w)
{
	if (!strncmp(w, "-L", 2) && w[2])
		return OFL_GROW(n->dirs, n->capdirs, n->ndirs) ? -1
		                                               : (n->dirs[n->ndirs++] = w + 2, 0);
	if (!strncmp(w, "-l", 2) && w[2])
		return OFL_GROW(n->libs, n->caplibs, n->nlibs) ? -1
		                                               : (n->libs[n->nlibs++] = w + 2, 0);
	return 0;
}

/* The library -l<name> finds in the dirs, searched as ld does (without
 * -Bstatic); -1 when out of memory. */
static int key_library(struct ofl_cache_key *k, const struct names *n, const char *const *defaults,
                       size_t ndefaults, const char *name)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	int rc = 0;
	char *found = NULL;
	for (size_t i = 0; !rc && i < n->ndirs + ndefaults; i++)
		rc = ofl_ldcmd_find_in_dir(i < n->ndirs ? n->dirs[i] : defaults[i - n->ndirs], name,
		                           false, &found, &ignored);
	if (rc == 1)
		ofl_key_identity(k, found, NULL);
	else if (!rc)
		ofl_key_str(k, "library not found", name);
	free(found);
	return rc < 0 ? -1 : 0;
}

/* The word is a file the command reads: an absolute path to a file. */
static void key_path(struct ofl_cache_key *k, const char *w)
{
	const char *eq = strchr(w, '=');
	const char *path = w[0] == '/' ? w : eq && eq[1] == '/' ? eq + 1 : NULL;
	if (path)
		ofl_key_identity(k, path, NULL);
}

static int split_linker_words(struct names *n, char *copy)
{
	int rc = 0;
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); !rc && t; t = strtok_r(NULL, ",", &save))
		rc = note_name(n, t);
	return rc;
}

/* Every word: its bytes, or for the link's own files their content (an
 * input, written or still to be written) or a placeholder (an output);
 * the words of -Wl, split into copies.  -1: not cacheable. */
static int key_words(struct ofl_cache_key *k, const struct ofl_link *l, size_t gi,
                     const struct ofl_proc *cmd, struct names *n, struct ofl_ptrs *copies)
{
	size_t tl = strlen(l->tmpdir), next = 0;
	for (size_t i = l->o.nlauncher + 1; i < cmd->argc; i++) {
		const char *w = cmd->argv[i];
		struct stat st;
		bool own = !strncmp(w, l->tmpdir, tl) && w[tl] == '/';
		const struct pending_write *p =
		    own ? ofl_devlink_pending(&l->groups[gi], w, &next) : NULL;
		if (p) {
			ofl_key_bytes(k, p->data, p->size);
		} else if (own && !stat(w, &st)) {
			if (ofl_key_content(k, w))
				return -1;
		} else if (own) {
			ofl_key_str(k, "output", strrchr(w, '.'));
		} else if (strstr(w, l->tmpdir)) {
			return -1; /* a temporary inside a word: its bytes unknown */
		} else {
			ofl_key_str(k, "arg", w);
			key_path(k, w);
		}
		if (!strncmp(w, "-Wl,", 4)) {
			char *copy = ofl_strdup(w + 4);
			if (!copy || ofl_ptrs_push(copies, copy) || split_linker_words(n, copy))
				return -1;
		} else if (note_name(n, w)) {
			return -1;
		}
	}
	return 0;
}

/* The command's cache key; -1 when it cannot be cached. */
static int devlink_key(const struct ofl_link *l, size_t gi, const struct ofl_proc *cmd,
                       uint8_t key[OFL_CACHE_KEY_SIZE])
{
	if (!l->tmpdir || cmd->argc <= l->o.nlauncher || !l->o.device_env)
		return -1;
	struct ofl_cache_key k;
	struct names n = {NULL, NULL, 0, 0, 0, 0};
	struct ofl_ptrs copies = OFL_PTRS_INIT;
	ofl_key_init(&k);
	key_tools(&k, l, cmd->argv[l->o.nlauncher], ofl_devlink_nvptx(l->groups[gi].triple));
	int rc = key_words(&k, l, gi, cmd, &n, &copies);
	for (size_t i = 0; !rc && i < n.nlibs; i++)
		rc =
		    key_library(&k, &n, (const char *const *)l->libdirs.v, l->libdirs.n, n.libs[i]);
	for (size_t i = 0; !rc && i < sizeof(key_env) / sizeof(*key_env); i++) {
		const char *v = ofl_proc_env_get(l->o.device_env, key_env[i]);
		ofl_key_str(&k, key_env[i], v ? v : "");
	}
	ofl_key_final(&k, key);
	ofl_ptrs_release(&copies);
	free(n.dirs);
	free(n.libs);
	return rc;
}

void ofl_devlink_open_cache(struct ofl_link *l)
{
	struct ofl_error err = OFL_ERROR_INIT;
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	if (l->cache || !l->o.cache || !ofl_cache_open(&l->cache, l->o.cache, &l->cancelled, &err))
		return;
	ofl_error_format(&err, msg, sizeof(msg));
	ofl_link_logf(l, OFL_LOG_WARNING, "no device-link cache: %s", msg);
}

/* The output of a command that ran, into keep (when not NULL) and, under
 * key (when not NULL), the cache. */
static int take_output(struct ofl_link *l, const uint8_t *key, const char *output,
                       struct ofl_buf *keep, char *note, size_t notesz, struct ofl_error *err)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!keep && !key)
		return 0;
	/* only a kept output is the link's: else a failure is the cache's miss */
	int rc = ofl_file_open(&f, output, keep ? err : &ignored);
	if (!rc && keep && ofl_buf_append(keep, f.data, f.size))
		rc = OFL_NOMEM(err);
	if (!rc && key)
		ofl_cache_put(l->cache, key, f.data, f.size, note, notesz);
	ofl_file_close(&f);
	return keep ? rc : 0;
}

int ofl_devlink_cached_run(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                           const char *what, struct ofl_buf *keep, struct ofl_error *err)
{
	uint8_t key[OFL_CACHE_KEY_SIZE];
	char note[512] = "";
	struct ofl_buf own = OFL_BUF_INIT, *bytes = keep ? keep : &own;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool cacheable = l->cache && !devlink_key(l, gi, cmd, key);
	enum ofl_cache_hit hit =
	    cacheable ? ofl_cache_get(l->cache, key, bytes, note, sizeof(note)) : OFL_CACHE_MISS;
	int rc = 0;
	struct ofl_error ignored = OFL_ERROR_INIT;
	/* the next command (fatbinary, the link after LTO) reads the file */
	if (hit != OFL_CACHE_MISS &&
	    ofl_devlink_write_private(output, bytes->data, bytes->len, &ignored)) {
		hit = OFL_CACHE_MISS; /* run it, then */
		bytes->len = 0;
	}
	/* the cache's own time, apart from the command's */
	double cache_s = ofl_devlink_elapsed(&t0);
	if (hit == OFL_CACHE_MISS) {
		rc = ofl_devlink_flush(l, gi, cmd, err);
		rc = rc ? rc : ofl_proc_run(cmd, err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		rc = rc ? rc
		        : take_output(l, cacheable ? key : NULL, output, keep, note, sizeof(note),
		                      err);
		cache_s += ofl_devlink_elapsed(&t1);
	}
	if (*note)
		ofl_link_logf(l, OFL_LOG_WARNING, "%s", note);
	__atomic_fetch_add(&l->nlinked, 1, __ATOMIC_SEQ_CST);
	if (hit != OFL_CACHE_MISS)
		__atomic_fetch_add(&l->ncached, 1, __ATOMIC_SEQ_CST);
	if (!rc)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%s: %.2f s%s (cache %.1f ms)", what,
		              ofl_devlink_elapsed(&t0),
		              hit == OFL_CACHE_LOCAL    ? ", cache hit"
		              : hit == OFL_CACHE_REMOTE ? ", cache hit (remote)"
		              : cacheable               ? ", cache miss"
		                                        : ", not cached",
		              cache_s * 1e3);
	ofl_buf_release(&own);
	return rc;
}
