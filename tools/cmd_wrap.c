/* offlink wrap, and the clang-offload-wrapper / llvm-offload-wrapper
 * personalities: device images in, a host object (or LLVM IR text) out that
 * registers them with the offload runtime. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "offlink/buf.h"
#include "offlink/elf.h"
#include "offlink/fatbin_build.h"
#include "offlink/format.h"
#include "offlink/io.h"
#include "offlink/offload_binary.h"
#include "offlink/proc.h"
#include "offlink/wrapper_obj.h"
#include "opts.h"

/* One input: a file with its image range and metadata. */
struct input {
	struct ofl_file file;
	const char *path, *triple, *arch;
	char *spec;            /* owned copy of --image's value that the strings point into */
	struct ofl_buf packed; /* --pack: the OffloadBinary made for it */
	uint16_t image_kind;   /* an OffloadBinary's image kind, else OFL_IMG_NONE */
	struct ofl_obin bin;   /* an OffloadBinary's first entry; arch points into it */
};

/* How `offlink wrap` makes a CUDA/HIP fat binary from device images. */
struct fatbin_job {
	bool enabled; /* offlink wrap: yes; the LLVM personalities take a finished one */
	const char *cuda_path, *syntax;
	bool hipv4, compress;
	int level; /* INT32_MIN: the method's default */
	struct ofl_buf bytes;
};

struct wrap_job {
	struct ofl_wrap_opts opts;
	const char *host_triple;
	const char *output;
	const char *emit; /* "obj", "ll", "bc", "c" or NULL (from the output name) */
	struct input *in;
	size_t nin;
	const char *host_cc; /* compile C with it instead of writing the object */
	bool pack;           /* raw images go in as OffloadBinaries, as the linker wrapper's */
	struct fatbin_job fb;
	/* llvm-offload-wrapper: LLVM's messages (an unreadable input is
	 * "'PATH': <why>") and inputs (SYCL's embedded as they are) */
	bool llvm_tool;
	bool llvm_bc; /* a personality: bitcode, as LLVM's tools, unless named .o */
};

enum emit { EMIT_OBJ, EMIT_LL, EMIT_BC, EMIT_C, EMIT_FATBIN };

/* The kind named s; false for none. */
static bool kind_named(const char *s, enum ofl_wrap_kind *k)
{
	static const char *const names[] = {"openmp", "cuda", "hip", "sycl"}; /* enum's order */
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i])) {
			*k = (enum ofl_wrap_kind)i;
			return true;
		}
	return false;
}

static int parse_kind(const char *s, enum ofl_wrap_kind *k)
{
	return kind_named(s, k) ? 0
	                        : error("unknown offload kind '%s' (openmp, cuda, hip or sycl)", s);
}

static int parse_abi(const char *s, enum ofl_wrap_abi *a)
{
	static const struct {
		const char *name;
		enum ofl_wrap_abi abi;
	} abis[] = {{"llvm14", OFL_WRAP_LLVM14}, {"amd", OFL_WRAP_AMD},
	            {"llvm19", OFL_WRAP_LLVM19}, {"llvm20", OFL_WRAP_LLVM20},
	            {"llvm21", OFL_WRAP_LLVM20}, {"llvm22", OFL_WRAP_LLVM20}};
	for (size_t i = 0; i < sizeof(abis) / sizeof(abis[0]); i++)
		if (!strcmp(s, abis[i].name)) {
			*a = abis[i].abi;
			return 0;
		}
	return error("unknown registration ABI '%s' (llvm14, amd, llvm19 or llvm20)", s);
}

static struct input *add_input(struct wrap_job *j, const char *path)
{
	struct input *in = realloc(j->in, (j->nin + 1) * sizeof(*in));
	if (!in) {
		error("out of memory");
		return NULL;
	}
	j->in = in;
	in += j->nin++;
	memset(in, 0, sizeof(*in));
	in->file = (struct ofl_file)OFL_FILE_INIT;
	in->path = path;
	return in;
}

/* Splits s (modified) into file/triple/arch values. */
static int split_image_spec(char *s, struct input *out)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return error("--image: expected key=value, got '%s'", tok);
		*eq = '\0';
		if (!strcmp(tok, "file"))
			out->path = eq + 1;
		else if (!strcmp(tok, "triple"))
			out->triple = eq + 1;
		else if (!strcmp(tok, "arch"))
			out->arch = eq + 1;
		else
			return error("--image: unknown key '%s' (file, triple, arch)", tok);
	}
	return out->path ? 0 : error("--image: 'file=' is required");
}

/* --image=file=PATH[,triple=T][,arch=A]: a raw image with its metadata. */
static int parse_image_spec(struct wrap_job *j, const char *spec)
{
	struct input tmp = {OFL_FILE_INIT, NULL,         NULL, NULL,
	                    strdup(spec),  OFL_BUF_INIT, 0,    OFL_OBIN_INIT};
	if (!tmp.spec)
		return error("out of memory");
	struct input *in = split_image_spec(tmp.spec, &tmp) ? NULL : add_input(j, tmp.path);
	if (!in) {
		free(tmp.spec);
		return 1;
	}
	in->triple = tmp.triple;
	in->arch = tmp.arch;
	in->spec = tmp.spec;
	return 0;
}

