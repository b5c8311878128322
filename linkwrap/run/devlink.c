/* Device links (docs/design.md, "Device links"): one per group of images,
 * run in parallel by worker threads, each command hermetic: its inputs are
 * files named by their content's hash and its output by the hash of its
 * inputs, so a launcher (ccache, distcc, recc) sees the same command for the
 * same work and no temporary name reaches an output. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/archive.h"
#include "offlink/proc.h"

enum target_family { FAM_CPU, FAM_AMDGPU, FAM_NVPTX, FAM_SPIRV, FAM_UNKNOWN };

static enum target_family family(const char *triple)
{
	static const char *const cpus[] = {"x86_64-",  "aarch64-", "powerpc64le-", "powerpc64-",
	                                   "ppc64le-", "ppc64-",   "s390x-",       "i386-",
	                                   "i686-",    "riscv64-", "loongarch64-"};
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (!strncmp(triple, cpus[i], strlen(cpus[i])))
			return FAM_CPU;
	if (!strncmp(triple, "amdgcn-", 7))
		return FAM_AMDGPU;
	if (!strncmp(triple, "nvptx64-", 8) || !strncmp(triple, "nvptx-", 6))
		return FAM_NVPTX;
	if (!strncmp(triple, "spirv", 5))
		return FAM_SPIRV;
	return FAM_UNKNOWN;
}

static bool is_exec(const char *p)
{
	return !access(p, X_OK);
}

/* <root>/llvm-<v>/bin/<tool> when it exists.  Owned or NULL. */
static char *llvm_tool(const char *root, unsigned v, const char *tool)
{
	char *p = NULL;
	if (asprintf(&p, "%s/llvm-%u/bin/%s", root, v, tool) < 0)
		return NULL;
	if (is_exec(p))
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

/* The clang that links a group: --device-compiler; the producer's own
 * LLVM release; the newest LLVM installed; clang on PATH. */
static char *find_clang(const struct ofl_link *l, unsigned want)
{
	const char *const *roots = l->o.llvm_roots;
	size_t nroots = l->o.nllvm_roots;
	char *p = NULL;
	if (l->o.device_compiler)
		return ofl_strdup(l->o.device_compiler);
	for (size_t i = 0; want && !p && i < nroots; i++)
		if (roots[i])
			p = llvm_tool(roots[i], want, "clang");
	for (size_t i = 0; !p && i < nroots; i++)
		if (roots[i])
			p = llvm_tool(roots[i], ofl_llvm_newest(roots[i]), "clang");
	return p ? p : ofl_proc_find("clang", NULL, 0, l->o.search_path);
}

char *ofl_devlink_clang(const struct ofl_link *l, unsigned llvm)
{
	char *p = find_clang(l, llvm);
	if (p && !strchr(p, '/')) {
		char *found = ofl_proc_find(p, NULL, 0, l->o.search_path);
		free(p);
		p = found;
	}
	return p;
}

bool ofl_devlink_gpu(const char *triple)
{
	enum target_family f = family(triple);
	return f == FAM_AMDGPU || f == FAM_NVPTX;
}

bool ofl_devlink_nvptx(const char *triple)
{
	return family(triple) == FAM_NVPTX;
}

char *ofl_devlink_beside(const char *clang, const char *tool)
{
	/* clang runs the programs of its real directory (Debian's
	 * /usr/bin/clang-22 those of /usr/lib/llvm-22/bin) */
	char real[PATH_MAX];
	if (realpath(clang, real))
		clang = real;
	const char *slash = strrchr(clang, '/');
	char *dir = slash ? ofl_strndup(clang, (size_t)(slash - clang)) : NULL;
	const char *dirs[1] = {dir};
	char *p = dir ? ofl_proc_find(tool, dirs, 1, NULL) : NULL;
	free(dir);
	return p;
}

static const char gold[] = "-fuse-ld=gold";

/* The fastest linker next to clang (a bare name: the one PATH finds), for
 * CPU device links: a bfd link of an OpenMP image spends ~0.5 s in
 * libLLVM's symbol table, lld milliseconds. */
static const char *fast_linker(const struct ofl_link *l, const char *clang)
{
	char *found = strchr(clang, '/') ? NULL : ofl_proc_find(clang, NULL, 0, l->o.search_path);
	char *lld = ofl_devlink_beside(found ? found : clang, "ld.lld");
	free(found);
	free(lld);
	if (lld)
		return "-fuse-ld=lld";
	return is_exec("/usr/bin/ld.gold") ? gold : NULL;
}

/* gold names a shared object's base version after its output, as given
 * (the link's temporary directory) unless it has a soname: the image's
 * own name, so two links of the same inputs write the same bytes. */
static int push_gold_soname(const struct link_group *g, struct ofl_proc *cmd, struct ofl_error *err)
{
	const char *slash = strrchr(g->output, '/');
	return ofl_proc_pushf(cmd, err, "-Wl,-soname,%s", slash ? slash + 1 : g->output);
}

int ofl_devlink_write_private(const char *path, const uint8_t *p, uint64_t n, struct ofl_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : ofl_error_errno(err, path, "cannot create");
	if (ofl_fd_write_all(fd, p, (size_t)n)) {
		int rc = ofl_error_errno(err, path, "cannot write");
		close(fd);
		return rc;
	}
	return close(fd) ? ofl_error_errno(err, path, "cannot write") : 0;
}

/* The bytes of a file of group gi's commands, to write before they run. */
static int defer_write(struct ofl_link *l, size_t gi, const char *path, const uint8_t *data,
                       size_t size, uint8_t *owned, struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	if (l->o.dry_run) {
		free(owned);
		return 0;
	}
	if (OFL_GROW(g->pending, g->cappending, g->npending)) {
		free(owned);
		return OFL_NOMEM(err);
	}
	g->pending[g->npending++] = (struct pending_write){path, data, size, owned};
	return 0;
}

struct pending_write *ofl_devlink_pending(const struct link_group *g, const char *path,
                                          size_t *next)
{
	for (size_t n = 0; n < g->npending; n++) {
		size_t i = (*next + n) % g->npending;
		if (g->pending[i].path && !strcmp(g->pending[i].path, path)) {
			*next = i + 1;
			return &g->pending[i];
		}
	}
	return NULL;
}

int ofl_devlink_flush(struct ofl_link *l, size_t gi, const struct ofl_proc *cmd,
                      struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	size_t next = 0, left = 0;
	int rc = 0;
	/* under the lock: another group's worker may write the same bytes */
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; !rc && i < cmd->argc; i++) {
		struct pending_write *w = ofl_devlink_pending(g, cmd->argv[i], &next);
		if (w) {
			rc = ofl_devlink_write_private(w->path, w->data, w->size, err);
			free(w->owned);
			w->path = NULL; /* written */
		}
	}
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; i < g->npending; i++)
		if (g->pending[i].path)
			g->pending[left++] = g->pending[i];
	g->npending = left;
	return rc;
}

