/* The driver's answer remembered (driver_memo.h), and its key. */
#include "driver_memo.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_priv.h"
#include "internal.h"
#include "link_priv.h"
#include "loads.h"
#include "rsp.h"

/* One word of clang's -### output, unquoted ("...", \-escapes). */
static char *unquote(const char **s)
{
	struct ofl_buf b = OFL_BUF_INIT;
	const char *p = *s + 1;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (ofl_buf_append(&b, p, 1))
			break;
	}
	*s = *p ? p + 1 : p;
	if (ofl_buf_append(&b, "", 1)) {
		ofl_buf_release(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* The index k of the placeholder word names in the probe's folder, or -1:
 * exactly <probe>/p<k><ext> of a shape word OFL_MEMO_OWN k:p<ext> (the driver's own
 * temporaries there, <input stem>-XXXXXX.o, may start alike). */
static long placeholder_index(const char *word, const char *probe, const struct ofl_argv *shape)
{
	size_t plen = strlen(probe);
	if (strncmp(word, probe, plen) || word[plen] != '/' || word[plen + 1] != 'p')
		return -1;
	for (size_t i = 0; i < shape->n; i++) {
		const char *w = shape->v[i];
		char want[64];
		const char *ext = strchr(w, ':');
		if (w[0] != OFL_MEMO_OWN || !ext || ext[1] != 'p')
			continue;
		snprintf(want, sizeof(want), "p%ld%s", atol(w + 1), ext + 2);
		if (!strcmp(word + plen + 1, want))
			return atol(w + 1);
	}
	return -1;
}

/* The memo of the driver's jobs (-### on stderr): their words, own files
 * as OFL_MEMO_OWN k, the driver's temporaries as OFL_MEMO_TEMP t:ext (t numbering them,
 * temps their words); -1 when the output is not jobs of absolute
 * programs. */
int ofl_memo_of(const char *text, const char *probe, const struct ofl_argv *shape,
                struct ofl_argv *temps, struct ofl_buf *m)
{
	size_t plen = strlen(probe), njobs = 0;
	for (const char *line = text; *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		if (strncmp(line, " \"", 2))
			continue;
		const char *p = line + 1;
		for (size_t w = 0; *p == '"'; w++) {
			char *word = unquote(&p);
			if (!word || (!w && word[0] != '/')) {
				free(word);
				return -1;
			}
			char *at = strstr(word, probe);
			long k = placeholder_index(word, probe, shape);
			if (k >= 0) {
				ofl_buf_printf(m, "%c%ld", OFL_MEMO_OWN, k);
			} else if (at && at == word) {
				/* the same temporary, the same name in every job */
				size_t t = 0;
				while (t < temps->n && strcmp(temps->v[t], word))
					t++;
				if (t == temps->n && ofl_argv_push(temps, word, NULL)) {
					free(word);
					return -1;
				}
				const char *dot = strrchr(word + plen, '.');
				ofl_buf_printf(m, "%c%zu:%s", OFL_MEMO_TEMP, t, dot ? dot : "");
			} else if (at) {
				free(word);
				return -1; /* a temporary inside a word */
			} else {
				ofl_buf_printf(m, "%s", word);
			}
			ofl_buf_append(m, "", 1);
			free(word);
			while (*p == ' ')
				p++;
		}
		ofl_buf_printf(m, "%c", OFL_MEMO_END);
		ofl_buf_append(m, "", 1);
		njobs++;
	}
	return njobs && m->len < OFL_MEMO_MAX ? 0 : -1;
}

/* One word of a memo into job; 1 when it is none of ours. */
static int memo_word(const char *w, char *const *own, size_t nown, const char *output,
                     struct ofl_argv *job, struct ofl_error *err)
{
	if (w[0] == OFL_MEMO_OWN) {
		char *end;
		unsigned long k = strtoul(w + 1, &end, 10);
		return end == w + 1 || *end || k >= nown ? 1 : ofl_argv_push(job, own[k], err);
	}
	if (w[0] != OFL_MEMO_TEMP)
		return ofl_argv_push(job, w, err);
	const char *ext = strchr(w, ':');
	char *s = NULL;
	if (!ext)
		return 1;
	int rc = asprintf(&s, "%s.%ld%s", output, atol(w + 1), ext + 1) < 0
	             ? OFL_NOMEM(err)
	             : ofl_argv_push(job, s, err);
	free(s);
	return rc;
}

int ofl_memo_jobs(const uint8_t *m, size_t n, char *const *own, size_t nown, const char *output,
                  struct ofl_argv **jobs, size_t *njobs, struct ofl_error *err)
{
	size_t count = 0;
	*jobs = NULL;
	*njobs = 0;
	if (!n || m[n - 1])
		return 1;
	for (size_t i = 0; i < n; i += strlen((const char *)m + i) + 1)
		count += m[i] == OFL_MEMO_END && !m[i + 1];
	/* the last word ends the last job: nothing after it */
	if (!count || n < 2 || m[n - 2] != OFL_MEMO_END || (n > 2 && m[n - 3]))
		return 1;
	struct ofl_argv *v = ofl_calloc(count, sizeof(*v));
	if (!v)
		return OFL_NOMEM(err);
	size_t j = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i += strlen((const char *)m + i) + 1) {
		const char *w = (const char *)m + i;
		if (w[0] == OFL_MEMO_END && !w[1])
			j += !!v[j].n; /* an empty job is none */
		else
			rc = memo_word(w, own, nown, output, &v[j], err);
	}
	if (!rc && j) {
		*jobs = v;
		*njobs = j;
		return 0;
	}
	for (size_t i = 0; i < count; i++)
		ofl_argv_release(&v[i]);
	free(v);
	return rc ? rc : 1;
}

/* ---- what the driver reads to choose its jobs ----------------------------
 *
 * The memo's key holds everything `clang -###` looks at for a device link
 * (scripts/cache-audit traces it): its own files and what it loads, the
 * command's shape and response files, its environment, the distribution's
 * release files (its linker defaults), the GCC installations it probes
 * (crt files, library folders: beside clang, in /opt/rh's toolsets, in
 * /usr), the folders it looks for programs in, its resource folder, the
 * CUDA toolkits and ROCm installations.  The memo is this machine's own, so files and folders
 * are keyed by identity (a folder's changes with every name made or
 * removed in it), not by bytes; it is kept only once none of them changed
 * in the last 2 s. */

struct dkey {
	struct ofl_cache_key k;
	struct ofl_argv *items; /* what was keyed, named for --explain */
	struct timespec now;
	bool settled;
	int rc;
};

static void note(struct dkey *d, const char *what, const char *path)
{
	char *s = NULL;
	if (!d->rc && asprintf(&s, "%s: %s", what, path) < 0)
		d->rc = OFL_ENOMEM;
	if (s && ofl_argv_push(d->items, s, NULL))
		d->rc = OFL_ENOMEM;
	free(s);
}

static bool recent(const struct timespec *t, const struct timespec *now)
{
	return t->tv_sec > now->tv_sec - 2 ||
	       (t->tv_sec == now->tv_sec - 2 && t->tv_nsec > now->tv_nsec);
}

/* path's identity, or absent; its stat into st (st_ino 0: absent). */
static void key_path(struct dkey *d, const char *path, struct stat *st)
{
	char id[PATH_MAX + 128];
	if (stat(path, st)) {
		st->st_ino = 0;
		ofl_key_str(&d->k, "absent", path);
		note(d, "absent", path);
		return;
	}
	snprintf(id, sizeof(id), "%s %o %llu %lld %lld.%09ld %lld.%09ld", path,
	         (unsigned)st->st_mode, (unsigned long long)st->st_ino, (long long)st->st_size,
	         (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
	         st->st_ctim.tv_nsec);
	ofl_key_str(&d->k, "present", id);
	note(d, S_ISDIR(st->st_mode) ? "dir" : "file", path);
	d->settled = d->settled && !recent(&st->st_mtim, &d->now) && !recent(&st->st_ctim, &d->now);
}

/* Only whether path is there, and what it is: a folder whose names do not
 * matter (a prefix, whose subfolders are keyed themselves). */
static void key_exists(struct dkey *d, const char *path)
{
	struct stat st;
	char what[PATH_MAX + 16];
	bool there = !stat(path, &st);
	snprintf(what, sizeof(what), "%s %o", path, there ? (unsigned)(st.st_mode & S_IFMT) : 0u);
	ofl_key_str(&d->k, "exists", what);
	note(d, there ? "exists" : "absent", path);
}

static void key_one(struct dkey *d, const char *path)
{
	struct stat st;
	key_path(d, path, &st);
}

static void key_joined(struct dkey *d, const char *a, const char *b)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/%s", a, b) < (int)sizeof(p))
		key_one(d, p);
}

/* dir and, depth levels down, everything in it (sorted). */
static void key_tree(struct dkey *d, const char *dir, unsigned depth)
{
	struct stat st;
	key_path(d, dir, &st);
	if (!st.st_ino || !S_ISDIR(st.st_mode) || !depth)
		return;
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		const char *e = ents[i]->d_name;
		if (strcmp(e, ".") && strcmp(e, "..") &&
		    snprintf(p, sizeof(p), "%s/%s", dir, e) < (int)sizeof(p))
			key_tree(d, p, depth - 1);
		free(ents[i]);
	}
	free(ents);
}

