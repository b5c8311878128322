#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/buf.h"
#include "offlink/io.h"

/* A plugin is handed fd + offset + size (an archive member inside the
 * archive); a front end a path.  Both give the same bytes. */
OFL_TEST(io_range_of_fd_and_path)
{
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_write_file("a", "headMEMBERtail", 14, &e), 0);
	int fd = open("a", O_RDONLY);
	CHECK(fd >= 0);
	struct ofl_file r, p;
	CHECK_EQ_U(ofl_file_read_range(&r, fd, 4, 6, "a(m.o)", &e), 0);
	CHECK_EQ_U(r.size, 6);
	CHECK_MEM(r.data, "MEMBER", 6);
	CHECK_STR(r.path, "a(m.o)");
	ofl_file_close(&r);
	CHECK(fcntl(fd, F_GETFD) >= 0); /* the descriptor stays the caller's */
	CHECK_EQ_U(ofl_file_open(&p, "a", &e), 0);
	CHECK_EQ_U(p.size, 14);
	CHECK_MEM(p.data + 4, "MEMBER", 6);
	ofl_file_close(&p);
	/* a range past the end of the file */
	CHECK_EQ_U(ofl_file_read_range(&r, fd, 10, 6, "a(m.o)", &e), OFL_EIO);
	CHECK_STR(e.msg, "file ends early");
	CHECK_EQ_U(e.offset, 4);
	close(fd);
}

/* A range of a regular file is mapped, not copied (a plugin must not
 * double the linker's memory): from any offset, also past the first page,
 * and the file's other pages are never touched. */
OFL_TEST(io_range_is_mapped)
{
	struct ofl_error e = OFL_ERROR_INIT;
	static uint8_t big[3 * 4096 + 100];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	CHECK_EQ_U(ofl_write_file("big", big, sizeof(big), &e), 0);
	int fd = open("big", O_RDONLY);
	CHECK(fd >= 0);
	struct ofl_file r;
	for (uint64_t off = 0; off < 2 * 4096 + 10; off += 4093) {
		CHECK_EQ_U(ofl_file_read_range(&r, fd, off, 4096 + 50, "big(m.o)", &e), 0);
		CHECK_EQ_U(r.mapped, 1);
		CHECK_MEM(r.data, big + off, 4096 + 50);
		ofl_file_done_before(&r, 4096 + 10);
		CHECK_MEM(r.data, big + off, 4096 + 50); /* read back from the file */
		ofl_file_close(&r);
	}
	/* an empty range maps nothing */
	CHECK_EQ_U(ofl_file_read_range(&r, fd, 5, 0, "big(e.o)", &e), 0);
	CHECK_EQ_U(r.size, 0);
	ofl_file_close(&r);
	close(fd);
}

/* Outputs get the mode any new file gets under the process's umask. */
OFL_TEST(io_output_mode_follows_umask)
{
	struct ofl_error e = OFL_ERROR_INIT;
	mode_t old = umask(027);
	int rc = ofl_write_file("o", "x", 1, &e);
	umask(old);
	CHECK_EQ_U(rc, 0);
	struct stat st;
	CHECK(stat("o", &st) == 0);
	CHECK_EQ_U(st.st_mode & 07777, 0640);
}

/* Writers copy an image from its file only when its bytes lie there. */
OFL_TEST(io_offset_of_bytes_in_a_file)
{
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_write_file("b", "0123456789", 10, &e), 0);
	struct ofl_file f;
	CHECK_EQ_U(ofl_file_open(&f, "b", &e), 0);
	CHECK(ofl_file_offset_of(&f, f.data + 3, 7) == 3);
	CHECK(ofl_file_offset_of(&f, f.data + 10, 0) == 10);
	CHECK(ofl_file_offset_of(&f, f.data + 3, 8) == -1); /* runs past the end */
	CHECK(ofl_file_offset_of(&f, (const uint8_t *)"0123", 4) == -1);
	CHECK(ofl_file_offset_of(NULL, f.data, 1) == -1);
	ofl_file_close(&f);
}

/* Keeping the head of a mapped file gives back the pages past it; the
 * rest stays readable and closes cleanly. */
