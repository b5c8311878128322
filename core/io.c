#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/io.h"

/* Reads a stream (pipe, FIFO, character device, standard input) to its
 * end: its size is not known before, and a device may never end
 * (/dev/zero), so it stops at OFL_STREAM_MAX. */
static int read_all_fd(int fd, struct ofl_file *f, const char *path, struct ofl_error *err)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *p = ofl_malloc(cap);
	if (!p)
		return OFL_NOMEM(err);
	for (;;) {
		if (len == cap) {
			if (cap > OFL_STREAM_MAX) {
				free(p);
				return ofl_error_set(err, OFL_EIO, path, OFL_STREAM_MAX,
				                     "stream larger than 1 GiB");
			}
			/* one byte past the bound tells that the stream goes on */
			size_t grown = cap < OFL_STREAM_MAX / 2 ? cap * 2 : OFL_STREAM_MAX + 1;
			uint8_t *q = ofl_realloc(p, grown);
			if (!q) {
				free(p);
				return OFL_NOMEM(err);
			}
			p = q;
			cap = grown;
		}
		ssize_t r = read(fd, p + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(p);
			return ofl_error_errno(err, path, "cannot read");
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	f->data = p;
	f->size = len;
	f->mapped = 0;
	return 0;
}

enum { SMALL_FILE = 64 * 1024 };

/* n bytes at off of fd into a new buffer, as f's (owned) data. */
static int pread_all(struct ofl_file *f, int fd, uint64_t off, uint64_t n, const char *path,
                     struct ofl_error *err)
{
	uint8_t *p = n <= SIZE_MAX ? ofl_malloc((size_t)n) : NULL;
	if (!p)
		return OFL_NOMEM(err);
	f->data = p;
	f->size = (size_t)n;
	f->mapped = 0;
	size_t got;
	if (!ofl_fd_pread_all(fd, p, (size_t)n, off, &got))
		return 0;
	return errno ? ofl_error_errno(err, path, "cannot read")
	             : ofl_error_set(err, OFL_EIO, path, got, "file ends early");
}

static int read_small(struct ofl_file *f, const char *path, struct ofl_error *err)
{
	int rc = pread_all(f, f->fd, 0, f->size, path, err);
	if (rc)
		ofl_file_close(f);
	return rc;
}

/* The page a mapped file's bytes start in: a range is mapped from the page
 * holding its first byte. */
static uint8_t *map_base(const struct ofl_file *f)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return (uint8_t *)((uintptr_t)f->data & ~(page - 1));
}

/* Maps a range of a regular file that holds it whole: pages are read
 * only when touched, so a plugin that looks at an object's headers alone
 * costs the linker no copy of it.  false when it cannot (then read). */
static bool map_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size)
{
	struct stat st;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = off & ~(page - 1);
	if (!size || fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < off ||
	    (uint64_t)st.st_size - off < size || size > SIZE_MAX - page)
		return false;
	void *m =
	    mmap(NULL, (size_t)(size + off - start), PROT_READ, MAP_PRIVATE, fd, (off_t)start);
	if (m == MAP_FAILED)
		return false;
	f->data = (const uint8_t *)m + (off - start);
	f->size = (size_t)size;
	f->mapped = 1;
	return true;
}

static int range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, bool map,
                 const char *path, struct ofl_error *err)
{
	*f = (struct ofl_file)OFL_FILE_INIT;
	if (!(f->path = ofl_strdup(path)))
		return OFL_NOMEM(err);
	if (map && map_range(f, fd, off, size))
		return 0;
	int rc = pread_all(f, fd, off, size, path, err);
	if (rc)
		ofl_file_close(f);
	return rc;
}

int ofl_file_read_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, const char *path,
                        struct ofl_error *err)
{
	return range(f, fd, off, size, true, path, err);
}

int ofl_file_copy_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, const char *path,
                        struct ofl_error *err)
{
	return range(f, fd, off, size, false, path, err);
}

