/* offlink/driver.h: the driver read from /proc, for programs named and
 * placed as clang releases are. */
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/driver.h"

extern char **environ;

/* A copy of /bin/sh at path, waiting on a pipe with these words after
 * `-c 'read x'`, read as a driver; then ended. */
static int read_as_driver(const char *path, const char *const *words, struct ofl_driver *d)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s)\" && cp /bin/sh %s", path, path);
	if (system(cmd))
		return -1;
	const char *argv[16] = {path, "-c", "read x"};
	size_t n = 3;
	for (; words && *words && n < 15; words++)
		argv[n++] = *words;
	argv[n] = NULL;
	int p[2];
	if (pipe(p))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	pid_t pid;
	int rc = posix_spawn(&pid, path, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);
	struct ofl_error err = OFL_ERROR_INIT;
	/* the kernel lets posix_spawn return before the new program's
	 * command line is in place: wait for it (a real driver is long past
	 * that when it runs its linker) */
	for (int tries = 0; !rc && tries < 200; tries++) {
		if ((rc = ofl_driver_read(pid, d, &err)) || d->argv.n)
			break;
		ofl_driver_release(d);
		usleep(5000);
	}
	close(p[1]);
	waitpid(pid, NULL, 0);
	return rc;
}

OFL_TEST(driver_debian_layout)
{
	struct ofl_driver d;
	const char *w[] = {"-O2", "-fopenmp", "--config=a.cfg", "-O3", NULL};
	CHECK(!read_as_driver("usr/lib/llvm-23/bin/clang", w, &d));
	CHECK(d.kind == OFL_DRIVER_CLANG);
	CHECK_EQ_U(d.llvm, 23);
	CHECK(d.exe && strstr(d.exe, "/usr/lib/llvm-23/bin/clang"));
	CHECK_EQ_U(d.argv.n, 7);
	CHECK(!strcmp(ofl_driver_opt_level(&d), "3"));
	CHECK(!strcmp(ofl_driver_config(&d), "a.cfg"));
	ofl_driver_release(&d);
}

OFL_TEST(driver_release_in_name)
{
	struct ofl_driver d;
	const char *w[] = {"--config", "b.cfg", "-Ofast", NULL};
	CHECK(!read_as_driver("opt/bin/clang++-21", w, &d));
	CHECK(d.kind == OFL_DRIVER_CLANG);
	CHECK_EQ_U(d.llvm, 21);
	CHECK(!strcmp(ofl_driver_opt_level(&d), "fast"));
	CHECK(!strcmp(ofl_driver_config(&d), "b.cfg"));
	ofl_driver_release(&d);
}

OFL_TEST(driver_release_of_resources)
{
	struct ofl_driver d;
	CHECK(!system("mkdir -p pfx/lib/clang/20"));
	CHECK(!read_as_driver("pfx/bin/clang", NULL, &d));
	CHECK_EQ_U(d.llvm, 20);
	CHECK(ofl_driver_opt_level(&d) == NULL && ofl_driver_config(&d) == NULL);
	ofl_driver_release(&d);
	/* two release folders: which one is unknown */
	CHECK(!system("mkdir -p pfx/lib/clang/19"));
	CHECK(!read_as_driver("pfx/bin/clang", NULL, &d));
	CHECK_EQ_U(d.llvm, 0);
	ofl_driver_release(&d);
}

OFL_TEST(driver_not_a_compiler)
{
	struct ofl_driver d;
	const char *w[] = {"-O3", NULL};
	CHECK(!read_as_driver("bin/make", w, &d));
	CHECK(d.kind == OFL_DRIVER_UNKNOWN);
	CHECK(d.argv.n == 4 && d.llvm == 0);
	CHECK(ofl_driver_opt_level(&d) == NULL);
	ofl_driver_release(&d);
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(!ofl_driver_read(0, &d, &err) && !d.exe && !d.argv.n);
	CHECK(!ofl_driver_read(-5, &d, &err) && !d.exe);
}

OFL_TEST(driver_collect2)
{
	struct ofl_driver d;
	CHECK(!read_as_driver("gcc/collect2", NULL, &d));
	CHECK(d.kind == OFL_DRIVER_GCC && d.llvm == 0);
	ofl_driver_release(&d);
}

/* clang's default config files, as clang 19 and 22 were seen to read them
 * (tests/cli/config_enable.sh checks the rule against their own
 * "Configuration file:" lines): <triple>-<mode>.cfg alone, else <mode>.cfg
 * then <triple>.cfg; each name from the first folder that has it. */
static size_t configs(const char *const *dirs, size_t n, const char *mode, struct ofl_argv *v)
{
	struct ofl_error err = OFL_ERROR_INIT;
	ofl_argv_release(v);
	if (ofl_clang_default_configs(dirs, n, mode, "x86_64-pc-linux-gnu", v, &err))
		return 99;
	return v->n;
}

