/* LLVM's OpenMP device runtime, which every OpenMP device link for a GPU
 * needs (the code clang generates calls __kmpc_target_init and the rest).
 * clang's driver adds it when it drives the link: LLVM 19 puts
 * -lomptarget.devicertl on the host link line, an archive beside
 * libomptarget whose members hold each arch's runtime as bitcode in
 * OffloadBinaries, taken by device symbols like any device archive; LLVM
 * 20+ passes -lompdevice to each device link, a device archive in
 * <llvm>/lib/<triple>/. A link through ld.offlink has no driver doing so,
 * so the pipeline adds them, found where clang finds them: for LLVM 19 in
 * the directory of the libomptarget the host link uses (its -L dirs in
 * order, those of the device linker arguments, then the LLVM's own lib
 * dir), for LLVM 20+ under the install of the clang that links. A runtime
 * that is not there is an error naming it and where it was looked for,
 * never a device link left to fail on undefined symbols. --nogpulib leaves
 * it out, as clang's -nogpulib does; so does a front end that clang's
 * driver drives (the clang-linker-wrapper personality), since the driver
 * passes it itself. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "link_priv.h"

static bool needs_runtime(const struct ofl_link *l, const struct link_group *g)
{
	return !l->o.no_device_runtime && !l->o.llvm_wrapper && g->kind == OFL_OFK_OPENMP &&
	       !g->legacy && ofl_target_gpu(g->triple);
}

static bool exists(const char *dir, const char *file)
{
	char p[4096];
	return snprintf(p, sizeof(p), "%s/%s", dir, file) < (int)sizeof(p) && !access(p, R_OK);
}

/* Whether dir is in the ", "-separated list so far (a dir given with -L
 * and also the LLVM's own is named once). */
static bool listed(const struct ofl_buf *looked, const char *dir)
{
	size_t n = strlen(dir);
	if (!looked->len) /* data may be NULL: no NULL + 0 */
		return false;
	const char *s = (const char *)looked->data, *end = s + looked->len;
	for (const char *p = s; p && p + n <= end;) {
		if (!memcmp(p, dir, n) && (p + n == end || p[n] == ','))
			return true;
		p = memchr(p, ',', (size_t)(end - p));
		p = p ? p + 2 : NULL;
	}
	return false;
}

/* One directory looked in: true when it has libomptarget.so (the search
 * ends there), *p its devicertl when it has that too. */
static bool try_dir(const char *dir, struct ofl_buf *looked, char **p)
{
	if (!listed(looked, dir))
		ofl_buf_printf(looked, "%s%s", looked->len ? ", " : "", dir);
	if (!exists(dir, "libomptarget.so"))
		return false;
	if (exists(dir, "libomptarget.devicertl.a") &&
	    asprintf(p, "%s/libomptarget.devicertl.a", dir) < 0)
		*p = NULL;
	return true;
}

/* LLVM 19's libomptarget.devicertl.a: in the directory of the first
 * libomptarget.so among the host link's -L dirs, the -L dirs of the
 * device linker arguments and the LLVM's lib dir.
 * NULL when none has one or it has no devicertl; *looked lists the dirs. */
static char *find_devicertl(const struct ofl_link *l, const struct link_group *g,
                            struct ofl_buf *looked)
{
	char *clang = ofl_toolchain_clang(&l->tools, g->llvm), *lib = ofl_toolchain_lib_dir(clang),
	     *p = NULL;
	free(clang);
	bool found = false;
	for (size_t i = 0; !found && i < l->cpu_args.n; i++)
		if (!strncmp(l->cpu_args.v[i], "-L", 2))
			found = try_dir(l->cpu_args.v[i] + 2, looked, &p);
	for (size_t i = 0; !found && i < l->o.ndevice_linker_args; i++) {
		const char *v = ofl_scoped_arg(l->o.device_linker_args[i], g->triple, false);
		if (v && !strncmp(v, "-L", 2))
			found = try_dir(v + 2, looked, &p);
	}
	if (!found && lib)
		try_dir(lib, looked, &p);
	free(lib);
	return p;
}

static bool added_already(const struct ofl_link *l, const char *path)
{
	for (size_t i = 0; i < l->nfiles; i++)
		if (!strcmp(l->files[i].in.path, path))
			return true;
	return false;
}