static int key_load(void *ctx, enum ofl_load_kind kind, const char *path, const char *why)
{
	struct dkey *d = ctx;
	if (kind == OFL_LOAD_MISSING || kind == OFL_LOAD_UNKNOWN)
		ofl_key_str(&d->k, why ? why : "missing", path);
	else
		key_one(d, path);
	return 0;
}

/* Each folder of a ':'-separated list. */
static void key_dirs(struct dkey *d, const char *list)
{
	for (const char *p = list, *e; p && *p; p = *e ? e + 1 : e) {
		char dir[PATH_MAX];
		e = p + strcspn(p, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)(e - p), p);
		key_one(d, e == p ? "." : dir); /* an empty one: the working folder */
	}
}

/* A GCC installation prefix as clang's driver probes it: its library
 * folders, their gcc and gcc-cross trees (triple, version, crt files and
 * multilib folders), and per triple found its bin, lib and C++ header
 * folders. */
static void key_gcc_prefix(struct dkey *d, const char *prefix)
{
	static const char *const libdirs[] = {"lib", "lib64", "lib32", "libx32"};
	static const char *const subs[] = {"gcc", "gcc-cross"};
	key_exists(d, prefix);
	key_joined(d, prefix, "include/c++");
	for (size_t i = 0; i < sizeof(libdirs) / sizeof(*libdirs); i++) {
		char lib[PATH_MAX];
		snprintf(lib, sizeof(lib), "%s/%s", prefix, libdirs[i]);
		key_one(d, lib);
		for (size_t s = 0; s < 2; s++) {
			char root[PATH_MAX + 16];
			snprintf(root, sizeof(root), "%s/%s", lib, subs[s]);
			key_tree(d, root, 3);
			struct dirent **ents = NULL;
			int n = scandir(root, &ents, NULL, alphasort);
			for (int k = 0; k < n; k++) {
				const char *t = ents[k]->d_name;
				char p[PATH_MAX];
				static const char *const per_triple[] = {"", "/bin", "/lib",
				                                         "/include/c++"};
				for (size_t j = 0; t[0] != '.' && j < 4; j++) {
					snprintf(p, sizeof(p), "%s/%s%s", prefix, t, per_triple[j]);
					key_one(d, p);
				}
				if (t[0] != '.') {
					snprintf(p, sizeof(p), "%s/include/%s/c++", prefix, t);
					key_one(d, p);
					snprintf(p, sizeof(p), "/lib/%s", t);
					key_one(d, p);
				}
				free(ents[k]);
			}
			free(ents);
		}
	}
}