char *ofl_devlink_input(struct ofl_link *l, size_t gi, const struct link_image *im, uint64_t *hash,
                        struct ofl_error *err)
{
	char name[64];
	*hash = XXH3_64bits(im->b.image, im->b.image_size);
	/* ".o" for every kind: clang links .o inputs (bitcode by LTO) where
	 * it would compile a .bc */
	snprintf(name, sizeof(name), "%016llx.o", (unsigned long long)*hash);
	char *path = ofl_link_temp(l, name, err);
	if (path && defer_write(l, gi, path, im->b.image, im->b.image_size, NULL, err))
		path = NULL;
	return path;
}

const char *ofl_devlink_scoped(const char *arg, const char *triple)
{
	const char *eq = strchr(arg, '=');
	if (!eq || arg[0] == '-' || !memchr(arg, '-', (size_t)(eq - arg)))
		return arg;
	return strncmp(arg, triple, (size_t)(eq - arg)) || triple[eq - arg] ? NULL : eq + 1;
}

/* The "[<triple>=]arg" values that apply to triple, each after -Xlinker
 * when xlinker. */
static int push_scoped(const char *const *args, size_t n, const char *triple, bool xlinker,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *v = ofl_devlink_scoped(args[i], triple);
		if (!v)
			continue;
		rc = (xlinker && ofl_proc_push(cmd, "-Xlinker", err)) || ofl_proc_push(cmd, v, err);
	}
	return rc ? err->code : 0;
}

