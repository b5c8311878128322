/* The compiler driver that started a link (offlink/driver.h). */
#include "offlink/driver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (d->kind == OFL_DRIVER_CLANG && !(d->llvm = release_in_path(exe)))
		d->llvm = release_of_resources(exe);
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
