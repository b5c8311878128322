/* offlink package, and the clang-offload-packager / llvm-offload-binary
 * personalities (docs/formats.md §5.8).  The LLVM release whose behaviour a
 * personality follows: personality_release (tools/opts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "offlink/archive.h"
#include "offlink/io.h"
#include "offlink/packager.h"
#include "opts.h"
#include "staging.h"

struct pkg_cmd {
	const char *output;
	struct strlist images;
	struct strlist positional;
	bool archive;
	bool compat; /* LLVM's messages and rules exactly */
	enum ofl_llvm_version llvm;
	unsigned collect_flags;
	struct ofl_outset *staged; /* extraction by offlink package: all or none */
};

static const char overview[] =
    "A utility for bundling several object files into a single binary.\n"
    "The output binary can then be embedded into the host section table\n"
    "to create a fatbinary containing offloading code.";

static const char opt_lines[] =
    "  --archive                   - Write extracted files to a static archive\n"
    "  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are "
    "'file' and 'triple'.\n"
    "  -o <file>                   - Write output to <file>.\n";

/* cl::PrintHelpMessage as LLVM prints it: categorised, or as a flat list. */
static void llvm_help(const struct pkg_cmd *c, bool list)
{
	printf("OVERVIEW: %s\n\nUSAGE: %s [options] Extract from <file>.\n\nOPTIONS:\n", overview,
	       prog_base());
	if (list) {
		printf(
		    "  --archive                   - Write extracted files to a static archive\n"
		    "  --help                      - Display available options (--help-hidden for "
		    "more)\n"
		    "  --image=<<key>=<value>,...> - List of key and value arguments. Required "
		    "keywords are 'file' and 'triple'.\n"
		    "  -o <file>                   - Write output to <file>.\n"
		    "  --version                   - Display the version of this program\n");
		return;
	}
	printf(
	    "\nGeneric Options:\n\n"
	    "  --help                      - Display available options (--help-hidden for more)\n"
	    "  --help-list                 - Display list of available options (--help-list-hidden "
	    "for more)\n"
	    "  --version                   - Display the version of this program\n\n"
	    "%s options:\n\n%s",
	    c->llvm == OFL_LLVM_19 ? "clang-offload-packager" : "llvm-offload-binary", opt_lines);
}

static int lib_error(const struct pkg_cmd *c, const struct ofl_error *err)
{
	if (!c->compat)
		return error_lib(err);
	if (err->code == OFL_EIO && err->path[0] && err->sys_errno)
		return error("%s", strerror(err->sys_errno));
	return error("%s", err->msg);
}

/* Refuses to replace an input: the input of an extraction, or a file= of
 * an image being packed. */
static int replaces_input(const struct pkg_cmd *c, const char *path)
{
	for (size_t i = 0; i < c->positional.n; i++)
		if (ofl_same_file(path, c->positional.v[i]))
			return error("%s: output file is also an input", path);
	for (size_t i = 0; c->output && i < c->images.n; i++) {
		struct ofl_pkg_args a = OFL_PKG_ARGS_INIT;
		int same = 0;
		if (ofl_pkg_args_parse(c->images.v[i], &a, NULL) == 0)
			for (size_t k = 0; k < a.n && !same; k++)
				same =
				    !strcmp(a.keys[k], "file") && ofl_same_file(path, a.values[k]);
		ofl_pkg_args_release(&a);
		if (same)
			return error("%s: output file is also an input", path);
	}
	return 0;
}

static int write_out(const struct pkg_cmd *c, const char *path, const uint8_t *p, size_t n)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (replaces_input(c, path))
		return 1;
	if (ofl_outset_write_file(c->staged, path, p, n, &err))
		return error_lib(&err);
	return 0;
}

/* The images are streamed to a temporary output, removed on any error. */
static int do_pack(const struct pkg_cmd *c)
{
	struct ofl_out out = OFL_OUT_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_pkg_args *a = calloc(c->images.n ? c->images.n : 1, sizeof *a);
	size_t n = 0;
	int rc = a ? 0 : error("out of memory");
	if (!rc && (replaces_input(c, c->output) || ofl_out_open(&out, c->output, &err)))
		rc = err.code ? error_lib(&err) : 1;
	for (; !rc && n < c->images.n; n++)
		if (ofl_pkg_args_parse(c->images.v[n], &a[n], &err))
			rc = lib_error(c, &err);
	if (!rc && ofl_pkg_pack(a, n, c->llvm, &out, &err))
		rc = lib_error(c, &err);
	if (!rc && ofl_out_commit(&out, &err))
		rc = error_lib(&err);
	if (rc)
		ofl_out_abort(&out);
	for (size_t i = 0; i < n; i++)
		ofl_pkg_args_release(&a[i]);
	free(a);
	return rc;
}

static int extract_archive(const struct pkg_cmd *c, const struct ofl_pkg_entry *const *m, size_t n,
                           const char *file)
{
	struct ofl_buf ar = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_pkg_write_archive(m, n, &ar, &err) ? lib_error(c, &err)
	                                                : write_out(c, file, ar.data, ar.len);
	ofl_buf_release(&ar);
	return rc;
}

