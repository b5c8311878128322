/* offlink bundle / unbundle / list, and the clang-offload-bundler
 * personality.  Both parse into struct ofl_bundler_options and call the same
 * core functions; the personality adds LLVM's option spellings, checks,
 * messages and environment variables. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "offlink/bundle.h"
#include "offlink/bundler.h"
#include "offlink/elf.h"
#include "offlink/io.h"
#include "offlink/target_id.h"
#include "opts.h"
#include "staging.h"

/* Everything either dialect can set; the option tables point into it. */
struct bundle_args {
	const char *type;
	struct strlist targets, input, inputs, output, outputs, positional;
	int n_inputs, n_outputs, n_targets, n_compress, n_level;
	bool unbundle, list, allow_missing, check_archive, hip_openmp, compress, verbose;
	bool print_only, llvm_identical;
	bool llvm; /* the clang-offload-bundler personality: LLVM's messages */
	unsigned long long align, threads, format_version, llvm_version;
	long long level;
	const char *method;
};

static void args_release(struct bundle_args *a)
{
	strlist_release(&a->targets);
	strlist_release(&a->input);
	strlist_release(&a->inputs);
	strlist_release(&a->output);
	strlist_release(&a->outputs);
	strlist_release(&a->positional);
}

/* ---- shared reporting ---- */

