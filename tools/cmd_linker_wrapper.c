/* The clang-linker-wrapper personality: LLVM 19's and 22's command line
 * (docs/integration.md, "As clang-linker-wrapper"), so `clang -B<compat dir>
 * -fopenmp -fopenmp-targets=...` links through offlink.  The wrapper's own
 * options are taken out; everything else is the host link, run by the same
 * job as ld.offlink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "link_cli.h"

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
	W_IGNORED,     /* accepted; no effect on what offlink produces */
	W_IGNORED_ARG, /* same, with a value */
	W_UNSUPPORTED, /* a mode offlink does not have */
	W_HELP,
	W_VERSION,
};

struct wspec {
	const char *name; /* without dashes */
	enum wopt id;
	bool value; /* takes a value (joined with '=' or the next word) */
};

static const struct wspec wrapper_opts[] = {
    {"host-triple", W_HOST_TRIPLE, true},
    {"linker-path", W_LINKER_PATH, true},
    {"device-linker", W_DEVICE_LINKER, true},
    {"device-compiler", W_DEVICE_COMPILER, true},
    {"should-extract", W_SHOULD_EXTRACT, true},
    {"wrapper-jobs", W_JOBS, true},
    {"dry-run", W_DRY_RUN, false},
    {"wrapper-verbose", W_VERBOSE, false},
    {"save-temps", W_SAVE_TEMPS, false},
    {"cuda-path", W_IGNORED_ARG, true},
    {"compress", W_IGNORED, false},
    {"compression-level", W_IGNORED_ARG, true},
    {"opt-level", W_IGNORED_ARG, true},
    {"offload-opt", W_IGNORED_ARG, true},
    {"linker-arg", W_IGNORED_ARG, true},
    {"compiler-arg", W_IGNORED_ARG, true},
    {"mllvm", W_IGNORED_ARG, true},
    {"ptxas-arg", W_IGNORED_ARG, true},
    {"bitcode-library", W_IGNORED_ARG, true},
    {"builtin-bitcode", W_IGNORED_ARG, true},
    {"wrapper-time-trace", W_IGNORED_ARG, true},
    {"wrapper-time-trace-granularity", W_IGNORED_ARG, true},
    {"pass-remarks", W_IGNORED_ARG, true},
    {"pass-remarks-missed", W_IGNORED_ARG, true},
    {"pass-remarks-analysis", W_IGNORED_ARG, true},
    {"whole-program", W_IGNORED, false},
    {"device-debug", W_IGNORED, false},
    {"clang-backend", W_IGNORED, false},
    {"emit-fatbin-only", W_UNSUPPORTED, false},
    {"override-image", W_UNSUPPORTED, true},
    {"print-wrapped-module", W_UNSUPPORTED, false},
    {"embed-bitcode", W_UNSUPPORTED, false},
    {"help", W_HELP, false},
    {"help-hidden", W_HELP, false},
    {"version", W_VERSION, false},
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
    "  --wrapper-jobs=<number> Parallel device links: a positive integer or 'jobserver'\n"
    "  --dry-run               Print program arguments without running\n"
    "  --save-temps            Save intermediate results\n"
    "  --wrapper-verbose       Verbose output from tools\n"
    "  --help, --version       This help; the version\n\n"
    "Accepted and ignored: --cuda-path, --compress, --compression-level, --opt-level,\n"
    "--offload-opt, --linker-arg, --compiler-arg, -mllvm, --ptxas-arg, --bitcode-library,\n"
    "--builtin-bitcode, --wrapper-time-trace*, --pass-remarks*, --whole-program,\n"
    "--device-debug, --clang-backend. Refused: --emit-fatbin-only, --override-image,\n"
    "--print-wrapped-module, --embed-bitcode. Everything else goes to the host linker.\n"
    "More: man ld.offlink, docs/integration.md (\"As clang-linker-wrapper\").\n";

/* The spec of a wrapper option word ("--x", "-x", "--x=v"), or NULL. */
static const struct wspec *match(const char *word, const char **joined)
{
	if (word[0] != '-')
		return NULL;
	const char *n = word + 1 + (word[1] == '-');
	for (size_t i = 0; i < sizeof(wrapper_opts) / sizeof(wrapper_opts[0]); i++) {
		size_t len = strlen(wrapper_opts[i].name);
		if (strncmp(n, wrapper_opts[i].name, len) || (n[len] && n[len] != '='))
			continue;
		if (n[len] == '=' && !wrapper_opts[i].value)
			continue;
		*joined = n[len] == '=' ? n + len + 1 : NULL;
		return &wrapper_opts[i];
	}
	return NULL;
}

/* --help and --version are answered at once, as LLVM's tool does. */
static bool answered(const struct wspec *w)
{
	if (w->id == W_HELP)
		fputs(help, stdout);
	else if (w->id == W_VERSION)
		print_version("compatible with clang-linker-wrapper 19 and 22");
	return w->id == W_HELP || w->id == W_VERSION;
}

static int take(struct link_job *j, const struct wspec *w, const char *v)
{
	switch (w->id) {
	case W_HOST_TRIPLE:
		j->o.host_triple = v;
		break;
	case W_LINKER_PATH:
		j->linker_choice = v;
		break;
	case W_DEVICE_LINKER:
		strlist_push(&j->device_linker_args, v);
		break;
	case W_DEVICE_COMPILER:
		strlist_push(&j->device_compiler_args, v);
		break;
	case W_SHOULD_EXTRACT:
		strlist_push(&j->extract, v);
		break;
	case W_JOBS:
		/* "jobserver" leaves the count to make's tokens */
		if (strcmp(v, "jobserver") && !(j->o.jobs = (unsigned)strtoul(v, NULL, 10)))
			return error("invalid --wrapper-jobs value '%s'", v);
		break;
	case W_DRY_RUN:
		j->o.dry_run = true;
		break;
	case W_VERBOSE:
		j->verbose = true;
		break;
	case W_SAVE_TEMPS:
		j->o.save_temps = true;
		break;
	case W_UNSUPPORTED:
		return error("--%s is not supported by offlink's clang-linker-wrapper", w->name);
	default:
		break;
	}
	return 0;
}

int cmd_clang_linker_wrapper(int argc, char **argv)
{
	struct link_job j = {.cmd = OFL_LDCMD_INIT};
	j.o.llvm_command_form = true; /* scripts read --wrapper-verbose's lines */
	/* the driver passes the OpenMP device runtime (-lomptarget.devicertl,
	 * --device-linker=...=-lompdevice) unless told -nogpulib */
	j.o.no_device_runtime = true;
	struct ofl_error err = OFL_ERROR_INIT;
	char **host = calloc((size_t)argc + 1, sizeof(*host));
	int nhost = 0, rc = host ? 0 : error("out of memory");
	bool done = false;
	for (int i = 1; !rc && i < argc; i++) {
		const char *v = NULL;
		const struct wspec *w = match(argv[i], &v);
		if (!w) {
			host[nhost++] = argv[i];
			continue;
		}
		if ((done = answered(w)))
			break;
		if (w->value && !v && (v = i + 1 < argc ? argv[++i] : NULL) == NULL)
			rc = error("--%s needs a value", w->name);
		if (!rc)
			rc = take(&j, w, v);
	}
	if (done) {
		link_job_release(&j);
		free(host);
		return 0;
	}
	if (!rc && !j.linker_choice)
		rc = error("--linker-path is required");
	if (!rc && ofl_ldcmd_parse(&j.cmd, nhost, host, &err))
		rc = error_lib(&err);
	if (!rc)
		rc = link_job_finish_options(&j);
	if (!rc)
		rc = link_job_run(&j);
	link_job_release(&j);
	free(host);
	return rc;
}