bool ofl_devlink_arch_given(const char *arch)
{
	return *arch && strcmp(arch, "generic") && strcmp(arch, "native");
}

bool ofl_devlink_llvm19(const struct link_group *g)
{
	return g->llvm && g->llvm <= 19;
}

/* LLVM 19's driver maps clang's O group to its wrapper's --opt-level as
 * clang does for LTO (observed with clang-19 -###): -O4 and up and -Ofast
 * O3, -Os and -Oz O2, -Og O1; none: O2. */
char ofl_devlink_opt_level(const struct ofl_link *l)
{
	const char *x = l->o.opt_level;
	if (x[0] >= '0' && x[0] <= '9')
		return x[0] > '3' ? '3' : x[0];
	return !strcmp(x, "fast") ? '3' : !strcmp(x, "g") ? '1' : '2';
}

/* The "-Xlinker <flag>X" words of each value in v (n of them). */
static int push_xlinker(const char *flag, const char *const *v, size_t n, struct ofl_proc *cmd,
                        struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = ofl_proc_push(cmd, "-Xlinker", err) ||
		     ofl_proc_pushf(cmd, err, "%s%s", flag, v[i]);
	return rc ? err->code : 0;
}

/* The target-specific part of the command, before the inputs, as the
 * linker wrapper of the LLVM that made the code writes it.  LLVM 19 links
 * at its --opt-level (-O2 unless given), bitcode already through its own LTO (so no
 * -flto), and CPU code for the host's CPU when the image names none;
 * LLVM 20+ leaves AMDGPU bitcode to lld's LTO (-flto), with the LTO
 * options given (--plugin-opt).  Old-driver HIP links as clang --hip-link
 * runs lld. */
static int push_target(struct ofl_link *l, const struct link_group *g, const char *fast,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	enum target_family fam = family(g->triple);
	bool v19 = ofl_devlink_llvm19(g) && !g->legacy;
	if (fam == FAM_UNKNOWN)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "no device linker for target '%s'", g->triple);
	int rc = ofl_proc_pushf(cmd, err, "--target=%s", g->triple);
	if (!rc && fam == FAM_CPU && (ofl_devlink_arch_given(g->arch) || v19))
		rc = ofl_proc_pushf(cmd, err, "-march=%s",
		                    ofl_devlink_arch_given(g->arch) ? g->arch : "native");
	if (!rc && fam == FAM_AMDGPU && ofl_devlink_arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-mcpu=%s", g->arch);
	if (!rc && fam == FAM_NVPTX && ofl_devlink_arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-march=%s", g->arch);
	char o19[] = {'-', 'O', ofl_devlink_opt_level(l), '\0'};
	const char *opt = v19 ? o19 : fam == FAM_AMDGPU ? "-flto" : NULL;
	if (!rc && opt)
		rc = ofl_proc_push(cmd, opt, err);
	/* what the old driver's lld link of HIP code objects adds */
	if (!rc && fam == FAM_AMDGPU && g->legacy)
		rc = ofl_proc_push(cmd, "-Wl,-plugin-opt=-amdgpu-internalize-symbols", err) ||
		     ofl_proc_push(cmd, "-Wl,--lto-partitions=8", err);
	if (!rc && !v19 && !g->legacy)
		rc = push_xlinker("--plugin-opt=", l->o.lto_opts, l->o.nlto_opts, cmd, err);
	if (!rc && fast)
		rc = ofl_proc_push(cmd, fast, err);
	if (!rc && (fam == FAM_CPU || fam == FAM_AMDGPU))
		rc = ofl_proc_push(cmd, "-Wl,--no-undefined", err);
	return rc ? err->code : 0;
}

/* A host link argument of a CPU device link as LLVM prints it: -L, -l and
 * -rpath with their values in separate words. */
static int push_llvm_cpu_arg(const char *a, struct ofl_proc *cmd, struct ofl_error *err)
{
	static const char *const forms[][2] = {
	    {"-Wl,-rpath,", "-rpath"}, {"-L", "-L"}, {"-l", "-l"}};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t n = strlen(forms[i][0]);
		if (!strncmp(a, forms[i][0], n))
			return ofl_proc_push(cmd, forms[i][1], err) ||
			               ofl_proc_push(cmd, a + n, err)
			           ? err->code
			           : 0;
	}
	return ofl_proc_push(cmd, a, err);
}

