/* Archive reader and writer.  The writer is checked byte for byte against
 * llvm-ar 22 (`llvm-ar qcP --format=gnu`, deterministic by default; P keeps
 * the given names, q keeps duplicates); the reader against archives made by
 * GNU ar, `llvm-ar --format=bsd` and `ar rcT`.  A missing tool fails the test
 * when CI is set and skips it otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/archive.h"
#include "offlink/buf.h"
#include "offlink/error.h"

#define LLVM_AR "/usr/lib/llvm-22/bin/llvm-ar"
#define CLANG22 "/usr/lib/llvm-22/bin/clang"

/* True when the tool can run; otherwise fails under CI, else skips. */
static int have(const char *tool)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) == 0)
		return 1;
	if (getenv("CI")) {
		fprintf(stderr, "required tool missing: %s\n", tool);
		ofl_test_failed = 1;
	} else {
		fprintf(stderr, "skipped: %s not found\n", tool);
	}
	return 0;
}

static int sh(const char *cmd)
{
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *path, const void *p, size_t n)
{
	char dir[256];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		char cmd[300];
		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
		sh(cmd);
	}
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

/* Writes n members from files (names = paths) with both writers and compares
 * the bytes; returns 1 when identical.  $SYM64_THRESHOLD, when set, moves
 * the "/SYM64/" switch for both. */
static int same_as_llvm_ar(const char *const *names, size_t n)
{
	struct ofl_ar_input in[32];
	uint8_t *bufs[32];
	char cmd[4096] = "rm -f ref.a && " LLVM_AR " qcP --format=gnu ref.a";
	for (size_t i = 0; i < n; i++) {
		size_t len;
		bufs[i] = slurp(names[i], &len);
		in[i] = (struct ofl_ar_input){names[i], bufs[i], len};
		strcat(cmd, " '");
		strcat(cmd, names[i]);
		strcat(cmd, "'");
	}
	int ok = 0;
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	size_t rlen = 0;
	uint8_t *ref = NULL;
	if (sh(cmd) != 0)
		goto done;
	ref = slurp("ref.a", &rlen);
	const char *t = getenv("SYM64_THRESHOLD");
	uint64_t at = t ? strtoull(t, NULL, 10) : OFL_AR_SYM64_AT;
	if (ofl_archive_write_gnu_sym64(in, n, at, &out, &err) != 0) {
		fprintf(stderr, "write failed: %s\n", err.msg);
		goto done;
	}
	ok = ref && out.len == rlen && memcmp(out.data, ref, rlen) == 0;
	if (!ok) {
		spit("ours.a", out.data, out.len);
		fprintf(stderr, "differs from llvm-ar (%zu vs %zu bytes); see ours.a/ref.a\n",
		        out.len, rlen);
	}
done:
	for (size_t i = 0; i < n; i++)
		free(bufs[i]);
	free(ref);
	ofl_buf_release(&out);
	return ok;
}

static void put(const char *path, const char *s)
{
	spit(path, s, strlen(s));
}

OFL_TEST(write_empty_is_magic_only)
{
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_archive_write_gnu(NULL, 0, &out, &err) == 0);
	CHECK_EQ_U(out.len, 8);
	CHECK_MEM(out.data, "!<arch>\n", 8);
	ofl_buf_release(&out);
	if (!have(LLVM_AR))
		return;
	CHECK(same_as_llvm_ar(NULL, 0));
}

OFL_TEST(write_data_members_match_llvm_ar)
{
	if (!have(LLVM_AR))
		return;
	put("a", "abc");                       /* odd size */
	put("b.txt", "hello\n");               /* even size */
	put("fifteen_chars_x", "x");           /* 15 bytes: still short */
	put("sixteen_chars_xx", "yy");         /* 16 bytes: long */
	put("averyveryverylongname.txt", "z"); /* long, odd entry */
	put("empty", "");
	const char *names[] = {
	    "a",    "b.txt", "fifteen_chars_x", "sixteen_chars_xx", "averyveryverylongname.txt",
	    "empty"};
	CHECK(same_as_llvm_ar(names, 6));
	const char *one[] = {"a"};
	CHECK(same_as_llvm_ar(one, 1));
	/* A repeated long name is stored once in "//". */
	const char *dup[] = {"averyveryverylongname.txt", "a", "averyveryverylongname.txt"};
	CHECK(same_as_llvm_ar(dup, 3));
}

