#include <sys/stat.h>

#include "harness.h"
#include "offlink/ldcmd.h"

#define ARGV(...) ((char *const[]){__VA_ARGS__})
#define PARSE(c, e, ...)                                                                           \
	ofl_ldcmd_parse((c), OFL_LDCMD_GNU, (int)(sizeof ARGV(__VA_ARGS__) / sizeof(char *)),      \
	                ARGV(__VA_ARGS__), NULL, (e))

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static bool is_init(const struct ofl_ldcmd *c)
{
	return !c->args && !c->nargs && !c->cap && !c->output && !c->sysroot && !c->ngroups &&
	       !c->relocatable && !c->shared && !c->pie && !c->no_pie && !c->static_link &&
	       !c->version_only;
}

/* Argument i is an option opt given as w0 [w1], with that value. */
static void check_opt(const struct ofl_ldcmd *c, size_t i, enum ofl_ldopt opt, const char *w0,
                      const char *w1, const char *value)
{
	CHECK(i < c->nargs);
	const struct ofl_ldarg *a = &c->args[i];
	CHECK_EQ_U(a->kind, opt == OFL_LD_LIBRARY ? OFL_LDARG_LIBRARY : OFL_LDARG_OPTION);
	CHECK_EQ_U(a->opt, opt);
	CHECK_STR(a->word[0], w0);
	CHECK_EQ_U(a->nwords, w1 ? 2 : 1);
	if (w1)
		CHECK_STR(a->word[1], w1);
	else
		CHECK(a->word[1] == NULL);
	if (value)
		CHECK_STR(a->value, value);
	else
		CHECK(a->value == NULL);
}

static void check_file(const struct ofl_ldcmd *c, size_t i, const char *path)
{
	CHECK(i < c->nargs);
	CHECK_EQ_U(c->args[i].kind, OFL_LDARG_FILE);
	CHECK_EQ_U(c->args[i].opt, OFL_LD_UNKNOWN);
	CHECK_EQ_U(c->args[i].nwords, 1);
	CHECK_STR(c->args[i].word[0], path);
	CHECK(c->args[i].value == c->args[i].word[0]);
}

OFL_TEST(ldcmd_joined_and_separate_values)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "-o", "out", "-oout2", "--output=out3", "--output", "out4",
	                 "-output", "out5", "-L/a", "-L", "/b", "--library-path=/c", "-L=/d",
	                 "-Tscript.ld", "-T", "s.ld", "-zdefs", "-z", "now", "-Ttext=0x1000",
	                 "-Ttext", "0x2000", "-O1", "-m", "elf_x86_64"),
	           0);
	CHECK_EQ_U(c.nargs, 17);
	check_opt(&c, 0, OFL_LD_OUTPUT, "-o", "out", "out");
	check_opt(&c, 1, OFL_LD_OUTPUT, "-oout2", NULL, "out2");
	check_opt(&c, 2, OFL_LD_OUTPUT, "--output=out3", NULL, "out3");
	check_opt(&c, 3, OFL_LD_OUTPUT, "--output", "out4", "out4");
	check_opt(&c, 4, OFL_LD_OUTPUT, "-output", "out5", "out5");
	check_opt(&c, 5, OFL_LD_LIBPATH, "-L/a", NULL, "/a");
	check_opt(&c, 6, OFL_LD_LIBPATH, "-L", "/b", "/b");
	check_opt(&c, 7, OFL_LD_LIBPATH, "--library-path=/c", NULL, "/c");
	check_opt(&c, 8, OFL_LD_LIBPATH, "-L=/d", NULL, "=/d"); /* '=' is the sysroot */
	check_opt(&c, 9, OFL_LD_SCRIPT, "-Tscript.ld", NULL, "script.ld");
	check_opt(&c, 10, OFL_LD_SCRIPT, "-T", "s.ld", "s.ld");
	check_opt(&c, 11, OFL_LD_OTHER_WITH_ARG, "-zdefs", NULL, "defs");
	check_opt(&c, 12, OFL_LD_OTHER_WITH_ARG, "-z", "now", "now");
	check_opt(&c, 13, OFL_LD_OTHER_WITH_ARG, "-Ttext=0x1000", NULL, "0x1000");
	check_opt(&c, 14, OFL_LD_OTHER_WITH_ARG, "-Ttext", "0x2000", "0x2000");
	check_opt(&c, 15, OFL_LD_OTHER_WITH_ARG, "-O1", NULL, "1");
	check_opt(&c, 16, OFL_LD_EMULATION, "-m", "elf_x86_64", "elf_x86_64");
	CHECK_STR(c.output, "out5");
	ofl_ldcmd_release(&c);
}

