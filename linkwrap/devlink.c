/* Device links (docs/design.md, "Device links"): one per group of images,
 * run in parallel by worker threads, each command hermetic: its inputs are
 * files named by their content's hash and its output by the hash of its
 * inputs, so a launcher (ccache, distcc, recc) sees the same command for the
 * same work and no temporary name reaches an output. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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

/* The fastest linker next to clang, for CPU device links: a bfd link of an
 * OpenMP image spends ~0.5 s in libLLVM's symbol table, lld milliseconds. */
static const char *fast_linker(const char *clang)
{
	const char *slash = strrchr(clang, '/');
	char p[4096];
	if (slash &&
	    snprintf(p, sizeof(p), "%.*s/ld.lld", (int)(slash - clang), clang) < (int)sizeof(p) &&
	    is_exec(p))
		return "-fuse-ld=lld";
	return is_exec("/usr/bin/ld.gold") ? "-fuse-ld=gold" : NULL;
}

/* A file in the link's own directory: written in place, no temporary and
 * rename (nobody else looks there, and the directory goes on failure).
 * Already there: the same bytes, from an identical image. */
static int write_private(const char *path, const uint8_t *p, uint64_t n, struct ofl_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : ofl_error_errno(err, path, "cannot create");
	for (uint64_t done = 0; done < n;) {
		ssize_t w = write(fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int rc = ofl_error_errno(err, path, "cannot write");
			close(fd);
			return rc;
		}
		done += (uint64_t)w;
	}
	return close(fd) ? ofl_error_errno(err, path, "cannot write") : 0;
}

/* Writes the image's bytes to a file named by their hash (once). */
static int write_input(struct ofl_link *l, const struct link_image *im, uint64_t *hash,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	char name[64];
	*hash = XXH3_64bits(im->b.image, im->b.image_size);
	/* ".o" for every kind: clang links .o inputs (bitcode by LTO) where
	 * it would compile a .bc */
	snprintf(name, sizeof(name), "%016llx.o", (unsigned long long)*hash);
	char *path = ofl_link_temp(l, name, err);
	if (!path)
		return err->code;
	/* under the lock: another group's worker may write the same bytes */
	pthread_mutex_lock(&l->lock);
	int rc = l->o.dry_run ? 0 : write_private(path, im->b.image, im->b.image_size, err);
	pthread_mutex_unlock(&l->lock);
	return rc ? rc : ofl_proc_push(cmd, path, err);
}

/* The "[<triple>=]arg" values that apply to triple, each after -Xlinker
 * when xlinker. */
static int push_scoped(const char *const *args, size_t n, const char *triple, bool xlinker,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *a = args[i], *eq = strchr(a, '=');
		bool scoped = eq && a[0] != '-' && memchr(a, '-', (size_t)(eq - a));
		if (scoped && (strncmp(a, triple, (size_t)(eq - a)) || triple[eq - a]))
			continue;
		rc = (xlinker && ofl_proc_push(cmd, "-Xlinker", err)) ||
		     ofl_proc_push(cmd, scoped ? eq + 1 : a, err);
	}
	return rc ? err->code : 0;
}

static bool arch_given(const char *arch)
{
	return *arch && strcmp(arch, "generic") && strcmp(arch, "native");
}

/* The target-specific part of the command, before the inputs. */
static int push_target(struct ofl_link *l, const struct link_group *g, const char *clang,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	enum target_family fam = family(g->triple);
	if (fam == FAM_UNKNOWN)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "no device linker for target '%s'", g->triple);
	int rc = ofl_proc_pushf(cmd, err, "--target=%s", g->triple);
	if (!rc && fam == FAM_CPU && arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-march=%s", g->arch);
	const char *fast = fam == FAM_CPU ? fast_linker(clang) : NULL;
	if (!rc && fast)
		rc = ofl_proc_push(cmd, fast, err);
	if (!rc && fam == FAM_AMDGPU)
		rc = ofl_proc_pushf(cmd, err, "-mcpu=%s", g->arch) ||
		     ofl_proc_push(cmd, "-flto", err);
	/* what the old driver's lld link of HIP code objects adds */
	if (!rc && fam == FAM_AMDGPU && g->legacy)
		rc = ofl_proc_push(cmd, "-Wl,-plugin-opt=-amdgpu-internalize-symbols", err) ||
		     ofl_proc_push(cmd, "-Wl,--lto-partitions=8", err);
	if (!rc && fam == FAM_NVPTX)
		rc = ofl_proc_pushf(cmd, err, "-march=%s", g->arch);
	if (!rc && (fam == FAM_CPU || fam == FAM_AMDGPU))
		rc = ofl_proc_push(cmd, "-Wl,--no-undefined", err);
	return rc ? err->code : 0;
}

