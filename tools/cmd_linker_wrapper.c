/* The clang-linker-wrapper personality: LLVM 19's, 22's and 23's command line
 * (docs/integration.md, "As clang-linker-wrapper"), so `clang -B<compat dir>
 * -fopenmp -fopenmp-targets=...` links through offlink.  The wrapper's own
 * options are taken out; everything else is the host link, run by the same
 * job as ld.offlink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "diag.h"
#include "link_cli.h"
#include "opts.h"
#include "offlink/proc.h"
#include "offlink/target_id.h"

enum wopt {
	W_HOST_TRIPLE,
	W_LINKER_PATH,
	W_DEVICE_LINKER,
	W_DEVICE_COMPILER,
	W_SHOULD_EXTRACT,
	W_JOBS,
	W_DRY_RUN,
	W_VERBOSE,
	W_SAVE_TEMPS,
	W_OFFLOAD_OPT,
	W_MLLVM,
	W_CUDA_PATH,
	W_COMPRESS,
	W_COMPRESSION_LEVEL,
	W_EMIT_FATBIN,
	W_PRINT_MODULE,
	W_OPT_LEVEL,
	W_EMBED_BITCODE,
	W_NO_CANONICAL, /* 23's; 22 hands it to the host linker */
	W_TIME_TRACE,
	W_DEVICE_PARTITIONS, /* offlink's: --device-partitions=N|auto */
	W_LLVM_VERSION,      /* offlink's: the release to act as */
	W_IGNORED,           /* accepted; no effect on what offlink produces */
	W_IGNORED_ARG,       /* same, with a value */
	W_UNSUPPORTED,       /* a mode offlink does not have */
	W_HELP,
	W_VERSION,
};

/* How an option takes its value, as in LLVM's table: --offload-opt only
 * joined (--offload-opt=X), -mllvm only in the next word; the others
 * either way (offlink's leniency). */
enum wform { FLAG, JOINED, SEPARATE, EITHER };

struct wspec {
	const char *name; /* without dashes */
	enum wopt id;
	enum wform form;
};

static const struct wspec wrapper_opts[] = {
    {"host-triple", W_HOST_TRIPLE, EITHER},
    {"linker-path", W_LINKER_PATH, EITHER},
    {"device-linker", W_DEVICE_LINKER, EITHER},
    {"device-compiler", W_DEVICE_COMPILER, EITHER},
    {"should-extract", W_SHOULD_EXTRACT, EITHER},
    {"wrapper-jobs", W_JOBS, EITHER},
    {"dry-run", W_DRY_RUN, FLAG},
    {"wrapper-verbose", W_VERBOSE, FLAG},
    {"save-temps", W_SAVE_TEMPS, FLAG},
    {"offload-opt", W_OFFLOAD_OPT, JOINED},
    {"mllvm", W_MLLVM, SEPARATE},
    {"cuda-path", W_CUDA_PATH, EITHER},
    {"compress", W_COMPRESS, FLAG},
    {"compression-level", W_COMPRESSION_LEVEL, EITHER},
    {"emit-fatbin-only", W_EMIT_FATBIN, FLAG},
    {"print-wrapped-module", W_PRINT_MODULE, FLAG},
    {"opt-level", W_OPT_LEVEL, EITHER},
    {"linker-arg", W_IGNORED_ARG, EITHER},
    {"compiler-arg", W_IGNORED_ARG, EITHER},
    {"ptxas-arg", W_IGNORED_ARG, EITHER},
    {"bitcode-library", W_IGNORED_ARG, EITHER},
    {"builtin-bitcode", W_IGNORED_ARG, EITHER},
    {"wrapper-time-trace", W_TIME_TRACE, EITHER},
    {"wrapper-time-trace-granularity", W_IGNORED_ARG, EITHER},
    {"pass-remarks", W_IGNORED_ARG, EITHER},
    {"pass-remarks-missed", W_IGNORED_ARG, EITHER},
    {"pass-remarks-analysis", W_IGNORED_ARG, EITHER},
    {"whole-program", W_IGNORED, FLAG},
    {"device-debug", W_IGNORED, FLAG},
    {"clang-backend", W_IGNORED, FLAG},
    {"override-image", W_UNSUPPORTED, EITHER},
    {"embed-bitcode", W_EMBED_BITCODE, FLAG},
    {"no-canonical-prefixes", W_NO_CANONICAL, FLAG},
    {"device-partitions", W_DEVICE_PARTITIONS, EITHER},
    {"llvm-version", W_LLVM_VERSION, JOINED},
    {"help", W_HELP, FLAG},
    {"help-hidden", W_HELP, FLAG},
    {"version", W_VERSION, FLAG},
};