/* Long names with one dash win over a one-letter option with a joined value
 * (-rpath is not -r, -soname not -s, -export-dynamic not -e xport-dynamic). */
OFL_TEST(ldcmd_long_names_take_one_or_two_dashes)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "-rpath", "/r1", "--rpath=/r2", "-R", "/r3", "-plugin", "p.so",
	                 "--plugin-opt=O2", "-plugin-opt", "mcpu=x", "-dynamic-linker", "/ld.so",
	                 "-soname", "libx.so.1", "-hlibx.so.2", "-export-dynamic", "-init", "f",
	                 "--shared", "-pie", "-rpath-link=/rl"),
	           0);
	CHECK_EQ_U(c.nargs, 14);
	check_opt(&c, 0, OFL_LD_RPATH, "-rpath", "/r1", "/r1");
	check_opt(&c, 1, OFL_LD_RPATH, "--rpath=/r2", NULL, "/r2");
	check_opt(&c, 2, OFL_LD_RPATH, "-R", "/r3", "/r3");
	check_opt(&c, 3, OFL_LD_PLUGIN, "-plugin", "p.so", "p.so");
	check_opt(&c, 4, OFL_LD_PLUGIN_OPT, "--plugin-opt=O2", NULL, "O2");
	check_opt(&c, 5, OFL_LD_PLUGIN_OPT, "-plugin-opt", "mcpu=x", "mcpu=x");
	check_opt(&c, 6, OFL_LD_DYNAMIC_LINKER, "-dynamic-linker", "/ld.so", "/ld.so");
	check_opt(&c, 7, OFL_LD_OTHER_WITH_ARG, "-soname", "libx.so.1", "libx.so.1");
	check_opt(&c, 8, OFL_LD_OTHER_WITH_ARG, "-hlibx.so.2", NULL, "libx.so.2");
	check_opt(&c, 9, OFL_LD_OTHER_FLAG, "-export-dynamic", NULL, NULL);
	check_opt(&c, 10, OFL_LD_OTHER_WITH_ARG, "-init", "f", "f");
	check_opt(&c, 11, OFL_LD_SHARED, "--shared", NULL, NULL);
	check_opt(&c, 12, OFL_LD_PIE, "-pie", NULL, NULL);
	check_opt(&c, 13, OFL_LD_OTHER_WITH_ARG, "-rpath-link=/rl", NULL, "/rl");
	CHECK(c.shared && c.pie);
	ofl_ldcmd_release(&c);
}

/* The options that reference symbols have ids of their own; the one-dash
 * -undefined-glob is lld's option, not -u with the value "ndefined-glob". */
OFL_TEST(ldcmd_symbol_references)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--defsym=a=b", "-defsym", "c=d+1", "--wrap=f", "-wrap", "g",
	                 "-undefined-glob", "k*", "--require-defined=r", "-uu"),
	           0);
	CHECK_EQ_U(c.nargs, 7);
	check_opt(&c, 0, OFL_LD_DEFSYM, "--defsym=a=b", NULL, "a=b");
	check_opt(&c, 1, OFL_LD_DEFSYM, "-defsym", "c=d+1", "c=d+1");
	check_opt(&c, 2, OFL_LD_WRAP, "--wrap=f", NULL, "f");
	check_opt(&c, 3, OFL_LD_WRAP, "-wrap", "g", "g");
	check_opt(&c, 4, OFL_LD_UNDEFINED_GLOB, "-undefined-glob", "k*", "k*");
	check_opt(&c, 5, OFL_LD_UNDEFINED, "--require-defined=r", NULL, "r");
	check_opt(&c, 6, OFL_LD_UNDEFINED, "-uu", NULL, "u");
	ofl_ldcmd_release(&c);
}

