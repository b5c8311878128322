/* The link context's contract with its front ends (offlink/link.h). */
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/buf.h"
#include "offlink/io.h"
#include "offlink/link.h"
#include "offlink/offload_binary.h"

/* An OffloadBinary file holding one image for the x86_64 host device. */
static void write_obin(const char *path)
{
	const char *k[2] = {"triple", "arch"}, *v[2] = {"x86_64-pc-linux-gnu", ""};
	struct ofl_obin_image im = {
	    OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"img", 3, 2, k, v};
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_obin_write(&im, &b, &e) || ofl_write_file(path, b.data, b.len, &e))
		abort();
	ofl_buf_release(&b);
}

/* A context links once: the plugin loaded twice by gold would run it
 * twice over the same state (memory corruption before); a second run, and
 * an input added after the run, are errors. */
OFL_TEST(link_runs_once)
{
	struct ofl_link_opts o = {0};
	o.jobserver_rfd = o.jobserver_wfd = -1;
	o.dry_run = true;
	o.tmpdir = ".";
	struct ofl_link *l = NULL;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_link_plan p;
	write_obin("a.obin");
	CHECK_EQ_U(ofl_link_new(&l, &o, &e), 0);
	struct ofl_link_input in = {"a.obin", -1, 0, 0, false, 0, false};
	CHECK_EQ_U(ofl_link_add(l, &in, &e), 0);
	CHECK(ofl_link_has_device_code(l));
	CHECK_EQ_U(ofl_link_plan(l, &p, &e), 0);
	CHECK_EQ_U(ofl_link_execute(l, &p, &e), 0);
	CHECK_EQ_U(p.res.nobjects, 1);
	CHECK_EQ_U(ofl_link_execute(l, &p, &e), OFL_EINVAL);
	CHECK(strstr(e.msg, "ran already") != NULL);
	ofl_error_clear(&e);
	CHECK_EQ_U(ofl_link_plan(l, &p, &e), OFL_EINVAL);
	CHECK(strstr(e.msg, "planned already") != NULL);
	ofl_error_clear(&e);
	CHECK_EQ_U(ofl_link_add(l, &in, &e), OFL_EINVAL);
	/* a group that never linked holds no descriptor: 0 is not closed */
	int probe = open("/dev/null", O_RDONLY), zero = dup2(probe, 0);
	ofl_link_free(l);
	CHECK(zero == 0 && fcntl(0, F_GETFD) >= 0);
	close(probe);
}

/* What the session logs, for the decisions' reasons. */
static void keep_log(void *ctx, enum ofl_link_log what, const char *msg)
{
	struct ofl_buf *b = ctx;
	if (what == OFL_LOG_DECISION)
		ofl_buf_printf(b, "%s\n", msg);
}

static struct ofl_link_opts session_opts(const struct ofl_ldcmd *c, struct ofl_buf *log)
{
	struct ofl_link_opts o = {0};
	o.jobserver_rfd = o.jobserver_wfd = -1;
	o.dry_run = true;
	o.tmpdir = ".";
	o.host_cmd = c;
	o.log = keep_log;
	o.log_ctx = log;
	return o;
}

/* A session's inputs are the host command line's; without one it does
 * not start (a front end would else decide on its own). */
OFL_TEST(link_session_needs_command_line)
{
	struct ofl_link_opts o = session_opts(NULL, NULL);
	struct ofl_link *l = (struct ofl_link *)&o;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_link_open(&l, &o, &e), OFL_EINVAL);
	CHECK(l == NULL);
	CHECK(strstr(e.msg, "command line is not known") != NULL);
}

/* The inputs come from the command line; a hint naming one of them adds
 * nothing, a hint naming another file adds it as the host linker's choice;
 * the plan adds one wrapper object. */
OFL_TEST(link_session_hints_and_plan)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_buf log = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	char *argv[] = {"a.obin", "-o", "out"};
	write_obin("a.obin");
	write_obin("b.obin");
	CHECK_EQ_U(ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, 3, argv, NULL, &e), 0);
	struct ofl_link_opts o = session_opts(&c, &log);
	struct ofl_link *l = NULL;
	CHECK_EQ_U(ofl_link_open(&l, &o, &e), 0);
	int fa = open("a.obin", O_RDONLY), fb = open("b.obin", O_RDONLY);
	struct ofl_link_input a = {"a.obin", fa, 0,   (uint64_t)lseek(fa, 0, SEEK_END),
	                           false,    0,  true};
	struct ofl_link_input b = {"b.obin", fb, 0,   (uint64_t)lseek(fb, 0, SEEK_END),
	                           false,    0,  true};
	CHECK_EQ_U(ofl_link_hint(l, &a, &e), 0);
	CHECK_EQ_U(ofl_link_hint(l, &b, &e), 0);
	close(fa);
	close(fb);
	struct ofl_link_plan p;
	CHECK_EQ_U(ofl_link_plan(l, &p, &e), 0);
	CHECK_EQ_U(p.action, OFL_PLAN_ADD);
	CHECK_EQ_U(ofl_link_execute(l, &p, &e), 0);
	CHECK_EQ_U(p.res.nobjects, 1);
	const char *text = (const char *)log.data;
	CHECK(text && strstr(text, "a.obin: device code taken: an object of the link"));
	CHECK(text && strstr(text, "b.obin: device code taken: the host linker chose it"));
	CHECK(text && strstr(text, "2 image(s)"));
	ofl_link_free(l);
	ofl_ldcmd_release(&c);
	ofl_buf_release(&log);
}

/* Without device code the host link is left as it is; a fat binary for
 * output cannot be made of nothing. */