/* After the inputs: a CPU image is a shared object that resolves against
 * the host's runtime and libraries (the OpenMP runtime's unless the
 * driver passed it, as clang does to clang-linker-wrapper). */
static int push_cpu_libs(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                         struct ofl_error *err)
{
	if (family(g->triple) != FAM_CPU)
		return 0;
	int rc = ofl_proc_push(cmd, "-Wl,-Bsymbolic", err) || ofl_proc_push(cmd, "-shared", err);
	for (size_t i = 0; !rc && i < l->cpu_args.n; i++)
		rc = ofl_llvm_form(l) ? push_llvm_cpu_arg(l->cpu_args.v[i], cmd, err)
		                      : ofl_proc_push(cmd, l->cpu_args.v[i], err);
	if (l->o.llvm_wrapper)
		return rc ? err->code : 0;
	if (!rc && g->runtime_dir)
		rc = ofl_proc_pushf(cmd, err, "-L%s", g->runtime_dir);
	if (!rc && g->kind == OFL_OFK_OPENMP)
		rc = ofl_proc_push(cmd, "-lomp", err) || ofl_proc_push(cmd, "-lomptarget", err);
	return rc ? err->code : 0;
}

/* Many inputs of a CPU link go in one archive, linked whole: one file to
 * write and remove instead of hundreds (file creation costs up to 0.5 ms
 * each on a slow disk).  Members are named by their hash, the archive by
 * the hash of all of them; ELF linkers read it as the same inputs in the
 * same order. */
static int push_archive(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, uint64_t *h,
                        struct ofl_error *err)
{
	size_t n = l->groups[gi].nimages;
	struct ofl_ar_input *m = ofl_calloc(n, sizeof(*m));
	char(*names)[24] = ofl_calloc(n, sizeof(*names));
	struct ofl_buf ar = OFL_BUF_INIT;
	size_t k = 0;
	int rc = m && names ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->groups[gi].nall; i++) {
		const struct link_image *im = ofl_group_image(l, gi, i);
		if (!im)
			continue;
		const struct ofl_obin *b = &im->b;
		uint64_t ih = XXH3_64bits(b->image, b->image_size);
		snprintf(names[k], sizeof(names[k]), "%016llx.o", (unsigned long long)ih);
		m[k] = (struct ofl_ar_input){names[k], b->image, b->image_size};
		k++;
		*h = XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
	char name[32];
	snprintf(name, sizeof(name), "%016llx.a", (unsigned long long)*h);
	char *path = rc ? NULL : ofl_link_temp(l, name, err);
	rc = rc ? rc : !path ? err->code : ofl_archive_write_gnu(m, k, &ar, err);
	size_t len = 0;
	uint8_t *bytes = rc ? NULL : ofl_buf_detach(&ar, &len);
	if (!rc)
		rc = defer_write(l, gi, path, bytes, len, bytes, err);
	if (!rc &&
	    (ofl_proc_push(cmd, "-Wl,--whole-archive", err) || ofl_proc_push(cmd, path, err) ||
	     ofl_proc_push(cmd, "-Wl,--no-whole-archive", err)))
		rc = err->code;
	ofl_buf_release(&ar);
	free(names);
	free(m);
	return rc;
}