static int open_file(struct ofl_file *f, const char *path, bool regular, struct ofl_error *err)
{
	*f = (struct ofl_file)OFL_FILE_INIT;
	f->path = ofl_strdup(path);
	if (!f->path)
		return OFL_NOMEM(err);
	if (strcmp(path, "-") == 0) {
		int rc = read_all_fd(STDIN_FILENO, f, path, err);
		if (rc)
			ofl_file_close(f);
		return rc;
	}
	/* only a regular file is taken: any other (a FIFO) is not opened, as
	 * opening it would let its writer go on (and the tool that reads it
	 * after wait for ever), nor waited for (one made there since) */
	struct stat st;
	if (regular && !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		ofl_file_close(f);
		return ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET, "not a regular file");
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | (regular ? O_NONBLOCK : 0));
	if (fd < 0 || fstat(fd, &st) < 0) {
		int rc = ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET, "%s", strerror(errno));
		if (err)
			err->sys_errno = errno;
		if (fd >= 0)
			close(fd);
		ofl_file_close(f);
		return rc;
	}
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		ofl_file_close(f);
		return ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET, "is a directory");
	}
	if (!S_ISREG(st.st_mode) && (regular || S_ISBLK(st.st_mode))) {
		close(fd);
		ofl_file_close(f);
		return ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET, "not a regular file");
	}
	if (!S_ISREG(st.st_mode)) {
		int rc = read_all_fd(fd, f, path, err);
		close(fd);
		if (rc)
			ofl_file_close(f);
		return rc;
	}
	f->fd = fd;
	f->size = (size_t)st.st_size;
	if (f->size == 0) {
		f->data = (const uint8_t *)"";
		f->mapped = -1;
		return 0;
	}
	/* small files (most objects of a link) cost less read than mapped:
	 * no munmap, no page faults */
	if (f->size <= SMALL_FILE)
		return read_small(f, path, err);
	void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		int rc = ofl_error_errno(err, path, "cannot map");
		ofl_file_close(f);
		return rc;
	}
	f->data = m;
	f->mapped = 1;
	return 0;
}

int ofl_file_open(struct ofl_file *f, const char *path, struct ofl_error *err)
{
	return open_file(f, path, false, err);
}

int ofl_file_open_regular(struct ofl_file *f, const char *path, struct ofl_error *err)
{
	return open_file(f, path, true, err);
}

int64_t ofl_file_offset_of(const struct ofl_file *f, const uint8_t *p, uint64_t n)
{
	if (!f || !p || p < f->data || p > f->data + f->size)
		return -1;
	size_t off = (size_t)(p - f->data);
	return n <= f->size - off ? (int64_t)off : -1;
}

void ofl_file_adopt(struct ofl_file *f, struct ofl_buf *b)
{
	*f = (struct ofl_file)OFL_FILE_INIT;
	f->mapped = b->len ? 0 : -1; /* owned, or a borrowed "" */
	f->data = b->len ? ofl_buf_detach(b, &f->size) : (const uint8_t *)"";
	ofl_buf_release(b);
}

void ofl_file_truncate(struct ofl_file *f, size_t n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t keep = ((uintptr_t)f->data + n + page - 1) & ~(page - 1),
	          end = ((uintptr_t)f->data + f->size + page - 1) & ~(page - 1);
	if (n >= f->size)
		return;
	if (f->mapped == 1 && end > keep)
		munmap((void *)keep, end - keep);
	f->size = n;
}

void ofl_file_close(struct ofl_file *f)
{
	size_t mapped = f->mapped == 1 ? f->size + (size_t)(f->data - map_base(f)) : 0;
	if (mapped)
		munmap(map_base(f), mapped);
	else if (f->mapped == 0)
		free((void *)f->data);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	*f = (struct ofl_file)OFL_FILE_INIT;
}

void ofl_file_done_before(const struct ofl_file *f, uint64_t upto)
{
	if (f->mapped != 1 || upto > f->size)
		return;
	/* only whole pages before upto go */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint8_t *base = map_base(f);
	size_t len = (size_t)(((uintptr_t)f->data + upto) & ~(page - 1)) - (size_t)(uintptr_t)base;
	if (len)
		madvise(base, len, MADV_DONTNEED);
}