static const char help[] =
    "OVERVIEW: offlink's clang-linker-wrapper: takes LLVM 19's and 22's command line,\n"
    "links the device code of the inputs the host link uses, registers it and runs the\n"
    "host linker (the same pipeline as ld.offlink). clang runs it when it finds it in a\n"
    "-B directory: clang -B<prefix>/libexec/offlink/compat -fopenmp "
    "-fopenmp-targets=...\n\n"
    "USAGE: clang-linker-wrapper [options] -- <options to passed to the linker>\n\n"
    "OPTIONS:\n"
    "  --linker-path=<path>    The linker executable to invoke (required)\n"
    "  --host-triple=<triple>  Triple to use for the host compilation\n"
    "  --device-linker=<value> or <triple>=<value>\n"
    "                          Arguments to pass to the device linker invocation\n"
    "  --device-compiler=<value> or <triple>=<value>\n"
    "                          Arguments to pass to the device compiler invocation\n"
    "  --should-extract=<arch> Device architectures always extracted from archives\n"
    "  --wrapper-jobs=<number> Parallel device links: 1 to 4096, or 'jobserver'\n"
    "  --offload-opt=<value>   LLVM option for the device links' LTO\n"
    "  -mllvm <arg>            LLVM option for the device links\n"
    "  --cuda-path=<dir>       The CUDA installation (fatbinary; LLVM 19's device links)\n"
    "  --opt-level=<O0-O3>     LLVM 19's device LTO and link optimisation (default O2)\n"
    "  --embed-bitcode         Embed the linked bitcode for the runtime to JIT\n"
    "  --no-canonical-prefixes (23) The device clang beside this program as invoked,\n"
    "                          its links not resolved, given -no-canonical-prefixes\n"
    "  --device-partitions=<N|auto>\n"
    "                          Device code generation of LTO links in N partitions\n"
    "                          run in parallel (offlink's; 1: LLVM's link)\n"
    "  --compress, --compression-level=<n>\n"
    "                          Compress HIP fat binaries\n"
    "  --emit-fatbin-only      Write the fat binary; no wrapping, no host link\n"
    "  -r, --relocatable       Link the device code of a relocatable link now\n"
    "  --print-wrapped-module  Print the wrapper module's IR\n"
    "  --wrapper-time-trace=<file>\n"
    "                          Write where the time went (Chrome trace JSON)\n"
    "  --dry-run               Print the commands LLVM would run, without running\n"
    "  --save-temps            Save intermediate results\n"
    "  --wrapper-verbose       Print the commands as they run\n"
    "  --help, --version       This help; the version\n\n"
    "Accepted and ignored: --linker-arg, --compiler-arg, --ptxas-arg,\n"
    "--bitcode-library, --builtin-bitcode, --wrapper-time-trace-granularity,\n"
    "--pass-remarks*, --whole-program, --device-debug, --clang-backend.\n"
    "Refused: --override-image. ld.offlink's own options (--time-trace[=<file>],\n"
    "--explain[=<file>], ...; -Wl, on clang's line) are taken as ld.offlink takes\n"
    "them. Everything else goes to the host linker.\n"
    "More: man ld.offlink, docs/integration.md (\"As clang-linker-wrapper\").\n";

