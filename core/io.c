#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/io.h"

static int read_all_fd(int fd, struct ofl_file *f, const char *path, struct ofl_error *err)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *p = ofl_malloc(cap);
	if (!p)
		return OFL_NOMEM(err);
	for (;;) {
		if (len == cap) {
			uint8_t *q = ofl_realloc(p, cap * 2);
			if (!q) {
				free(p);
				return OFL_NOMEM(err);
			}
			p = q;
			cap *= 2;
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
	for (uint64_t got = 0; got < n;) {
		ssize_t r = pread(fd, p + got, (size_t)(n - got), (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? ofl_error_errno(err, path, "cannot read")
			             : ofl_error_set(err, OFL_EIO, path, got, "file ends early");
		got += (uint64_t)r;
	}
	return 0;
}

static int read_small(struct ofl_file *f, const char *path, struct ofl_error *err)
{
	int rc = pread_all(f, f->fd, 0, f->size, path, err);
	if (rc)
		ofl_file_close(f);
	return rc;
}

int ofl_file_read_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, const char *path,
                        struct ofl_error *err)
{
	*f = (struct ofl_file)OFL_FILE_INIT;
	if (!(f->path = ofl_strdup(path)))
		return OFL_NOMEM(err);
	int rc = pread_all(f, fd, off, size, path, err);
	if (rc)
		ofl_file_close(f);
	return rc;
}

int ofl_file_open(struct ofl_file *f, const char *path, struct ofl_error *err)
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
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

void ofl_file_close(struct ofl_file *f)
{
	if (f->mapped == 1)
		munmap((void *)f->data, f->size);
	else if (f->mapped == 0)
		free((void *)f->data);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	*f = (struct ofl_file)OFL_FILE_INIT;
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

static mode_t default_mode(void)
{
	mode_t um = umask(0);
	umask(um);
	return 0666 & ~um;
}

int ofl_out_open(struct ofl_out *o, const char *path, struct ofl_error *err)
{
	*o = (struct ofl_out)OFL_OUT_INIT;
	if (strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		o->to_stdout = 1;
		return 0;
	}
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
	snprintf(o->tmp_path, n, "%.*s.%s.ofl-XXXXXX", (int)dirlen, path, base);
	o->fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (o->fd < 0) {
		int rc = ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET,
		                       "cannot create output: %s", strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		ofl_out_abort(o);
		return rc;
	}
	if (fchmod(o->fd, default_mode()) < 0) {
		int rc = ofl_error_errno(err, path, "cannot set mode");
		ofl_out_abort(o);
		return rc;
	}
	return 0;
}

int ofl_out_write(struct ofl_out *o, const void *p, size_t n, struct ofl_error *err)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = write(o->fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return ofl_error_errno(err, o->path ? o->path : "-", "cannot write");
		c += w;
		n -= (size_t)w;
		o->written += (uint64_t)w;
	}
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

/* copy_file_range lets the kernel share or copy pages without a round trip
 * through user space; it is refused across file systems on older kernels,
 * in which case we fall back to writing from the mapping. */
static int try_copy_range(struct ofl_out *o, int in_fd, uint64_t off, uint64_t *len)
{
	loff_t in_off = (loff_t)off;
	while (*len) {
		ssize_t c = copy_file_range(in_fd, &in_off, o->fd, NULL, (size_t)*len, 0);
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0)
			return -1;
		*len -= (uint64_t)c;
		o->written += (uint64_t)c;
	}
	return 0;
}

int ofl_out_copy(struct ofl_out *o, const struct ofl_file *src, uint64_t off, uint64_t len,
                 struct ofl_error *err)
{
	if (!ofl_range_ok(off, len, src->size))
		return ofl_error_set(err, OFL_EINVAL, src->path, off, "copy past end of file");
	uint64_t left = len;
	if (src->fd >= 0 && !o->to_stdout && len >= 65536 &&
	    try_copy_range(o, src->fd, off, &left) == 0)
		return 0;
	return ofl_out_write(o, src->data + off + (len - left), (size_t)left, err);
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
	struct ofl_out o;
	int rc = ofl_out_open(&o, path, err);
	if (rc)
		return rc;
	rc = ofl_out_write(&o, p, n, err);
	if (rc) {
		ofl_out_abort(&o);
		return rc;
	}
	return ofl_out_commit(&o, err);
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