OFL_TEST(ldcmd_library_forms)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(
	    PARSE(&c, &e, "-lm", "-l", "pthread", "--library=z", "-library", "dl", "-l:libfoo.a"),
	    0);
	CHECK_EQ_U(c.nargs, 5);
	check_opt(&c, 0, OFL_LD_LIBRARY, "-lm", NULL, "m");
	check_opt(&c, 1, OFL_LD_LIBRARY, "-l", "pthread", "pthread");
	check_opt(&c, 2, OFL_LD_LIBRARY, "--library=z", NULL, "z");
	check_opt(&c, 3, OFL_LD_LIBRARY, "-library", "dl", "dl");
	check_opt(&c, 4, OFL_LD_LIBRARY, "-l:libfoo.a", NULL, ":libfoo.a");
	ofl_ldcmd_release(&c);
}

static bool state_is(const struct ofl_ldarg *a, bool whole, bool static_only, bool as_needed,
                     unsigned group)
{
	return a->state.whole_archive == whole && a->state.static_only == static_only &&
	       a->state.as_needed == as_needed && a->state.group == group;
}

OFL_TEST(ldcmd_state_tracking)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "a.o", "--whole-archive", "b.a", "--no-whole-archive",
	                 "--start-group", "-lc", "c.a", "--end-group", "-(", "d.a", "-)",
	                 "-Bstatic", "-lz", "--push-state", "--as-needed", "-Bdynamic",
	                 "--whole-archive", "x.so", "--pop-state", "y.a", "-dy", "z.so", "-static",
	                 "w.a"),
	           0);
	CHECK_EQ_U(c.nargs, 24);
	const struct ofl_ldarg *a = c.args;
	CHECK(state_is(&a[0], false, false, false, 0));  /* a.o */
	CHECK(state_is(&a[2], true, false, false, 0));   /* b.a */
	CHECK(state_is(&a[5], false, false, false, 1));  /* -lc */
	CHECK(state_is(&a[6], false, false, false, 1));  /* c.a */
	CHECK(state_is(&a[9], false, false, false, 2));  /* d.a */
	CHECK(state_is(&a[12], false, true, false, 0));  /* -lz */
	CHECK(state_is(&a[17], true, false, true, 0));   /* x.so */
	CHECK(state_is(&a[19], false, true, false, 0));  /* y.a: popped */
	CHECK(state_is(&a[21], false, false, false, 0)); /* z.so */
	CHECK(state_is(&a[23], false, true, false, 0));  /* w.a */
	CHECK_EQ_U(a[8].opt, OFL_LD_START_GROUP);
	CHECK_EQ_U(a[10].opt, OFL_LD_END_GROUP);
	CHECK_EQ_U(c.ngroups, 2);
	CHECK(c.static_link);
	ofl_ldcmd_release(&c);
}

/* --pop-state restores the flags, not the group; an open group is closed
 * at the end of the line. */
OFL_TEST(ldcmd_pop_state_keeps_group)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--push-state", "--whole-archive", "--start-group", "--pop-state",
	                 "g.a", "-Bstatic", "h.a"),
	           0);
	CHECK(state_is(&c.args[4], false, false, false, 1));
	CHECK(state_is(&c.args[6], false, true, false, 1));
	CHECK_EQ_U(c.ngroups, 1);
	CHECK(!c.static_link); /* -Bstatic is not -static */
	ofl_ldcmd_release(&c);
}

OFL_TEST(ldcmd_unknown_options_pass_through_in_order)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--gc-sections", "a.o", "--no-undefined", "-", "--", "-Wl,foo",
	                 "--sysroot", "b.o", "-Bsymbolic", "--o", "out", "-as-needed=x"),
	           0);
	CHECK_EQ_U(c.nargs, 12);
	const char *unknown[] = {
	    "--gc-sections", NULL, "--no-undefined", "-",   "--", "-Wl,foo",
	    "--sysroot",     NULL, "-Bsymbolic",     "--o", NULL, "-as-needed=x"};
	for (size_t i = 0; i < 12; i++)
		if (unknown[i])
			check_opt(&c, i, OFL_LD_UNKNOWN, unknown[i], NULL, NULL);
	check_file(&c, 1, "a.o");
	check_file(&c, 7, "b.o"); /* --sysroot takes its value after '=' only */
	check_file(&c, 10, "out");
	CHECK(!c.sysroot && !c.output);
	ofl_ldcmd_release(&c);
}