OFL_TEST(io_truncate_unmaps_the_tail)
{
	struct ofl_error e = OFL_ERROR_INIT;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	size_t n = 4 * page;
	uint8_t *big = malloc(n);
	CHECK(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (uint8_t)(i * 13);
	CHECK_EQ_U(ofl_write_file("t", big, n, &e), 0);
	int fd = open("t", O_RDONLY);
	CHECK(fd >= 0);
	struct ofl_file r;
	CHECK_EQ_U(ofl_file_read_range(&r, fd, 32, n - 32, "t", &e), 0);
	CHECK_EQ_U(r.mapped, 1);
	uint8_t *last = (uint8_t *)(((uintptr_t)r.data + r.size - 1) & ~(page - 1));
	unsigned char in;
	CHECK(!mincore(last, 1, &in));
	ofl_file_truncate(&r, 100);
	CHECK_EQ_U(r.size, 100);
	CHECK_MEM(r.data, big + 32, 100);
	CHECK(mincore(last, 1, &in) && errno == ENOMEM); /* unmapped */
	ofl_file_truncate(&r, 200);                      /* never grows */
	CHECK_EQ_U(r.size, 100);
	ofl_file_close(&r);
	close(fd);
	free(big);
}

/* Bytes made in memory become a file's own, freed when it closes. */
OFL_TEST(io_adopt_takes_a_buffer)
{
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_file f;
	CHECK_EQ_U(ofl_buf_append(&b, "made", 4), 0);
	ofl_file_adopt(&f, &b);
	CHECK(!b.data && !b.len);
	CHECK_EQ_U(f.mapped, 0); /* owned: freed on close */
	CHECK_EQ_U(f.size, 4);
	CHECK_MEM(f.data, "made", 4);
	ofl_file_truncate(&f, 2);
	CHECK_EQ_U(f.size, 2);
	ofl_file_close(&f);
	ofl_file_adopt(&f, &b); /* nothing: an empty file */
	CHECK_EQ_U(f.size, 0);
	ofl_file_close(&f);
}

/* A character device is read as a stream: /dev/null is clang's host
 * input of every HIP fat binary; /dev/zero never ends and stops at the
 * bound, with the bytes read given back. */
OFL_TEST(io_character_devices_are_streams)
{
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_file f;
	CHECK_EQ_U(ofl_file_open(&f, "/dev/null", &e), 0);
	CHECK_EQ_U(f.size, 0);
	ofl_file_close(&f);
	CHECK_EQ_U(ofl_file_open(&f, "/dev/zero", &e), OFL_EIO);
	CHECK_STR(e.msg, "stream larger than 1 GiB");
	CHECK_EQ_U(e.offset, OFL_STREAM_MAX);
	CHECK(f.data == NULL && f.path == NULL);
	/* a thin member, whose size is read first, must be a regular file */
	struct ofl_error e2 = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_file_open_regular(&f, "/dev/null", &e2), OFL_EIO);
	CHECK_STR(e2.msg, "not a regular file");
	/* nor a FIFO, which is no wait for a writer */
	ofl_error_clear(&e2);
	CHECK(mkfifo("fifo", 0600) == 0);
	CHECK_EQ_U(ofl_file_open_regular(&f, "fifo", &e2), OFL_EIO);
	CHECK_STR(e2.msg, "not a regular file");
}

/* ofl_file_head: the first bytes only when there are that many; a FIFO
 * with no writer is no wait, a missing file no bytes. */
OFL_TEST(file_head_peeks)
{
	struct ofl_error e = OFL_ERROR_INIT;
	char h[16] = {0}; /* room for the 11 asked of a 10-byte file */
	CHECK(ofl_write_file("s", "#!/bin/sh\n", 10, &e) == 0);
	CHECK(ofl_file_head("s", h, 2) && h[0] == '#' && h[1] == '!');
	CHECK(!ofl_file_head("s", h, 11));
	CHECK(!ofl_file_head("absent", h, 2));
	CHECK(mkfifo("fifo", 0600) == 0);
	CHECK(!ofl_file_head("fifo", h, 2));
}