/* The group's images as inputs of the command; *h mixes in their hashes.
 * LLVM 19 runs its own LTO over the bitcode first (devlink_lto.c), which
 * may make the image itself (OFL_DEVLINK_EMBEDDED). */
static int push_inputs(struct ofl_link *l, size_t gi, const char *clang, struct ofl_proc *cmd,
                       uint64_t *h, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	int rc =
	    ofl_devlink_llvm19(g) && !g->legacy ? ofl_devlink_lto19(l, gi, clang, cmd, h, err) : 1;
	if (rc != 1)
		return rc;
	bool llvm = ofl_llvm_form(l);
	if (g->nimages > 1 && family(g->triple) == FAM_CPU && !llvm)
		return push_archive(l, gi, cmd, h, err);
	rc = 0;
	for (size_t i = 0; !rc && i < g->nall; i++) {
		const struct link_image *im = ofl_group_image(l, gi, i);
		uint64_t ih = 0;
		if (!im)
			continue;
		char *name =
		    llvm ? ofl_llvm_input_name(l, im, err) : ofl_devlink_input(l, gi, im, &ih, err);
		rc = name ? ofl_proc_push(cmd, name, err) : err->code;
		*h = llvm ? *h : XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
	return rc;
}

/* After the device runtime: LLVM 20+'s -mllvm options, --save-temps
 * and --embed-bitcode's --lto-emit-llvm for the device linker, the
 * user's linker arguments. */
static int push_linker_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                            struct ofl_error *err)
{
	bool v20 = !ofl_devlink_llvm19(g) && !g->legacy;
	int rc = v20 ? push_xlinker("-mllvm=", l->o.mllvm, l->o.nmllvm, cmd, err) : 0;
	if (!rc && v20 && l->o.llvm_wrapper && l->o.save_temps)
		rc = ofl_proc_push(cmd, "-Wl,--save-temps", err);
	if (!rc && v20 && l->o.embed_bitcode)
		rc = ofl_proc_push(cmd, "-Wl,--lto-emit-llvm", err);
	return rc ? rc
	          : push_scoped(l->o.device_linker_args, l->o.ndevice_linker_args, g->triple, true,
	                        cmd, err);
}

/* The clang arguments last: what LLVM 20+'s driver hands the linker
 * wrapper (the optimisation level; for HIP -flto-partitions=8, verified
 * with 22), the user's, and for NVPTX the CUDA toolkit (l->cuda: what
 * LLVM 19's driver passes and its wrapper forwards; LLVM 22's forwards
 * none, its device clang finding the toolkit itself); a driver that runs
 * the personality passed its own. */
static int push_compiler_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                              struct ofl_error *err)
{
	enum target_family fam = family(g->triple);
	bool driver = !l->o.llvm_wrapper, v20 = !ofl_devlink_llvm19(g) && !g->legacy;
	int rc = 0;
	if (driver && v20 && *l->o.opt_level)
		rc = ofl_proc_pushf(cmd, err, "-O%s", l->o.opt_level);
	if (!rc && driver && fam == FAM_AMDGPU && g->kind == OFL_OFK_HIP && v20)
		rc = ofl_proc_push(cmd, "-flto-partitions=8", err);
	rc = rc ? rc
	        : push_scoped(l->o.device_compiler_args, l->o.ndevice_compiler_args, g->triple,
	                      false, cmd, err);
	/* what LLVM 19's wrapper adds under --wrapper-verbose */
	if (!rc && !driver && !v20 && l->o.verbose)
		rc = ofl_proc_push(cmd, "-v", err);
	if (!rc && fam == FAM_NVPTX && *l->cuda && (driver || !v20))
		rc = ofl_proc_pushf(cmd, err, "--cuda-path=%s", l->cuda);
	return rc;
}

/* clang, -o and (LLVM 20+: where clang's temporaries go, beside the
 * output) -dumpdir, both with empty values filled once the inputs name
 * the output; *slot is -o's index. */