/* LLVM prints sizes with thousands separators. */
static const char *commas(uint64_t v, char *buf, size_t n)
{
	char raw[32];
	int len = snprintf(raw, sizeof raw, "%" PRIu64, v), o = 0;
	for (int i = 0; i < len && o + 2 < (int)n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

static void print_ratio(const struct ofl_bundler_report *r, const char *speed_label)
{
	double packed = (double)r->ccob.total_size, raw = (double)r->raw_size;
	fprintf(stderr, "Compression rate: %.2f\n", packed ? raw / packed : 0.0);
	fprintf(stderr, "Compression ratio: %.2f%%\n", raw ? packed * 100.0 / raw : 0.0);
	fprintf(stderr, "%s: %.2f MB/s\n", speed_label,
	        r->seconds > 0 ? raw / 1e6 / r->seconds : 0.0);
}

static void report_compress(const struct ofl_bundler_report *r, int level)
{
	char a[32], b[32], c[32];
	fprintf(stderr, "Compressed bundle format version: %u\n", r->ccob.version);
	fprintf(stderr, "Total file size (including headers): %s bytes\n",
	        commas(r->ccob.total_size, a, sizeof a));
	fprintf(stderr, "Compression method used: %s\n", r->ccob.method ? "zstd" : "zlib");
	fprintf(stderr, "Compression level: %d\n", level);
	fprintf(stderr, "Binary size before compression: %s bytes\n",
	        commas(r->raw_size, b, sizeof b));
	fprintf(stderr, "Binary size after compression: %s bytes\n",
	        commas(r->ccob.total_size, c, sizeof c));
	print_ratio(r, "Compression speed");
	fprintf(stderr, "Truncated MD5 hash: 0x%014" PRIx64 "\n", r->ccob.hash);
}

static void report_decompress(const struct ofl_bundler_report *r)
{
	char a[32], b[32], c[32];
	if (!r->compressed) {
		fprintf(stderr, "Uncompressed bundle.\n");
		return;
	}
	fprintf(stderr, "Compressed bundle format version: %u\n", r->ccob.version);
	if (r->ccob.version >= 2)
		fprintf(stderr, "Total file size (from header): %s bytes\n",
		        commas(r->ccob.total_size, a, sizeof a));
	fprintf(stderr, "Decompression method: %s\n", r->ccob.method ? "zstd" : "zlib");
	/* LLVM counts the compressed stream alone here, without the header */
	fprintf(stderr, "Size before decompression: %s bytes\n",
	        commas(r->ccob.total_size - r->ccob.header_size, b, sizeof b));
	fprintf(stderr, "Size after decompression: %s bytes\n", commas(r->raw_size, c, sizeof c));
	print_ratio(r, "Decompression speed");
	/* LLVM pads the hashes to 14 digits (format_hex with width 16) */
	fprintf(stderr, "Stored hash: 0x%014" PRIx64 "\n", r->ccob.hash);
	fprintf(stderr, "Recalculated hash: 0x%014" PRIx64 "\n", r->hash);
	fprintf(stderr, "Hashes match: %s\n", r->hash_ok ? "Yes" : "No");
}

/* The personality words a failure as LLVM 22 does: a file that cannot be
 * read is "'PATH': <strerror>", and anything but an archive given to
 * -unbundle -type=a is "file too small to be an archive" (LLVM's archive
 * reader says so for any such file). */
static int report(const struct bundle_args *a, const struct ofl_error *err)
{
	if (!a->llvm)
		return error_lib(err);
	if (err->sys_errno && err->path[0])
		return error("'%s': %s", err->path, strerror(err->sys_errno));
	if (a->type && !strcmp(a->type, "a") && !strncmp(err->msg, "not an archive", 14))
		return error("file too small to be an archive");
	return error_lib(err);
}

static int run_list(const struct bundle_args *a, const struct ofl_bundler_options *o,
                    bool quiet_if_none)
{
	bool verbose = a->verbose;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_bundler_report rep = {.want_hash = verbose};
	char **ids;
	size_t n;
	bool found;
	if (ofl_bundler_list(o, &ids, &n, &found, &rep, &err))
		return report(a, &err);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", ids[i]);
	ofl_bundler_list_free(ids, n);
	if (verbose)
		report_decompress(&rep);
	if (!found && !quiet_if_none)
		return error("%s: not a bundle of type '%s'", o->inputs[0], o->type);
	return 0;
}

static int run(const struct ofl_bundler_options *o, const struct bundle_args *a)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_bundler_report rep = {.want_hash = a->verbose};
	/* all or nothing also when a signal comes: it waits for the end */
	sigset_t old;
	if (o->all_or_nothing)
		signals_hold(&old);
	int rc =
	    a->unbundle ? ofl_bundler_unbundle(o, &rep, &err) : ofl_bundler_bundle(o, &rep, &err);
	if (o->all_or_nothing)
		signals_release(&old);
	if (rc)
		return report(a, &err);
	if (a->verbose && !a->unbundle && rep.compressed)
		report_compress(&rep, o->ccob.level);
	if (a->verbose && a->unbundle)
		report_decompress(&rep);
	return 0;
}

static void fill_lists(struct ofl_bundler_options *o, const struct bundle_args *a,
                       const struct strlist *in, const struct strlist *out)
{
	o->type = a->type;
	o->targets = a->targets.v;
	o->ntargets = a->targets.n;
	o->inputs = in->v;
	o->ninputs = in->n;
	o->outputs = out->v;
	o->noutputs = out->n;
	o->align = a->align;
	o->allow_missing = a->allow_missing;
	o->hip_openmp_compatible = a->hip_openmp;
	o->check_input_archive = a->check_archive;
}

/* ---- clang-offload-bundler personality ---- */

/* clang-offload-bundler 22's --help (19's is the same), option for option,
 * with the name it was invoked under; --offlink-llvm-version is offlink's
 * own (see offlink(1)). */
static const char llvm_help[] =
    "OVERVIEW: A tool to bundle several input files of the specified type <type> \n"
    "referring to the same source file but different targets into a single \n"
    "one. The resulting file can also be unbundled into different files by \n"
    "this tool if -unbundle is provided.\n"
    "\n"
    "USAGE: %s [options]\n"
    "\n"
    "OPTIONS:\n"
    "\n"
    "Generic Options:\n"
    "\n"
    "  --help                  - Display available options (--help-hidden for more)\n"
    "  --help-list             - Display list of available options (--help-list-hidden for more)\n"
    "  --version               - Display the version of this program\n"
    "\n"
    "clang-offload-bundler options:\n"
    "\n"
    "  --###                   - Print any external commands that are to be executed instead of "
    "actually executing them - for testing purposes.\n"
    "  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.\n"
    "  --bundle-align=<uint>   - Alignment of bundle for binary files\n"
    "  --check-input-archive   - Check if input heterogeneous archive is valid in terms of "
    "TargetID rules.\n"
    "  --compress              - Compress output file when bundling.\n"
    "  --compression-level=<n> - Specify the compression level (integer)\n"
    "  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, "
    "and vice versa.\n"
    "  --input=<string>        - Input file. Can be specified multiple times for multiple input "
    "files.\n"
    "  --inputs=<string>       - [<input file>,...] (deprecated)\n"
    "  --list                  - List bundle IDs in the bundled file.\n"
    "  --output=<string>       - Output file. Can be specified multiple times for multiple output "
    "files.\n"
    "  --outputs=<string>      - [<output file>,...] (deprecated)\n"
    "  --targets=<string>      - [<offload kind>-<target triple>,...]\n"
    "  --type=<string>         - Type of the files to be bundled/unbundled.\n"
    "                            Current supported types are:\n"
    "                              i    - cpp-output\n"
    "                              ii   - c++-cpp-output\n"
    "                              cui  - cuda-cpp-output\n"
    "                              hipi - hip-cpp-output\n"
    "                              d    - dependency\n"
    "                              ll   - llvm\n"
    "                              bc   - llvm-bc\n"
    "                              s    - assembler\n"
    "                              o    - object\n"
    "                              a    - archive of objects\n"
    "                              gch  - precompiled-header\n"
    "                              ast  - clang AST file\n"
    "  --unbundle              - Unbundle bundled file into several output files.\n"
    "  --verbose               - Print debug information.\n";

static int llvm_check(const struct bundle_args *a)
{
	if (!a->type) {
		fprintf(stderr, "%s: for the --type option: must be specified at least once!\n",
		        prog_base());
		return 1;
	}
	if (a->unbundle && a->list)
		return error("-unbundle and -list cannot be used together");
	size_t nin = a->input.n + a->inputs.n, nout = a->output.n + a->outputs.n;
	if (a->list) {
		if (nin != 1)
			return error("only one input file supported for -list");
		if (nout)
			return error("-outputs option is invalid for -list");
		if (a->targets.n)
			return error("-targets option is invalid for -list");
		return 0;
	}
	if (a->check_archive && !a->unbundle)
		return error("-check-input-archive cannot be used while bundling");
	if (a->check_archive && strcmp(a->type, "a") != 0)
		return error(
		    "-check-input-archive can only be used for unbundling archives (-type=a)");
	if (!nout)
		return error("no output file specified!");
	if (!a->targets.n)
		return error("for the --targets option: must be specified at least once!");
	return 0;
}

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && !strcmp(v, value);
}