/* An OffloadBinary input (version 1, or 2 as LLVM 23 writes it): embedded
 * whole, ImageStart at the image of its first entry, found from the
 * header's entries offset (as llvm-offload-wrapper does); its arch string
 * serves the AMD flavour. */
static int obin_input(struct input *in, struct ofl_wrap_image *img)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_obin_set s;
	struct ofl_obin *b = &in->bin;
	if (ofl_obin_parse_set(in->file.data, in->file.size, &s, &err) == 0) {
		if (s.inflated || !s.nentries)
			ofl_error_set(&err, OFL_EUNSUPPORTED, NULL, 0,
			              "offload binary: %s: no image to register in place",
			              s.inflated ? "compressed" : "no entry");
		else
			ofl_obin_set_entry(&s, 0, b, &err);
		ofl_obin_set_release(&s);
	}
	if (err.code) {
		ofl_error_locate(&err, in->path, 0);
		return error_lib(&err);
	}
	img->start = (uint64_t)(b->image - in->file.data);
	img->end = img->start + b->image_size;
	in->image_kind = b->image_kind;
	if (!img->arch && ofl_obin_get(b, "arch"))
		img->arch = in->arch = ofl_obin_get(b, "arch");
	return 0;
}

/* SYCL: the runtime reads the OffloadBinary itself (every entry), so it is
 * registered whole; one that does not parse is refused here rather than
 * at the program's start. */
static int sycl_input(struct input *in)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_obin_set s;
	if (!ofl_obin_is(in->file.data, in->file.size))
		ofl_error_set(&err, OFL_EFORMAT, NULL, 0,
		              "not an OffloadBinary (SYCL registers one, as clang-sycl-linker "
		              "writes it)");
	else if (ofl_obin_parse_set(in->file.data, in->file.size, &s, &err) == 0)
		ofl_obin_set_release(&s);
	if (!err.code)
		return 0;
	ofl_error_locate(&err, in->path, 0);
	return error_lib(&err);
}

/* --pack: a raw image becomes a version 1 OffloadBinary with the strings
 * clang-linker-wrapper gives its OpenMP images, in its order (triple, then
 * arch; arch empty for CPUs): byte for byte the .llvm.offloading of LLVM
 * 19's and 22's wrapper objects.  ImageStart points past the header. */
static int pack_input(struct wrap_job *j, struct input *in, struct ofl_wrap_image *img)
{
	static const uint8_t elf[4] = {0x7f, 'E', 'L', 'F'};
	const char *k[2] = {"triple", "arch"};
	const char *v[2] = {in->triple ? in->triple : j->host_triple, in->arch ? in->arch : ""};
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_obin b = OFL_OBIN_INIT;
	bool is_elf = in->file.size >= 4 && !memcmp(in->file.data, elf, 4);
	struct ofl_obin_image oi = {is_elf ? OFL_IMG_OBJECT : OFL_IMG_NONE,
	                            OFL_OFK_OPENMP,
	                            0,
	                            in->file.data,
	                            in->file.size,
	                            2,
	                            k,
	                            v};
	if (ofl_obin_write(&oi, &in->packed, &err) ||
	    ofl_obin_parse(in->packed.data, in->packed.len, &b, &err))
		return error_lib(&err);
	*img = (struct ofl_wrap_image){in->packed.data,
	                               in->packed.len,
	                               (uint64_t)(b.image - in->packed.data),
	                               (uint64_t)(b.image - in->packed.data) + b.image_size,
	                               in->arch,
	                               NULL};
	ofl_obin_release(&b);
	return 0;
}

/* Maps every input and fills the image descriptions.  Raw images are
 * referenced whole (ImageStart = first byte), as llvm-offload-wrapper does
 * for inputs without the OffloadBinary magic, unless --pack. */