int ofl_devrt_gather(struct ofl_link *l, struct ofl_error *err)
{
	size_t ngroups = l->ngroups;
	int rc = 0;
	for (size_t g = 0; !rc && g < ngroups; g++) {
		if (!needs_runtime(l, &l->groups[g]) ||
		    !ofl_llvm_old_wrapper((&l->groups[g])->llvm))
			continue;
		struct ofl_buf looked = OFL_BUF_INIT;
		char *path = find_devicertl(l, &l->groups[g], &looked);
		struct ofl_link_input in = {path, -1, 0, 0, false, 0, false};
		if (path && !added_already(l, path)) {
			ofl_link_logf(l, OFL_LOG_DECISION, "%s: LLVM %u's OpenMP device runtime",
			              path, l->groups[g].llvm);
			rc = ofl_link_add(l, &in, err);
		}
		free(path);
		ofl_buf_release(&looked);
	}
	return rc;
}

/* LLVM 19: the archive must have been found; its members are inputs.
 * (The groups are made anew after ofl_devrt_gather: looked for again.) */
static int check_devicertl(const struct ofl_link *l, struct link_group *g, struct ofl_error *err)
{
	struct ofl_buf looked = OFL_BUF_INIT;
	char *path = find_devicertl(l, g, &looked);
	g->runtime = OFL_RUNTIME_ARCHIVE;
	free(g->runtime_path);
	g->runtime_path = path ? ofl_strdup(path) : NULL;
	int rc = path ? 0
	              : ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
	                              "LLVM %u's OpenMP device runtime libomptarget.devicertl.a "
	                              "is not beside the libomptarget.so the link uses (looked in "
	                              "%s); link with -L<its dir>, or without it: --nogpulib",
	                              g->llvm, looked.len ? (const char *)looked.data : "no dir");
	free(path);
	ofl_buf_release(&looked);
	return rc;
}

/* Whether clang finds dir itself: its own <InstalledDir>/../lib/<triple>,
 * InstalledDir being where the clang binary really is. */
static bool clangs_own(const char *clang, const struct link_group *g, const char *dir)
{
	char real[PATH_MAX], want[PATH_MAX];
	bool own = clang && realpath(clang, real) && realpath(dir, want);
	char *bin = own ? strrchr(real, '/') : NULL;
	char path[PATH_MAX + 64];
	if (bin) {
		*bin = '\0';
		snprintf(path, sizeof(path), "%s/../lib/%s", real, g->clang_triple);
	}
	return bin && realpath(path, real) && !strcmp(real, want);
}

/* LLVM 20+: -lompdevice from <llvm>/lib/<triple>, as the driver passes it
 * (--device-linker=<triple>=-lompdevice); the directory too when it is
 * not the one clang searches by itself (a --device-compiler reached
 * through a link), as a device linker argument of its own.  Given twice,
 * nvlink would record it twice in the image. */
/* What a group that needs no runtime of ours gets: the driver's (the
 * personality), none (--nogpulib), or none needed. */
static enum ofl_plan_runtime no_runtime(const struct ofl_link *l, const struct link_group *g)
{
	bool omp_gpu = g->kind == OFL_OFK_OPENMP && !g->legacy && ofl_target_gpu(g->triple);
	return !omp_gpu                 ? OFL_RUNTIME_NONE
	       : l->o.no_device_runtime ? OFL_RUNTIME_OFF
	                                : OFL_RUNTIME_DRIVER;
}

int ofl_devrt_push(struct ofl_link *l, struct link_group *g, const char *clang,
                   struct ofl_proc *cmd, struct ofl_error *err)
{
	if (!needs_runtime(l, g)) {
		g->runtime = no_runtime(l, g);
		return 0;
	}
	if (ofl_llvm_old_wrapper(g->llvm))
		return check_devicertl(l, g, err);
	/* a --device-compiler given by name is found on PATH */
	char *path = strchr(clang, '/') ? ofl_strdup(clang)
	                                : ofl_proc_find(clang, NULL, 0, l->o.search_path);
	char *lib = ofl_toolchain_lib_dir(path), *dir = NULL;
	if (lib && asprintf(&dir, "%s/%s", lib, g->clang_triple) < 0)
		dir = NULL;
	free(lib);
	int rc = 0;
	if (!dir)
		rc = ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                   "cannot tell where LLVM %u, whose OpenMP device runtime the "
		                   "device link needs, is installed",
		                   g->llvm);
	else if (!exists(dir, "libompdevice.a"))
		rc = ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                   "LLVM %u's OpenMP device runtime %s/libompdevice.a is not "
		                   "installed; link without it: --nogpulib",
		                   g->llvm, dir);
	else if (ofl_proc_push(cmd, "-Xlinker", err) || ofl_proc_push(cmd, "-lompdevice", err) ||
	         (!clangs_own(path, g, dir) &&
	          (ofl_proc_push(cmd, "-Xlinker", err) || ofl_proc_pushf(cmd, err, "-L%s", dir))))
		rc = err->code;
	g->runtime = OFL_RUNTIME_LIBRARY;
	free(g->runtime_path);
	g->runtime_path = dir; /* the group's */
	free(path);
	return rc;
}
