/* The single offlink binary: subcommands, and LLVM tool personalities chosen
 * by the name it is invoked under.  A personality only picks the command
 * line dialect and defaults; the work is done by the same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "offlink/argv.h"
#include "offlink/nearest.h"
#include "opts.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
    {"bundle", cmd_bundle, "combine host and device files into one bundle"},
    {"unbundle", cmd_unbundle, "take device files back out of a bundle"},
    {"list", cmd_list, "list the entry IDs of a bundle"},
    {"package", cmd_package, "create or extract OffloadBinary files"},
    {"inspect", cmd_inspect, "show what is inside fat binaries, objects and archives"},
    {"wrap", cmd_wrap, "write a host object that registers device images"},
    {"link", cmd_ld_offlink, "link like the system linker, device code included (ld.offlink)"},
    {"cache", cmd_cache, "show, trim or clear the cache of device-link outputs"},
    {"enable", cmd_enable, "make a clang's links go through offlink (a config file beside it)"},
    {"disable", cmd_disable, "undo offlink enable (remove the config files it wrote)"},
    {"status", cmd_status, "the config files each clang reads; does it link through offlink"},
    {NULL, NULL, NULL},
};

struct personality {
	const char *name; /* matched as a suffix of argv[0]'s file name */
	int (*fn)(int argc, char **argv);
	const char *summary; /* NULL: left out of --help */
};

static const struct personality personalities[] = {
    {"clang-offload-bundler", cmd_llvm_bundler, "bundles, as LLVM's tool"},
    {"clang-offload-packager", cmd_llvm_packager, "OffloadBinaries, as LLVM 19's tool"},
    {"llvm-offload-binary", cmd_llvm_packager, "OffloadBinaries, as LLVM 22's tool"},
    {"clang-offload-wrapper", cmd_clang_offload_wrapper, "wrapped images, as LLVM's tool"},
    {"llvm-offload-wrapper", cmd_llvm_offload_wrapper, "wrapped images, as LLVM 22's tool"},
    {"clang-linker-wrapper", cmd_clang_linker_wrapper, "clang's linker wrapper (clang -B<dir>)"},
    {"llvm-objdump", cmd_llvm_objdump, "--offloading only"},
    {"ld.offlink", cmd_ld_offlink, "the system linker, device code included (man ld.offlink)"},
    {"ld", cmd_ld_offlink, NULL}, /* libexec/offlink/gcc/ld, for gcc -B */
    /* libexec/offlink/gcc/ld.<X>, for gcc -B with -fuse-ld=<X>: that host linker */
    {"ld.bfd", cmd_ld_offlink, NULL},
    {"ld.gold", cmd_ld_offlink, NULL},
    {"ld.lld", cmd_ld_offlink, NULL},
    {"ld.mold", cmd_ld_offlink, NULL},
    {NULL, NULL, NULL},
};

/* Suffix match, so versioned or cross-prefixed names work:
 * "clang-offload-bundler-22", "x86_64-linux-gnu-clang-offload-bundler". */
static const struct personality *find_personality(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	for (const struct personality *p = personalities; p->name; p++) {
		const char *hit = strstr(base, p->name);
		if (!hit)
			continue;
		const char *rest = hit + strlen(p->name);
		/* allow a "-<digits>" version suffix only */
		if (*rest == '-')
			for (rest++; *rest >= '0' && *rest <= '9'; rest++)
				;
		if (*rest == '\0')
			return p;
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: offlink <command> [options] [args]\n"
	    "       offlink --ldflags [--cc=COMPILER] [--compat | --plugin [--linker=bfd|gold]]\n"
	    "       offlink --config-file\n"
	    "       offlink --help | --version\n\n"
	    "Link-time offloading toolkit: bundles, OffloadBinaries, wrapped images, and\n"
	    "links that carry device code.\n\n"
	    "Commands:\n");
	for (const struct subcommand *c = subcommands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
	        "\nRun 'offlink <command> --help' for the options of a command.\n\n"
	        "--ldflags prints what to add to a link line to link through offlink, with or\n"
	        "without offload flags on it (ld.offlink, or offlink's clang-linker-wrapper):\n"
	        "  --cc=COMPILER  clang (default) or gcc, by name or path (clang-22, g++, "
	        "/usr/bin/cc)\n"
	        "  --compat       only offlink's clang-linker-wrapper, for a clang build that\n"
	        "                 picks its own -fuse-ld and keeps offload flags on every link\n"
	        "  --plugin       the GNU linker plugin inside ld.bfd (--linker=gold: gold)\n"
	        "--config-file prints the path of a clang config file holding those flags:\n"
	        "  make CC=\"clang-22 --config=$(offlink --config-file)\" links through offlink\n"
	        "  with no change to the Makefile, its own LDFLAGS kept\n\n"
	        "Under these names (bin/ld.offlink, links in libexec/offlink/compat/) offlink\n"
	        "takes that tool's command line:\n");
	for (const struct personality *p = personalities; p->name; p++)
		if (p->summary)
			fprintf(f, "  %-23s %s\n", p->name, p->summary);
	fprintf(f, "\nManuals: offlink(1), ld.offlink(1), offlink-plugin(1), offlink-inspect(1),\n"
	           "offlink-package(1), offlink-wrap(1).\n");
}

/* An unknown command, with the one it most likely was meant to be. */
static int unknown_command(const char *word)
{
	const char *names[sizeof(subcommands) / sizeof(subcommands[0])];
	size_t n = 0;
	for (const struct subcommand *c = subcommands; c->name; c++)
		names[n++] = c->name;
	const char *near = ofl_nearest(word, strlen(word), names, n);
	if (near)
		return error("'%s' is not an offlink command; did you mean '%s'?", word, near);
	return error("'%s' is not an offlink command; see 'offlink --help'", word);
}

static int run(const struct personality *p, int argc, char **argv)
{
	if (p)
		return p->fn(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--ldflags"))
		return cmd_ldflags(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--config-file"))
		return cmd_config_file(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		print_version(NULL);
		return 0;
	}
	for (const struct subcommand *c = subcommands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	return unknown_command(argv[1]);
}

/* @FILE arguments are expanded here, once, for every command and
 * personality, as LLVM's tools and GNU ld expand them; ld.offlink's
 * command line parser expands its own (ofl_ldcmd_parse). */
int main(int argc, char **argv)
{
	struct ofl_argv w = OFL_ARGV_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	const struct personality *p = find_personality(argv[0]);
	/* a personality names itself as invoked, as LLVM's tools do */
	if (p)
		ofl_prog = argv[0];
	if (p ? p->fn == cmd_ld_offlink : argc > 1 && !strcmp(argv[1], "link"))
		return run(p, argc, argv);
	if (ofl_argv_expand(&w, argc - 1, argv + 1, NULL, &err)) {
		ofl_argv_release(&w);
		return error_lib(&err);
	}
	char **v = malloc((w.n + 2) * sizeof *v);
	if (!v) {
		ofl_argv_release(&w);
		return error("out of memory");
	}
	v[0] = argv[0];
	for (size_t i = 0; i < w.n; i++)
		v[i + 1] = w.v[i];
	v[w.n + 1] = NULL;
	int rc = run(p, (int)w.n + 1, v);
	free(v);
	ofl_argv_release(&w);
	return rc;
}