/* Options whose value is optional and joined with '=' never eat a word. */
OFL_TEST(ldcmd_optional_values_only_joined)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--build-id", "a.o", "--build-id=sha1", "--explain", "b.o",
	                 "--explain=log.txt", "--threads", "c.o", "--compress-debug-sections=zlib",
	                 "--sysroot=/sr"),
	           0);
	CHECK_EQ_U(c.nargs, 10);
	check_opt(&c, 0, OFL_LD_OTHER_FLAG, "--build-id", NULL, NULL);
	check_file(&c, 1, "a.o");
	check_opt(&c, 2, OFL_LD_OTHER_WITH_ARG, "--build-id=sha1", NULL, "sha1");
	check_opt(&c, 3, OFL_LD_OWN_EXPLAIN, "--explain", NULL, NULL);
	check_file(&c, 4, "b.o");
	check_opt(&c, 5, OFL_LD_OWN_EXPLAIN, "--explain=log.txt", NULL, "log.txt");
	check_opt(&c, 6, OFL_LD_OTHER_FLAG, "--threads", NULL, NULL);
	check_file(&c, 7, "c.o");
	check_opt(&c, 8, OFL_LD_OTHER_WITH_ARG, "--compress-debug-sections=zlib", NULL, "zlib");
	check_opt(&c, 9, OFL_LD_SYSROOT, "--sysroot=/sr", NULL, "/sr");
	CHECK_STR(c.sysroot, "/sr");
	ofl_ldcmd_release(&c);
}

OFL_TEST(ldcmd_own_options)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--offlink-linker=lld", "-offlink-linker", "gold",
	                 "--device-compiler", "clang", "--device-linker=nvptx64=-v",
	                 "-device-linker=-O3", "--device-launcher=run", "-offload-extract=gfx90a",
	                 "--offload-relocatable", "-j", "4", "-j8", "--jobs=2", "-jobs", "3",
	                 "--dry-run", "-save-temps", "--offlink-verbose", "-v", "-o", "a", "x.o"),
	           0);
	CHECK_EQ_U(c.nargs, 18);
	check_opt(&c, 0, OFL_LD_OWN_LINKER, "--offlink-linker=lld", NULL, "lld");
	check_opt(&c, 1, OFL_LD_OWN_LINKER, "-offlink-linker", "gold", "gold");
	check_opt(&c, 2, OFL_LD_OWN_DEVICE_COMPILER, "--device-compiler", "clang", "clang");
	check_opt(&c, 3, OFL_LD_OWN_DEVICE_LINKER, "--device-linker=nvptx64=-v", NULL,
	          "nvptx64=-v");
	check_opt(&c, 4, OFL_LD_OWN_DEVICE_LINKER, "-device-linker=-O3", NULL, "-O3");
	check_opt(&c, 5, OFL_LD_OWN_DEVICE_LAUNCHER, "--device-launcher=run", NULL, "run");
	check_opt(&c, 6, OFL_LD_OWN_OFFLOAD_EXTRACT, "-offload-extract=gfx90a", NULL, "gfx90a");
	check_opt(&c, 7, OFL_LD_OWN_OFFLOAD_RELOCATABLE, "--offload-relocatable", NULL, NULL);
	check_opt(&c, 8, OFL_LD_OWN_JOBS, "-j", "4", "4");
	check_opt(&c, 9, OFL_LD_OWN_JOBS, "-j8", NULL, "8");
	check_opt(&c, 10, OFL_LD_OWN_JOBS, "--jobs=2", NULL, "2");
	check_opt(&c, 11, OFL_LD_OWN_JOBS, "-jobs", "3", "3");
	check_opt(&c, 12, OFL_LD_OWN_DRY_RUN, "--dry-run", NULL, NULL);
	check_opt(&c, 13, OFL_LD_OWN_SAVE_TEMPS, "-save-temps", NULL, NULL);
	check_opt(&c, 14, OFL_LD_OWN_VERBOSE, "--offlink-verbose", NULL, NULL);
	for (size_t i = 0; i < c.nargs; i++)
		CHECK(ofl_ldarg_is_own(&c.args[i]) == (i < 15));
	CHECK_EQ_U(c.args[15].opt, OFL_LD_VERSION);
	CHECK(c.version_only);
	ofl_ldcmd_release(&c);
}