/* llvm-ar keeps only the file-name part of a path it is given, so names with
 * '/' are checked by letting llvm-ar re-write (qcL: add the members of an
 * archive) the archive we wrote: its writer must give the same bytes. */
OFL_TEST(write_names_with_slash_match_llvm_ar)
{
	if (!have(LLVM_AR))
		return;
	struct ofl_ar_input in[] = {
	    {"dir/in_dir", (const uint8_t *)"slash", 5},
	    {"a", (const uint8_t *)"abc", 3},
	    {"x/y", (const uint8_t *)"q", 1},
	    {"dir/in_dir", (const uint8_t *)"again", 5},
	};
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_archive_write_gnu(in, 4, &out, &err) == 0);
	/* "//" holds "dir/in_dir/\n" once and "x/y/\n", padded to even. */
	CHECK_MEM(out.data + 8, "//              ", 16);
	CHECK_MEM(out.data + 8 + 48, "18        `\n", 12);
	CHECK_MEM(out.data + 68, "dir/in_dir/\nx/y/\n\n", 18);
	spit("src.a", out.data, out.len);
	CHECK(sh("rm -f ref.a && " LLVM_AR " qcL --format=gnu ref.a src.a") == 0);
	size_t n;
	uint8_t *ref = slurp("ref.a", &n);
	CHECK(ref && n == out.len && !memcmp(ref, out.data, n));
	free(ref);
	ofl_buf_release(&out);
}

static const char c_src[] =
    "int gdata = 1;\n"
    "int gbss;\n"
    "static int sdata = 2;\n"
    "__attribute__((weak)) int wfunc(void) { return sdata; }\n"
    "extern int undef_fn(void);\n"
    "__attribute__((weak)) extern int weak_undef;\n"
    "__thread int tls_var;\n"
    "__attribute__((visibility(\"hidden\"))) int hidden_fn(void) { return 3; }\n"
    "static int local_fn(void) { return undef_fn() + weak_undef; }\n"
    "int gfunc(void) { return local_fn() + gdata; }\n";

static const char cxx_src[] = "template <class T> T twice(T x) { return x + x; }\n"
                              "inline int inl(int x) { static int n; return x + ++n; }\n"
                              "struct S { virtual ~S() {} virtual int f() { return 1; } };\n"
                              "int use(int x) { S s; return twice(x) + inl(x) + s.f(); }\n"
                              "namespace { int anon() { return 7; } }\n"
                              "int use2() { return anon(); }\n";

static const char asm_src[] = "\t.text\n"
                              "\t.globl gfunc2\n"
                              "gfunc2: ret\n"
                              "\t.globl gabs\n"
                              "\t.set gabs, 0x1234\n"
                              "\t.comm gcommon,8,8\n"
                              "\t.type uniq,@gnu_unique_object\n"
                              "\t.globl uniq\n"
                              "\t.data\n"
                              "uniq: .long 1\n"
                              "\t.type ifn,@gnu_indirect_function\n"
                              "\t.globl ifn\n"
                              "\t.text\n"
                              "ifn: ret\n";

OFL_TEST(write_elf_objects_match_llvm_ar)
{
	if (!have(LLVM_AR) || !have("cc"))
		return;
	put("c.c", c_src);
	put("s.s", asm_src);
	put("data.bin", "not an object\n");
	CHECK(sh("cc -c -O1 -fcommon c.c -o c.o && cc -c s.s -o s.o") == 0);
	CHECK(sh("cc -c -O1 -fcommon -m32 c.c -o c32.o 2>/dev/null || cp c.o c32.o") == 0);
	const char *names[] = {"data.bin", "c.o", "s.o", "c32.o"};
	CHECK(same_as_llvm_ar(names, 4));
	put("x.cc", cxx_src);
	if (have("c++")) {
		CHECK(sh("c++ -c -O0 x.cc -o long_cxx_object_name.o") == 0);
		const char *cx[] = {"long_cxx_object_name.o", "c.o"};
		CHECK(same_as_llvm_ar(cx, 2));
	}
	if (have(CLANG22 "++")) {
		CHECK(sh(CLANG22 "++ -c -O0 x.cc -o clangxx.o") == 0);
		const char *cx[] = {"clangxx.o"};
		CHECK(same_as_llvm_ar(cx, 1));
	}
}