static int load_inputs(struct wrap_job *j, struct ofl_wrap_image *imgs)
{
	struct ofl_error err = OFL_ERROR_INIT;
	for (size_t i = 0; i < j->nin; i++) {
		struct input *in = &j->in[i];
		int rc = 0;
		if (ofl_file_open(&in->file, in->path, &err))
			return j->llvm_tool && err.sys_errno
			           ? error("'%s': %s", in->path, strerror(err.sys_errno))
			           : error_lib(&err);
		imgs[i] = (struct ofl_wrap_image){in->file.data, in->file.size, 0,
		                                  in->file.size, in->arch,      &in->file};
		/* LLVM's tool embeds any file for SYCL (its test wraps IR text):
		 * the runtime reads it; offlink wrap checks it first */
		if (j->opts.kind == OFL_WRAP_SYCL)
			rc = j->llvm_tool ? 0 : sycl_input(in);
		else if (ofl_obin_is(in->file.data, in->file.size))
			rc = obin_input(in, &imgs[i]);
		else if (j->pack)
			rc = pack_input(j, in, &imgs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static bool cuda_or_hip(const struct wrap_job *j)
{
	return j->opts.kind == OFL_WRAP_CUDA || j->opts.kind == OFL_WRAP_HIP;
}

static enum emit what_to_emit(const struct wrap_job *j)
{
	const char *out = j->output, *e = j->emit;
	bool fat = j->fb.enabled && cuda_or_hip(j) &&
	           (ends_with(out, ".fatbin") || ends_with(out, ".hipfb"));
	if (!e)
		e = ends_with(out, ".ll")                 ? "ll"
		    : ends_with(out, ".bc")               ? "bc"
		    : ends_with(out, ".c")                ? "c"
		    : fat                                 ? "fatbin"
		    : j->llvm_bc && !ends_with(out, ".o") ? "bc"
		                                          : "obj";
	return !strcmp(e, "ll")       ? EMIT_LL
	       : !strcmp(e, "bc")     ? EMIT_BC
	       : !strcmp(e, "c")      ? EMIT_C
	       : !strcmp(e, "fatbin") ? EMIT_FATBIN
	                              : EMIT_OBJ;
}

/* A finished fat binary: a bundle, a compressed bundle or a CUDA fatbinary. */
static bool is_fat(const uint8_t *d, size_t n)
{
	enum ofl_format f = ofl_format_of(d, n);
	return f == OFL_FMT_BUNDLE || f == OFL_FMT_CCOB || f == OFL_FMT_FATBIN;
}

/* Is this input a device image to build the fat binary from?  Yes for ELF
 * images and for images with an arch (--image=...,arch= or an
 * OffloadBinary's); other bytes are taken as the finished fat binary, as
 * llvm-offload-wrapper takes them. */
static bool is_device_image(const struct input *in, const struct ofl_wrap_image *img)
{
	const uint8_t *d = img->data + img->start;
	size_t n = (size_t)(img->end - img->start);
	if (in->image_kind == OFL_IMG_FATBINARY || is_fat(d, n))
		return false;
	return in->arch || ofl_is_elf(d, n);
}

/* 32-bit hosts get fatbinary's -32, as clang-linker-wrapper gives it. */
static bool host_is_32bit(const char *triple)
{
	static const char *const arch32[] = {
	    "i386",    "i486", "i586",   "i686",    "x86", "arm",     "armeb", "thumb",
	    "thumbeb", "mips", "mipsel", "powerpc", "ppc", "riscv32", "sparc", "wasm32"};
	size_t n = strcspn(triple, "-");
	for (size_t i = 0; i < sizeof(arch32) / sizeof(arch32[0]); i++)
		if (strlen(arch32[i]) == n && !strncmp(triple, arch32[i], n))
			return true;
	return n > 3 && !strncmp(triple, "arm", 3) && strncmp(triple, "arm64", 5);
}

static int build_hip(struct wrap_job *j, const struct ofl_fatbin_image *fi, size_t n,
                     struct ofl_error *err)
{
	struct ofl_hipfb_options o = OFL_HIPFB_OPTIONS_INIT;
	o.dialect = j->opts.abi == OFL_WRAP_LLVM19 ? OFL_LLVM19 : OFL_LLVM22;
	o.hipv4 = j->fb.hipv4;
	o.compress = j->fb.compress;
	o.ccob.version = o.dialect == OFL_LLVM19 ? 2 : 3; /* what each bundler writes */
	o.ccob.level = j->fb.level;
	/* the linker wrapper bundles images sorted by arch, descending */
	size_t *order = calloc(n, sizeof(*order));
	struct ofl_fatbin_image *sorted = calloc(n, sizeof(*sorted));
	int rc = order && sorted ? 0 : error("out of memory");
	if (!rc) {
		ofl_fatbin_image_order(fi, n, order);
		for (size_t i = 0; i < n; i++)
			sorted[i] = fi[order[i]];
		rc = ofl_hipfb_build(sorted, n, &o, &j->fb.bytes, err);
	}
	free(order);
	free(sorted);
	return rc;
}

static int build_cuda(struct wrap_job *j, const struct ofl_fatbin_image *fi, size_t n,
                      struct ofl_error *err)
{
	struct ofl_cuda_fatbin_options o = OFL_CUDA_FATBIN_OPTIONS_INIT;
	/* fatbinary's temporaries beside the output, as the output's own */
	char *out = strdup(j->output);
	if (!out)
		return error("out of memory");
	o.dir = dirname(out);
	o.cuda_path = j->fb.cuda_path ? j->fb.cuda_path : getenv("CUDA_PATH");
	o.search_path = getenv("PATH");
	o.m32 = host_is_32bit(j->host_triple);
	if (j->fb.syntax && !strcmp(j->fb.syntax, "image3"))
		o.syntax = OFL_FATBINARY_IMAGE3;
	else if (j->fb.syntax && !strcmp(j->fb.syntax, "image"))
		o.syntax = OFL_FATBINARY_IMAGE;
	int rc = ofl_cuda_fatbin_build(fi, n, &o, &j->fb.bytes, err);
	free(out);
	return rc;
}

/* CUDA/HIP: when the inputs are device images, makes the fat binary from
 * them and has imgs[0] (*n = 1) describe it instead. */
static int build_fatbin(struct wrap_job *j, struct ofl_wrap_image *imgs, size_t *n)
{
	size_t dev = 0;
	for (size_t i = 0; i < j->nin; i++)
		dev += is_device_image(&j->in[i], &imgs[i]);
	if (!dev || !j->fb.enabled || !cuda_or_hip(j))
		return 0;
	if (dev != j->nin)
		return error("cannot mix device images with a finished fat binary");
	if (what_to_emit(j) == EMIT_C || (what_to_emit(j) == EMIT_OBJ && j->host_cc))
		return error("C output includes images from their files; write the fat binary with "
		             "--emit=fatbin and wrap that");
	struct ofl_fatbin_image *fi = calloc(j->nin, sizeof(*fi));
	if (!fi)
		return error("out of memory");
	for (size_t i = 0; i < j->nin; i++) {
		const struct ofl_wrap_image *w = &imgs[i];
		bool whole = w->start == 0 && w->end == w->size && strcmp(j->in[i].path, "-");
		fi[i] = (struct ofl_fatbin_image){w->data + w->start, w->end - w->start,
		                                  whole ? j->in[i].path : NULL, j->in[i].arch};
	}
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = j->opts.kind == OFL_WRAP_HIP ? build_hip(j, fi, j->nin, &err)
	                                      : build_cuda(j, fi, j->nin, &err);
	free(fi);
	if (rc)
		return err.code ? error_lib(&err) : rc;
	imgs[0] = (struct ofl_wrap_image){
	    j->fb.bytes.data, j->fb.bytes.len, 0, j->fb.bytes.len, NULL, NULL};
	*n = 1;
	return 0;
}

/* The one bit set in mask, or -1. */
static int only_bit(unsigned mask)
{
	return mask && !(mask & (mask - 1)) ? __builtin_ctz(mask) : -1;
}

/* Adds what one host object's entry tables need to n. */
static int needs_of_file(const char *path, struct ofl_wrap_needs *n)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_file f = OFL_FILE_INIT;
	if (!ofl_file_open(&f, path, &err) && ofl_wrap_needs_of_object(f.data, f.size, n, &err))
		ofl_error_locate(&err, path, 0);
	ofl_file_close(&f);
	return err.code ? error_lib(&err) : 0;
}

/* Sets *kind and *abi (those not NULL) from the host objects' entry tables;
 * each --for value is a comma-separated list. */
static int flavour_from_hosts(const struct strlist *hosts, enum ofl_wrap_kind *kind,
                              enum ofl_wrap_abi *abi)
{
	static const char *const abi_names[] = {"llvm14", "amd", "llvm19", "llvm20"};
	struct ofl_wrap_needs n = {0, 0};
	for (size_t i = 0; i < hosts->n; i++) {
		char *list = strdup(hosts->v[i]), *save = NULL;
		int rc = list ? 0 : error("out of memory");
		for (char *p = list ? strtok_r(list, ",", &save) : NULL; p && !rc;
		     p = strtok_r(NULL, ",", &save))
			rc = needs_of_file(p, &n);
		free(list);
		if (rc)
			return rc;
	}
	if (!n.abis)
		return error("no offload entry tables in the --for objects; name --kind and --abi");
	if (abi && only_bit(n.abis) < 0)
		return error("the --for objects come from different LLVM releases (%s and %s); "
		             "name --abi",
		             abi_names[__builtin_ctz(n.abis)],
		             abi_names[31 - __builtin_clz(n.abis)]);
	if (kind && only_bit(n.kinds) < 0)
		return error("the --for objects hold %s offload kinds; name --kind",
		             n.kinds ? "several" : "no");
	if (abi)
		*abi = (enum ofl_wrap_abi)only_bit(n.abis);
	if (kind)
		*kind = (enum ofl_wrap_kind)only_bit(n.kinds);
	return 0;
}

/* The C source, with absolute image paths for the assembler's .incbin. */
static int emit_c(struct wrap_job *j, const struct ofl_wrap_image *imgs, struct ofl_buf *out)
{
	struct ofl_error err = OFL_ERROR_INIT;
	char **paths = calloc(j->nin, sizeof(*paths));
	int rc = paths ? 0 : error("out of memory");
	for (size_t i = 0; i < j->nin && !rc; i++)
		if (!(paths[i] = realpath(j->in[i].path, NULL)))
			rc = error("cannot resolve '%s'", j->in[i].path);
	if (!rc && ofl_wrap_emit_c(out, &j->opts, imgs, (const char *const *)paths, j->nin, &err))
		rc = error_lib(&err);
	for (size_t i = 0; paths && i < j->nin; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* Compiles the C source with `cc -c -fPIC` into the output. */
static int compile_c(const char *cc, const struct ofl_buf *src, const char *output)
{
	static const char *const args[] = {"-c", "-fPIC", "-fasynchronous-unwind-tables", "-x",
	                                   "c"};
	const char *dir = getenv("TMPDIR");
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/offlink-wrap-XXXXXX.c", dir && *dir ? dir : "/tmp");
	int fd = mkstemps(tmp, 2);
	if (fd < 0)
		return error("cannot create a temporary file in '%s'", dir ? dir : "/tmp");
	bool ok = write(fd, src->data, src->len) == (ssize_t)src->len;
	close(fd);
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_proc p = OFL_PROC_INIT;
	int rc = ok ? ofl_proc_push(&p, cc, &err) : error("cannot write '%s'", tmp);
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]) && !rc; i++)
		rc = ofl_proc_push(&p, args[i], &err);
	rc = rc ? rc : ofl_proc_push(&p, tmp, &err);
	rc = rc ? rc : ofl_proc_push(&p, "-o", &err);
	rc = rc ? rc : ofl_proc_push(&p, output, &err);
	rc = rc ? rc : ofl_proc_run(&p, &err);
	if (rc && err.code) {
		ofl_error_prefix(&err, "cannot compile the wrapper source");
		rc = error_lib(&err);
	}
	ofl_proc_release(&p);
	unlink(tmp);
	return rc;
}

/* The object or the bitcode, written into the output as it is made. */
static int write_direct(struct wrap_job *j, const struct ofl_wrap_image *imgs, size_t n)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_buf buf = OFL_BUF_INIT;
	struct ofl_out out = OFL_OUT_INIT;
	int rc;
	if (ofl_out_open(&out, j->output, &err))
		return error_lib(&err);
	if (what_to_emit(j) == EMIT_BC) {
		rc = ofl_wrap_emit_bc(&out, &j->opts, j->host_triple, imgs, n, &err);
	} else if (out.to_stdout) {
		/* libelf needs a seekable file: build in memory, then copy */
		rc = ofl_wrap_write_buf(&buf, &j->opts, imgs, n, &err);
		if (!rc)
			rc = ofl_out_write(&out, buf.data, buf.len, &err);
		ofl_buf_release(&buf);
	} else {
		rc = ofl_wrap_write_fd(out.fd, &j->opts, imgs, n, &err);
	}
	if (!rc)
		rc = ofl_out_commit(&out, &err);
	else
		ofl_out_abort(&out);
	return rc ? error_lib(&err) : 0;
}