OFL_TEST(ldcmd_summary_last_wins)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "-pie", "-no-pie", "-o", "a", "-ob", "-r", "--sysroot=/x",
	                 "--sysroot=/y", "-Bstatic"),
	           0);
	CHECK_STR(c.output, "b");
	CHECK_STR(c.sysroot, "/y");
	CHECK(!c.pie && c.no_pie && c.relocatable);
	CHECK(!c.shared && !c.static_link && !c.version_only);
	ofl_ldcmd_release(&c);
	CHECK(is_init(&c));
	ofl_ldcmd_release(&c); /* twice is harmless */
	CHECK(is_init(&c));
}

OFL_TEST(ldcmd_response_files)
{
	write_file("outer.rsp", "-o 'out file'  \"say \\\"hi\\\"\" b\\ c.o\n"
	                        "@inner.rsp -lm '' \"a'b\"\n");
	write_file("inner.rsp", "'no\\escape' --whole-archive\tx.a");
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "first.o", "@outer.rsp", "@missing.rsp", "last.o"), 0);
	CHECK_EQ_U(c.nargs, 12);
	check_file(&c, 0, "first.o");
	check_opt(&c, 1, OFL_LD_OUTPUT, "-o", "out file", "out file");
	check_file(&c, 2, "say \"hi\"");
	check_file(&c, 3, "b c.o");
	check_file(&c, 4, "noescape"); /* escaped inside '...' too */
	check_opt(&c, 5, OFL_LD_WHOLE_ARCHIVE, "--whole-archive", NULL, NULL);
	check_file(&c, 6, "x.a");
	CHECK(c.args[6].state.whole_archive);
	check_opt(&c, 7, OFL_LD_LIBRARY, "-lm", NULL, "m");
	check_file(&c, 8, "");
	check_file(&c, 9, "a'b");
	check_file(&c, 10, "@missing.rsp"); /* unreadable: kept as ld keeps it */
	check_file(&c, 11, "last.o");
	CHECK_STR(c.output, "out file");
	ofl_ldcmd_release(&c);
}

/* A value in a response file is taken by an option outside it. */
OFL_TEST(ldcmd_response_file_value_crosses_files)
{
	write_file("v.rsp", "out.bin\n");
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "-o", "@v.rsp"), 0);
	CHECK_EQ_U(c.nargs, 1);
	check_opt(&c, 0, OFL_LD_OUTPUT, "-o", "out.bin", "out.bin");
	ofl_ldcmd_release(&c);
}

/* r1 names r2 ... rN names "deep.o". */
static void write_chain(unsigned n)
{
	char name[32], text[32];
	for (unsigned i = 1; i <= n; i++) {
		snprintf(name, sizeof name, "r%u", i);
		if (i < n)
			snprintf(text, sizeof text, "@r%u", i + 1);
		else
			snprintf(text, sizeof text, "deep.o");
		write_file(name, text);
	}
}

OFL_TEST(ldcmd_response_file_depth_limit)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	write_chain(64);
	CHECK_EQ_U(PARSE(&c, &e, "@r1"), 0);
	CHECK_EQ_U(c.nargs, 1);
	check_file(&c, 0, "deep.o");
	ofl_ldcmd_release(&c);
	write_chain(65);
	CHECK(PARSE(&c, &e, "@r1") == OFL_EINVAL);
	CHECK_STR(e.msg, "response files nested too deeply at '@r65'");
	CHECK(is_init(&c));
}

OFL_TEST(ldcmd_response_file_including_itself)
{
	write_file("self.rsp", "x.o @self.rsp y.o");
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(PARSE(&c, &e, "a.o", "@self.rsp") == OFL_EINVAL);
	CHECK_STR(e.msg, "response files nested too deeply at '@self.rsp'");
	CHECK(is_init(&c));
}