/* After the inputs: a CPU image is a shared object that resolves against
 * the host's runtime and libraries. */
static int push_cpu_libs(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                         struct ofl_error *err)
{
	if (family(g->triple) != FAM_CPU)
		return 0;
	int rc = ofl_proc_push(cmd, "-Wl,-Bsymbolic", err) || ofl_proc_push(cmd, "-shared", err);
	for (size_t i = 0; !rc && i < l->o.ncpu_link_args; i++)
		rc = ofl_proc_push(cmd, l->o.cpu_link_args[i], err);
	if (!rc && g->runtime_dir)
		rc = ofl_proc_pushf(cmd, err, "-L%s", g->runtime_dir);
	if (!rc && g->kind == OFL_OFK_OPENMP)
		rc = ofl_proc_push(cmd, "-lomp", err) || ofl_proc_push(cmd, "-lomptarget", err);
	return rc ? err->code : 0;
}

static char *quoted_command(const struct ofl_link *l, const struct ofl_proc *cmd)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (ofl_proc_format(cmd->argv, cmd->argc, l->o.llvm_command_form, &b))
		ofl_buf_release(&b);
	return (char *)b.data;
}

static bool in_group(const struct ofl_link *l, size_t i, size_t gi)
{
	return l->images[i].group == gi && l->images[i].taken;
}

/* Many inputs of a CPU link go in one archive, linked whole: one file to
 * write and remove instead of hundreds (file creation costs up to 0.5 ms
 * each on a slow disk).  Members are named by their hash, the archive by
 * the hash of all of them; ELF linkers read it as the same inputs in the
 * same order. */
static int push_archive(struct ofl_link *l, size_t gi, size_t n, struct ofl_proc *cmd, uint64_t *h,
                        struct ofl_error *err)
{
	struct ofl_ar_input *m = ofl_calloc(n, sizeof(*m));
	char(*names)[24] = ofl_calloc(n, sizeof(*names));
	struct ofl_buf ar = OFL_BUF_INIT;
	size_t k = 0;
	int rc = m && names ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->nimages; i++) {
		if (!in_group(l, i, gi))
			continue;
		const struct ofl_obin *b = &l->images[i].b;
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
	if (!rc && !l->o.dry_run) {
		pthread_mutex_lock(&l->lock);
		rc = write_private(path, ar.data, ar.len, err);
		pthread_mutex_unlock(&l->lock);
	}
	if (!rc &&
	    (ofl_proc_push(cmd, "-Wl,--whole-archive", err) || ofl_proc_push(cmd, path, err) ||
	     ofl_proc_push(cmd, "-Wl,--no-whole-archive", err)))
		rc = err->code;
	ofl_buf_release(&ar);
	free(names);
	free(m);
	return rc;
}

