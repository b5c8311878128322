/* The compiler driver that started a link (offlink/driver.h). */
#include "offlink/driver.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ARG_MAX is 2 MiB by default; a command line past this is not a
 * driver's. */
#define CMDLINE_MAX ((size_t)8 << 20)

/* /proc/<pid>/cmdline: NUL-terminated words.  Unreadable: nothing. */
static int read_cmdline(pid_t pid, struct ofl_argv *v, struct ofl_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct ofl_buf b = OFL_BUF_INIT;
	int rc = 0;
	for (;;) {
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || b.len + (size_t)n > CMDLINE_MAX)
			break;
		if (ofl_buf_append(&b, chunk, (size_t)n)) {
			rc = OFL_NOMEM(err);
			break;
		}
	}
	close(fd);
	/* the last word is terminated unless the process rewrote it */
	for (size_t at = 0; !rc && at < b.len;) {
		const char *w = (const char *)b.data + at;
		size_t len = strnlen(w, b.len - at);
		char *word = ofl_strndup(w, len);
		rc = word ? ofl_argv_push(v, word, err) : OFL_NOMEM(err);
		free(word);
		at += len + 1;
	}
	ofl_buf_release(&b);
	return rc;
}

/* "clang-22" -> 22, and Debian's /usr/lib/llvm-22/bin/clang. */
static unsigned release_in_path(const char *exe)
{
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	unsigned v = 0;
	char tail;
	if (sscanf(base, "clang-%u%c", &v, &tail) == 1 ||
	    sscanf(base, "clang++-%u%c", &v, &tail) == 1)
		return v;
	const char *dir = strstr(exe, "/llvm-");
	while (dir && strstr(dir + 1, "/llvm-"))
		dir = strstr(dir + 1, "/llvm-");
	if (dir && sscanf(dir, "/llvm-%u/bin/%c", &v, &tail) == 2)
		return v;
	return 0;
}

/* The one release folder in <exe's folder>/../lib/clang (clang's resource
 * folder is named for its major release since LLVM 16). */
static unsigned release_of_resources(const char *exe)
{
	const char *slash = strrchr(exe, '/');
	char dir[PATH_MAX];
	if (!slash || snprintf(dir, sizeof(dir), "%.*s/../lib/clang", (int)(slash - exe), exe) >=
	                  (int)sizeof(dir))
		return 0;
	DIR *d = opendir(dir);
	unsigned found = 0, n = 0;
	for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
		unsigned v;
		char tail;
		if (sscanf(e->d_name, "%u%c", &v, &tail) == 1 && v < 1000) {
			found = v;
			n++;
		}
	}
	if (d)
		closedir(d);
	return n == 1 ? found : 0;
}

static unsigned release_of(const char *exe)
{
	unsigned v = release_in_path(exe);
	return v ? v : release_of_resources(exe);
}

unsigned ofl_clang_release(const char *path)
{
	char real[PATH_MAX];
	return release_of(realpath(path, real) ? real : path);
}

static enum ofl_driver_kind kind_of(const char *exe)
{
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	if (!strncmp(base, "clang", 5))
		return OFL_DRIVER_CLANG;
	if (!strcmp(base, "collect2"))
		return OFL_DRIVER_GCC;
	return OFL_DRIVER_UNKNOWN;
}

int ofl_driver_read(pid_t pid, struct ofl_driver *d, struct ofl_error *err)
{
	*d = (struct ofl_driver)OFL_DRIVER_INIT;
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (pid <= 0 || !realpath(link, exe))
		return 0;
	if (!(d->exe = ofl_strdup(exe)))
		return OFL_NOMEM(err);
	d->kind = kind_of(exe);
	if (d->kind == OFL_DRIVER_CLANG)
		d->llvm = release_of(exe);
	int rc = read_cmdline(pid, &d->argv, err);
	if (rc)
		ofl_driver_release(d);
	return rc;
}

/* clang's O group: -O<x>, -O (as -O1), -Ofast, -O4 (as -O3). */
const char *ofl_driver_opt_level(const struct ofl_driver *d)
{
	const char *level = NULL;
	for (size_t i = 1; d->kind == OFL_DRIVER_CLANG && i < d->argv.n; i++)
		if (!strncmp(d->argv.v[i], "-O", 2))
			level = d->argv.v[i] + 2;
	return level;
}

const char *ofl_driver_config(const struct ofl_driver *d)
{
	const char *config = NULL;
	for (size_t i = 1; d->kind == OFL_DRIVER_CLANG && i < d->argv.n; i++) {
		const char *w = d->argv.v[i];
		if (!strncmp(w, "--config=", 9))
			config = w + 9;
		else if (!strcmp(w, "--config") && i + 1 < d->argv.n)
			config = d->argv.v[++i];
	}
	return config;
}

void ofl_driver_release(struct ofl_driver *d)
{
	free(d->exe);
	ofl_argv_release(&d->argv);
	*d = (struct ofl_driver)OFL_DRIVER_INIT;
}

/* The first regular file dirs[i]/name; NULL when none (or no memory). */
static char *first_config(const char *const *dirs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		char *p = NULL;
		struct stat st;
		if (!dirs[i] || !*dirs[i] || asprintf(&p, "%s/%s", dirs[i], name) < 0)
			continue;
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	return NULL;
}