OFL_TEST(ldcmd_errors)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(PARSE(&c, &e, "a.o", "-o") == OFL_EINVAL);
	CHECK_STR(e.msg, "option '-o' needs a value");
	CHECK(is_init(&c));
	ofl_error_clear(&e);
	CHECK(PARSE(&c, &e, "--start-group", "a.o", "-(", "b.o") == OFL_EINVAL);
	CHECK_STR(e.msg, "'-(' inside a group: groups may not nest");
	CHECK(is_init(&c));
	ofl_error_clear(&e);
	CHECK(PARSE(&c, &e, "a.o", "--end-group") == OFL_EINVAL);
	CHECK_STR(e.msg, "'--end-group' without '--start-group'");
	ofl_error_clear(&e);
	CHECK(PARSE(&c, &e, "--push-state", "--pop-state", "-pop-state") == OFL_EINVAL);
	CHECK_STR(e.msg, "'-pop-state' without '--push-state'");
	ofl_error_clear(&e);
	CHECK(PARSE(&c, &e, "--plugin-opt") == OFL_EINVAL);
	CHECK_STR(e.msg, "option '--plugin-opt' needs a value");
	CHECK(is_init(&c));
}

static void touch(const char *path)
{
	write_file(path, "");
}

OFL_TEST(ldcmd_find_library)
{
	const char *dirs[] = {"d1", "d2", "d2/libdir.so", "sr", "sr/lib", "sr/lib2", "def"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		CHECK(mkdir(dirs[i], 0755) == 0);
	touch("d1/libm.a"); /* an earlier dir wins over a .so later */
	touch("d2/libm.so");
	touch("d2/libn.so");
	touch("d2/libn.a");
	touch("d2/libdir.a"); /* libdir.so is a directory: skipped */
	touch("sr/lib/libs.so");
	touch("sr/lib2/libt.a");
	touch("def/libdef.so");
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--sysroot=sr", "-lm", "-ln", "-ldir", "-ls", "-Ld1", "-L", "d2",
	                 "-L=/lib", "-L$SYSROOT/lib2", "-Bstatic", "-ln", "-l:libn.so", "-lt",
	                 "-Bdynamic", "-lnone", "-ldef"),
	           0);
	const char *def[] = {"def"};
	const char *want[] = {NULL,
	                      "d1/libm.a",
	                      "d2/libn.so",
	                      "d2/libdir.a",
	                      "sr/lib/libs.so",
	                      NULL,
	                      NULL,
	                      NULL,
	                      NULL,
	                      NULL,
	                      "d2/libn.a",
	                      "d2/libn.so",
	                      "sr/lib2/libt.a",
	                      NULL,
	                      NULL,
	                      "def/libdef.so"};
	CHECK_EQ_U(c.nargs, 16);
	for (size_t i = 0; i < c.nargs; i++) {
		char *p = ofl_ldcmd_find_library(&c, &c.args[i], def, 1, &e);
		if (want[i])
			CHECK_STR(p, want[i]);
		else
			CHECK(p == NULL);
		free(p);
	}
	CHECK_EQ_U(e.code, 0); /* not found is not an error */
	char *p = ofl_ldcmd_find_library(&c, &c.args[15], NULL, 0, &e);
	CHECK(p == NULL); /* found only in the default dirs */
	ofl_ldcmd_release(&c);
}

/* One directory as ld searches it (the device-link cache's key). */
OFL_TEST(ldcmd_find_in_dir)
{
	CHECK(mkdir("d", 0755) == 0);
	touch("d/libm.so");
	touch("d/libm.a");
	touch("d/liba.a");
	touch("d/exact");
	struct ofl_error e = OFL_ERROR_INIT;
	const struct {
		const char *name;
		bool static_only;
		const char *want;
	} cases[] = {{"m", false, "d/libm.so"},   {"m", true, "d/libm.a"}, {"a", false, "d/liba.a"},
	             {":exact", true, "d/exact"}, {":libm", false, NULL},  {"none", false, NULL}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = NULL;
		int rc = ofl_ldcmd_find_in_dir("d", cases[i].name, cases[i].static_only, &p, &e);
		CHECK_EQ_U(rc, cases[i].want ? 1 : 0);
		if (cases[i].want)
			CHECK_STR(p, cases[i].want);
		free(p);
	}
	CHECK_EQ_U(e.code, 0);
}

