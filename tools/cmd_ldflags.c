/* offlink --ldflags: what to add to a link line so that the link goes
 * through offlink (docs/integration.md).  clang takes any -fuse-ld name and
 * finds ld.offlink in its -B dirs; a clang link that keeps offload flags
 * runs clang-linker-wrapper, which it finds in the compat directory (-B
 * dirs first), and that one does ld.offlink's part: so clang gets both,
 * whatever its link line holds.  gcc accepts only fixed -fuse-ld names, so
 * it gets the directory whose `ld` is ld.offlink.  --compat alone is the
 * compat directory only; the plugin works with ld.bfd and gold only. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "offlink/nearest.h"
#include "offlink/proc.h"

enum cc_kind { CC_UNKNOWN, CC_CLANG, CC_GCC };

static const char accepted[] =
    "clang or gcc, by name or path: clang, clang++, clang-22, /usr/lib/llvm-22/bin/clang, gcc, "
    "g++, gcc-12, x86_64-linux-gnu-gcc, or cc and c++ where they are one of those";

/* A compiler by its file name: a word of it, between dashes, is clang,
 * clang++, gcc or g++ (clang-22, x86_64-linux-gnu-g++-12). */
static enum cc_kind kind_of_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (const char *w = base; *w; w += strcspn(w, "-"), w += *w == '-') {
		size_t n = strcspn(w, "-");
		if ((n == 5 && !strncmp(w, "clang", 5)) || (n == 7 && !strncmp(w, "clang++", 7)))
			return CC_CLANG;
		if (n == 3 && (!strncmp(w, "gcc", 3) || !strncmp(w, "g++", 3)))
			return CC_GCC;
	}
	return CC_UNKNOWN;
}

/* By its name, else by the file it is a link to: cc and c++ are links to
 * gcc or clang (Debian: /etc/alternatives). */
static enum cc_kind compiler_kind(const char *cc)
{
	enum cc_kind k = kind_of_name(cc);
	if (k != CC_UNKNOWN)
		return k;
	char *path = strchr(cc, '/') ? strdup(cc) : ofl_proc_find(cc, NULL, 0, getenv("PATH"));
	char real[PATH_MAX];
	if (path && realpath(path, real))
		k = kind_of_name(real);
	free(path);
	return k;
}

/* The plugin: next to the binary's lib/ in a build tree, in lib/offlink/
 * when installed. */
static int plugin_flags(const char *prefix, const char *linker)
{
	if (!strcmp(linker, "lld") || !strcmp(linker, "mold"))
		return error("--ldflags --plugin: %s does not load linker plugins for ordinary "
		             "objects; use ld.offlink (offlink --ldflags)",
		             linker);
	if (strcmp(linker, "bfd") && strcmp(linker, "gold"))
		return error("--ldflags --plugin: --linker must be bfd or gold (the linkers that "
		             "load the plugin), not '%s'",
		             linker);
	static const char *const where[] = {"%s/lib/offlink/offlink-plugin.so",
	                                    "%s/lib/offlink-plugin.so"};
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), where[i], prefix);
		if (!access(path, R_OK)) {
			printf("-fuse-ld=%s -Wl,-plugin,%s\n", linker, path);
			return 0;
		}
	}
	return error("--ldflags --plugin: no offlink-plugin.so in %s/lib", prefix);
}

static int unknown_argument(const char *arg)
{
	static const char *const names[] = {"--ldflags", "--cc", "--compat", "--plugin",
	                                    "--linker"};
	const char *near = ofl_nearest(arg, strcspn(arg, "="), names, 5);
	if (near)
		return error("--ldflags: unknown argument '%s'; did you mean '%s'?", arg, near);
	return error("--ldflags: unknown argument '%s' (--cc=COMPILER, --compat, --plugin, "
	             "--linker=bfd|gold)",
	             arg);
}

int offlink_home(char *bin, char *prefix)
{
	if (!realpath("/proc/self/exe", bin))
		return error("cannot find where offlink is installed: %s", strerror(errno));
	*strrchr(bin, '/') = '\0';
	/* the build tree has the installed layout */
	snprintf(prefix, PATH_MAX, "%.*s", (int)(strrchr(bin, '/') - bin), bin);
	return 0;
}

void print_clang_flags(FILE *f, const char *bin, const char *prefix, const char *sep)
{
	fprintf(f, "-B%s%s-B%s/libexec/offlink/compat%s-fuse-ld=offlink\n", bin, sep, prefix, sep);
}

int cmd_ldflags(int argc, char **argv)
{
	const char *cc = "clang", *linker = "bfd";
	bool plugin = false, compat = false;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--cc=", 5))
			cc = argv[i] + 5;
		else if (!strncmp(argv[i], "--linker=", 9))
			linker = argv[i] + 9;
		else if (!strcmp(argv[i], "--plugin"))
			plugin = true;
		else if (!strcmp(argv[i], "--compat"))
			compat = true;
		else if (strcmp(argv[i], "--ldflags"))
			return unknown_argument(argv[i]);
	}
	char bin[PATH_MAX], prefix[PATH_MAX];
	if (offlink_home(bin, prefix))
		return 1;
	if (plugin && compat)
		return error("--ldflags: --plugin and --compat are two ways to link; choose one");
	if (plugin)
		return plugin_flags(prefix, linker);
	enum cc_kind k = compiler_kind(cc);
	if (k == CC_UNKNOWN)
		return error("--ldflags: cannot tell which compiler '%s' is; --cc takes %s", cc,
		             accepted);
	if (compat && k == CC_GCC)
		return error("--ldflags --compat: only clang runs clang-linker-wrapper; gcc links "
		             "through ld.offlink (offlink --ldflags --cc=%s)",
		             cc);
	if (compat)
		printf("-B%s/libexec/offlink/compat\n", prefix);
	else if (k == CC_GCC)
		printf("-B%s/libexec/offlink/gcc/\n", prefix);
	else
		print_clang_flags(stdout, bin, prefix, " ");
	return 0;
}