/* Environment variables, as LLVM reads them (docs/formats.md §4.6); command-line
 * options given explicitly win. */
static void llvm_env(struct bundle_args *a, struct ofl_bundler_options *o)
{
	if (env_is("OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "1"))
		return;
	if (!a->n_compress && env_is("OFFLOAD_BUNDLER_COMPRESS", "1"))
		a->compress = true;
	if (env_is("OFFLOAD_BUNDLER_VERBOSE", "1"))
		a->verbose = true;
	const char *lv = getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL");
	if (lv && !a->n_level) {
		char *end;
		long v = strtol(lv, &end, 10);
		if (*lv && !*end)
			a->level = v, a->n_level = 1;
		else
			fprintf(stderr,
			        "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. "
			        "Ignoring it.\n",
			        lv);
	}
	const char *fv = getenv("COMPRESSED_BUNDLE_FORMAT_VERSION");
	if (fv && o->dialect != OFL_LLVM19) {
		char *end;
		long v = strtol(fv, &end, 10);
		if (*fv && !*end && (v == 2 || v == 3))
			o->ccob.version = (int)v;
		else if (*fv && !*end)
			fprintf(stderr,
			        "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. "
			        "Valid values are 2 or 3. Using default version 3.\n",
			        fv);
		else
			fprintf(stderr,
			        "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. "
			        "Using default version 3.\n",
			        fv);
	}
}

/* The entry-ID rules of release r: 23's bundler is 22's, but reads LLVM
 * main's amdgpu triples (llvm-project#206480). */
static enum ofl_llvm_dialect dialect_of(unsigned r)
{
	return r == 19 ? OFL_LLVM19 : r >= 23 ? OFL_LLVM23 : OFL_LLVM22;
}

/* One argument as LLVM prints a command under -###: after a space, in
 * double quotes, with '"', '\\' and '$' escaped. */
static void print_quoted(const char *s)
{
	fputs(" \"", stderr);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '$')
			fputc('\\', stderr);
		fputc(*s, stderr);
	}
	fputc('"', stderr);
}