int ofl_file_is(const struct ofl_file *f, const char *path)
{
	struct stat st;
	if (!f->path || strcmp(f->path, "-") == 0 || stat(path, &st) < 0)
		return 0;
	return (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino;
}

int ofl_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!strcmp(a, "-") || !strcmp(b, "-") || stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ofl_mkdirs(const char *path, unsigned mode, struct ofl_error *err)
{
	char *p = ofl_strdup(path);
	if (!p)
		return OFL_NOMEM(err);
	int rc = 0;
	for (char *s = *p ? p + 1 : p; !rc; s++) {
		bool end = !*s;
		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (*p && mkdir(p, (mode_t)mode) && errno != EEXIST)
			rc = ofl_error_errno(err, p, "cannot create");
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return rc;
}

/* Creates "<dir>.<base>.ofl-XXXXXX" with mode 0666, which the kernel
 * narrows by the umask (and a directory's default ACL) as for any new file:
 * asking umask() would change it for a moment under the linker's threads. */
static int open_temp(char *tmp, size_t n, const char *path, size_t dirlen, const char *base)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	for (int attempt = 0; attempt < 100; attempt++) {
		uint8_t r[6];
		char suffix[sizeof r + 1];
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			return -1;
		for (size_t i = 0; i < sizeof r; i++)
			suffix[i] = digits[r[i] % 36];
		suffix[sizeof r] = 0;
		snprintf(tmp, n, "%.*s.%s.ofl-%s", (int)dirlen, path, base, suffix);
		int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int ofl_out_open(struct ofl_out *o, const char *path, struct ofl_error *err)
{
	*o = (struct ofl_out)OFL_OUT_INIT;
	if (strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		o->to_stdout = 1;
		return 0;
	}
	/* renamed over, a device or FIFO would become a file (root's
	 * -output=/dev/null would replace the device) */
	struct stat st;
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET,
		                     "cannot create output: not a regular file");
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	size_t n = dirlen + strlen(base) + 32;
	o->tmp_path = ofl_malloc(n);
	o->path = ofl_strdup(path);
	if (!o->tmp_path || !o->path) {
		ofl_out_abort(o);
		return OFL_NOMEM(err);
	}
	o->fd = open_temp(o->tmp_path, n, path, dirlen, base);
	if (o->fd < 0) {
		int rc = ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET,
		                       "cannot create output: %s", strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		ofl_out_abort(o);
		return rc;
	}
	return 0;
}

bool ofl_file_head(const char *path, void *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t got = 0;
	if (fd < 0)
		return false;
	bool ok = !ofl_fd_pread_all(fd, buf, n, 0, &got) && got == n;
	close(fd);
	return ok;
}

int ofl_fd_pread_all(int fd, void *p, size_t n, uint64_t off, size_t *got)
{
	size_t done = 0;
	int rc = 0;
	while (done < n) {
		ssize_t r = pread(fd, (uint8_t *)p + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errno = r < 0 ? errno : 0;
			rc = -1;
			break;
		}
		done += (size_t)r;
	}
	if (got)
		*got = done;
	return rc;
}

int ofl_fd_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int ofl_out_write(struct ofl_out *o, const void *p, size_t n, struct ofl_error *err)
{
	if (ofl_fd_write_all(o->fd, p, n))
		return ofl_error_errno(err, o->path ? o->path : "-", "cannot write");
	o->written += n;
	return 0;
}

int ofl_out_zeros(struct ofl_out *o, uint64_t n, struct ofl_error *err)
{
	static const uint8_t zeros[4096];
	while (n) {
		size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
		int rc = ofl_out_write(o, zeros, k, err);
		if (rc)
			return rc;
		n -= k;
	}
	return 0;
}

/* copy_file_range lets the kernel share blocks (reflink, NFS server-side
 * copy) or copy without a round trip through user space.  Advances *in
 * and, when out is given, *out, else the output's position.  0 when all
 * was copied. */
static int copy_in_kernel(int in_fd, loff_t *in, int out_fd, loff_t *out, uint64_t *left)
{
	while (*left) {
		ssize_t c = copy_file_range(in_fd, in, out_fd, out, (size_t)*left, 0);
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0)
			return -1;
		*left -= (uint64_t)c;
	}
	return 0;
}

/* Through a fixed buffer, so memory does not grow with the input. */
static int copy_buffered(int in_fd, loff_t *in, int out_fd, loff_t *out, uint64_t *left)
{
	enum { CHUNK = 1 << 20 };
	uint8_t *buf = ofl_malloc(CHUNK);
	if (!buf)
		return -1;
	int rc = 0;
	while (!rc && *left) {
		ssize_t r = pread(in_fd, buf, *left < CHUNK ? (size_t)*left : CHUNK, *in);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -1 : 1;
			break;
		}
		for (ssize_t w = 0, c; !rc && w < r; w += c) {
			c = out ? pwrite(out_fd, buf + w, (size_t)(r - w), *out + w)
			        : write(out_fd, buf + w, (size_t)(r - w));
			if (c < 0 && errno == EINTR)
				c = 0;
			else if (c <= 0)
				rc = -1;
		}
		if (rc)
			break;
		*in += r;
		if (out)
			*out += r;
		*left -= (uint64_t)r;
	}
	free(buf);
	return rc;
}