/* The GCC installations clang's driver looks for: beside it, Red Hat's
 * toolsets in /opt/rh, /usr; Gentoo's configuration. */
static void key_gcc(struct dkey *d, const char *clangdir)
{
	char up[PATH_MAX + 4];
	struct stat st;
	snprintf(up, sizeof(up), "%s/..", clangdir);
	key_gcc_prefix(d, up);
	key_path(d, "/opt/rh", &st);
	struct dirent **ents = NULL;
	int n = st.st_ino ? scandir("/opt/rh", &ents, NULL, alphasort) : 0;
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		if (ents[i]->d_name[0] != '.' &&
		    snprintf(p, sizeof(p), "/opt/rh/%s/root/usr", ents[i]->d_name) < (int)sizeof(p))
			key_gcc_prefix(d, p);
		free(ents[i]);
	}
	free(ents);
	key_gcc_prefix(d, "/usr");
	key_tree(d, "/etc/env.d/gcc", 1);
	static const char *const libs[] = {"/lib", "/lib64", "/lib32", "/libx32"};
	for (size_t i = 0; i < sizeof(libs) / sizeof(*libs); i++)
		key_one(d, libs[i]);
}

/* The CUDA toolkit at root as clang's driver checks one. */
static void key_cuda(struct dkey *d, const char *root)
{
	static const char *const parts[] = {
	    "bin", "bin/ptxas", "include", "include/cuda.h", "version.txt", "version.json"};
	key_one(d, root);
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++)
		key_joined(d, root, parts[i]);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/nvvm/libdevice", root);
	key_tree(d, p, 1);
}

/* The ROCm installations clang's AMDGPU driver looks for (its device
 * libraries, the HIP version): beside clang, in its resource folders,
 * /opt/rocm*, /usr/local, /usr, /. */