static int push_head(struct ofl_link *l, const struct link_group *g, const char *clang,
                     struct ofl_proc *cmd, size_t *slot, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->o.nlauncher; i++)
		rc = ofl_proc_push(cmd, l->o.launcher[i], err);
	cmd->search_path = true;
	rc = rc || ofl_proc_push(cmd, clang, err) || ofl_proc_push(cmd, "--no-default-config", err);
	*slot = cmd->argc;
	rc = rc || ofl_proc_push(cmd, "-o", err) || ofl_proc_push(cmd, "", err);
	if (!rc && !ofl_devlink_llvm19(g) && !g->legacy)
		rc = ofl_proc_push(cmd, "-dumpdir", err) || ofl_proc_push(cmd, "", err);
	return rc ? err->code : 0;
}

/* The output path named by h (LLVM's dry run, and the personality's
 * verbose link, whose lines show it: by LLVM's rule), into -o's and
 * -dumpdir's slots. */
static int name_output(struct ofl_link *l, struct link_group *g, uint64_t h, struct ofl_proc *cmd,
                       size_t slot, struct ofl_error *err)
{
	char name[64], *dump = NULL;
	snprintf(name, sizeof(name), "%016llx.img", (unsigned long long)h);
	bool llvm = ofl_llvm_form(l) || (l->o.llvm_wrapper && l->o.verbose);
	if (llvm ? ofl_llvm_image_names(l, g, h, &g->output, &dump, err)
	         : !(g->output = ofl_link_temp(l, name, err)))
		return err->code;
	if (!dump && asprintf(&dump, "%s.", g->output) < 0)
		return OFL_NOMEM(err);
	bool dumpdir = slot + 2 < cmd->argc && !strcmp(cmd->argv[slot + 2], "-dumpdir");
	free(cmd->argv[slot + 1]);
	if (!(cmd->argv[slot + 1] = ofl_strdup(g->output))) {
		free(dump);
		return OFL_NOMEM(err);
	}
	if (!dumpdir) {
		free(dump);
		return 0;
	}
	free(cmd->argv[slot + 3]);
	cmd->argv[slot + 3] = dump;
	return 0;
}

/* Builds the command of group gi; its output path goes to g->output. */
static int build_command(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	char *clang = find_clang(l, g->llvm);
	if (!clang)
		return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                     "no clang to link %s device code: looked for "
		                     "<root>/llvm-<N>/bin/clang and clang on PATH",
		                     g->triple);
	size_t slot = 0;
	uint64_t h =
	    XXH3_64bits(g->triple, strlen(g->triple)) ^ XXH3_64bits(g->arch, strlen(g->arch));
	const char *fast =
	    family(g->triple) == FAM_CPU && !ofl_llvm_form(l) ? fast_linker(l, clang) : NULL;
	int rc = push_head(l, g, clang, cmd, &slot, err);
	rc = rc ? rc : push_target(l, g, fast, cmd, err);
	rc = rc ? rc : push_inputs(l, gi, clang, cmd, &h, err);
	rc = rc ? rc : push_cpu_libs(l, g, cmd, err);
	rc = rc ? rc : ofl_devrt_push(l, g, clang, cmd, err);
	rc = rc ? rc : push_linker_args(l, g, cmd, err);
	rc = rc ? rc : push_compiler_args(l, g, cmd, err);
	rc = rc ? rc : name_output(l, g, h, cmd, slot, err);
	rc = rc || fast != gold ? rc : push_gold_soname(g, cmd, err);
	free(clang);
	return rc;
}

static bool cancelled(struct ofl_link *l)
{
	return __atomic_load_n(&l->cancelled, __ATOMIC_SEQ_CST);
}

int ofl_devlink_exec(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                     const char *what, struct ofl_file *keep, struct ofl_error *err)
{
	char *log = ofl_link_log_command(l, cmd);
	int rc = 0;
	if (!l->o.dry_run && !cancelled(l))
		rc = ofl_devlink_cached_run(l, gi, cmd, output, what, keep, err);
	/* the tool's own lines under the command, as they would show had it
	 * written to the terminal */
	if (!rc && l->o.verbose && cmd->err.len)
		ofl_link_logf(l, OFL_LOG_OUTPUT, "%.*s", (int)cmd->err.len,
		              (const char *)cmd->err.data);
	/* killed by ofl_link_cancel: no failure to report */
	if (rc && !cancelled(l))
		ofl_devlink_report(l, gi, what, cmd, log);
	free(log);
	return rc;
}

