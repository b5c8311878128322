/* The CUDA toolkit of NVPTX device links.  LLVM 19's driver finds it and
 * passes --cuda-path to its linker wrapper, which gives it to the device
 * clang (clang-nvlink-wrapper then finds nvlink and ptxas in its bin/);
 * without it the device link looks on PATH only and fails when CUDA's
 * bin/ is not there.  So a link that no driver drives (ld.offlink, the
 * plugin) finds the toolkit as clang's driver does (19 and 22 alike):
 *
 *   1. the one given (--cuda-path, $CUDA_PATH);
 *   2. the directory above the bin/ holding ptxas found on PATH (its real
 *      path, links resolved);
 *   3. /usr/local/cuda, then /usr/local/cuda-8.0, -7.5, -7.0 (clang's
 *      list), then /usr/lib/cuda (Debian's and Ubuntu's package);
 *
 * the first that has bin/, include/ and nvvm/libdevice/ with a libdevice
 * bitcode file, as clang requires of a candidate when it links the CUDA
 * libraries (the default).  A driver that runs the personality passed its
 * own choice, or none: then nothing is looked for. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/proc.h"

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

static bool valid(const char *root)
{
	return is_dir(root, "bin") && is_dir(root, "include") && has_libdevice(root);
}

/* The toolkit of the ptxas on PATH: the parent of its real directory when
 * that is named bin.  Owned, or NULL. */
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

void ofl_devlink_cuda_hint(const struct ofl_link *l, struct ofl_buf *b)
{
	/* where the user names another toolkit: clang's option when clang's
	 * driver runs the personality, else offlink's variable */
	const char *name = l->o.llvm_wrapper ? "clang's --cuda-path" : "CUDA_PATH";
	if (*l->cuda)
		ofl_buf_printf(b,
		               "  next: CUDA's tools (ptxas, nvlink) failed or are not in %s/bin, "
		               "the CUDA toolkit of this link (%s); name another with %s\n",
		               l->cuda, l->o.cuda_path ? "given" : "found as clang finds it", name);
	else
		ofl_buf_printf(b,
		               "  next: no CUDA toolkit %s (ptxas on PATH, /usr/local/cuda, "
		               "/usr/local/cuda-8.0, -7.5, -7.0, /usr/lib/cuda): put its bin/ on "
		               "PATH or name it with %s\n",
		               l->o.llvm_wrapper ? "given" : "found", name);
}

int ofl_devlink_find_cuda(struct ofl_link *l, struct ofl_error *err)
{
	static const char *const fixed[] = {"/usr/local/cuda", "/usr/local/cuda-8.0",
	                                    "/usr/local/cuda-7.5", "/usr/local/cuda-7.0",
	                                    "/usr/lib/cuda"};
	const char *given = l->o.cuda_path;
	char *p = given ? NULL : beside_ptxas(l->o.search_path);
	if (p && !valid(p)) {
		free(p);
		p = NULL;
	}
	const char *found = given ? given : p;
	for (size_t i = 0; !found && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		found = valid(fixed[i]) ? fixed[i] : NULL;
	int n = snprintf(l->cuda, sizeof(l->cuda), "%s", found ? found : "");
	int rc = n < (int)sizeof(l->cuda) ? 0
	                                  : ofl_error_set(err, OFL_EINVAL, found, OFL_NO_OFFSET,
	                                                  "the CUDA toolkit's path is too long");
	free(p);
	if (!rc && !given && *l->cuda)
		ofl_link_logf(l, OFL_LOG_DECISION, "%s: the CUDA toolkit of NVPTX device links",
		              l->cuda);
	return rc;
}