OFL_TEST(write_openmp_offload_object_matches_llvm_ar)
{
	if (!have(LLVM_AR) || !have(CLANG22))
		return;
	put("omp.c", "int g = 1;\n"
	             "#pragma omp declare target\n"
	             "int dev(int x) { return x + 1; }\n"
	             "#pragma omp end declare target\n"
	             "int h(int *a) {\n"
	             "#pragma omp target map(tofrom : a[0:1])\n"
	             "  a[0] = dev(a[0]);\n"
	             "  return 0;\n"
	             "}\n");
	CHECK(sh(CLANG22 " -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o omp.o") == 0);
	const char *names[] = {"omp.o"};
	CHECK(same_as_llvm_ar(names, 1));
}

/* Other ELF classes, byte orders and machines, including the mapping-symbol
 * names LLVM leaves out of the index on AArch64, ARM and RISC-V. */
OFL_TEST(write_cross_target_objects_match_llvm_ar)
{
	if (!have(LLVM_AR) || !have(CLANG22))
		return;
	put("c.c", c_src);
	put("map.s", "\t.text\n\t.globl $x.glob\n$x.glob: nop\n\t.globl $dnot\n$dnot: nop\n"
	             "\t.globl real\nreal: nop\n\t.globl $t_th\n$t_th: nop\n");
	static const char *const targets[] = {"aarch64-linux-gnu", "armv7a-linux-gnueabihf",
	                                      "riscv64-linux-gnu", "powerpc64-linux-gnu",
	                                      "s390x-linux-gnu",   "i686-linux-gnu"};
	for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd,
		         CLANG22 " --target=%s -O1 -fcommon -c c.c -o c.o && " CLANG22
		                 " --target=%s -c map.s -o map.o",
		         targets[i], targets[i]);
		CHECK(sh(cmd) == 0);
		const char *names[] = {"c.o", "map.o"};
		if (!same_as_llvm_ar(names, 2)) {
			fprintf(stderr, "target %s\n", targets[i]);
			CHECK(0);
		}
	}
}

/* Shared objects are indexed from .symtab only: a stripped one adds an empty
 * index.  Bitcode without global definitions also gets the empty index (we
 * do not read bitcode symbols; llvm-ar would). */
OFL_TEST(write_shared_objects_and_plain_bitcode_match_llvm_ar)
{
	if (!have(LLVM_AR) || !have(CLANG22))
		return;
	put("c.c", c_src);
	put("nodefs.c", "static int s(void) { return 1; }\nvoid f(void);\n");
	CHECK(sh(CLANG22 " -shared -fPIC -nostdlib c.c -o libc1.so && cp libc1.so libc2.so && "
	                 "/usr/lib/llvm-22/bin/llvm-strip libc2.so && " CLANG22
	                 " -c -emit-llvm nodefs.c -o nodefs.bc") == 0);
	const char *so[] = {"libc1.so"};
	CHECK(same_as_llvm_ar(so, 1));
	const char *stripped[] = {"libc2.so"};
	CHECK(same_as_llvm_ar(stripped, 1));
	const char *bc[] = {"nodefs.bc"};
	CHECK(same_as_llvm_ar(bc, 1));
}

