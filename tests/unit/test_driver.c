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
