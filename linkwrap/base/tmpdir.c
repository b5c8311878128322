/* A link's temporaries (tmpdir.h): one directory, $TMPDIR/offlink-XXXXXX,
 * made on first use and removed whole when the link ends, files the device
 * links made in it included.  Its `owner` file names the process that made it (pid, start
 * time, boot, pid namespace), so that a later link can tell the directory
 * of a link that was killed (SIGKILL, or any signal in the plugin, which
 * installs no handler) from one in use, and remove it: leftovers cannot
 * pile up. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tmpdir.h"

#define OWNER "owner"
#define KEPT "kept\n"            /* the owner of a directory save_temps keeps */
#define NO_OWNER_AGE (24 * 3600) /* seconds before a directory without one is stale */

/* Up to n - 1 bytes of a small file, NUL-terminated; false when it cannot
 * be read (or is no regular file, or with mine, not one of ours). */
static bool read_small(int dfd, const char *path, bool mine, char *buf, size_t n)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	ssize_t got = -1;
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && (!mine || st.st_uid == geteuid()))
		got = read(fd, buf, n - 1);
	if (fd >= 0)
		close(fd);
	buf[got > 0 ? got : 0] = '\0';
	return got >= 0;
}

/* The start time of process pid ("self" or a number) in clock ticks since
 * boot, 0 when it is gone or a zombie (it can remove nothing any more). */
static unsigned long long start_time(const char *pid)
{
	char path[64], stat[1024];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	/* after the command name, which may hold anything, in parentheses:
	 * field 3 is the state, field 22 the start time */
	const char *p =
	    read_small(AT_FDCWD, path, false, stat, sizeof(stat)) ? strrchr(stat, ')') : NULL;
	char state = 0;
	unsigned long long start = 0;
	if (!p || sscanf(p + 1,
	                 " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
	                 "%*s %*s %*s %llu",
	                 &state, &start) != 2)
		return 0;
	return state == 'Z' || state == 'X' ? 0 : start;
}

/* What tells this boot and pid namespace: "<boot id> <pid:[inode]>";
 * false when /proc cannot say (then no owner is judged). */
static bool here(char *buf, size_t n)
{
	char boot[64] = "", ns[64] = "";
	read_small(AT_FDCWD, "/proc/sys/kernel/random/boot_id", false, boot, sizeof(boot));
	ssize_t k = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
	ns[k > 0 ? k : 0] = '\0';
	int blen = (int)strcspn(boot, "\n");
	snprintf(buf, n, "%.*s %s", blen, boot, ns);
	return blen && k > 0;
}

static void write_owner(const char *dir, const char *where)
{
	char path[4096], line[256];
	snprintf(path, sizeof(path), "%s/" OWNER, dir);
	int n =
	    snprintf(line, sizeof(line), "%d %llu %s\n", (int)getpid(), start_time("self"), where);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

/* Whether the link that made directory dfd is gone: a process with its
 * pid and start time no longer runs in this boot.  Another pid namespace's
 * process cannot be looked up: kept.  No owner file (a link between mkdtemp
 * and writing it, an older offlink's): stale once old. */
static bool owner_gone(int dfd, const struct stat *st, const char *where)
{
	char line[256], pid[32], boot_ns[160];
	unsigned long long start;
	if (!read_small(dfd, OWNER, true, line, sizeof(line)))
		return errno == ENOENT && st->st_mtime < time(NULL) - NO_OWNER_AGE;
	if (sscanf(line, "%31s %llu %159[^\n]", pid, &start, boot_ns) != 3 ||
	    strspn(pid, "0123456789") != strlen(pid))
		return false; /* kept, or not ours to judge */
	size_t boot_len = strcspn(where, " ");
	if (strncmp(boot_ns, where, boot_len) || boot_ns[boot_len] != ' ')
		return true; /* made before a reboot */
	return !strcmp(boot_ns, where) && start_time(pid) != start;
}

/* The directory name in dfd, opened without following a symbolic link;
 * NULL when it is none. */
static DIR *open_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Removes name in directory dfd and, when it is a directory, what it
 * holds, never following a symbolic link (unlinkat, openat O_NOFOLLOW). */
static void remove_tree(int dfd, const char *name, int depth)
{
	if (!unlinkat(dfd, name, 0) || errno == ENOENT)
		return;
	DIR *d = depth < 16 ? open_dir(dfd, name) : NULL;
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			remove_tree(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static bool link_dir_name(const char *s)
{
	return !strncmp(s, "offlink-", 8) && strlen(s) == 14 &&
	       strspn(s + 8, "abcdefghijklmnopqrstuvwxyz"
	                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                     "0123456789") == 6;
}

/* A directory of dead link name in tmp (a descriptor): a real directory
 * of ours, opened without following links, whose owner is gone. */
static bool stale(int tmp, const char *name, const char *where)
{
	struct stat st, st2;
	if (!link_dir_name(name) || fstatat(tmp, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	int fd = openat(tmp, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool gone = fd >= 0 && !fstat(fd, &st2) && st2.st_ino == st.st_ino &&
	            st2.st_dev == st.st_dev && owner_gone(fd, &st2, where);
	if (fd >= 0)
		close(fd);
	return gone;
}

/* The directories links that were killed left in tmpdir. */
static void sweep(const char *tmpdir, const char *where)
{
	/* $TMPDIR itself may be a link (to a RAM disk, say) */
	DIR *d = opendir(tmpdir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (stale(dirfd(d), e->d_name, where))
			remove_tree(dirfd(d), e->d_name, 0);
	closedir(d);
}

int ofl_tmpdir_make(const char *parent, char **dir, struct ofl_error *err)
{
	char *d = NULL;
	if (asprintf(&d, "%s/offlink-XXXXXX", parent) < 0)
		return OFL_NOMEM(err);
	char where[160];
	bool known = here(where, sizeof(where));
	if (known)
		sweep(parent, where);
	if (!mkdtemp(d)) {
		int rc = ofl_error_errno(err, parent, "cannot make a temporary directory");
		free(d);
		return rc;
	}
	if (known)
		write_owner(d, where);
	*dir = d;
	return 0;
}

void ofl_tmpdir_remove(const char *parent, const char *dir, bool keep)
{
	if (keep) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/" OWNER, dir);
		int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, KEPT, strlen(KEPT));
			close(fd);
		}
		return;
	}
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		remove_tree(fd, strrchr(dir, '/') + 1, 0);
		close(fd);
	}
}