OFL_TEST(write_rejects_broken_elf_like_llvm_ar)
{
	/* llvm-ar refuses a member that claims to be ELF and is not. */
	uint8_t bad[40] = "\177ELF\002\001\001";
	bad[16] = 1;
	struct ofl_ar_input in = {"bad.o", bad, sizeof bad};
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_archive_write_gnu(&in, 1, &out, &err) == OFL_EFORMAT);
	CHECK(strstr(err.msg, "bad.o") != NULL);
	ofl_buf_release(&out);
	/* Shorter than 18 bytes it is not ELF to llvm-ar: plain data. */
	in.size = 17;
	CHECK(ofl_archive_write_gnu(&in, 1, &out, &err) == 0);
	CHECK_EQ_U(out.len, 8 + 60 + 18);
	ofl_buf_release(&out);
}

OFL_TEST(write_object_without_definitions_gets_empty_index)
{
	if (!have(LLVM_AR) || !have("cc"))
		return;
	put("u.s", ".long undefined_sym\n");
	put("d", "abc");
	CHECK(sh("cc -c u.s -o u.o") == 0);
	const char *names[] = {"d", "u.o"};
	CHECK(same_as_llvm_ar(names, 2));
	size_t n;
	uint8_t *p = slurp("ref.a", &n);
	CHECK(p && n > 76);
	/* "/" member of 8 bytes: count 0, then "\0\0\0" and one pad byte. */
	CHECK_MEM(p + 8, "/               ", 16);
	CHECK_MEM(p + 8 + 48, "8         ", 10);
	free(p);
}

OFL_TEST(write_sym64_when_threshold_crossed)
{
	if (!have(LLVM_AR) || !have("cc"))
		return;
	put("s.s", asm_src);
	put("d", "abcd");
	CHECK(sh("cc -c s.s -o s.o") == 0);
	const char *names[] = {"s.o", "d", "s.o"};
	/* The switch happens when the last member header, placed as with a
	 * 32-bit index, starts at or past the threshold: find that offset H
	 * in a 32-bit archive, then check H (64-bit) and H + 1 (32-bit). */
	unsetenv("SYM64_THRESHOLD");
	CHECK(same_as_llvm_ar(names, 3));
	size_t n;
	uint8_t *p = slurp("ref.a", &n);
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(p && ofl_archive_parse(p, n, &a, &err) == 0 && a.nmembers == 3);
	unsigned long long last = a.members[2].header_offset;
	ofl_archive_release(&a);
	free(p);
	for (int k = 0; k < 2; k++) {
		char t[32];
		snprintf(t, sizeof t, "%llu", last + (unsigned long long)k);
		setenv("SYM64_THRESHOLD", t, 1);
		int same = same_as_llvm_ar(names, 3);
		p = slurp("ref.a", &n);
		int is64 = p && n > 16 && !memcmp(p + 8, "/SYM64/ ", 8);
		int parsed = p && ofl_archive_parse(p, n, &a, &err) == 0 && a.nmembers == 3 &&
		             !strcmp(a.members[1].name, "d");
		ofl_archive_release(&a);
		free(p);
		unsetenv("SYM64_THRESHOLD");
		CHECK(same && parsed);
		CHECK(is64 == (k == 0));
	}
}

OFL_TEST(write_rejects_empty_name)
{
	struct ofl_ar_input in = {"", (const uint8_t *)"x", 1};
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_archive_write_gnu(&in, 1, &out, &err) == OFL_EINVAL);
	ofl_buf_release(&out);
}

/* Parses path and checks members against names and (when not thin) the
 * contents of the same-named files. */
static int parse_matches(const char *path, const char *const *names, size_t n, int thin)
{
	size_t len;
	uint8_t *p = slurp(path, &len);
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	int ok = p && ofl_archive_is(p, len) && ofl_archive_parse(p, len, &a, &err) == 0;
	if (!ok)
		fprintf(stderr, "%s: parse failed: %s at %llu\n", path, err.msg,
		        (unsigned long long)err.offset);
	ok = ok && a.thin == (thin != 0) && a.nmembers == n;
	for (size_t i = 0; ok && i < n; i++) {
		const struct ofl_ar_member *m = &a.members[i];
		size_t flen;
		uint8_t *f = slurp(names[i], &flen);
		ok = f && !strcmp(m->name, names[i]) && m->size == flen;
		if (ok && thin)
			ok = m->data == NULL;
		else if (ok)
			ok = m->data == p + m->data_offset && !memcmp(m->data, f, flen) &&
			     m->header_offset < m->data_offset;
		if (!ok)
			fprintf(stderr, "%s: member %zu (%s) mismatch\n", path, i, m->name);
		free(f);
	}
	if (ok && !thin && n > 0) {
		/* The last member ends the archive, up to its pad byte. */
		const struct ofl_ar_member *m = &a.members[n - 1];
		ok = m->data_offset + m->size + (m->size & 1) == len;
	}
	ofl_archive_release(&a);
	free(p);
	return ok;
}

