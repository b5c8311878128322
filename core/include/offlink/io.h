/* Input mapping and atomic output.
 *
 * Inputs are mapped read-only (or read into memory for streams: pipes,
 * character devices and "-"), so parsers work on views without copying.
 * Outputs go to a temporary file in the destination directory and are
 * renamed into place by ofl_out_commit; ofl_out_abort (or a failed commit)
 * removes the temporary, so no output is ever left half-written.
 */
#ifndef OFFLINK_IO_H
#define OFFLINK_IO_H

#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

struct ofl_buf;

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_file {
	const uint8_t *data; /* size bytes; valid until ofl_file_close */
	size_t size;
	int fd;       /* open descriptor, or -1 (stdin, in-memory) */
	int mapped;   /* 1: mmap; 0: malloc (owned); -1: borrowed */
	uint64_t dev; /* identity, to refuse writing over an input */
	uint64_t ino;
	char *path; /* owned copy of the name used to open it */
};

#define OFL_FILE_INIT                                                                              \
	{                                                                                          \
		NULL, 0, -1, 0, 0, 0, NULL                                                         \
	}

/* The most a stream gives: more is an error (a device may never end). */
#define OFL_STREAM_MAX ((size_t)1 << 30)

/* Opens and maps path.  "-" (standard input), a pipe and a character
 * device (/dev/null, clang's host input of a HIP fat binary) are read to
 * their end, up to OFL_STREAM_MAX; a block device is refused. */
int ofl_file_open(struct ofl_file *f, const char *path, struct ofl_error *err);
/* The same for a file named by an input (a thin archive member): only a
 * regular file, whose size is known before reading, is opened; a FIFO is
 * no wait. */
int ofl_file_open_regular(struct ofl_file *f, const char *path, struct ofl_error *err);
void ofl_file_close(struct ofl_file *f);
/* mkdir -p: each missing level of path made with mode (the kernel applies
 * the umask); an error names the level that could not be made. */
int ofl_mkdirs(const char *path, unsigned mode, struct ofl_error *err);
/* The bytes of b as f's own (b left empty): one type for bytes read,
 * mapped or made. */
void ofl_file_adopt(struct ofl_file *f, struct ofl_buf *b);
/* Keeps the first n bytes of f (n <= its size): the pages of a mapping
 * past them are given back. */
void ofl_file_truncate(struct ofl_file *f, size_t n);
/* The offset of p[0..n) in f's bytes, or -1 when f is NULL or the bytes
 * lie elsewhere (built in memory): where a copy from the file can start. */
int64_t ofl_file_offset_of(const struct ofl_file *f, const uint8_t *p, uint64_t n);

/* Says the bytes of f before upto will not be read again: a mapped file
 * gives their pages back (they would be read from the file again if
 * touched), so a front-to-back reader's memory does not grow with the
 * input.  Other files are left as they are. */
void ofl_file_done_before(const struct ofl_file *f, uint64_t upto);

/* size bytes at off of an open descriptor (a linker plugin's view of an
 * input), mapped where the descriptor is a regular file holding them (no
 * copy: only the pages touched are read), else read into memory; fd stays
 * the caller's. */
int ofl_file_read_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, const char *path,
                        struct ofl_error *err);
/* The same, always read into memory: for a file that another machine may
 * remove or shorten under a mapping (NFS), which would fault it. */
int ofl_file_copy_range(struct ofl_file *f, int fd, uint64_t off, uint64_t size, const char *path,
                        struct ofl_error *err);

struct ofl_out {
	int fd;
	int to_stdout;
	char *path;
	char *tmp_path;
	uint64_t written;
};

#define OFL_OUT_INIT                                                                               \
	{                                                                                          \
		-1, 0, NULL, NULL, 0                                                               \
	}

/* Starts an output ("-" is standard output, written directly); an
 * existing output must be a regular file (it is renamed over). */
int ofl_out_open(struct ofl_out *o, const char *path, struct ofl_error *err);
int ofl_out_write(struct ofl_out *o, const void *p, size_t n, struct ofl_error *err);
int ofl_out_zeros(struct ofl_out *o, uint64_t n, struct ofl_error *err);
/* Appends len bytes of src starting at off: a mapped file is copied from
 * its descriptor (in the kernel where it can, else through a fixed buffer),
 * so its pages are never touched and memory stays bounded. */
int ofl_out_copy(struct ofl_out *o, const struct ofl_file *src, uint64_t off, uint64_t len,
                 struct ofl_error *err);
int ofl_out_commit(struct ofl_out *o, struct ofl_error *err);
void ofl_out_abort(struct ofl_out *o);

/* Writes a whole buffer atomically. */
int ofl_write_file(const char *path, const void *p, size_t n, struct ofl_error *err);

/* Makes a name read from an input (member name, triple, bundle ID) safe
 * as one component of an output file name: '/' becomes '_', and "." or
 * ".." becomes underscores.  Other names are left as LLVM writes them. */
void ofl_name_flatten(char *s);

/* Outputs written together, all or none: each is written to its temporary
 * file as usual, then staged here instead of committed; ofl_outset_commit
 * renames them all at the end, ofl_outset_abort removes them all.  (A
 * rename that fails midway leaves the outputs renamed before it; the rest
 * are removed.) */
struct ofl_outset {
	struct ofl_out *v;
	size_t n, cap;
};

#define OFL_OUTSET_INIT                                                                            \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Commits o now when set is NULL, else moves it into set (closing its
 * descriptor); either way o is reset, and aborted on error. */
int ofl_out_finish(struct ofl_out *o, struct ofl_outset *set, struct ofl_error *err);
/* ofl_write_file, staged in set (committed at once when set is NULL). */
int ofl_outset_write_file(struct ofl_outset *set, const char *path, const void *p, size_t n,
                          struct ofl_error *err);
int ofl_outset_commit(struct ofl_outset *set, struct ofl_error *err);
void ofl_outset_abort(struct ofl_outset *set);

/* 1 when path names an existing file with the same identity as f. */
int ofl_file_is(const struct ofl_file *f, const char *path);

/* 1 when both paths name the same existing file (device and inode), so a
 * front end can refuse an output that would replace one of its inputs. */
int ofl_same_file(const char *a, const char *b);

/* Reads the first n bytes of the file at path into buf (a peek at its
 * kind: ELF header, "#!"); true only when there were n to read.  Opens
 * without blocking, so a FIFO is no wait. */
bool ofl_file_head(const char *path, void *buf, size_t n);

/* The file open as fd is on a local file system where the kernel alone
 * sets a file's change time, to the time of any change, and a file
 * removed while mapped stays readable: ext2/3/4, XFS, Btrfs, tmpfs (the
 * four ccache's inode cache trusts), and a writable overlay whose
 * identity for the file is persistent (all layers on one file system, as
 * a container's usually are; docs/design.md, "Device-link cache").
 * Elsewhere (NFS: another client's removal faults a mapping) the
 * device-link cache maps nothing and remembers nothing by a file's
 * identity. */
bool ofl_fs_kernel_ctime(int fd);

OFL_API_END

#ifdef __cplusplus
}
#endif
#endif
