/* What the loader reads to start a program (linkwrap/base/loads.c), as
 * glibc's loader finds it: a library's folders in its order (DT_RPATH of
 * the objects that loaded it, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN,
 * the loader's cache, the system folders), each place looked at first and
 * found empty said, and the choices the loader makes by the CPU (a folder's
 * glibc-hwcaps/, a cache entry's hwcaps) said as unknown; the cache read
 * from its bytes. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "../../linkwrap/base/loads.h"

static int sh(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		fprintf(stderr, "failed: %s\n", cmd);
	return rc;
}

/* A loader cache of n entries (flags, name, path, hwcaps), into buf;
 * its size. */
struct entry {
	int32_t flags;
	const char *name, *path;
	uint64_t hwcap;
};
static size_t make_cache(uint8_t *buf, const struct entry *e, size_t n)
{
	size_t head = 48 + 24 * n, s = head;
	memset(buf, 0, head);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	buf[20] = (uint8_t)n;
	buf[28] = 2;
	for (size_t i = 0; i < n; i++) {
		uint8_t *r = buf + 48 + 24 * i;
		memcpy(r, &e[i].flags, 4);
		uint32_t k = (uint32_t)s, v;
		s += strlen(strcpy((char *)buf + s, e[i].name)) + 1;
		v = (uint32_t)s;
		s += strlen(strcpy((char *)buf + s, e[i].path)) + 1;
		memcpy(r + 4, &k, 4);
		memcpy(r + 8, &v, 4);
		memcpy(r + 16, &e[i].hwcap, 8);
	}
	return s;
}

OFL_TEST(ldcache_lookup)
{
	static uint8_t buf[1024];
	const int32_t abi = ofl_ldcache_abi();
	const struct entry e[] = {{abi, "libz.so.1", "/v3/libz.so.1", (1ull << 62) | 1},
	                          {abi, "libz.so.1", "/lib/libz.so.1", 0},
	                          {abi ^ 0x0f00, "libc.so.6", "/other/libc.so.6", 0},
	                          {abi, "libc.so.6", "/lib/libc.so.6", 0}};
	size_t n = make_cache(buf, e, 4);
	struct ofl_ldcache c;
	const char *path = NULL;
	CHECK(ofl_ldcache_read(buf, n, abi, &c) == 0 && c.n == 4);
	/* this ABI's entry, not another's */
	CHECK(ofl_ldcache_lookup(&c, "libc.so.6", &path) == 0 && !strcmp(path, "/lib/libc.so.6"));
	CHECK(ofl_ldcache_lookup(&c, "libm.so.6", &path) == 1 && !path);
	/* a glibc-hwcaps entry: the loader picks by the CPU */
	CHECK(ofl_ldcache_lookup(&c, "libz.so.1", &path) == 2);
	/* not a cache: another magic, more entries than bytes */
	buf[0] = 'G';
	CHECK(ofl_ldcache_read(buf, n, abi, &c) == 1);
	buf[0] = 'g';
	buf[20] = 200;
	CHECK(ofl_ldcache_read(buf, n, abi, &c) == 1);
}

struct seen {
	char what[64][512];
	size_t n;
};

static int note(void *ctx, enum ofl_load_kind kind, const char *path, const char *why)
{
	static const char *const kinds[] = {"file", "looked", "cache", "missing", "unknown"};
	struct seen *s = ctx;
	(void)why;
	if (s->n < 64)
		snprintf(s->what[s->n++], sizeof(s->what[0]), "%s %s", kinds[kind], path);
	return 0;
}

/* s has "<kind> <path>" whose path ends with tail, at or after index from;
 * its index, or -1. */
static long has(const struct seen *s, const char *kind, const char *tail, size_t from)
{
	for (size_t i = from; i < s->n; i++) {
		size_t k = strlen(kind), t = strlen(tail), n = strlen(s->what[i]);
		if (!strncmp(s->what[i], kind, k) && s->what[i][k] == ' ' && n >= t &&
		    !strcmp(s->what[i] + n - t, tail))
			return (long)i;
	}
	return -1;
}

/* prog needs libb.so, which needs liba.so: prog's DT_RPATH has a/ (RPATH is
 * searched for its libraries' needs too); b's folder is prog's $ORIGIN/b. */
OFL_TEST(loads_as_the_loader_finds)
{
	CHECK(sh("mkdir -p a b ld && echo 'int fa(void){return 1;}' >a.c && "
	         "echo 'int fa(void); int fb(void){return fa();}' >b.c && "
	         "echo 'int fb(void); int main(void){return fb();}' >m.c && "
	         "cc -shared -fPIC a.c -o a/liba.so && "
	         "cc -shared -fPIC b.c -La -la -o b/libb.so && "
	         "cc m.c -Lb -lb -Wl,-rpath-link,a -Wl,--disable-new-dtags "
	         "-Wl,-rpath,'$ORIGIN/b:$ORIGIN/a' -o prog") == 0);
	struct seen s = {.n = 0};
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_program_loads("prog", NULL, note, &s, &err) == 0);
	CHECK(has(&s, "file", "prog", 0) == 0);
	long b = has(&s, "file", "/b/libb.so", 0), a = has(&s, "file", "/a/liba.so", 0);
	CHECK(b > 0 && a > b);
	/* b/ looked at for liba.so before a/ had it (prog's RPATH, for libb's
	 * need), and each folder's CPU subfolders */
	CHECK(has(&s, "looked", "/b/liba.so", (size_t)b) > b);
	CHECK(has(&s, "looked", "/a/glibc-hwcaps", 0) >= 0);
	CHECK(has(&s, "cache", "/etc/ld.so.cache", 0) > 0 ||
	      has(&s, "looked", "/etc/ld.so.cache", 0) > 0);
	CHECK(has(&s, "file", "libc.so.6", 0) > 0);
	/* LD_LIBRARY_PATH comes after the RPATH: its copy of liba.so is not
	 * taken */
	CHECK(sh("cp a/liba.so ld/") == 0);
	s.n = 0;
	CHECK(ofl_program_loads("prog", "ld", note, &s, &err) == 0);
	CHECK(has(&s, "file", "ld/liba.so", 0) < 0 && has(&s, "file", "/a/liba.so", 0) > 0);
	/* a FIFO where liba.so is looked for first: passed over, no wait for a
	 * writer */
	CHECK(mkfifo("b/liba.so", 0600) == 0);
	s.n = 0;
	CHECK(ofl_program_loads("prog", NULL, note, &s, &err) == 0);
	long fifo = has(&s, "file", "/b/liba.so", 0);
	CHECK(fifo > 0 && has(&s, "file", "/a/liba.so", (size_t)fifo) > fifo);
	CHECK(unlink("b/liba.so") == 0);
	/* a folder with glibc-hwcaps/: the loader's choice by the CPU */
	CHECK(sh("mkdir -p b/glibc-hwcaps") == 0);
	s.n = 0;
	CHECK(ofl_program_loads("prog", "ld", note, &s, &err) == 0);
	CHECK(has(&s, "unknown", "/b/glibc-hwcaps", 0) > 0);
}
