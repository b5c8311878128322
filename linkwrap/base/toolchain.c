/* Where the tools of a link are (toolchain.h). */
#include "toolchain.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/proc.h"

static bool is_exec(const char *p)
{
	return !access(p, X_OK);
}

/* <root>/llvm-<v>/<sub>/<name> when it is there (X_OK or R_OK).  Owned or
 * NULL. */
static char *in_release(const char *root, unsigned v, const char *sub, const char *name, int mode)
{
	char *p = NULL;
	if (!root || !v || asprintf(&p, "%s/llvm-%u/%s/%s", root, v, sub, name) < 0)
		return NULL;
	if (!access(p, mode))
		return p;
	free(p);
	return NULL;
}

unsigned ofl_llvm_newest(const char *root)
{
	DIR *d = opendir(root);
	unsigned best = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		unsigned v = 0;
		if (sscanf(e->d_name, "llvm-%u", &v) == 1 && v > best && v < 1000)
			best = v;
	}
	if (d)
		closedir(d);
	return best;
}

char *ofl_toolchain_clang(const struct ofl_toolchain *t, unsigned llvm)
{
	char *p = NULL;
	if (t->device_compiler)
		p = ofl_strdup(t->device_compiler);
	for (size_t i = 0; !p && llvm && i < t->nroots; i++)
		p = in_release(t->roots[i], llvm, "bin", "clang", X_OK);
	for (size_t i = 0; !p && i < t->nroots; i++)
		if (t->roots[i])
			p = in_release(t->roots[i], ofl_llvm_newest(t->roots[i]), "bin", "clang",
			               X_OK);
	if (!p)
		return ofl_proc_find("clang", NULL, 0, t->search_path);
	if (strchr(p, '/'))
		return p;
	char *found = ofl_proc_find(p, NULL, 0, t->search_path);
	free(p);
	return found;
}

char *ofl_toolchain_beside(const char *prog, const char *tool)
{
	char real[PATH_MAX];
	if (realpath(prog, real))
		prog = real;
	const char *slash = strrchr(prog, '/');
	char *dir = slash ? ofl_strndup(prog, (size_t)(slash - prog)) : NULL;
	const char *dirs[1] = {dir};
	char *p = dir ? ofl_proc_find(tool, dirs, 1, NULL) : NULL;
	free(dir);
	return p;
}

char *ofl_toolchain_llvm_tool(const struct ofl_toolchain *t, unsigned llvm, const char *tool)
{
	char *clang = ofl_toolchain_clang(t, llvm);
	char *p = clang ? ofl_toolchain_beside(clang, tool) : NULL;
	free(clang);
	return p;
}

char *ofl_toolchain_lib_dir(const char *clang)
{
	const char *bin = clang ? strrchr(clang, '/') : NULL;
	if (!bin)
		return NULL;
	size_t n = (size_t)(bin - clang), up = n; /* clang's directory; its parent's */
	while (up && clang[up - 1] != '/')
		up--;
	char *p = NULL;
	int rc = up ? asprintf(&p, "%.*slib", (int)up, clang)
	            : asprintf(&p, "%.*s/../lib", (int)n, clang);
	return rc < 0 ? NULL : p;
}

char *ofl_toolchain_runtime_dir(const struct ofl_toolchain *t, unsigned llvm)
{
	for (size_t i = 0; llvm && i < t->nroots; i++) {
		char *p = in_release(t->roots[i], llvm, "lib", "libomptarget.so", R_OK);
		if (p) {
			*strrchr(p, '/') = '\0';
			return p;
		}
	}
	return NULL;
}

const char *ofl_toolchain_cpu_linker(const char *clang, const char *search_path)
{
	/* a bare name: the clang that PATH finds, whose own lld it runs */
	char *found = strchr(clang, '/') ? NULL : ofl_proc_find(clang, NULL, 0, search_path);
	char *lld = ofl_toolchain_beside(found ? found : clang, "ld.lld");
	free(found);
	free(lld);
	return lld ? "lld" : is_exec("/usr/bin/ld.gold") ? "gold" : NULL;
}

/* ---- the CUDA toolkit --------------------------------------------------- */

static bool is_dir(const char *root, const char *sub)
{
	char p[PATH_MAX];
	return snprintf(p, sizeof(p), "%s/%s", root, sub) < (int)sizeof(p) && !access(p, X_OK);
}

/* Whether root/nvvm/libdevice holds libdevice*.bc. */
static bool has_libdevice(const char *root)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/nvvm/libdevice", root) >= (int)sizeof(p))
		return false;
	DIR *d = opendir(p);
	bool found = false;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		found = !strncmp(e->d_name, "libdevice", 9) && n > 12 &&
		        !strcmp(e->d_name + n - 3, ".bc");
	}
	if (d)
		closedir(d);
	return found;
}

static bool cuda_valid(const char *root)
{
	return is_dir(root, "bin") && is_dir(root, "include") && has_libdevice(root);
}

/* The toolkit of the ptxas on the search path: the parent of its real
 * directory when that is named bin.  Owned, or NULL. */
static char *beside_ptxas(const char *search_path)
{
	char *ptxas = ofl_proc_find("ptxas", NULL, 0, search_path);
	char real[PATH_MAX];
	bool ok = ptxas && realpath(ptxas, real);
	free(ptxas);
	char *slash = ok ? strrchr(real, '/') : NULL;
	if (!slash || slash - real < 4 || strncmp(slash - 4, "/bin", 4))
		return NULL;
	slash[-4] = '\0';
	return ofl_strdup(*real ? real : "/");
}

const char *const *ofl_cuda_candidates(void)
{
	static const char *const dirs[] = {"/usr/local/cuda",     "/usr/local/cuda-8.0",
	                                   "/usr/local/cuda-7.5", "/usr/local/cuda-7.0",
	                                   "/usr/lib/cuda",       NULL};
	return dirs;
}

int ofl_toolchain_cuda(const char *given, const char *search_path, char *out, size_t n,
                       struct ofl_error *err)
{
	char *p = given ? NULL : beside_ptxas(search_path);
	if (p && !cuda_valid(p)) {
		free(p);
		p = NULL;
	}
	char real[PATH_MAX];
	const char *found = given ? given : p;
	for (const char *const *c = ofl_cuda_candidates(); !found && *c; c++)
		found = cuda_valid(*c) ? realpath(*c, real) : NULL;
	int len = snprintf(out, n, "%s", found ? found : "");
	int rc = len >= 0 && (size_t)len < n ? 0
	                                     : ofl_error_set(err, OFL_EINVAL, found, OFL_NO_OFFSET,
	                                                     "the CUDA toolkit's path is too long");
	free(p);
	return rc;
}