/* The group's images as inputs of the command; *h mixes in their hashes. */
static int push_inputs(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, uint64_t *h,
                       struct ofl_error *err)
{
	size_t n = 0;
	for (size_t i = 0; i < l->nimages; i++)
		n += in_group(l, i, gi);
	if (n > 1 && family(l->groups[gi].triple) == FAM_CPU)
		return push_archive(l, gi, n, cmd, h, err);
	int rc = 0;
	for (size_t i = 0; !rc && i < l->nimages; i++) {
		uint64_t ih;
		if (in_group(l, i, gi) && !(rc = write_input(l, &l->images[i], &ih, cmd, err)))
			*h = XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
	return rc;
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
	int rc = 0;
	for (size_t i = 0; !rc && i < l->o.nlauncher; i++)
		rc = ofl_proc_push(cmd, l->o.launcher[i], err);
	cmd->search_path = true;
	if (!rc)
		rc = ofl_proc_push(cmd, clang, err) ||
		     ofl_proc_push(cmd, "--no-default-config", err);
	rc = rc ? err->code : push_target(l, g, clang, cmd, err);
	free(clang);
	size_t out_slot = cmd->argc;
	uint64_t h =
	    XXH3_64bits(g->triple, strlen(g->triple)) ^ XXH3_64bits(g->arch, strlen(g->arch));
	if (!rc)
		rc = ofl_proc_push(cmd, "-o", err) || ofl_proc_push(cmd, "", err);
	rc = rc ? rc : push_inputs(l, gi, cmd, &h, err);
	rc = rc ? rc : push_cpu_libs(l, g, cmd, err);
	rc = rc ? rc
	        : push_scoped(l->o.device_linker_args, l->o.ndevice_linker_args, g->triple, true,
	                      cmd, err);
	rc = rc ? rc
	        : push_scoped(l->o.device_compiler_args, l->o.ndevice_compiler_args, g->triple,
	                      false, cmd, err);
	char name[64];
	snprintf(name, sizeof(name), "%016llx.img", (unsigned long long)h);
	if (!rc && !(g->output = ofl_link_temp(l, name, err)))
		rc = err->code;
	if (!rc) {
		free(cmd->argv[out_slot + 1]);
		if (!(cmd->argv[out_slot + 1] = ofl_strdup(g->output)))
			rc = OFL_NOMEM(err);
	}
	return rc;
}

static int read_output(struct link_group *g, struct ofl_error *err)
{
	struct ofl_file f = OFL_FILE_INIT;
	int rc = ofl_file_open(&f, g->output, err);
	if (!rc && ofl_buf_append(&g->linked, f.data, f.size))
		rc = OFL_NOMEM(err);
	ofl_file_close(&f);
	return rc;
}

static void link_group(struct ofl_link *l, size_t gi)
{
	struct link_group *g = &l->groups[gi];
	struct ofl_proc cmd = OFL_PROC_INIT;
	cmd.envp = l->o.device_env;
	int rc = build_command(l, gi, &cmd, &g->err);
	if (!rc) {
		g->log = quoted_command(l, &cmd);
		ofl_link_logf(l, OFL_LOG_COMMAND, "%s", g->log ? g->log : "");
	}
	if (!rc && !l->o.dry_run && !l->cancelled) {
		rc = ofl_proc_run(&cmd, &g->err);
		if (rc && cmd.err.len)
			ofl_link_logf(l, OFL_LOG_FAILURE, "%s\n%.*s", g->log ? g->log : "",
			              (int)cmd.err.len, (const char *)cmd.err.data);
		else if (rc)
			ofl_link_logf(l, OFL_LOG_FAILURE, "%s", g->log ? g->log : "");
		if (!rc)
			rc = read_output(g, &g->err);
	}
	if (rc)
		ofl_error_prefix(&g->err, "device link for %s%s%s", g->triple, *g->arch ? " " : "",
		                 g->arch);
	ofl_proc_release(&cmd);
}

struct workers {
	struct ofl_link *l;
	size_t next;
	pthread_mutex_t lock;
	pthread_t first; /* the calling thread: it holds make's implicit token */
};

/* One token from make's jobserver, waiting for it.  The pipe may be
 * non-blocking (make shares its own end); false when the jobserver fails,
 * and the link then goes on without a token. */
static bool take_token(struct ofl_link *l, char *token)
{
	for (;;) {
		if (read(l->o.jobserver_rfd, token, 1) == 1)
			return true;
		if (errno == EINTR)
			continue;
		struct pollfd p = {l->o.jobserver_rfd, POLLIN, 0};
		if (errno != EAGAIN || (poll(&p, 1, -1) < 0 && errno != EINTR) || l->cancelled)
			return false;
	}
}

/* Each worker but the first holds a jobserver token while it links. */
static void *worker(void *arg)
{
	struct workers *w = arg;
	struct ofl_link *l = w->l;
	bool implicit = pthread_equal(pthread_self(), w->first);
	for (;;) {
		pthread_mutex_lock(&w->lock);
		size_t gi = w->next++;
		pthread_mutex_unlock(&w->lock);
		if (gi >= l->ngroups || l->cancelled)
			return NULL;
		if (!l->groups[gi].nimages)
			continue;
		char token = '+';
		bool borrowed = !implicit && l->o.jobserver_rfd >= 0 && take_token(l, &token);
		link_group(l, gi);
		if (borrowed)
			(void)!write(l->o.jobserver_wfd, &token, 1);
	}
}

int ofl_devlink_run(struct ofl_link *l, struct ofl_error *err)
{
	struct workers w = {l, 0, PTHREAD_MUTEX_INITIALIZER, pthread_self()};
	size_t n = l->o.jobs < l->ngroups ? l->o.jobs : l->ngroups;
	pthread_t *t = ofl_calloc(n, sizeof(*t));
	if (!t)
		return OFL_NOMEM(err);
	size_t started = 0;
	/* the calling thread is the first worker */
	for (size_t i = 1; i < n && !pthread_create(&t[i], NULL, worker, &w); i++)
		started = i;
	worker(&w);
	for (size_t i = 1; i <= started; i++)
		pthread_join(t[i], NULL);
	free(t);
	int rc = 0;
	for (size_t i = 0; !rc && i < l->ngroups; i++)
		if (l->groups[i].err.code)
			rc = ofl_error_set(err, l->groups[i].err.code, l->groups[i].err.path,
			                   l->groups[i].err.offset, "%s", l->groups[i].err.msg);
	if (!rc && l->cancelled)
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "link cancelled");
	return rc;
}