/* The spec of a wrapper option word ("--x", "-x", "--x=v"), or NULL. */
static const struct wspec *match(const char *word, const char **joined)
{
	if (word[0] != '-')
		return NULL;
	const char *n = word + 1 + (word[1] == '-');
	for (size_t i = 0; i < sizeof(wrapper_opts) / sizeof(wrapper_opts[0]); i++) {
		const struct wspec *w = &wrapper_opts[i];
		size_t len = strlen(w->name);
		if (strncmp(n, w->name, len) || (n[len] && n[len] != '='))
			continue;
		if (n[len] == '=' ? w->form == FLAG || w->form == SEPARATE : w->form == JOINED)
			continue;
		*joined = n[len] == '=' ? n + len + 1 : NULL;
		return w;
	}
	return NULL;
}

/* --help and --version are answered at once, as LLVM's tool does. */
static bool answered(const struct wspec *w)
{
	if (w->id == W_HELP)
		fputs(help, stdout);
	else if (w->id == W_VERSION)
		print_version("compatible with clang-linker-wrapper 19, 22 and 23");
	return w->id == W_HELP || w->id == W_VERSION;
}

static int push(struct ofl_argv *l, const char *v)
{
	struct ofl_error err = OFL_ERROR_INIT;
	return ofl_argv_push(l, v, &err) ? error_lib(&err) : 0;
}

static int take(struct link_job *j, const struct wspec *w, const char *v)
{
	switch (w->id) {
	case W_HOST_TRIPLE:
		j->c.o.host_triple = v;
		break;
	case W_LINKER_PATH:
		j->linker_path = v;
		break;
	case W_DEVICE_LINKER:
		return push(&j->c.device_linker_args, v);
	case W_DEVICE_COMPILER:
		return push(&j->c.device_compiler_args, v);
	case W_SHOULD_EXTRACT:
		return push(&j->c.extract, v);
	case W_JOBS:
		/* "jobserver" leaves the count to make's tokens */
		if (strcasecmp(v, "jobserver") && !(j->c.o.jobs = ofl_ld_jobs(v)))
			return error(
			    "--wrapper-jobs=%s: expected a positive integer or 'jobserver', "
			    "got '%s'",
			    v, v);
		break;
	case W_DRY_RUN:
		j->c.o.dry_run = true;
		break;
	case W_VERBOSE:
		j->verbose = true;
		break;
	case W_SAVE_TEMPS:
		j->c.o.save_temps = true;
		break;
	case W_MLLVM: /* LLVM 22 gives it to the LTO and to the linker */
		return push(&j->c.mllvm, v) || push(&j->c.lto_opts, v);
	case W_OFFLOAD_OPT:
		return push(&j->c.lto_opts, v);
	case W_CUDA_PATH:
		j->c.o.cuda_path = v;
		break;
	case W_COMPRESS:
		j->c.o.compress = true;
		break;
	case W_COMPRESSION_LEVEL: {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || !*v || n < INT32_MIN + 1 || n > INT32_MAX)
			return error("invalid --compression-level value '%s'", v);
		j->c.o.compression_level = (int)n;
		break;
	}
	case W_EMIT_FATBIN:
		j->c.o.emit_fatbin = true;
		break;
	case W_PRINT_MODULE:
		j->c.o.print_wrapped_module = true;
		break;
	case W_OPT_LEVEL:
		if (v[0] != 'O' || v[1] < '0' || v[1] > '3' || v[2])
			return error("--opt-level=%s: expected O0, O1, O2 or O3", v);
		snprintf(j->c.o.opt_level, sizeof(j->c.o.opt_level), "%c", v[1]);
		j->c.opt_level_given = true;
		break;
	case W_EMBED_BITCODE:
		j->c.o.embed_bitcode = true;
		break;
	case W_TIME_TRACE:
	case W_DEVICE_PARTITIONS: {
		/* read as ld.offlink reads its option */
		struct ofl_ldarg a = {.kind = OFL_LDARG_OPTION,
		                      .opt = w->id == W_TIME_TRACE ? OFL_LD_OWN_TIME_TRACE
		                                                   : OFL_LD_OWN_DEVICE_PARTITIONS,
		                      .value = v};
		struct ofl_error err = OFL_ERROR_INIT;
		return ofl_link_config_option(&j->c, &a, &err) ? error_lib(&err) : 0;
	}
	case W_LLVM_VERSION:
		return (j->c.o.llvm_release = llvm_release_option(strtoull(v, NULL, 10))) ? 0 : 1;
	case W_UNSUPPORTED:
		return error("--%s is not supported by offlink's clang-linker-wrapper", w->name);
	default:
		break;
	}
	return 0;
}