static int write_output(struct wrap_job *j, const struct ofl_wrap_image *imgs, size_t n)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_buf buf = OFL_BUF_INIT;
	enum emit what = what_to_emit(j);
	int rc = 0;
	if (what == EMIT_FATBIN)
		return ofl_write_file(j->output, imgs[0].data + imgs[0].start,
		                      imgs[0].end - imgs[0].start, &err)
		           ? error_lib(&err)
		           : 0;
	if ((what == EMIT_OBJ && !j->host_cc) || what == EMIT_BC)
		return write_direct(j, imgs, n);
	if (what == EMIT_LL && ofl_wrap_emit_ll(&buf, &j->opts, j->host_triple, imgs, n, &err))
		rc = error_lib(&err);
	if (what == EMIT_C || what == EMIT_OBJ)
		rc = emit_c(j, imgs, &buf);
	if (!rc && what == EMIT_OBJ)
		rc = compile_c(j->host_cc, &buf, j->output);
	else if (!rc && ofl_write_file(j->output, buf.data, buf.len, &err))
		rc = error_lib(&err);
	ofl_buf_release(&buf);
	return rc;
}

static int run_job(struct wrap_job *j)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (!j->output)
		return error("no output file given (-o)");
	for (size_t i = 0; i < j->nin; i++)
		if (ofl_same_file(j->output, j->in[i].path))
			return error("%s: output file is also an input", j->output);
	bool fatbin = j->fb.enabled && j->emit && !strcmp(j->emit, "fatbin");
	if (j->emit && strcmp(j->emit, "obj") && strcmp(j->emit, "ll") && strcmp(j->emit, "bc") &&
	    strcmp(j->emit, "c") && !fatbin)
		return error(j->fb.enabled ? "--emit must be obj, ll, bc, c or fatbin"
		                           : "--emit must be obj, ll, bc or c");
	if (what_to_emit(j) == EMIT_FATBIN && !cuda_or_hip(j))
		return error("--emit=fatbin is for cuda and hip");
	/* only an object written directly needs a machine we know */
	if (ofl_wrap_machine_from_triple(j->host_triple, &j->opts.machine, &err) &&
	    what_to_emit(j) == EMIT_OBJ && !j->host_cc) {
		ofl_error_prefix(&err, "%s", "give --host-cc=<compiler> to go through C");
		return error_lib(&err);
	}
	ofl_error_clear(&err);
	if (j->pack && j->opts.kind != OFL_WRAP_OPENMP)
		return error("--pack is for openmp images (fat binaries go in as they are)");
	if (!j->nin && ofl_wrap_check(&j->opts, j->nin, &err))
		return error_lib(&err);
	struct ofl_wrap_image *imgs = calloc(j->nin, sizeof(*imgs));
	if (!imgs)
		return error("out of memory");
	size_t n = j->nin;
	int rc = load_inputs(j, imgs);
	rc = rc ? rc : build_fatbin(j, imgs, &n);
	if (!rc && ofl_wrap_check(&j->opts, n, &err))
		rc = error_lib(&err);
	if (!rc)
		rc = write_output(j, imgs, n);
	free(imgs);
	return rc;
}