OFL_TEST(driver_default_config_rule)
{
	struct ofl_argv v = OFL_ARGV_INIT;
	const char *bin[] = {"bin"}, *three[] = {"user", NULL, "bin"};
	CHECK(!system("mkdir -p bin user"));
	CHECK_EQ_U(configs(bin, 1, "clang", &v), 0);
	CHECK(!system("touch bin/x86_64-pc-linux-gnu.cfg bin/clang.cfg"));
	CHECK_EQ_U(configs(bin, 1, "clang", &v), 2);
	CHECK_STR(v.v[0], "bin/clang.cfg");
	CHECK_STR(v.v[1], "bin/x86_64-pc-linux-gnu.cfg");
	CHECK_EQ_U(configs(bin, 1, "clang++", &v), 1);
	CHECK_STR(v.v[0], "bin/x86_64-pc-linux-gnu.cfg");
	/* <triple>-<mode>.cfg: that one alone */
	CHECK(!system("touch bin/x86_64-pc-linux-gnu-clang++.cfg"));
	CHECK_EQ_U(configs(bin, 1, "clang++", &v), 1);
	CHECK_STR(v.v[0], "bin/x86_64-pc-linux-gnu-clang++.cfg");
	CHECK_EQ_U(configs(bin, 1, "clang", &v), 2);
	/* the user folder first, name by name; a folder is no config */
	CHECK(!system("touch user/clang.cfg && mkdir bin/x86_64-pc-linux-gnu-clang.cfg"));
	CHECK_EQ_U(configs(three, 3, "clang", &v), 2);
	CHECK_STR(v.v[0], "user/clang.cfg");
	CHECK_STR(v.v[1], "bin/x86_64-pc-linux-gnu.cfg");
	ofl_argv_release(&v);
}

OFL_TEST(driver_mode_and_target)
{
	struct ofl_driver d;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_argv t = OFL_ARGV_INIT;
	const char *w[] = {"-m32", "-target", "aarch64-linux-gnu", "-c", NULL};
	CHECK(!read_as_driver("opt/bin/clang++-22", w, &d));
	CHECK_STR(ofl_driver_mode(&d), "clang++");
	CHECK(!ofl_driver_target_args(&d, &t, &err));
	CHECK_EQ_U(t.n, 2);
	CHECK_STR(t.v[0], "-m32");
	CHECK_STR(t.v[1], "--target=aarch64-linux-gnu");
	ofl_driver_release(&d);
	ofl_argv_release(&t);
	/* a target prefix in the name (a link to clang, as installs have
	 * them); --driver-mode= over the name */
	const char *g[] = {"--driver-mode=g++", NULL};
	CHECK(!system("ln -s clang++-22 opt/bin/x86_64-linux-gnu-clang"));
	CHECK(!read_as_driver("opt/bin/x86_64-linux-gnu-clang", g, &d));
	CHECK(d.kind == OFL_DRIVER_CLANG);
	CHECK_STR(ofl_driver_mode(&d), "clang++");
	CHECK(!ofl_driver_target_args(&d, &t, &err));
	CHECK_EQ_U(t.n, 1);
	CHECK_STR(t.v[0], "--target=x86_64-linux-gnu");
	ofl_driver_release(&d);
	ofl_argv_release(&t);
	CHECK(!read_as_driver("opt/bin/clang-cpp-19", NULL, &d));
	CHECK_STR(ofl_driver_mode(&d), "clang-cpp");
	CHECK(!ofl_driver_target_args(&d, &t, &err) && t.n == 0);
	ofl_driver_release(&d);
	CHECK(!read_as_driver("bin/make", NULL, &d));
	CHECK(ofl_driver_mode(&d) == NULL);
	ofl_driver_release(&d);
}

OFL_TEST(driver_default_configs_read)
{
	struct ofl_driver d;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_argv v = OFL_ARGV_INIT;
	const char *none[] = {"--no-default-config", NULL};
	const char *user[] = {"--config-user-dir=u", NULL};
	CHECK(!system("mkdir -p usr/lib/llvm-22/bin u && touch usr/lib/llvm-22/bin/clang.cfg "
	              "u/clang.cfg usr/lib/llvm-22/bin/i386-pc-linux-gnu.cfg"));
	CHECK(!read_as_driver("usr/lib/llvm-22/bin/clang", NULL, &d));
	CHECK(!ofl_driver_default_configs(&d, "i386-pc-linux-gnu", false, &v, &err));
	CHECK_EQ_U(v.n, 2);
	CHECK(strstr(v.v[0], "/usr/lib/llvm-22/bin/clang.cfg"));
	CHECK(strstr(v.v[1], "/usr/lib/llvm-22/bin/i386-pc-linux-gnu.cfg"));
	ofl_argv_release(&v);
	/* CLANG_NO_DEFAULT_CONFIG, as the front end read it */
	CHECK(!ofl_driver_default_configs(&d, "i386-pc-linux-gnu", true, &v, &err) && !v.n);
	ofl_driver_release(&d);
	CHECK(!read_as_driver("usr/lib/llvm-22/bin/clang", none, &d));
	CHECK(!ofl_driver_default_configs(&d, "i386-pc-linux-gnu", false, &v, &err) && !v.n);
	ofl_driver_release(&d);
	CHECK(!read_as_driver("usr/lib/llvm-22/bin/clang", user, &d));
	CHECK(!ofl_driver_default_configs(&d, "x86_64-pc-linux-gnu", false, &v, &err));
	CHECK_EQ_U(v.n, 1);
	CHECK_STR(v.v[0], "u/clang.cfg");
	ofl_driver_release(&d);
	ofl_argv_release(&v);
	/* clang 15 and older read none */
	CHECK(!system("mkdir -p usr/lib/llvm-15/bin && touch usr/lib/llvm-15/bin/clang.cfg"));
	CHECK(!read_as_driver("usr/lib/llvm-15/bin/clang", NULL, &d));
	CHECK(!ofl_driver_default_configs(&d, "x86_64-pc-linux-gnu", false, &v, &err) && !v.n);
	ofl_driver_release(&d);
}