static void key_rocm(struct dkey *d, const char *clangdir)
{
	static const char *const parts[] = {"share/hip/version", "bin/.hipVersion",
	                                    "amdgcn/bitcode"};
	struct ofl_argv roots = OFL_ARGV_INIT;
	char p[PATH_MAX + 16];
	struct stat st;
	snprintf(p, sizeof(p), "%s/..", clangdir);
	ofl_argv_push(&roots, p, NULL);
	snprintf(p, sizeof(p), "%s/../lib/clang", clangdir);
	struct dirent **ents = NULL;
	int n = scandir(p, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char r[PATH_MAX + 272];
		if (ents[i]->d_name[0] != '.' &&
		    snprintf(r, sizeof(r), "%s/%s", p, ents[i]->d_name) < (int)sizeof(r))
			ofl_argv_push(&roots, r, NULL);
		free(ents[i]);
	}
	free(ents);
	key_path(d, "/opt", &st);
	n = st.st_ino ? scandir("/opt", &ents, NULL, alphasort) : 0;
	for (int i = 0; i < n; i++) {
		char r[PATH_MAX];
		if (!strncmp(ents[i]->d_name, "rocm", 4) &&
		    snprintf(r, sizeof(r), "/opt/%s", ents[i]->d_name) < (int)sizeof(r))
			ofl_argv_push(&roots, r, NULL);
		free(ents[i]);
	}
	free(ents);
	static const char *const fixed[] = {"/opt/rocm", "/usr/local", "/usr", ""};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		ofl_argv_push(&roots, fixed[i], NULL);
	for (size_t i = 0; i < roots.n; i++) {
		key_exists(d, *roots.v[i] ? roots.v[i] : "/");
		for (size_t k = 0; k < sizeof(parts) / sizeof(*parts); k++)
			key_joined(d, roots.v[i], parts[k]);
	}
	ofl_argv_release(&roots);
}

/* The resource folders (lib/clang/<version>): each one's own files (crt
 * files), and its lib/ three levels down (lib/<triple>/, lib/linux/<arch>/:
 * compiler-rt's crt files and runtimes); not its headers. */
static void key_resources(struct dkey *d, const char *root)
{
	struct stat st;
	key_path(d, root, &st);
	struct dirent **ents = NULL;
	int n = st.st_ino ? scandir(root, &ents, NULL, alphasort) : 0;
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		if (ents[i]->d_name[0] != '.' &&
		    snprintf(p, sizeof(p), "%s/%s", root, ents[i]->d_name) < (int)sizeof(p)) {
			key_one(d, p);
			if (strlen(p) + 5 < sizeof(p))
				key_tree(d, strcat(p, "/lib"), 3);
		}
		free(ents[i]);
	}
	free(ents);
}

/* What the driver of clang reads whatever the command (a link's actions
 * share it). */
static void surroundings(struct dkey *d, const struct ofl_link *l, const struct link_action *a,
                         const char *clang, const char *triple, struct ofl_error *err)
{
	static const char *const distro[] = {
	    "/etc/os-release",     "/usr/lib/os-release", "/etc/lsb-release",
	    "/etc/debian_version", "/etc/redhat-release", "/etc/SuSE-release",
	    "/etc/alpine-release", "/etc/gentoo-release", "/etc/arch-release"};
	char real[PATH_MAX], dir[PATH_MAX], p[PATH_MAX + 64];
	ofl_key_str(&d->k, "clang driver", "2");
	/* its installation: where it really is (its folder is where it looks) */
	snprintf(dir, sizeof(dir), "%s", realpath(clang, real) ? real : clang);
	ofl_key_str(&d->k, "clang", dir);
	*strrchr(dir, '/') = '\0';
	int rc =
	    ofl_program_loads(clang, ofl_proc_env_get(a->env, "LD_LIBRARY_PATH"), key_load, d, err);
	d->rc = d->rc ? d->rc : rc;
	/* the probe runs under its launcher */
	for (size_t i = 0; i < l->o.nprobe_launcher; i++)
		ofl_key_str(&d->k, "launcher", l->o.probe_launcher[i]);
	/* TMPDIR, the link's directory: the driver's temporaries, mapped to
	 * the link's names (OFL_MEMO_TEMP) */
	for (char *const *e = a->env; *e; e++)
		ofl_key_str(&d->k, "env", strncmp(*e, "TMPDIR=", 7) ? *e : "TMPDIR");
	for (size_t i = 0; i < sizeof(distro) / sizeof(*distro); i++)
		key_one(d, distro[i]);
	key_gcc(d, dir);
	/* crt files it looks for in its prefix first (named: the prefix may be
	 * a busy build folder) */
	static const char *const crt[] = {"crt1.o",   "Scrt1.o",    "crti.o",
	                                  "crtn.o",   "crtbegin.o", "crtbeginS.o",
	                                  "crtend.o", "crtendS.o",  "crtbeginT.o"};
	snprintf(p, sizeof(p), "%s/..", dir);
	for (size_t i = 0; i < sizeof(crt) / sizeof(*crt); i++)
		key_joined(d, p, crt[i]);
	/* where it looks for programs (and <triple>-<program>) */
	key_dirs(d, ofl_proc_env_get(a->env, "COMPILER_PATH"));
	key_one(d, dir);
	key_dirs(d, ofl_proc_env_get(a->env, "PATH"));
	/* its resource folder; its lib/ and lib/<triple> (LLVM 20+'s device
	 * runtime, which it adds to the link's folders when there) */
	snprintf(p, sizeof(p), "%s/../lib", dir);
	key_one(d, p);
	snprintf(p, sizeof(p), "%s/../lib/clang", dir);
	key_resources(d, p);
	snprintf(p, sizeof(p), "%s/../lib/%s", dir, triple);
	key_tree(d, p, 1);
	key_one(d, "/usr/local");
	for (const char *const *c = ofl_cuda_candidates(); *c; c++)
		key_cuda(d, *c);
	key_rocm(d, dir);
}