static void make_inputs(void)
{
	put("a", "abc");
	put("b.txt", "hello\n");
	put("sixteen_chars_xx", "yy");
	put("averyveryverylongname.txt", "z");
	put("c.c", c_src);
}

OFL_TEST(parse_gnu_ar_archive)
{
	if (!have("ar") || !have("cc"))
		return;
	make_inputs();
	CHECK(sh("cc -c c.c -o c.o") == 0);
	CHECK(sh("rm -f g.a && ar rcs g.a a b.txt c.o sixteen_chars_xx "
	         "averyveryverylongname.txt") == 0);
	const char *names[] = {"a", "b.txt", "c.o", "sixteen_chars_xx",
	                       "averyveryverylongname.txt"};
	CHECK(parse_matches("g.a", names, 5, 0));
}

OFL_TEST(parse_llvm_ar_gnu_and_bsd_archives)
{
	if (!have(LLVM_AR) || !have("cc"))
		return;
	make_inputs();
	CHECK(sh("cc -c c.c -o c.o") == 0);
	const char *names[] = {"a", "c.o", "b.txt", "sixteen_chars_xx",
	                       "averyveryverylongname.txt"};
	CHECK(sh("rm -f l.a bsd.a && " LLVM_AR " rc --format=gnu l.a a c.o b.txt "
	         "sixteen_chars_xx averyveryverylongname.txt && " LLVM_AR
	         " rc --format=bsd bsd.a a c.o b.txt sixteen_chars_xx "
	         "averyveryverylongname.txt") == 0);
	CHECK(parse_matches("l.a", names, 5, 0));
	/* BSD: "__.SYMDEF" first, "#1/<len>" names stored before the data. */
	size_t n;
	uint8_t *p = slurp("bsd.a", &n);
	CHECK(p && n > 20 && !memcmp(p + 8, "#1/", 3));
	free(p);
	CHECK(parse_matches("bsd.a", names, 5, 0));
}

OFL_TEST(parse_thin_archive)
{
	if (!have("ar") || !have("cc"))
		return;
	make_inputs();
	CHECK(sh("rm -f t.a && ar rcT t.a a b.txt averyveryverylongname.txt") == 0);
	const char *names[] = {"a", "b.txt", "averyveryverylongname.txt"};
	CHECK(parse_matches("t.a", names, 3, 1));
	if (!have(LLVM_AR))
		return;
	/* llvm-ar puts every thin name in "//" and adds a "/" index. */
	CHECK(sh("cc -c c.c -o c.o && rm -f lt.a && " LLVM_AR
	         " rcT --format=gnu lt.a c.o a averyveryverylongname.txt") == 0);
	const char *lnames[] = {"c.o", "a", "averyveryverylongname.txt"};
	CHECK(parse_matches("lt.a", lnames, 3, 1));
}

OFL_TEST(parse_own_output_roundtrip)
{
	struct ofl_ar_input in[] = {
	    {"x", (const uint8_t *)"1", 1},
	    {"a/long/path/name.bc", (const uint8_t *)"22", 2},
	    {"short.o", (const uint8_t *)"", 0},
	};
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_archive_write_gnu(in, 3, &out, &err) == 0);
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	CHECK(ofl_archive_parse(out.data, out.len, &a, &err) == 0);
	CHECK_EQ_U(a.nmembers, 3);
	for (size_t i = 0; i < 3; i++) {
		CHECK_STR(a.members[i].name, in[i].name);
		CHECK_EQ_U(a.members[i].size, in[i].size);
		CHECK_MEM(a.members[i].data, in[i].data, in[i].size);
	}
	ofl_archive_release(&a);
	ofl_buf_release(&out);
}