/* Runs the job unless parsing failed (rc), then releases it. */
static int finish(struct wrap_job *j, int rc)
{
	if (!rc)
		rc = run_job(j);
	for (size_t i = 0; i < j->nin; i++) {
		ofl_file_close(&j->in[i].file);
		free(j->in[i].spec);
		ofl_buf_release(&j->in[i].packed);
		ofl_obin_release(&j->in[i].bin);
	}
	free(j->in);
	ofl_buf_release(&j->fb.bytes);
	return rc;
}

#define OUTPUT_NOTE                                                                                \
	"The output is a relocatable object (ELF; COFF for a Windows host), LLVM IR text when "    \
	"its name ends in .ll, LLVM "                                                              \
	"bitcode (as LLVM's tool writes) when it ends in .bc, or C source when it ends in .c."
#define PERSONALITY_OUTPUT_NOTE                                                                    \
	"The output is LLVM bitcode, as LLVM's tool writes it, unless its name ends in .o (a "     \
	"relocatable object: COFF for a Windows host), .ll (LLVM IR text) or .c (C source)."

static const char WRAP_OVERVIEW[] =
    "Writes a host object that registers device images with the "
    "offload runtime before main and unregisters them at exit. " OUTPUT_NOTE
    " For cuda and hip the images are one finished fat binary (a bundle, a compressed bundle "
    "or a CUDA fatbinary), or linked device images (ELF, or any image with an arch from "
    "--image=...,arch= or an OffloadBinary) that are first made into one as "
    "clang-linker-wrapper does: hip in memory as clang-offload-bundler -type=o "
    "-bundle-align=4096 writes it, cuda with the CUDA toolkit's fatbinary.";