/* -### with -type=o and an ELF host: LLVM would run llvm-objcopy to add one
 * section per entry and prints that command instead, writing nothing; so
 * do we (the host's one-byte entry is the temporary file LLVM names).
 * Returns 1 when this is not such a bundle (the bundle is then written, as
 * LLVM writes it), 0 after printing, or an error. */
static int print_objcopy(const struct ofl_bundler_options *o)
{
	const struct ofl_file_type *type = ofl_file_type_find(o->type);
	if (!type || type->handler != OFL_BH_OBJECT || o->ninputs != o->ntargets ||
	    o->noutputs != 1)
		return 1;
	struct ofl_bundle_id *ids = calloc(o->ntargets, sizeof *ids);
	if (!ids)
		return error("out of memory");
	size_t host = 0, n = 0;
	struct ofl_error err = OFL_ERROR_INIT;
	for (; n < o->ntargets && !ofl_bundle_id_parse(o->targets[n], o->dialect, &ids[n], &err);
	     n++)
		if (ofl_bundle_id_is_host(&ids[n]))
			host = n;
	struct ofl_file f = OFL_FILE_INIT;
	int rc = n == o->ntargets && !ofl_file_open(&f, o->inputs[host], &err) &&
	                 ofl_is_elf(f.data, f.size)
	             ? 0
	             : 1;
	ofl_file_close(&f);
	const char *tmp = getenv("TMPDIR");
	for (size_t i = 0; !rc && i < n; i++) {
		char *add = NULL, *flags = NULL, *stub = NULL;
		if (asprintf(&stub, "%s/clang-offload-bundler-host.tmp",
		             tmp && *tmp ? tmp : "/tmp") < 0 ||
		    asprintf(&add, "--add-section=__CLANG_OFFLOAD_BUNDLE__%s=%s", ids[i].str,
		             ofl_bundle_id_is_host(&ids[i]) ? stub : o->inputs[i]) < 0 ||
		    asprintf(&flags,
		             "--set-section-flags=__CLANG_OFFLOAD_BUNDLE__%s=readonly,exclude",
		             ids[i].str) < 0)
			rc = error("out of memory");
		if (!rc && i == 0)
			fputs("\"llvm-objcopy\"", stderr);
		if (!rc) {
			print_quoted(add);
			print_quoted(flags);
		}
		free(add);
		free(flags);
		free(stub);
	}
	if (!rc) {
		print_quoted("--");
		print_quoted(o->inputs[host]);
		print_quoted(o->outputs[0]);
		fputc('\n', stderr);
	}
	for (size_t i = 0; i < n; i++)
		ofl_bundle_id_release(&ids[i]);
	free(ids);
	return rc;
}

