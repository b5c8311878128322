/* The manifest of a device link's entry (devlink_cache.c, cache_priv.h):
 * the identity of every file the device linker said it read, after the
 * image, checked on every hit.  Its entries (the path as the linker named
 * it, made absolute, and the real path, each after its length; size and
 * modification time in seconds and nanoseconds: little-endian 32, bytes,
 * 32, bytes, 64, 64, 32 bits), their count and bytes (64 bits each) and the
 * magic "OFLMANI4".  The name is checked to lead to the same real path (a
 * link such as libomp.so moved to another version while the old one stays
 * is a miss).  No change time: an entry from the remote is checked on
 * another machine, where the same files were installed at another time. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/io.h"

#define MANIFEST_MAGIC "OFLMANI4"
#define TRAILER_SIZE 24

static bool is_keyed(const struct ofl_ptrs *keyed, const char *path)
{
	for (size_t i = 0; i < keyed->n; i++)
		if (!strcmp(keyed->v[i], path))
			return true;
	return false;
}

enum { ID_SIZE = 20 };

/* A file's identity as a manifest entry holds it. */
static void put_identity(uint8_t b[ID_SIZE], const struct stat *st)
{
	ofl_put_le64(b, (uint64_t)st->st_size);
	ofl_put_le64(b + 8, (uint64_t)st->st_mtim.tv_sec);
	ofl_put_le32(b + 16, (uint32_t)st->st_mtim.tv_nsec);
}

static int put_path(struct ofl_buf *m, const char *path)
{
	uint8_t b[4];
	ofl_put_le32(b, (uint32_t)strlen(path));
	return ofl_buf_append(m, b, 4) || ofl_buf_append(m, path, strlen(path)) ? -1 : 0;
}

/* A path put_path wrote, at *e before end, into out (PATH_MAX bytes);
 * false when the bytes do not hold one. */
static bool take_path(const uint8_t **e, const uint8_t *end, char *out)
{
	uint32_t len = (size_t)(end - *e) >= 4 ? ofl_le32(*e) : UINT32_MAX;
	if (len >= PATH_MAX || (size_t)(end - *e) - 4 < len)
		return false;
	memcpy(out, *e + 4, len);
	out[len] = '\0';
	*e += 4 + (size_t)len;
	return true;
}

/* One manifest entry for the file a word names, unless the key covers it
 * (keyed: real paths): 1 added, 0 not, -1 when it cannot stand for the
 * file.  Its identity now must be older than the command (started:
 * ccache's "file too new"), or a file that changed while it ran could be
 * recorded with bytes it did not read. */
static int add_entry(struct ofl_buf *m, const char *named, const struct ofl_ptrs *keyed,
                     const struct timespec *started)
{
	struct stat st;
	uint8_t b[ID_SIZE];
	char path[PATH_MAX], cwd[PATH_MAX], name[2 * PATH_MAX + 2];
	/* absolute: a relative one would be checked from another directory */
	if (!realpath(named, path) || (named[0] != '/' && !getcwd(cwd, sizeof(cwd))))
		return -1;
	if (is_keyed(keyed, path))
		return 0;
	if (named[0] == '/')
		snprintf(name, sizeof(name), "%s", named);
	else
		snprintf(name, sizeof(name), "%s/%s", cwd, named);
	if (strlen(name) >= PATH_MAX || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    !ofl_key_settled(&st, started) || put_path(m, name) || put_path(m, path))
		return -1;
	put_identity(b, &st);
	return ofl_buf_append(m, b, ID_SIZE) ? -1 : 1;
}

/* The manifest's end: its entry count, its length, the magic. */
static int put_trailer(struct ofl_buf *m, uint64_t count, uint64_t len)
{
	uint8_t t[TRAILER_SIZE];
	ofl_put_le64(t, count);
	ofl_put_le64(t + 8, len);
	memcpy(t + 16, MANIFEST_MAGIC, 8);
	return ofl_buf_append(m, t, sizeof(t));
}

int ofl_manifest_from_depfile(const char *depfile, const char *skip_dir,
                              const struct ofl_ptrs *keyed, const struct timespec *started,
                              struct ofl_buf *m)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct ofl_buf word = OFL_BUF_INIT;
	if (ofl_file_open_regular(&f, depfile, &ignored))
		return -1;
	size_t tl = strlen(skip_dir), start = m->len;
	uint64_t count = 0;
	bool target = true; /* the rule's target, before ':' */
	int rc = 0;
	for (size_t i = 0; i <= f.size && !rc; i++) {
		char c = i < f.size ? (char)f.data[i] : '\n';
		if (c == '\\' && i + 1 < f.size && f.data[i + 1] == '\n') {
			c = ' ', i++;
		} else if ((c == '\\' || c == '$') && i + 1 < f.size &&
		           (f.data[i + 1] == ' ' || f.data[i + 1] == '#' || f.data[i + 1] == '$')) {
			rc = ofl_buf_append(&word, &f.data[++i], 1);
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n') {
			rc = ofl_buf_append(&word, &c, 1);
			continue;
		}
		if (word.len && !target && !rc) {
			rc = ofl_buf_append(&word, "", 1);
			const char *w = (const char *)word.data;
			int added = rc || (!strncmp(w, skip_dir, tl) && w[tl] == '/')
			                ? 0
			                : add_entry(m, w, keyed, started);
			rc = added < 0 ? -1 : rc;
			count += added > 0;
		}
		target &= !(word.len && word.data[word.len - 1] == ':');
		word.len = 0;
		if (c == '\n' && !target)
			break; /* the rule's end: phony rules follow */
	}
	rc = rc || target || put_trailer(m, count, m->len - start) ? -1 : 0;
	ofl_buf_release(&word);
	ofl_file_close(&f);
	return rc;
}

int ofl_manifest_empty(struct ofl_buf *m)
{
	return put_trailer(m, 0, 0);
}

int64_t ofl_manifest_check(const uint8_t *p, size_t n)
{
	if (n < TRAILER_SIZE || memcmp(p + n - 8, MANIFEST_MAGIC, 8))
		return -1;
	uint64_t count = ofl_le64(p + n - 24), mlen = ofl_le64(p + n - 16);
	if (mlen > n - TRAILER_SIZE)
		return -1;
	const uint8_t *e = p + n - TRAILER_SIZE - mlen, *end = p + n - TRAILER_SIZE;
	char name[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
	for (uint64_t i = 0; i < count; i++) {
		struct stat st;
		uint8_t now[ID_SIZE];
		if (!take_path(&e, end, name) || !take_path(&e, end, path) ||
		    (size_t)(end - e) < ID_SIZE)
			return -1;
		/* the name still leads to the file, which is as it was */
		if (!realpath(name, real) || strcmp(real, path) || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			return -1;
		put_identity(now, &st);
		if (memcmp(now, e, ID_SIZE))
			return -1;
		e += ID_SIZE;
	}
	return e == end ? (int64_t)(n - TRAILER_SIZE - mlen) : -1;
}