/* The kernel copies page by page: where input and output pages do not line
 * up, each page is written into two, and a 128 MiB copy on ext4 takes 65 ms
 * against 40 ms through a 1 MiB buffer; aligned, both take ~35 ms. */
static bool pages_line_up(uint64_t in_off, int out_fd, const uint64_t *out_off)
{
	off_t pos = out_off ? (off_t)*out_off : lseek(out_fd, 0, SEEK_CUR);
	return pos < 0 || (in_off - (uint64_t)pos) % 4096 == 0;
}

int ofl_fd_copy(int in_fd, uint64_t in_off, int out_fd, uint64_t *out_off, uint64_t len,
                uint64_t *done)
{
	loff_t in = (loff_t)in_off, out = out_off ? (loff_t)*out_off : 0;
	loff_t *po = out_off ? &out : NULL;
	uint64_t left = len;
	int rc = 0;
	/* across file systems (EXDEV) or into a pipe the buffer takes over */
	if (!pages_line_up(in_off, out_fd, out_off) ||
	    copy_in_kernel(in_fd, &in, out_fd, po, &left))
		rc = copy_buffered(in_fd, &in, out_fd, po, &left);
	*done = len - left;
	if (out_off)
		*out_off = (uint64_t)out;
	return rc;
}

int ofl_out_copy(struct ofl_out *o, const struct ofl_file *src, uint64_t off, uint64_t len,
                 struct ofl_error *err)
{
	if (!ofl_range_ok(off, len, src->size))
		return ofl_error_set(err, OFL_EINVAL, src->path, off, "copy past end of file");
	/* bytes already in memory, or few of them: one write */
	if (src->fd < 0 || src->mapped != 1 || len < 65536)
		return ofl_out_write(o, src->data + off, (size_t)len, err);
	uint64_t done = 0;
	int rc = ofl_fd_copy(src->fd, off, o->fd, NULL, len, &done);
	o->written += done;
	if (rc > 0)
		return ofl_error_set(err, OFL_EIO, src->path, off + done, "file ends early");
	return rc ? ofl_error_errno(err, o->path ? o->path : "-", "cannot write") : 0;
}

int ofl_out_commit(struct ofl_out *o, struct ofl_error *err)
{
	int rc = 0;
	if (o->to_stdout) {
		*o = (struct ofl_out)OFL_OUT_INIT;
		return 0;
	}
	if (close(o->fd) < 0)
		rc = ofl_error_errno(err, o->path, "cannot write");
	o->fd = -1;
	if (!rc && rename(o->tmp_path, o->path) < 0)
		rc = ofl_error_set(err, OFL_EIO, o->path, OFL_NO_OFFSET, "cannot create output: %s",
		                   strerror(errno));
	if (rc) {
		ofl_out_abort(o);
		return rc;
	}
	free(o->tmp_path);
	free(o->path);
	*o = (struct ofl_out)OFL_OUT_INIT;
	return 0;
}