static int llvm_bundler(int argc, char **argv, struct bundle_args *a, const char *help_text)
{
	int help = 0;
	const struct opt table[] = {
	    {"type", OPT_STR, &a->type, NULL, "<string>",
	     "Type of the files to be bundled/unbundled."},
	    {"targets", OPT_CSV, &a->targets, &a->n_targets, "<string>",
	     "[<offload kind>-<target triple>,...]"},
	    {"input", OPT_LIST, &a->input, NULL, "<string>",
	     "Input file. Can be specified multiple times for multiple input files."},
	    {"inputs", OPT_CSV, &a->inputs, &a->n_inputs, "<string>",
	     "[<input file>,...] (deprecated)"},
	    {"output", OPT_LIST, &a->output, NULL, "<string>",
	     "Output file. Can be specified multiple times for multiple output files."},
	    {"outputs", OPT_CSV, &a->outputs, &a->n_outputs, "<string>",
	     "[<output file>,...] (deprecated)"},
	    {"unbundle", OPT_FLAG, &a->unbundle, NULL, NULL,
	     "Unbundle bundled file into several output files."},
	    {"list", OPT_FLAG, &a->list, NULL, NULL, "List bundle IDs in the bundled file."},
	    {"allow-missing-bundles", OPT_FLAG, &a->allow_missing, NULL, NULL,
	     "Create empty files if bundles are missing when unbundling."},
	    {"bundle-align", OPT_UINT, &a->align, NULL, "<uint>",
	     "Alignment of bundle for binary files"},
	    {"check-input-archive", OPT_FLAG, &a->check_archive, NULL, NULL,
	     "Check if input heterogeneous archive is valid in terms of TargetID rules."},
	    {"hip-openmp-compatible", OPT_FLAG, &a->hip_openmp, NULL, NULL,
	     "Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa."},
	    {"compress", OPT_FLAG, &a->compress, &a->n_compress, NULL,
	     "Compress output file when bundling."},
	    {"compression-level", OPT_INT, &a->level, &a->n_level, "<int>",
	     "Specify the compression level (integer)"},
	    {"verbose", OPT_FLAG, &a->verbose, NULL, NULL, "Print debug information."},
	    {"###", OPT_FLAG, &a->print_only, NULL, NULL,
	     "Print any external commands that are to be executed instead of actually executing "
	     "them - for testing purposes."},
	    {"offlink-llvm-version", OPT_UINT, &a->llvm_version, NULL, "19|22|23",
	     "Behave like clang-offload-bundler 19, 22 or 23 (default: 22, or the release "
	     "the name it is invoked by ends in)"},
	    {"help", OPT_HELP, (void *)help_text, &help, NULL, "Display available options"},
	    {"version", OPT_VERSION, "compatible with clang-offload-bundler 19, 22 and 23", NULL,
	     NULL, "Display the version of this program"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int prc =
	    opts_parse(table, argc, argv, &a->positional, "clang-offload-bundler [options]", NULL);
	if (prc)
		return prc == 2 ? 0 : 1;
	if (a->positional.n)
		return error("unexpected argument '%s'", a->positional.v[0]);
	if (a->input.n && a->inputs.n)
		return error("-inputs and -input cannot be used together, use only -input instead");
	if (a->output.n && a->outputs.n)
		return error(
		    "-outputs and -output cannot be used together, use only -output instead");
	if (a->inputs.n)
		warning("-inputs is deprecated, use -input instead");
	if (a->outputs.n)
		warning("-outputs is deprecated, use -output instead");
	if (a->llvm_version && a->llvm_version != 19 && a->llvm_version != 22 &&
	    a->llvm_version != 23)
		return error("--offlink-llvm-version must be 19, 22 or 23");
	int rc = llvm_check(a);
	if (rc)
		return rc;

	struct ofl_bundler_options o = OFL_BUNDLER_OPTIONS_INIT;
	o.dialect = dialect_of(a->llvm_version ? (unsigned)a->llvm_version
	                                       : personality_release(argv[0], 0));
	if (o.dialect == OFL_LLVM19)
		o.ccob.version = 2;
	llvm_env(a, &o);
	o.compress = a->compress;
	o.ccob.threads = 0; /* LLVM compresses single-threaded: same bytes */
	o.ccob.level = a->n_level ? (int)a->level : 3; /* LLVM reports and uses 3 */
	const struct strlist *in = a->inputs.n ? &a->inputs : &a->input;
	const struct strlist *out = a->outputs.n ? &a->outputs : &a->output;
	fill_lists(&o, a, in, out);
	if (a->list)
		return run_list(a, &o, true);
	if (o.align == 0)
		return error("-bundle-align must be at least 1");
	if (a->print_only && !a->unbundle && (rc = print_objcopy(&o)) != 1)
		return rc;
	return run(&o, a);
}

int cmd_llvm_bundler(int argc, char **argv)
{
	struct bundle_args a = {0};
	a.align = 1;
	a.llvm = true;
	const char *base = strrchr(argv[0], '/');
	char *help = NULL;
	if (asprintf(&help, llvm_help, base ? base + 1 : argv[0]) < 0)
		return error("out of memory");
	int rc = llvm_bundler(argc, argv, &a, help);
	free(help);
	args_release(&a);
	return rc;
}

/* ---- offlink bundle | unbundle | list ---- */

enum sub_mode { SUB_BUNDLE, SUB_UNBUNDLE, SUB_LIST };

static const char *const sub_usage[] = {
    [SUB_BUNDLE] = "offlink bundle --targets=ID,... -o OUT [options] INPUT...",
    [SUB_UNBUNDLE] = "offlink unbundle --targets=ID,... -o OUT... [options] INPUT",
    [SUB_LIST] = "offlink list [--type=T] INPUT",
};

static const char *const sub_overview[] = {
    [SUB_BUNDLE] =
        "Bundle one input per target into OUT (clang-offload-bundler format).\n"
        "The type follows OUT's extension unless --type is given (o: fat object if the\n"
        "host input is ELF). Compression (--compress) uses zstd with one worker per CPU;\n"
        "--llvm-identical compresses in one thread, byte-identical to LLVM.",
    [SUB_UNBUNDLE] =
        "Write the entry matching each target to the corresponding -o file, in order.\n"
        "The type is detected from the input unless --type is given. -type=a\n"
        "unbundles a heterogeneous archive into one archive per target.",
    [SUB_LIST] =
        "Print the entry IDs of a bundle, in the order clang-offload-bundler -list prints them.",
};

static long online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

/* What --type takes, as offlink bundle --help and its errors say it. */
#define BUNDLE_TYPES "i ii cui hipi d ll s bc gch ast o a"

static int sub_prepare(struct ofl_bundler_options *o, struct bundle_args *a, enum sub_mode m,
                       struct strlist *in)
{
	if (a->llvm_version && a->llvm_version != 19 && a->llvm_version != 22 &&
	    a->llvm_version != 23)
		return error("--llvm-version must be 19, 22 or 23");
	o->dialect = dialect_of(a->llvm_version ? (unsigned)a->llvm_version : 22);
	o->all_or_nothing = true; /* native commands: every output or none */
	o->compress = a->compress;
	o->ccob.version = a->format_version          ? (int)a->format_version
	                  : o->dialect == OFL_LLVM19 ? 2
	                                             : 3;
	if (o->ccob.version != 2 && o->ccob.version != 3)
		return error("--format-version must be 2 or 3");
	if (a->method && strcmp(a->method, "zstd") && strcmp(a->method, "zlib"))
		return error("--method must be zstd or zlib");
	o->ccob.method = a->method && !strcmp(a->method, "zlib") ? OFL_CCOB_ZLIB : OFL_CCOB_ZSTD;
	o->ccob.level = a->n_level ? (int)a->level : o->ccob.method == OFL_CCOB_ZLIB ? 6 : 3;
	o->ccob.threads = a->llvm_identical ? 0 : a->threads ? (int)a->threads : (int)online_cpus();
	for (size_t i = 0; i < a->input.n; i++)
		strlist_push(in, a->input.v[i]);
	for (size_t i = 0; i < a->positional.n; i++)
		strlist_push(in, a->positional.v[i]);
	if (!in->n)
		return error("no input file given");
	if (a->type && !ofl_file_type_find(a->type))
		return error("--type: '%s' is no bundle type; the types are %s", a->type,
		             BUNDLE_TYPES);
	if (m == SUB_BUNDLE && !a->type && a->output.n) {
		const char *dot = strrchr(a->output.v[0], '.');
		const struct ofl_file_type *t = dot ? ofl_file_type_find(dot + 1) : NULL;
		if (!t)
			return error("cannot tell the bundle type from '%s'; use --type",
			             a->output.v[0]);
		a->type = t->name;
	}
	return 0;
}

/* list and unbundle look at the input to choose the type when none is given */
static int guess_type(struct bundle_args *a, const char *path)
{
	/* guessing would consume standard input before the real read */
	if (!strcmp(path, "-"))
		return error("give --type when the bundle comes from standard input");
	struct ofl_file f;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_file_open(&f, path, &err))
		return error_lib(&err);
	const struct ofl_file_type *t = ofl_file_type_guess(f.data, f.size, path);
	ofl_file_close(&f);
	if (!t)
		return error("%s: not a bundle (no known bundle format found); use --type", path);
	a->type = t->name;
	return 0;
}

static int sub_run(int argc, char **argv, enum sub_mode m, struct bundle_args *a)
{
	const struct opt table[] = {
	    {"targets", OPT_CSV, &a->targets, NULL, "ID,...",
	     "bundle entry IDs, <kind>-<triple>[-<target id>]; may repeat"},
	    {"t", OPT_CSV, &a->targets, NULL, NULL, NULL},
	    {"o", OPT_LIST, &a->output, NULL, NULL, NULL},
	    {"output", OPT_LIST, &a->output, NULL, "FILE",
	     "output file (-o); unbundle: one per target"},
	    {"input", OPT_LIST, &a->input, NULL, "FILE", "input file (also positional)"},
	    {"type", OPT_STR, &a->type, NULL, "T", BUNDLE_TYPES},
	    {"align", OPT_UINT, &a->align, NULL, "N",
	     "bundle: align entries of binary bundles to N bytes"},
	    {"compress", OPT_FLAG, &a->compress, NULL, NULL,
	     "bundle: write a compressed bundle (CCOB)"},
	    {"method", OPT_STR, &a->method, NULL, "zstd|zlib", "bundle: compression method (zstd)"},
	    {"level", OPT_INT, &a->level, &a->n_level, "N",
	     "bundle: compression level (zstd 3, zlib 6)"},
	    {"threads", OPT_UINT, &a->threads, NULL, "N",
	     "bundle: zstd worker threads (default: one per CPU)"},
	    {"llvm-identical", OPT_FLAG, &a->llvm_identical, NULL, NULL,
	     "bundle: compress single-threaded, byte-identical to LLVM"},
	    {"format-version", OPT_UINT, &a->format_version, NULL, "2|3",
	     "bundle: CCOB header version (3; 2 for LLVM 19 readers)"},
	    {"allow-missing", OPT_FLAG, &a->allow_missing, NULL, NULL,
	     "unbundle: write empty outputs for absent targets"},
	    {"check-archive", OPT_FLAG, &a->check_archive, NULL, NULL,
	     "unbundle -type=a: reject members with conflicting target IDs"},
	    {"hip-openmp-compatible", OPT_FLAG, &a->hip_openmp, NULL, NULL,
	     "unbundle: let hip entries serve openmp targets and back"},
	    {"llvm-version", OPT_UINT, &a->llvm_version, NULL, "19|22|23",
	     "entry ID rules of clang-offload-bundler 19, 22 or 23 (22; 23 reads amdgpu triples)"},
	    {"verbose", OPT_FLAG, &a->verbose, NULL, NULL, "print compression statistics"},
	    {"v", OPT_FLAG, &a->verbose, NULL, NULL, NULL},
	    {"help", OPT_HELP, NULL, NULL, NULL, "show this help"},
	    {"h", OPT_HELP, NULL, NULL, NULL, NULL},
	    {"version", OPT_VERSION, NULL, NULL, NULL, "show the version"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int prc = opts_parse(table, argc, argv, &a->positional, sub_usage[m], sub_overview[m]);
	if (prc)
		return prc == 2 ? 0 : 1;
	struct ofl_bundler_options o = OFL_BUNDLER_OPTIONS_INIT;
	struct strlist in = {0};
	int rc = sub_prepare(&o, a, m, &in);
	if (!rc && m != SUB_BUNDLE && !a->type && in.n == 1)
		rc = guess_type(a, in.v[0]);
	if (!rc && m == SUB_LIST) {
		fill_lists(&o, a, &in, &a->output);
		rc = run_list(a, &o, false);
	} else if (!rc) {
		a->unbundle = m == SUB_UNBUNDLE;
		if (!a->targets.n)
			rc = error(m == SUB_UNBUNDLE
			               ? "no targets given (--targets); to take out every entry, "
			                 "use offlink inspect --extract-all DIR"
			               : "no targets given (--targets)");
		else if (!a->output.n)
			rc = error("no output file given (-o)");
		else if (a->align == 0)
			rc = error("--align must be at least 1");
		fill_lists(&o, a, &in, &a->output);
		rc = rc ? rc : run(&o, a);
	}
	strlist_release(&in);
	return rc;
}

static int sub_main(int argc, char **argv, enum sub_mode m)
{
	struct bundle_args a = {0};
	a.align = 1;
	int rc = sub_run(argc, argv, m, &a);
	args_release(&a);
	return rc;
}

int cmd_bundle(int argc, char **argv)
{
	return sub_main(argc, argv, SUB_BUNDLE);
}

int cmd_unbundle(int argc, char **argv)
{
	return sub_main(argc, argv, SUB_UNBUNDLE);
}

int cmd_list(int argc, char **argv)
{
	return sub_main(argc, argv, SUB_LIST);
}