OFL_TEST(link_session_plan_without_device_code)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	char *argv[] = {"plain.txt"};
	FILE *f = fopen("plain.txt", "w");
	CHECK(f != NULL);
	fputs("not an object\n", f);
	fclose(f);
	CHECK_EQ_U(ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, 1, argv, NULL, &e), 0);
	struct ofl_link_opts o = session_opts(&c, NULL);
	o.log = NULL;
	struct ofl_link *l = NULL;
	struct ofl_link_plan p;
	CHECK_EQ_U(ofl_link_open(&l, &o, &e), 0);
	CHECK_EQ_U(ofl_link_plan(l, &p, &e), 0);
	CHECK_EQ_U(p.action, OFL_PLAN_UNCHANGED);
	ofl_link_free(l);
	o.emit_fatbin = true;
	CHECK_EQ_U(ofl_link_open(&l, &o, &e), 0);
	CHECK_EQ_U(ofl_link_plan(l, &p, &e), OFL_EINVAL);
	CHECK(strstr(e.msg, "Expected a single bundled image") != NULL);
	ofl_link_free(l);
	ofl_ldcmd_release(&c);
}

/* Which links are the pipeline's: those with inputs, not a plain ld -r. */
OFL_TEST(link_wanted)
{
	static char *lines[][3] = {{"a.o", NULL}, {"-r", "a.o", NULL}, {"--version", NULL}};
	static const bool want[] = {true, false, false}, with_reloc[] = {true, true, false};
	for (size_t i = 0; i < 3; i++) {
		struct ofl_ldcmd c = OFL_LDCMD_INIT;
		struct ofl_error e = OFL_ERROR_INIT;
		int n = lines[i][1] ? 2 : 1;
		CHECK_EQ_U(ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, n, lines[i], NULL, &e), 0);
		CHECK(ofl_link_wanted(&c, false) == want[i]);
		CHECK(ofl_link_wanted(&c, true) == with_reloc[i]);
		ofl_ldcmd_release(&c);
	}
}

/* libk.a(k.o): k() and an OffloadBinary in a non-allocated
 * .llvm.offloading section, as clang leaves device code in a host object. */
static int make_kernel_archive(void)
{
	write_obin("k.obin");
	return system("printf 'int k(void) { return 1; }\\n' >k.c && cc -fPIC -c k.c && "
	              "objcopy --add-section .llvm.offloading=k.obin k.o && ar rcs libk.a k.o");
}

/* The decisions a session over the command line argv logs (a dry run). */
static int plan_log(int argc, char **argv, struct ofl_buf *log)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_link_opts o = session_opts(&c, log);
	struct ofl_link *l = NULL;
	struct ofl_link_plan p;
	int rc = ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, argc, argv, NULL, &e);
	rc = rc ? rc : ofl_link_open(&l, &o, &e);
	rc = rc ? rc : ofl_link_plan(l, &p, &e);
	if (rc)
		fprintf(stderr, "%s\n", e.msg);
	ofl_buf_append(log, "", 1);
	ofl_link_free(l);
	ofl_ldcmd_release(&c);
	return rc;
}

/* The entry point is undefined from the start, as -u's symbol: ld pulls
 * the member defining it, so its device code is taken, in every spelling
 * of -e that ld accepts. */
OFL_TEST(link_select_entry_symbol)
{
	static char *lines[][4] = {{"-e", "k", "libk.a", NULL},
	                           {"-ek", "libk.a", NULL},
	                           {"--entry=k", "libk.a", NULL},
	                           {"--entry", "k", "libk.a", NULL}};
	CHECK(make_kernel_archive() == 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct ofl_buf log = OFL_BUF_INIT;
		int n = 0;
		while (lines[i][n])
			n++;
		CHECK_EQ_U(plan_log(n, lines[i], &log), 0);
		if (!strstr((const char *)log.data,
		            "libk.a(k.o): device code taken: the host link pulls it for 'k'"))
			fprintf(stderr, "%s: %s", lines[i][0], (const char *)log.data);
		CHECK(strstr((const char *)log.data, "pulls it for 'k'"));
		ofl_buf_release(&log);
	}
}

/* A shared object's undefined symbol pulls the archive member defining it,
 * as in GNU ld, gold and lld: libuse.so calls k(), which only libk.a
 * defines, so k.o's device code is taken; a weak reference pulls nothing. */
OFL_TEST(link_select_shared_object_references)
{
	char *line[] = {"main.o", "libuse.so", "libk.a", "-o", "out"};
	CHECK(make_kernel_archive() == 0);
	CHECK(system("printf 'int use(void);\\nint main(void) { return use(); }\\n' >main.c && "
	             "printf 'int k(void);\\nint use(void) { return k(); }\\n' >use.c && "
	             "printf '__attribute__((weak)) int k(void);\\n"
	             "int use(void) { return k ? k() : 0; }\\n' >weak.c && "
	             "cc -c main.c && cc -shared -fPIC use.c -o libuse.so && "
	             "cc -shared -fPIC weak.c -o libweak.so") == 0);
	struct ofl_buf log = OFL_BUF_INIT;
	CHECK_EQ_U(plan_log(5, line, &log), 0);
	CHECK(strstr((const char *)log.data,
	             "libk.a(k.o): device code taken: the host link pulls it for 'k'"));
	ofl_buf_release(&log);
	line[1] = "libweak.so";
	CHECK_EQ_U(plan_log(5, line, &log), 0);
	CHECK(strstr((const char *)log.data, "libk.a(k.o): device code left out"));
	ofl_buf_release(&log);
}