OFL_TEST(ldcmd_input_path_sysroot)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(PARSE(&c, &e, "--sysroot=/sys", "=/usr/lib/crt1.o", "$SYSROOT/crti.o",
	                 "plain=.o", "-lm"),
	           0);
	const char *want[] = {"/sys", "/sys/usr/lib/crt1.o", "/sys/crti.o", "plain=.o", "m"};
	for (size_t i = 0; i < 5; i++) {
		char *p = ofl_ldcmd_input_path(&c, &c.args[i]);
		CHECK_STR(p, want[i]);
		free(p);
	}
	ofl_ldcmd_release(&c);
	CHECK_EQ_U(PARSE(&c, &e, "=/a.o"), 0);
	char *p = ofl_ldcmd_input_path(&c, &c.args[0]);
	CHECK_STR(p, "/a.o"); /* no sysroot: the '=' is dropped */
	free(p);
	ofl_ldcmd_release(&c);
}

/* An unknown option that is a typo of ld.offlink's own is told apart from
 * the host linker's options, which pass. */
OFL_TEST(ldcmd_own_typo)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(!PARSE(&c, &e, "--offlink-linkr=gold", "-jbos", "--dryrun", "--offlink-x",
	             "--gc-sections", "--save-temps", "main.o", "-zsave-temps"));
	const char *meant = "x";
	CHECK(ofl_ldarg_is_own_typo(&c.args[0], &meant));
	CHECK_STR(meant, "offlink-linker");
	CHECK(!ofl_ldarg_is_own_typo(&c.args[1], &meant)); /* -j with a value: known */
	CHECK(!meant);
	CHECK(ofl_ldarg_is_own_typo(&c.args[2], &meant));
	CHECK_STR(meant, "dry-run");
	CHECK(ofl_ldarg_is_own_typo(&c.args[3], &meant)); /* ours by its prefix */
	CHECK(!meant);
	CHECK(!ofl_ldarg_is_own_typo(&c.args[4], &meant)); /* ld's, unknown to the table */
	CHECK(!ofl_ldarg_is_own_typo(&c.args[5], &meant)); /* ours, known */
	CHECK(!ofl_ldarg_is_own_typo(&c.args[6], &meant)); /* a file */
	CHECK(!ofl_ldarg_is_own_typo(&c.args[7], &meant)); /* -z's value */
	ofl_ldcmd_release(&c);
}

/* link.exe's style (Windows hosts through clang-linker-wrapper): -out: and
 * /out: are the output, -libpath: a search dir, -wholearchive:FILE that
 * file whole, other -x and /x options; paths are files, also /usr/... */
OFL_TEST(ldcmd_link_exe_style)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	char *const argv[] = {"a.obj",      "-libpath:./lib",      "/nologo",     "/usr/lib/x.lib",
	                      "-OUT:b.exe", "-wholearchive:k.lib", "-entry:main", "-l",
	                      "/out:c.exe"};
	CHECK(!ofl_ldcmd_parse(&c, OFL_LDCMD_LINK_EXE, 9, argv, NULL, &err));
	CHECK_EQ_U(c.nargs, 9);
	CHECK_EQ_U(c.args[0].kind, OFL_LDARG_FILE);
	check_opt(&c, 1, OFL_LD_LIBPATH, "-libpath:./lib", NULL, "./lib");
	check_opt(&c, 2, OFL_LD_UNKNOWN, "/nologo", NULL, NULL);
	CHECK_EQ_U(c.args[3].kind, OFL_LDARG_FILE);
	CHECK_STR(c.args[3].value, "/usr/lib/x.lib");
	check_opt(&c, 4, OFL_LD_OUTPUT, "-OUT:b.exe", NULL, "b.exe");
	CHECK_EQ_U(c.args[5].kind, OFL_LDARG_FILE);
	CHECK_STR(c.args[5].value, "k.lib");
	CHECK(c.args[5].state.whole_archive && !c.args[0].state.whole_archive);
	check_opt(&c, 6, OFL_LD_UNKNOWN, "-entry:main", NULL, NULL);
	/* no -l in link.exe: an option passed through, never a library */
	check_opt(&c, 7, OFL_LD_UNKNOWN, "-l", NULL, NULL);
	CHECK_STR(c.output, "c.exe");
	ofl_ldcmd_release(&c);
	CHECK(is_init(&c));
}