/* Links group gi; *slot publishes the running command for
 * ofl_link_cancel. */
static int link_group(struct ofl_link *l, size_t gi, int *slot)
{
	struct link_group *g = &l->groups[gi];
	struct ofl_proc cmd = OFL_PROC_INIT;
	cmd.envp = l->o.device_env;
	cmd.running = slot;
	cmd.stop = &l->cancelled;
	int rc = build_command(l, gi, &cmd, &g->err);
	char what[256];
	snprintf(what, sizeof(what), "device link for %s%s%s", g->triple, *g->arch ? " " : "",
	         g->arch);
	if (rc == OFL_DEVLINK_EMBEDDED)
		rc = 0; /* the image is LTO's bitcode: no device link */
	else if (!rc)
		rc = ofl_devlink_exec(l, gi, &cmd, g->output, what, &g->linked, &g->err);
	if (rc)
		ofl_error_prefix(&g->err, "%s", what);
	ofl_proc_release(&cmd);
	return rc;
}

/* The groups to link, claimed in order by the calling thread, which holds
 * make's implicit token, and by workers that each hold a token from make's
 * jobserver (when there is one) while they link.  A worker waits for its
 * token before it claims a group, so no claimed group waits for a token
 * that may never come (make's other jobs hold them until this link ends);
 * waiting stops once no group is left, one failed or the link was
 * cancelled (l->wake). */
struct sched {
	struct ofl_link *l;
	pthread_mutex_t lock;
	size_t *todo; /* groups with images, in order */
	size_t ntodo, next;
	bool failed;
};

struct worker {
	struct sched *s;
	size_t slot; /* its l->running slot */
	bool token;  /* links only while holding a token */
};

/* Async-signal-safe (ofl_link_cancel). */
static void wake(struct ofl_link *l)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&l->wake, __ATOMIC_SEQ_CST);
	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

/* Async-signal-safe: flags, kill and write.  Nothing is removed here: a
 * child may still be writing; ofl_link_free removes it all once the
 * pipeline has returned. */
void ofl_link_cancel(struct ofl_link *l)
{
	__atomic_store_n(&l->cancelled, 1, __ATOMIC_SEQ_CST);
	int *running = __atomic_load_n(&l->running, __ATOMIC_SEQ_CST);
	if (running)
		ofl_proc_kill(running, l->nrunning, SIGKILL);
	wake(l);
}

static bool claim(struct sched *s, size_t *gi)
{
	pthread_mutex_lock(&s->lock);
	bool ok = s->next < s->ntodo && !s->failed && !cancelled(s->l);
	if (ok)
		*gi = s->todo[s->next++];
	bool done = !ok || s->next == s->ntodo;
	pthread_mutex_unlock(&s->lock);
	if (done)
		wake(s->l);
	return ok;
}

static void fail(struct sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->failed = true;
	pthread_mutex_unlock(&s->lock);
	wake(s->l);
}

/* One token, waiting for it (poll, no busy loop); false, holding none,
 * once the link needs no more or the jobserver fails. */
static bool take_token(struct ofl_link *l, char *token)
{
	struct pollfd p[2] = {{l->wake, POLLIN, 0}, {l->o.jobserver_rfd, POLLIN, 0}};
	for (;;) {
		int ready = poll(p, 2, -1);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0 || p[0].revents || (p[1].revents & (POLLERR | POLLNVAL)))
			return false;
		/* another client may have taken it meanwhile: EAGAIN */
		ssize_t n = read(l->o.jobserver_rfd, token, 1);
		if (n == 1)
			return true;
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
	}
}