static const char PERSONALITY_OVERVIEW[] =
    "A tool to create a wrapper for offload target binaries, which registers them in the "
    "offload runtime. " PERSONALITY_OUTPUT_NOTE;

/* A job with every front end's defaults: OpenMP for an x86_64 host;
 * fatbins says whether CUDA/HIP device images may be bundled here. */
static struct wrap_job new_job(enum ofl_wrap_abi abi, bool fatbins)
{
	return (struct wrap_job){{OFL_WRAP_OPENMP, abi, OFL_WRAP_X86_64, false, false},
	                         "x86_64-pc-linux-gnu",
	                         NULL,
	                         NULL,
	                         NULL,
	                         0,
	                         NULL,
	                         false,
	                         {fatbins, NULL, NULL, false, false, INT32_MIN, OFL_BUF_INIT},
	                         false,
	                         false};
}

int cmd_wrap(int argc, char **argv)
{
	struct wrap_job j = new_job(OFL_WRAP_LLVM20, true);
	const char *kind = "openmp", *abi = "llvm20";
	struct strlist images = {NULL, 0}, pos = {NULL, 0}, hosts = {NULL, 0};
	bool reloc = false;
	int nkind = 0, nabi = 0, nlevel = 0;
	long long level = 0;
	const struct opt table[] = {
	    {"host-triple", OPT_STR, &j.host_triple, NULL, "<triple>",
	     "host the object is for (x86_64 or aarch64 ELF; default x86_64-pc-linux-gnu)"},
	    {"kind", OPT_STR, &kind, &nkind, "openmp|cuda|hip|sycl",
	     "offload kind (default: from --for, else openmp); sycl: one OffloadBinary, "
	     "registered as LLVM 23 does"},
	    {"abi", OPT_STR, &abi, &nabi, "llvm14|amd|llvm19|llvm20",
	     "registration ABI: the runtime's LLVM release (default: from --for, else llvm20)"},
	    {"for", OPT_LIST, &hosts, NULL, "<host.o>[,...]",
	     "host objects the result is linked with: their entry tables choose kind and ABI"},
	    {"image", OPT_LIST, &images, NULL, "file=<f>[,triple=<t>][,arch=<a>]",
	     "a raw device image with its metadata"},
	    {"pack", OPT_FLAG, &j.pack, NULL, NULL,
	     "wrap raw images in OffloadBinaries (triple, arch) as clang-linker-wrapper does"},
	    {"relocatable", OPT_FLAG, &reloc, NULL, NULL,
	     "put images in .llvm.offloading.relocatable (for -r links)"},
	    {"emit", OPT_STR, &j.emit, NULL, "obj|ll|bc|c|fatbin",
	     "output format (default: from -o's name: .ll, .bc, .c, else obj); fatbin: only the "
	     "cuda/hip fat binary, as clang-linker-wrapper --emit-fatbin-only"},
	    {"cuda-path", OPT_STR, &j.fb.cuda_path, NULL, "<dir>",
	     "CUDA toolkit whose bin/fatbinary makes cuda fat binaries (default: $CUDA_PATH, "
	     "/usr/local/cuda, then PATH)"},
	    {"fatbinary-syntax", OPT_STR, &j.fb.syntax, NULL, "image3|image",
	     "fatbinary's image option (default: --image3 if its --help names it)"},
	    {"hipv4", OPT_FLAG, &j.fb.hipv4, NULL, NULL,
	     "hip bundle entries named hipv4- (the old driver's non-RDC style) instead of hip-"},
	    {"compress", OPT_FLAG, &j.fb.compress, NULL, NULL,
	     "compress the hip bundle (CCOB, zstd), as clang-offload-bundler -compress"},
	    {"compression-level", OPT_INT, &level, &nlevel, "<n>", "zstd level with --compress"},
	    {"host-cc", OPT_STR, &j.host_cc, NULL, "<compiler>",
	     "write the object by compiling C with this compiler (any ELF host)"},
	    {"o", OPT_STR, &j.output, NULL, "<file>", "output file"},
	    {"help", OPT_HELP, NULL, NULL, NULL, "display this help"},
	    {"version", OPT_VERSION, NULL, NULL, NULL, "show the version"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &pos,
	                    "offlink wrap [options] -o <out.o|out.ll|out.bc|out.c|out.fatbin> "
	                    "[--image=...] [<image>...]",
	                    WRAP_OVERVIEW);
	if (rc) {
		strlist_release(&images);
		strlist_release(&pos);
		strlist_release(&hosts);
		return rc == 2 ? 0 : rc;
	}
	j.opts.relocatable = reloc;
	rc = parse_kind(kind, &j.opts.kind) || parse_abi(abi, &j.opts.abi);
	if (!rc && j.fb.syntax && strcmp(j.fb.syntax, "image3") && strcmp(j.fb.syntax, "image"))
		rc = error("--fatbinary-syntax must be image3 or image, not '%s'", j.fb.syntax);
	if (!rc && nlevel && (level < -(1 << 17) || level > 22))
		rc = error("--compression-level=%lld is out of range", level);
	if (nlevel)
		j.fb.level = (int)level;
	if (!rc && hosts.n)
		rc = flavour_from_hosts(&hosts, nkind ? NULL : &j.opts.kind,
		                        nabi ? NULL : &j.opts.abi);
	for (size_t i = 0; i < images.n && !rc; i++)
		rc = parse_image_spec(&j, images.v[i]);
	for (size_t i = 0; i < pos.n && !rc; i++)
		rc = !add_input(&j, pos.v[i]);
	rc = finish(&j, rc);
	strlist_release(&images);
	strlist_release(&pos);
	strlist_release(&hosts);
	return rc;
}

/* Option name of arg ("-x=v", "--x v"...), or NULL for a positional. */
static const char *opt_name(const char *arg, size_t *len)
{
	if (arg[0] != '-' || !arg[1])
		return NULL;
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	*len = strcspn(name, "=");
	return name;
}

/* Pairs each image with the --offload-arch before it (and after the
 * previous image), walking argv as clang-offload-wrapper's command line
 * reads: images are the positionals, in order; -o, -target, --abi,
 * --emit and --offload-arch take a value, after '=' or as the next word. */
static void pair_archs(int argc, char **argv, struct wrap_job *j)
{
	static const char *const with_value[] = {"o", "target", "abi", "emit", "offload-arch"};
	const char *pending = NULL;
	size_t image = 0;
	for (int i = 1; i < argc; i++) {
		size_t len;
		const char *name = opt_name(argv[i], &len);
		if (!name) {
			if (image < j->nin)
				j->in[image++].arch = pending;
			pending = NULL;
			continue;
		}
		for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
			if (strlen(with_value[k]) != len || strncmp(name, with_value[k], len))
				continue;
			const char *v = name[len] == '=' ? name + len + 1
			                : i + 1 < argc   ? argv[++i]
			                                 : NULL;
			if (k == 4)
				pending = v;
		}
	}
}