/* Writes b's image to the name release c->llvm gives it. */
static int extract_named(const struct pkg_cmd *c, const struct ofl_obin *b, size_t i)
{
	char *name = ofl_pkg_extract_name(c->positional.v[0], b, i, c->llvm);
	if (!name)
		return error("out of memory");
	int rc = write_out(c, name, b->image, (size_t)b->image_size);
	if (!rc && c->llvm >= OFL_LLVM_23)
		printf("Extracted: %s\n", name);
	free(name);
	return rc;
}

/* 23: an image that is an OffloadBinary itself is not written: its own
 * images are, recursively, numbered on from *idx. */
static int extract_nested(const struct pkg_cmd *c, const struct ofl_obin *b, size_t *idx,
                          unsigned depth)
{
	if (!ofl_obin_is(b->image, (size_t)b->image_size))
		return extract_named(c, b, (*idx)++);
	struct ofl_pkg_inputs in;
	struct ofl_error err = OFL_ERROR_INIT;
	enum ofl_obin_llvm_diag diag = OFL_OBIN_INVALID_DATA;
	if (depth >= OFL_MAX_NESTING)
		return error("%s: offload binaries nested more than %d deep", c->positional.v[0],
		             OFL_MAX_NESTING);
	if (ofl_pkg_collect(b->image, (size_t)b->image_size, c->positional.v[0], c->collect_flags,
	                    &in, &diag, &err))
		return c->compat ? error("%s", ofl_obin_llvm_diag_text(diag, &err))
		                 : error_lib(&err);
	int rc = 0;
	for (size_t i = 0; i < in.n && !rc; i++)
		rc = extract_nested(c, &in.v[i].bin, idx, depth + 1);
	ofl_pkg_inputs_release(&in);
	return rc;
}

/* Writes the matches of one --image: to file= (the last one wins), to an
 * archive, or to generated names in the current directory. */
static int extract_matches(const struct pkg_cmd *c, const struct ofl_pkg_args *a,
                           const struct ofl_pkg_entry *const *m, size_t n)
{
	const char *file = ofl_pkg_args_get(a, "file");
	if (c->archive) {
		if (!file)
			return error("Image must have a 'file' argument.");
		return extract_archive(c, m, n, file);
	}
	if (file) {
		if (n > 1)
			warning("Multiple inputs match to a single file, '%s'", file);
		return write_out(c, file, m[n - 1]->bin.image, (size_t)m[n - 1]->bin.image_size);
	}
	size_t idx = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = c->llvm >= OFL_LLVM_23 ? extract_nested(c, &m[i]->bin, &idx, 0)
		                                : extract_named(c, &m[i]->bin, i);
		if (rc)
			return rc;
	}
	return 0;
}

static int extract_image(const struct pkg_cmd *c, const struct ofl_pkg_inputs *in, const char *spec)
{
	struct ofl_pkg_args a;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_pkg_args_parse(spec, &a, &err))
		return lib_error(c, &err);
	const struct ofl_pkg_entry **m = calloc(in->n ? in->n : 1, sizeof *m);
	if (!m) {
		ofl_pkg_args_release(&a);
		return error("out of memory");
	}
	/* 19 and 22 read member= as a stored string, which nothing has */
	bool member = !c->compat || c->llvm >= OFL_LLVM_23;
	size_t n = 0;
	for (size_t i = 0; i < in->n; i++)
		if (ofl_pkg_match(&a, &in->v[i], c->llvm, member))
			m[n++] = &in->v[i];
	int rc = n ? extract_matches(c, &a, m, n) : 0;
	free(m);
	ofl_pkg_args_release(&a);
	return rc;
}

static int do_extract(struct pkg_cmd *c)
{
	const char *path = c->positional.v[0];
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_file_open(&f, path, &err)) {
		if (c->compat && err.sys_errno)
			return error("'%s': %s", path, strerror(err.sys_errno));
		return error_lib(&err);
	}
	struct ofl_pkg_inputs in;
	enum ofl_obin_llvm_diag diag = OFL_OBIN_INVALID_DATA;
	/* ours reads every version; a personality what its release reads */
	if (c->compat)
		c->collect_flags = c->llvm >= OFL_LLVM_23 ? OFL_PKG_V2 : 0;
	int rc = ofl_pkg_collect(f.data, f.size, path, c->collect_flags, &in, &diag, &err);
	if (rc) {
		rc = c->compat && err.code == OFL_EFORMAT
		         ? error("%s", ofl_obin_llvm_diag_text(diag, &err))
		         : error_lib(&err);
		ofl_file_close(&f);
		return rc;
	}
	/* The personality keeps LLVM's behaviour: outputs written before an
	 * error stay. */
	struct staging st;
	staging_begin(&st);
	c->staged = c->compat ? NULL : &st.set;
	/* no --image: ours and 23 extract everything, 19 and 22 nothing */
	if ((!c->compat || c->llvm >= OFL_LLVM_23) && c->images.n == 0)
		rc = extract_image(c, &in, "");
	for (size_t i = 0; i < c->images.n && !rc; i++)
		rc = extract_image(c, &in, c->images.v[i]);
	rc = staging_end(&st, rc);
	c->staged = NULL;
	ofl_pkg_inputs_release(&in);
	ofl_file_close(&f);
	return rc;
}