/* Pushes the first dirs[i]/<a><b>.cfg there is; *found says whether. */
static int push_config(const char *const *dirs, size_t n, const char *a, const char *b,
                       struct ofl_argv *files, bool *found, struct ofl_error *err)
{
	char *name = NULL, *path = NULL;
	if (asprintf(&name, "%s%s.cfg", a, b) < 0)
		return OFL_NOMEM(err);
	path = first_config(dirs, n, name);
	free(name);
	*found = path != NULL;
	int rc = path ? ofl_argv_push(files, path, err) : 0;
	free(path);
	return rc;
}

int ofl_clang_default_configs(const char *const *dirs, size_t n, const char *mode,
                              const char *triple, struct ofl_argv *files, struct ofl_error *err)
{
	char *prefix = NULL;
	bool found;
	if (asprintf(&prefix, "%s-", triple) < 0)
		return OFL_NOMEM(err);
	int rc = push_config(dirs, n, prefix, mode, files, &found, err);
	free(prefix);
	if (rc || found)
		return rc;
	return push_config(dirs, n, mode, "", files, &found, err) ||
	               push_config(dirs, n, triple, "", files, &found, err)
	           ? err->code
	           : 0;
}

/* The name's length without a version suffix: "clang++-22" -> "clang++". */
static size_t unversioned(const char *base)
{
	size_t n = strlen(base);
	while (n && (isdigit((unsigned char)base[n - 1]) || base[n - 1] == '.'))
		n--;
	if (n < strlen(base) && n && base[n - 1] == '-')
		n--;
	return n;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	return n >= t && !strncmp(s + n - t, tail, t);
}

const char *ofl_driver_mode(const struct ofl_driver *d)
{
	if (d->kind != OFL_DRIVER_CLANG)
		return NULL;
	static const char *const modes[][2] = {
	    {"g++", "clang++"}, {"gcc", "clang"}, {"cpp", "clang-cpp"}, {"cl", "clang-cl"}};
	const char *mode = NULL;
	for (size_t i = 1; i < d->argv.n; i++)
		for (size_t m = 0; !strncmp(d->argv.v[i], "--driver-mode=", 14) && m < 4; m++)
			if (!strcmp(d->argv.v[i] + 14, modes[m][0]))
				mode = modes[m][1];
	const char *name = d->argv.n ? d->argv.v[0] : d->exe;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t n = unversioned(base);
	if (mode)
		return mode;
	if (ends_with(base, n, "++"))
		return "clang++";
	if (ends_with(base, n, "-cpp") || (n == 3 && !strncmp(base, "cpp", 3)))
		return "clang-cpp";
	if (ends_with(base, n, "-cl"))
		return "clang-cl";
	return "clang";
}

/* Pushes --target=<t> (n bytes of t). */
static int push_target(struct ofl_argv *args, const char *t, size_t n, struct ofl_error *err)
{
	char *w = NULL;
	if (asprintf(&w, "--target=%.*s", (int)n, t) < 0)
		return OFL_NOMEM(err);
	int rc = ofl_argv_push(args, w, err);
	free(w);
	return rc;
}

int ofl_driver_target_args(const struct ofl_driver *d, struct ofl_argv *args, struct ofl_error *err)
{
	static const char *const bits[] = {"-m16", "-m32", "-m64", "-mx32"};
	bool target = false;
	int rc = 0;
	for (size_t i = 1; !rc && d->kind == OFL_DRIVER_CLANG && i < d->argv.n; i++) {
		const char *w = d->argv.v[i], *t = NULL;
		if (!strcmp(w, "-target") && i + 1 < d->argv.n)
			t = d->argv.v[++i];
		else if (!strncmp(w, "--target=", 9))
			t = w + 9;
		if (t) {
			target = true;
			rc = push_target(args, t, strlen(t), err);
		}
		for (size_t b = 0; !t && !rc && b < 4; b++)
			if (!strcmp(w, bits[b]))
				rc = ofl_argv_push(args, w, err);
	}
	/* a target prefix: the name's words before "clang" */
	const char *name = d->argv.n ? d->argv.v[0] : "";
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	const char *at = strstr(base, "-clang");
	if (rc || target || !at || d->kind != OFL_DRIVER_CLANG)
		return rc;
	return push_target(args, base, (size_t)(at - base), err);
}

int ofl_driver_default_configs(const struct ofl_driver *d, const char *triple, bool no_default,
                               struct ofl_argv *files, struct ofl_error *err)
{
	if (d->kind != OFL_DRIVER_CLANG || !d->exe || (d->llvm && d->llvm < 16) || no_default)
		return 0;
	const char *dirs[3] = {NULL, NULL, NULL};
	for (size_t i = 1; i < d->argv.n; i++) {
		const char *w = d->argv.v[i];
		if (!strcmp(w, "--no-default-config"))
			return 0;
		if (!strncmp(w, "--config-user-dir=", 18))
			dirs[0] = w + 18;
		else if (!strncmp(w, "--config-system-dir=", 20))
			dirs[1] = w + 20;
	}
	char *dir = ofl_strndup(d->exe, (size_t)(strrchr(d->exe, '/') - d->exe));
	if (!dir)
		return OFL_NOMEM(err);
	dirs[2] = dir;
	int rc = ofl_clang_default_configs(dirs, 3, ofl_driver_mode(d), triple, files, err);
	free(dir);
	return rc;
}