/* clang-offload-wrapper -target <triple> -o <out> [--offload-arch=<id>] <image>...
 * Each --offload-arch names the target ID of the image after it; with
 * any, the AMD flavour (image info, .offload_arch_list) is written. */
int cmd_clang_offload_wrapper(int argc, char **argv)
{
	struct wrap_job j = new_job(OFL_WRAP_LLVM14, false);
	j.host_triple = NULL; /* -target is required */
	struct strlist archs = {NULL, 0}, pos = {NULL, 0};
	const char *abi = NULL;
	const struct opt table[] = {
	    {"target", OPT_STR, &j.host_triple, NULL, "<triple>",
	     "Target triple for the output module"},
	    {"o", OPT_STR, &j.output, NULL, "<filename>", "Output filename"},
	    {"offload-arch", OPT_LIST, &archs, NULL, "<id>", "target ID of the next image"},
	    {"abi", OPT_STR, &abi, NULL, "llvm14|amd|llvm19|llvm20",
	     "registration ABI (default llvm14, amd with --offload-arch)"},
	    {"emit", OPT_STR, &j.emit, NULL, "obj|ll|bc|c",
	     "output format (default: from -o's name)"},
	    {"help", OPT_HELP, NULL, NULL, NULL, "Display available options"},
	    {"version", OPT_VERSION, "compatible with clang-offload-wrapper", NULL, NULL,
	     "Display the version of this program"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &pos,
	                    "clang-offload-wrapper [options] <input files>", PERSONALITY_OVERVIEW);
	if (rc) {
		strlist_release(&archs);
		strlist_release(&pos);
		return rc == 2 ? 0 : rc;
	}
	j.llvm_bc = true;
	if (!j.host_triple)
		rc = error("no target triple given (-target)");
	if (!rc && archs.n)
		j.opts.abi = OFL_WRAP_AMD;
	if (!rc && abi)
		rc = parse_abi(abi, &j.opts.abi);
	for (size_t i = 0; i < pos.n && !rc; i++)
		rc = !add_input(&j, pos.v[i]);
	if (!rc)
		pair_archs(argc, argv, &j);
	rc = finish(&j, rc);
	strlist_release(&archs);
	strlist_release(&pos);
	return rc;
}

/* llvm-offload-wrapper --kind=openmp|cuda|hip [--triple=<t>] -o <out> <file>...;
 * as LLVM 23's (personality_release) also --relocatable, OpenMP images in
 * .llvm.offloading.relocatable, and --kind=sycl: one file, embedded as it
 * is (23 wraps the first input and ignores the others; offlink refuses
 * them). */
int cmd_llvm_offload_wrapper(int argc, char **argv)
{
	struct wrap_job j = new_job(OFL_WRAP_LLVM20, false);
	const char *kind = NULL;
	struct strlist pos = {NULL, 0};
	unsigned long long asked = 0;
	char about[64];
	for (int i = 1; i < argc; i++) /* the release decides the table */
		if (!strncmp(argv[i], "--llvm-version=", 15))
			asked = strtoull(argv[i] + 15, NULL, 10);
	unsigned v = asked ? llvm_release_option(asked) : personality_release(argv[0], 0);
	if (!v)
		return 1;
	snprintf(about, sizeof about, "compatible with llvm-offload-wrapper %u", v);
	const struct opt table[] = {
	    {"kind", OPT_STR, &kind, NULL, "<kind>", "The offloading language of the images"},
	    {"triple", OPT_STR, &j.host_triple, NULL, "<triple>", "The host target triple"},
	    {"o", OPT_STR, &j.output, NULL, "<file>", "Write output to <file>"},
	    {"emit", OPT_STR, &j.emit, NULL, "obj|ll|bc|c",
	     "output format (default: from -o's name)"},
	    {"llvm-version", OPT_UINT, &asked, NULL, NULL, NULL},
	    {"help", OPT_HELP, NULL, NULL, NULL, "Display available options"},
	    {"version", OPT_VERSION, about, NULL, NULL, "Display the version of this program"},
	    /* 23's option; before 23 the table ends here */
	    {v >= 23 ? "relocatable" : NULL, OPT_FLAG, &j.opts.relocatable, NULL, NULL,
	     "Wrap for a relocatable offloading application (OpenMP only)"},
	    {NULL, 0, NULL, NULL, NULL, NULL},
	};
	int rc = opts_parse(table, argc, argv, &pos, "llvm-offload-wrapper [options] <input files>",
	                    PERSONALITY_OVERVIEW);
	if (rc) {
		strlist_release(&pos);
		return rc == 2 ? 0 : rc;
	}
	j.llvm_tool = true;
	j.llvm_bc = true;
	if (!kind) {
		fprintf(stderr, "%s: for the --kind option: must be specified at least once!\n",
		        prog_base());
		rc = 1;
	}
	/* 22's tool has no sycl kind */
	if (!rc && (!kind_named(kind, &j.opts.kind) || (v < 23 && j.opts.kind == OFL_WRAP_SYCL))) {
		fprintf(stderr, "%s: for the --kind option: Cannot find option named '%s'!\n",
		        prog_base(), kind);
		rc = 1;
	}
	/* 23 wraps CUDA and HIP as ever: --relocatable is OpenMP's */
	j.opts.relocatable = j.opts.relocatable && j.opts.kind == OFL_WRAP_OPENMP;
	for (size_t i = 0; i < pos.n && !rc; i++)
		rc = !add_input(&j, pos.v[i]);
	rc = finish(&j, rc);
	strlist_release(&pos);
	return rc;
}