void ofl_out_abort(struct ofl_out *o)
{
	if (o->fd >= 0 && !o->to_stdout)
		close(o->fd);
	if (o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	free(o->path);
	*o = (struct ofl_out)OFL_OUT_INIT;
}

int ofl_write_file(const char *path, const void *p, size_t n, struct ofl_error *err)
{
	return ofl_outset_write_file(NULL, path, p, n, err);
}

void ofl_name_flatten(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		memset(s, '_', strlen(s));
}

int ofl_out_finish(struct ofl_out *o, struct ofl_outset *set, struct ofl_error *err)
{
	if (!set || o->to_stdout)
		return ofl_out_commit(o, err);
	int rc = 0;
	if (close(o->fd) < 0)
		rc = ofl_error_errno(err, o->path, "cannot write");
	o->fd = -1;
	if (!rc && OFL_GROW(set->v, set->cap, set->n))
		rc = OFL_NOMEM(err);
	if (rc) {
		ofl_out_abort(o);
		return rc;
	}
	set->v[set->n++] = *o;
	*o = (struct ofl_out)OFL_OUT_INIT;
	return 0;
}

int ofl_outset_write_file(struct ofl_outset *set, const char *path, const void *p, size_t n,
                          struct ofl_error *err)
{
	struct ofl_out o;
	int rc = ofl_out_open(&o, path, err);
	if (rc)
		return rc;
	rc = ofl_out_write(&o, p, n, err);
	if (rc) {
		ofl_out_abort(&o);
		return rc;
	}
	return ofl_out_finish(&o, set, err);
}

int ofl_outset_commit(struct ofl_outset *set, struct ofl_error *err)
{
	int rc = 0;
	size_t renamed = 0;
	while (renamed < set->n && !rc) {
		struct ofl_out *o = &set->v[renamed];
		if (rename(o->tmp_path, o->path) < 0)
			rc = ofl_error_set(err, OFL_EIO, o->path, OFL_NO_OFFSET,
			                   "cannot create output: %s", strerror(errno));
		else
			renamed++;
	}
	for (size_t j = 0; j < set->n; j++) {
		if (j < renamed) { /* nothing left to remove */
			free(set->v[j].tmp_path);
			set->v[j].tmp_path = NULL;
		}
		ofl_out_abort(&set->v[j]);
	}
	free(set->v);
	*set = (struct ofl_outset)OFL_OUTSET_INIT;
	return rc;
}

void ofl_outset_abort(struct ofl_outset *set)
{
	for (size_t i = 0; i < set->n; i++)
		ofl_out_abort(&set->v[i]);
	free(set->v);
	*set = (struct ofl_outset)OFL_OUTSET_INIT;
}

/* A file of an overlay whose identity lasts as an ext4 file's does (the
 * kernel's overlayfs.rst, "Inode properties"; docs/design.md).  The
 * overlay is writable: a read-only one may be all images, whose times
 * are the image's.  The file reports the overlay's device, as its folder
 * does: only with all layers on one file system or with xino is st_dev
 * uniform, and only then is st_ino persistent, across copy-up and
 * remounts (elsewhere a file shows its layer's device and inode, which
 * copy-up changes, of a file system not seen here).  Its inode number has
 * none of the high bits where xino writes a layer's index (a lower layer
 * on another file system: the index names another layer in another mount
 * of the same device number): it is a file of the upper layer's file
 * system, which sets change times itself (NFS cannot be an upper). */
static bool overlay_identity(int fd, const struct statfs *fs)
{
	char link[64], path[PATH_MAX];
	struct stat f, dir;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if ((fs->f_flags & ST_RDONLY) || n <= 0 || n >= (ssize_t)sizeof(path) - 1 || fstat(fd, &f))
		return false;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	*(slash == path ? slash + 1 : slash) = '\0';
	return !stat(path, &dir) && dir.st_dev == f.st_dev && (uint64_t)f.st_ino >> 48 == 0;
}

bool ofl_fs_kernel_ctime(int fd)
{
	struct statfs fs;
	if (fstatfs(fd, &fs))
		return false;
	switch (fs.f_type) {
	case EXT4_SUPER_MAGIC: /* and ext2, ext3 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
		return true;
	case OVERLAYFS_SUPER_MAGIC:
		return overlay_identity(fd, &fs);
	default:
		return false;
	}
}