static int run(struct pkg_cmd *c)
{
	if (c->positional.n > 1) {
		fprintf(stderr,
		        "%s: Too many positional arguments specified!\nCan specify at most 1 "
		        "positional arguments: See: %s --help\n",
		        prog_base(), ofl_prog);
		return 1;
	}
	const char *input = c->positional.n ? c->positional.v[0] : NULL;
	if (c->compat && c->llvm != OFL_LLVM_19) {
		const char *b = prog_base();
		size_t bl = strlen(b), pl = strlen("clang-offload-packager");
		if (bl >= pl && !strcmp(b + bl - pl, "clang-offload-packager"))
			fprintf(stderr, "warning: 'clang-offload-packager' is deprecated. Use "
			                "'llvm-offload-binary' instead.\n");
	}
	if (c->output && input)
		return error("Packaging to an output file and extracting from an input file are "
		             "mutually exclusive.");
	if (c->output)
		return do_pack(c);
	if (input)
		return do_extract(c);
	if (c->compat && c->llvm != OFL_LLVM_19)
		llvm_help(c, true);
	else if (!c->compat)
		return error("nothing to do: give -o OUT to package or an input to extract");
	return 0;
}

/* LLVM 19 to 21 ship clang-offload-packager (22 renamed it
 * llvm-offload-binary and deprecated the old name with a warning that
 * clang 20 and 21's compiles through -B<compat> must not print). */
static unsigned packager_release(const char *argv0)
{
	unsigned n = personality_release_raw(argv0, 0);
	return n >= 23 ? 23 : n >= 22 ? 22 : 19;
}

int cmd_llvm_packager(int argc, char **argv)
{
	struct pkg_cmd c = {.compat = true};
	unsigned long long asked = 0;
	bool help = false, help_list = false, version = false;
	char about[80] = "";
	const struct opt table[] = {
	    {"o", OPT_STR, &c.output, NULL, "file", NULL},
	    {"image", OPT_LIST, &c.images, NULL, NULL, NULL},
	    {"archive", OPT_FLAG, &c.archive, NULL, NULL, NULL},
	    {"help", OPT_FLAG, &help, NULL, NULL, NULL},
	    {"help-hidden", OPT_FLAG, &help, NULL, NULL, NULL},
	    {"help-list", OPT_FLAG, &help_list, NULL, NULL, NULL},
	    {"help-list-hidden", OPT_FLAG, &help_list, NULL, NULL, NULL},
	    {"version", OPT_FLAG, &version, NULL, NULL, NULL},
	    {"llvm-version", OPT_UINT, &asked, NULL, NULL, NULL},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &c.positional, NULL, NULL);
	unsigned v = rc ? 0 : asked ? llvm_release_option(asked) : packager_release(argv[0]);
	rc = rc ? rc : !v;
	c.llvm = (enum ofl_llvm_version)v;
	snprintf(about, sizeof(about), "compatible with %s %u",
	         v == 19 ? "clang-offload-packager" : "llvm-offload-binary", v);
	if (!rc && version)
		print_version(about);
	else if (rc == 0 && (help || help_list))
		llvm_help(&c, help_list);
	else if (rc == 0)
		rc = run(&c);
	strlist_release(&c.images);
	strlist_release(&c.positional);
	return rc;
}

int cmd_package(int argc, char **argv)
{
	struct pkg_cmd c = {.collect_flags = OFL_PKG_ANY_VERSION};
	unsigned long long llvm = 22;
	const struct opt table[] = {
	    {"o", OPT_STR, &c.output, NULL, "file", "write the packaged images to <file>"},
	    {"image", OPT_LIST, &c.images, NULL, "<key>=<value>,...",
	     "an image to package (file= required) or a filter for extraction"},
	    {"archive", OPT_FLAG, &c.archive, NULL, NULL,
	     "write the extracted images of each --image to a static archive (its file=)"},
	    {"llvm-version", OPT_UINT, &llvm, NULL, "19|22|23",
	     "follow that LLVM's rules (kind numbering, required keys; 23: one version-2 "
	     "binary for all images, SPIR-V names); default 22"},
	    {"help", OPT_HELP, NULL, NULL, NULL, "show this help"},
	    {"version", OPT_VERSION, NULL, NULL, NULL, "show the version"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &c.positional,
	                    "offlink package -o OUT --image=file=F,triple=T,arch=A,kind=K...\n"
	                    "       offlink package IN [--image=KEY=VALUE,...]... [--archive]",
	                    "create OffloadBinaries, or extract the images of one");
	if (rc)
		return rc == 2 ? 0 : rc;
	c.llvm = (enum ofl_llvm_version)llvm_release_option(llvm);
	if (c.llvm)
		rc = run(&c);
	else
		rc = 1;
	strlist_release(&c.images);
	strlist_release(&c.positional);
	return rc;
}