static void give_token(struct ofl_link *l, char token)
{
	while (write(l->o.jobserver_wfd, &token, 1) < 0 && errno == EINTR)
		;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ofl_link *l = w->s->l;
	for (;;) {
		char token = '+';
		size_t gi;
		if (w->token && !take_token(l, &token))
			return NULL;
		bool got = claim(w->s, &gi);
		if (got && link_group(l, gi, &l->running[w->slot]))
			fail(w->s);
		if (w->token)
			give_token(l, token);
		if (!got)
			return NULL;
	}
}

/* Workers for n links at once (1 in a dry run: the commands are logged in
 * order); a link that cannot wait for tokens runs alone. */
static size_t start_workers(struct sched *s, size_t n, struct worker *w, pthread_t *t)
{
	struct ofl_link *l = s->l;
	bool tokens = l->o.jobserver_rfd >= 0 && n > 1;
	if (tokens) {
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		__atomic_store_n(&l->wake, fd, __ATOMIC_SEQ_CST);
		n = fd < 0 ? 1 : n;
	}
	size_t started = 1;
	for (; started < n; started++) {
		w[started] = (struct worker){s, started, tokens};
		if (pthread_create(&t[started], NULL, work, &w[started]))
			break;
	}
	return started;
}

static int first_error(struct ofl_link *l, struct ofl_error *err)
{
	if (cancelled(l))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "link cancelled");
	for (size_t i = 0; i < l->ngroups; i++)
		if (l->groups[i].err.code)
			return ofl_error_set(err, l->groups[i].err.code, l->groups[i].err.path,
			                     l->groups[i].err.offset, "%s", l->groups[i].err.msg);
	return 0;
}

static bool nvptx_links(const struct ofl_link *l)
{
	for (size_t g = 0; g < l->ngroups; g++)
		if (l->groups[g].nimages && family(l->groups[g].triple) == FAM_NVPTX)
			return true;
	return false;
}

double ofl_devlink_elapsed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int ofl_devlink_run(struct ofl_link *l, struct ofl_error *err)
{
	struct sched s = {l, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, false};
	s.todo = ofl_calloc(l->ngroups + 1, sizeof(*s.todo));
	for (size_t g = 0; s.todo && g < l->ngroups; g++)
		if (l->groups[g].nimages)
			s.todo[s.ntodo++] = g;
	if (s.ntodo && l->o.opt_level_why)
		ofl_link_logf(l, OFL_LOG_DECISION, "%s", l->o.opt_level_why);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t n = l->o.dry_run || !s.ntodo ? 1 : l->o.jobs < s.ntodo ? l->o.jobs : s.ntodo;
	struct worker *w = ofl_calloc(n, sizeof(*w));
	pthread_t *t = ofl_calloc(n, sizeof(*t));
	int *running = ofl_calloc(n, sizeof(*running));
	int rc = s.todo && w && t && running ? 0 : OFL_NOMEM(err);
	if (!rc && s.ntodo && !l->o.dry_run)
		ofl_devlink_open_cache(l);
	/* made (and stale ones swept) before the workers start, not by the
	 * first of them under the link's lock while the others wait */
	if (!rc && s.ntodo && !ofl_link_tmpdir(l, err))
		rc = err->code;
	if (!rc && nvptx_links(l))
		rc = ofl_devlink_find_cuda(l, err);
	if (!rc) {
		/* published for ofl_link_cancel; freed by ofl_link_free */
		l->nrunning = n;
		__atomic_store_n(&l->running, running, __ATOMIC_SEQ_CST);
		running = NULL;
		size_t started = start_workers(&s, n, w, t);
		w[0] = (struct worker){&s, 0, false};
		work(&w[0]);
		for (size_t i = 1; i < started; i++)
			pthread_join(t[i], NULL);
		rc = first_error(l, err);
	}
	if (!rc && l->nlinked)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%u device link(s) in %.2f s, %u from the cache",
		              l->nlinked, ofl_devlink_elapsed(&t0), l->ncached);
	free(running);
	free(t);
	free(w);
	free(s.todo);
	return rc;
}