/* A 60-byte header for hand-made archives. */
static void hdr(struct ofl_buf *b, const char *name, const char *size)
{
	ofl_buf_printf(b, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", name, "0", "0", "0", "644", size);
}

static void expect_error(struct ofl_buf *b, uint64_t offset, const char *msg_part)
{
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_archive_parse(b->data, b->len, &a, &err);
	if (rc != OFL_EFORMAT || err.offset != offset || !strstr(err.msg, msg_part)) {
		fprintf(stderr, "expected EFORMAT at %llu (%s), got %d at %llu: %s\n",
		        (unsigned long long)offset, msg_part, rc, (unsigned long long)err.offset,
		        err.msg);
		ofl_test_failed = 1;
	}
	CHECK(a.members == NULL && a.nmembers == 0);
	ofl_buf_reset(b);
}

OFL_TEST(parse_errors_have_offsets)
{
	struct ofl_buf b = OFL_BUF_INIT;
	ofl_buf_append_str(&b, "!<arcX>\n");
	expect_error(&b, 0, "bad magic");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "a/", "2");
	b.data[b.len - 2] = '\'';
	ofl_buf_append_str(&b, "xx");
	expect_error(&b, 8, "terminator");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "a/", "2");
	ofl_buf_append_str(&b, "xx");
	hdr(&b, "b/", "1x");
	ofl_buf_append_str(&b, "y\n");
	expect_error(&b, 70, "bad member size");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "a/", "");
	expect_error(&b, 8, "bad member size");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "a/", "1");
	ofl_buf_append_str(&b, "x\n");
	hdr(&b, "b/", "100");
	ofl_buf_append_str(&b, "short");
	expect_error(&b, 70, "past the end");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "a/", "2");
	ofl_buf_append_str(&b, "xx");
	ofl_buf_append_str(&b, "b/   truncated");
	expect_error(&b, 70, "truncated");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "//", "8");
	ofl_buf_append_str(&b, "long/\n\n\n");
	hdr(&b, "/0", "1");
	ofl_buf_append_str(&b, "x\n");
	hdr(&b, "/8", "1");
	ofl_buf_append_str(&b, "x\n");
	expect_error(&b, 8 + 68 + 62, "past the '//' table");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "/0", "1");
	ofl_buf_append_str(&b, "x\n");
	expect_error(&b, 8, "without a '//' table");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "/zz", "1");
	ofl_buf_append_str(&b, "x\n");
	expect_error(&b, 8, "bad long member name");

	ofl_buf_append_str(&b, "!<arch>\n");
	hdr(&b, "#1/20", "4");
	ofl_buf_append_str(&b, "name");
	expect_error(&b, 8, "BSD member name length");

	ofl_buf_append_str(&b, "!<thin>\n");
	hdr(&b, "#1/4", "4");
	expect_error(&b, 8, "thin archive");

	/* Thin: the member data are absent, but tables must fit. */
	ofl_buf_append_str(&b, "!<thin>\n");
	hdr(&b, "//", "50");
	expect_error(&b, 8, "past the end");
	ofl_buf_release(&b);
}

OFL_TEST(parse_accepts_missing_final_pad_and_empty)
{
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_archive a = OFL_ARCHIVE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	ofl_buf_append_str(&b, "!<arch>\n");
	CHECK(ofl_archive_parse(b.data, b.len, &a, &err) == 0 && a.nmembers == 0);
	hdr(&b, "odd.txt/", "3");
	ofl_buf_append_str(&b, "abc");
	CHECK(ofl_archive_parse(b.data, b.len, &a, &err) == 0);
	CHECK_EQ_U(a.nmembers, 1);
	CHECK_STR(a.members[0].name, "odd.txt");
	CHECK_EQ_U(a.members[0].data_offset, 68);
	CHECK_EQ_U(a.members[0].header_offset, 8);
	ofl_archive_release(&a);
	CHECK(!ofl_archive_is(b.data, 7));
	ofl_buf_release(&b);
}