/* A response file clang reads for itself (it expands them before it reads
 * its options: a -Xlinker @FILE's words reach the job inlined). */
static int key_rsp(void *ctx, const char *path, const uint8_t *bytes, size_t n)
{
	struct dkey *d = ctx;
	ofl_key_str(&d->k, "response file", path);
	ofl_key_bytes(&d->k, "content", bytes, n);
	note(d, "file", path);
	return 0;
}

/* What the driver of clang reads whatever the command, once per link. */
static const struct driver_seen *seen_driver(struct ofl_link *l, const struct link_action *a,
                                             const char *clang, const char *triple,
                                             struct ofl_error *err)
{
	struct plan_memo *m = &l->memo;
	struct ofl_symslot *s;
	bool added;
	char *name = NULL;
	if (asprintf(&name, "%s\n%s", clang, triple) < 0 ||
	    OFL_GROW(m->driver, m->capdriver, m->ndriver) ||
	    ofl_symset_add(&m->drivers, name, (uint32_t)m->ndriver, &s, &added)) {
		free(name);
		OFL_NOMEM(err);
		return NULL;
	}
	free(name);
	if (!added)
		return &m->driver[s->value];
	struct driver_seen *ds = &m->driver[m->ndriver++];
	*ds = (struct driver_seen){.items = OFL_ARGV_INIT};
	struct dkey d = {.items = &ds->items, .settled = true};
	clock_gettime(CLOCK_REALTIME, &d.now);
	sha256_init(&d.k.ctx);
	surroundings(&d, l, a, clang, triple, err);
	ofl_key_final(&d.k, ds->sum);
	ds->settled = d.settled;
	if (d.rc == OFL_ENOMEM)
		OFL_NOMEM(err);
	return d.rc ? NULL : ds;
}

int ofl_driver_key(struct ofl_link *l, const struct link_action *a, const struct ofl_argv *shape,
                   const char *clang, const char *triple, uint8_t key[OFL_CACHE_KEY_SIZE],
                   struct ofl_argv *items, bool *settled, struct ofl_error *err)
{
	const struct driver_seen *ds = seen_driver(l, a, clang, triple, err);
	if (!ds)
		return err->code ? err->code : OFL_EIO;
	struct dkey d = {.items = items, .settled = ds->settled};
	clock_gettime(CLOCK_REALTIME, &d.now);
	ofl_key_init(&d.k);
	ofl_key_bytes(&d.k, "surroundings", ds->sum, sizeof(ds->sum));
	for (size_t i = 0; i < ds->items.n && !d.rc; i++)
		if (ofl_argv_push(items, ds->items.v[i], NULL))
			d.rc = OFL_ENOMEM;
	for (size_t i = 0; i < shape->n; i++) {
		ofl_key_str(&d.k, "word", shape->v[i]);
		/* a toolkit it is given (its bin/ a folder of programs too) */
		if (!strncmp(shape->v[i], "--cuda-path=", 12))
			key_cuda(&d, shape->v[i] + 12);
	}
	int rc = ofl_rsp_files(shape->v, shape->n, l->memo.rsp, key_rsp, &d, err);
	ofl_key_final(&d.k, key);
	*settled = d.settled;
	if (d.rc)
		return OFL_NOMEM(err);
	return rc;
}