/* LLVM 23's --no-canonical-prefixes (#184160): its words leave the host
 * line (they stay there acting as 22, which has no such option and hands
 * unknown words to the linker); the link takes its device clang beside
 * this program as invoked (offlink/link.h). */
static void no_canonical_prefixes(struct link_job *j, const char *argv0, char **host, int *nhost)
{
	int k = 0;
	for (int i = 0; i < *nhost; i++) {
		const char *v = NULL;
		const struct wspec *w = match(host[i], &v);
		if (!w || w->id != W_NO_CANONICAL)
			host[k++] = host[i];
	}
	*nhost = k;
	j->c.o.no_canonical_prefixes = true;
	j->c.o.invoked = argv0;
}

/* A Windows host other than MinGW links with lld-link or link.exe, whose
 * command line is link.exe's (-out:, -libpath:). */
static enum ofl_ldcmd_style host_style(const char *triple)
{
	return triple && ofl_triple_is_msvc(triple) ? OFL_LDCMD_LINK_EXE : OFL_LDCMD_GNU;
}

int cmd_clang_linker_wrapper(int argc, char **argv)
{
	struct link_job j = {.cmd = OFL_LDCMD_INIT};
	/* commands in LLVM's form (scripts read --wrapper-verbose's lines),
	 * nothing added that clang's driver passes itself */
	j.c.o.llvm_wrapper = true;
	j.c.o.compression_level = INT32_MIN;
	/* -r is LLVM's relocatable mode: device code linked now */
	j.offload_relocatable = true;
	struct ofl_error err = OFL_ERROR_INIT;
	char **host = calloc((size_t)argc + 1, sizeof(*host));
	int nhost = 0, rc = host ? 0 : error("out of memory");
	bool done = false, no_canonical = false;
	for (int i = 1; !rc && i < argc; i++) {
		const char *v = NULL;
		const struct wspec *w = match(argv[i], &v);
		no_canonical = no_canonical || (w && w->id == W_NO_CANONICAL);
		if (!w || w->id == W_NO_CANONICAL) {
			host[nhost++] = argv[i];
			continue;
		}
		if ((done = answered(w)))
			break;
		if (w->form != FLAG && !v && (v = i + 1 < argc ? argv[++i] : NULL) == NULL)
			rc = error("--%s needs a value", w->name);
		if (!rc)
			rc = take(&j, w, v);
	}
	if (done) {
		link_job_release(&j);
		free(host);
		return 0;
	}
	if (!rc && !j.c.o.llvm_release)
		j.c.o.llvm_release = personality_release(argv[0], 0);
	if (!rc && no_canonical && j.c.o.llvm_release >= 23)
		no_canonical_prefixes(&j, argv[0], host, &nhost);
	if (!rc && !j.linker_path)
		rc = error("linker path missing, must pass 'linker-path'");
	if (!rc &&
	    ofl_ldcmd_parse(&j.cmd, host_style(j.c.o.host_triple), nhost, host, &j.rsp, &err))
		rc = error_lib(&err);
	/* ld.offlink's options in the link flags ($(offlink --ldflags) users') */
	for (size_t i = 0; !rc && i < j.cmd.nargs; i++)
		if (ofl_ldarg_is_own(&j.cmd.args[i]))
			rc = link_job_own_option(&j, &j.cmd.args[i]);
	if (!rc)
		rc = link_job_run(&j);
	link_job_release(&j);
	free(host);
	return rc;
}
