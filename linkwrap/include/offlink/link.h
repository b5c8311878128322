/* The link pipeline that every front end drives (ld.offlink, the
 * clang-linker-wrapper personality, the linker plugin; docs/design.md,
 * "The link pipeline"):
 *
 *   inputs -> gather offload images -> choose archive members -> group by
 *   offload kind, triple and target ID -> device links (parallel) ->
 *   wrapper objects for the host link
 *
 * A front end opens a session (ofl_link_open: the inputs of the host
 * command line, in its order), hands it what else it knows (ofl_link_hint:
 * the plugin's view of what the linker loaded) and asks for the plan
 * (ofl_link_plan: every decision, the device links run), which it applies:
 * the wrapper objects (and runtime libraries) added to the host link.
 * The context owns every temporary file and removes them in ofl_link_free
 * (unless asked to keep them); ofl_link_cancel may be called from a signal
 * handler the front end installs.  The library itself installs no handler, reads no environment
 * variable and prints nothing: what it decided and ran goes to the log
 * callback.
 */
#ifndef OFFLINK_LINK_H
#define OFFLINK_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/argv.h"
#include "offlink/cache.h"
#include "offlink/error.h"
#include "offlink/ldcmd.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_link;
struct ofl_trace;

/* The most partitions a device link's code generation is split into. */
#define OFL_MAX_PARTITIONS 256

enum ofl_link_log {
	OFL_LOG_DECISION, /* which members and images were taken, and why */
	OFL_LOG_COMMAND,  /* a command run (or, dry run, that would run) */
	OFL_LOG_TIMING,   /* time and memory of a phase */
	OFL_LOG_WARNING,  /* something the user should know; the link goes on */
	OFL_LOG_FAILURE,  /* a failed device link: its inputs, first lines, next step */
	OFL_LOG_DETAIL,   /* a failed command whole, and all it wrote (for -v, --explain) */
	OFL_LOG_PROGRESS, /* a device link done: what, how long, cached or not */
	OFL_LOG_MODULE,   /* a wrapper module's LLVM IR (print_wrapped_module) */
	OFL_LOG_OUTPUT,   /* what a device tool that succeeded wrote to stderr (with verbose) */
};

struct ofl_link_opts {
	const char *host_triple; /* NULL: x86_64-pc-linux-gnu */
	const char *tmpdir;      /* where temporaries go; NULL: /tmp */
	/* Front ends pass what they read from the environment ($PATH,
	 * $CUDA_PATH): the library reads none. */
	const char *search_path; /* where clang is looked for last; NULL: nowhere */
	/* The CUDA toolkit (fatbinary; NVPTX device links' --cuda-path); NULL:
	 * fatbinary from /usr/local/cuda, device links the toolkit clang's
	 * driver would find (base/toolchain.c); "": PATH alone, none passed. */
	const char *cuda_path;
	const char *output; /* the link's -o, to name saved temporaries */
	unsigned jobs;      /* parallel device links; 0: 1 */
	/* GNU make jobserver (ofl_jobserver_open): a token is read from rfd
	 * (non-blocking) before each device link beyond the first and written
	 * back after; -1 when there is none. */
	int jobserver_rfd, jobserver_wfd;
	const char *device_compiler; /* clang for device links; NULL: chosen */
	/* Device clang commands get -no-canonical-prefixes, after --target
	 * (clang-linker-wrapper 23's --no-canonical-prefixes, #184160), and
	 * the device clang is the one beside invoked (the wrapper's argv[0],
	 * on search_path when it names no folder; its links not resolved)
	 * when there is one. */
	bool no_canonical_prefixes;
	const char *invoked;
	/* Extra device link arguments, "[<triple>=]arg": linker arguments
	 * (given to clang as -Xlinker arg) and clang arguments. */
	const char *const *device_linker_args;
	size_t ndevice_linker_args;
	const char *const *device_compiler_args;
	size_t ndevice_compiler_args;
	/* Prefix of every device link command (ccache, distcc, recc...). */
	const char *const *launcher;
	size_t nlauncher;
	/* Variables of device_env a launcher reads (comma-separated names,
	 * OFFLINK_DEVICE_LAUNCHER_ENV), given to the device actions beside
	 * those the plan lists, with those named after a launcher's program
	 * (RECC_... for recc); NULL: none. */
	const char *launcher_env;
	/* Prefix of the command that asks clang's driver what a device link
	 * runs (`clang -###`; scripts/cache-audit traces it), or none. */
	const char *const *probe_launcher;
	size_t nprobe_launcher;
	/* Archive members whose images have these archs are always taken. */
	const char *const *extract_archs;
	size_t nextract_archs;
	/* The host link's command line (borrowed): ld.offlink's own, or the
	 * linker's for the plugin.  The pipeline reads from it where -l finds
	 * libraries, what CPU device links take from the host link (-L, -l,
	 * -rpath, libraries by path) and which outputs name inputs; NULL:
	 * nothing known. */
	const struct ofl_ldcmd *host_cmd;
	/* The response files read so far (host_cmd's, ofl_ldcmd_parse), which
	 * the link's device actions read through, each file once per link
	 * (borrowed, not shared with another link at once); NULL: the link
	 * keeps its own. */
	struct ofl_rsp_memo *rsp;
	/* The host linker, which looks for what a linker script names where
	 * it does (ofl_ldscript_find): gold in other places than bfd and lld
	 * (OFL_LINKER_BFD, the default, is lld's way too). */
	enum ofl_linker host_linker;
	/* The device-link cache (offlink/cache.h); NULL: none.  Opened when
	 * the first device link runs; one that cannot be opened is a
	 * warning, and the link goes on without. */
	const struct ofl_cache_opts *cache;
	/* Where LLVM installations live: <root>/llvm-<N>/bin/clang.
	 * NULL entries skipped; none given: /usr/lib. */
	const char *const *llvm_roots;
	size_t nllvm_roots;
	/* Environment of the device links; NULL: the process's.  Front ends
	 * leave out what a compiler driver sets for its linker (gcc's
	 * LIBRARY_PATH reaches nvlink, which records it in the cubin). */
	char *const *device_env;
	/* LLVM options for the device links (LLVM 20+): lto_opts reach the
	 * device linker's LTO as -Xlinker --plugin-opt=X (clang-linker-
	 * wrapper's --offload-opt and -mllvm), mllvm as -Xlinker -mllvm=X
	 * (its -mllvm). */
	const char *const *lto_opts;
	size_t nlto_opts;
	const char *const *mllvm;
	size_t nmllvm;
	/* Driven as clang-linker-wrapper 22 (its personality): commands are
	 * logged in its quoting; the compiler driver passed what it adds
	 * itself (the OpenMP device runtime, -lomp -lomptarget, HIP's
	 * -flto-partitions=8), so none is added again; save_temps reaches
	 * the device linker (-Wl,--save-temps); and a dry run logs LLVM's
	 * commands for the same work: its temporary names, each image its
	 * own input, no offlink-only words, the clang-offload-bundler,
	 * fatbinary and llvm-objcopy steps done in process or not at all. */
	bool llvm_wrapper;
	/* The release of clang-linker-wrapper the personality acts as: from
	 * 23 its verbose dry run also names the steps 23 runs as tools (the
	 * images taken out of each input by llvm-offload-binary, OpenMP
	 * images packed by it, llvm-offload-wrapper, clang compiling the
	 * registration); 0 or older: 22's lines. */
	unsigned llvm_release;
	/* Stop once the device code is bundled (clang-linker-wrapper's
	 * --emit-fatbin-only): no wrapper object, the result's fatbin is the
	 * one bundle (OpenMP: the linked image as an OffloadBinary; CUDA: a
	 * fatbinary; HIP: an offload bundle); a dry run gives it an empty
	 * image as LLVM does. */
	bool emit_fatbin;
	/* HIP bundles compressed (CCOB, clang-offload-bundler -compress), at
	 * this level (INT32_MIN: zstd's default). */
	bool compress;
	int compression_level;
	/* Each wrapper module's IR is logged (OFL_LOG_MODULE), as
	 * clang-linker-wrapper --print-wrapped-module prints it. */
	bool print_wrapped_module;
	bool dry_run;     /* log the commands, run none, write empty images */
	bool save_temps;  /* keep temporaries, named after output, in tmpdir */
	bool relocatable; /* wrapper images go to .llvm.offloading.relocatable */
	/* No LLVM OpenMP device runtime added to GPU device links (else
	 * they get it, found where clang finds it): asked for (--nogpulib,
	 * as clang's -nogpulib), or a driver that passes it itself drives
	 * the link (clang-linker-wrapper's command line). */
	bool no_device_runtime;
	/* Device code that LLVM's clang-linker-wrapper linked before this
	 * link is meant (--no-bypass-warning, OFFLINK_NO_BYPASS_WARNING=1):
	 * the plan says nothing of it. */
	bool bypass_ok;
	/* Run by an offlink (OFFLINK_LINKER_CHAIN): wrapper objects among the
	 * inputs are offlink's own, no bypass. */
	bool chained;
	/* The device code's optimisation level, the value of clang's -O<x>
	 * as its driver hands it to the device side: "0" to "9", "s", "z",
	 * "g", "fast" ("": the default).  LLVM 19 groups: its linker wrapper's
	 * --opt-level, O0 to O3 (-Os and -Oz as O2, -Og O1, -Ofast and -O4 up
	 * O3), for its LTO and the device clang (else O2); LLVM 20+ groups:
	 * the -O<x> the driver hands the device clang
	 * (--device-compiler=<triple>=-O<x>), added unless llvm_wrapper (then
	 * that driver passed it itself); old-driver HIP groups: -O<x> to the
	 * device clang, as clang --hip-link gives its lld the level. */
	char opt_level[8];
	/* Device code generation of LTO links in partitions, each its own
	 * cached action run beside the others (plan/partition.c): 0 decides
	 * from the size of each group's device bitcode, 1 makes none (the link
	 * LLVM runs, its bytes), N that many; never from the machine, so the
	 * image is the same everywhere.  device_partitions_from says who gave
	 * N ("--device-partitions", "OFFLINK_DEVICE_PARTITIONS"), for the log. */
	unsigned device_partitions;
	const char *device_partitions_from;
	/* The memory the device actions may take at once, by their estimates
	 * (OFFLINK_DEVICE_MEMORY); 0: what the machine has available when
	 * they start.  A schedule's limit, never the bytes'. */
	uint64_t device_memory;
	/* Where opt_level came from, or why it is not known, for the log
	 * (OFL_LOG_DECISION when device links run); NULL: nothing to say. */
	const char *opt_level_why;
	/* Each group's code linked and optimised into one LLVM module that is
	 * embedded as the image, for the offload runtime to compile when the
	 * program runs (clang-linker-wrapper's --embed-bitcode, from
	 * -fopenmp-target-jit): LLVM 19 groups stop after its LTO's
	 * optimisation, LLVM 20+ ones link with -Wl,--lto-emit-llvm. */
	bool embed_bitcode;
	/* The front end prints commands as they run (-v, --wrapper-verbose):
	 * what each device tool writes is logged after it (OFL_LOG_OUTPUT;
	 * clang -v's commands, the device linker's lines), and with
	 * llvm_wrapper the device images are named as LLVM names them
	 * (<output>.<arch>.<target>-XXXXXX.img, the digits from the link's
	 * inputs) and LLVM 19 device links get -v, as that wrapper gives. */
	bool verbose;
	/* Where the link records its time trace (offlink/trace.h): its steps,
	 * each device action on a track of its own; NULL: none. */
	struct ofl_trace *trace;
	void (*log)(void *ctx, enum ofl_link_log what, const char *msg);
	void *log_ctx;
};

int ofl_link_new(struct ofl_link **l, const struct ofl_link_opts *o, struct ofl_error *err);

/* Waits for what the link left running beside the host link: the
 * device-link cache's stores, whose failures it logs.  ofl_link_cancel
 * cuts their transfers short, so a front end calls it while its signal
 * handler can still cancel the link; ofl_link_free does it otherwise. */
void ofl_link_wait(struct ofl_link *l);

/* Frees the context and removes its temporary directory with all in it
 * (kept with save_temps).  The first temporary of a link removes the
 * directories that killed links left in tmpdir (see linkwrap/base/tmpdir.c). */
void ofl_link_free(struct ofl_link *l);

/* A path <link's temporary directory>/<name> the context owns: removed
 * with the others (a front end's intermediate files).  NULL on error. */
char *ofl_link_temp(struct ofl_link *l, const char *name, struct ofl_error *err);

/* Async-signal-safe, for a front end's signal handler: the device links
 * still running are killed (their process groups, SIGKILL), none starts,
 * and ofl_link_execute soon fails with "link cancelled".  It removes nothing:
 * ofl_link_free does, once the pipeline has returned and no child writes
 * in the link's directory any more. */
void ofl_link_cancel(struct ofl_link *l);

/* How an input enters the link. */
struct ofl_link_input {
	const char *path;
	/* Where the file's bytes are: fd >= 0 reads size bytes at offset
	 * from it (a plugin's view of an archive member); fd < 0 opens and
	 * maps path. */
	int fd;
	uint64_t offset, size;
	bool whole_archive; /* every member counts as pulled */
	unsigned group;     /* --start-group number, 0 for none */
	/* The host linker decided this input is used (a plugin sees only
	 * pulled members): no symbol rules are applied to it. */
	bool pulled;
};

/* Adds an input in command-line order: an object, archive, shared object,
 * raw OffloadBinary or bundler fat object.  Anything else (linker scripts,
 * missing files) adds nothing and is not an error: the host linker will
 * judge it.  Malformed device code is an error naming the file and offset. */
int ofl_link_add(struct ofl_link *l, const struct ofl_link_input *in, struct ofl_error *err);

/* True when some input carries device code (after all inputs are added)
 * and no input is clang-linker-wrapper's wrapper object (then LLVM did the
 * device work and drives this link as its host linker).  Without device
 * code the plan has nothing to run. */
bool ofl_link_has_device_code(const struct ofl_link *l);

/* True when an input is clang-linker-wrapper's wrapper object: LLVM's
 * linker wrapper did the device work and runs this link as its host
 * linker, so there is nothing left to do (ofl_link_has_device_code is
 * false). */
bool ofl_link_linked_by_llvm(const struct ofl_link *l);

/* With save_temps, the directory the temporaries are kept in; NULL when
 * the link made none (or without save_temps, as they go). */
const char *ofl_link_kept_temps(const struct ofl_link *l);

/* What the host link gets added. */
struct ofl_link_result {
	char **objects; /* wrapper objects, one per offload kind */
	size_t nobjects;
	char **libraries; /* runtime libraries ("omptarget") */
	size_t nlibraries;
	char **libdirs; /* where they are */
	size_t nlibdirs;
	const char *fatbin; /* emit_fatbin: the bundle's file, else NULL */
};

/* Whether a link of command line c is one for the pipeline: it has inputs
 * and is not a plain ld -r (with offload_relocatable, LLVM's relocatable
 * mode, it is).  Else the host link runs as it is, and nothing is read. */
bool ofl_link_wanted(const struct ofl_ldcmd *c, bool offload_relocatable);

/* A link session, as every front end runs one (ld.offlink, the
 * clang-linker-wrapper personality, the linker plugin): a context whose
 * inputs are those of the host command line o->host_cmd
 * (files as given, sysroot applied; -l libraries as the host linker finds
 * them, one it does not find being its to report; with llvm_wrapper, as
 * clang-linker-wrapper, looked for in the -L directories only, and
 * OFL_ENOTFOUND when not there); OFL_EINVAL without one, since the link's
 * inputs are then unknown.  *l is NULL on error. */
int ofl_link_open(struct ofl_link **l, const struct ofl_link_opts *o, struct ofl_error *err);

/* A file the host linker loaded (a plugin's claim_file: path, and for an
 * archive member the offset of its bytes in the archive), as a hint: a
 * member of an input the command line names is taken even where the
 * replay of the linker's rules would not take it; a file the command line
 * does not name (a linker script's INPUT) is added as an input the host
 * linker chose, read from in->fd. */
int ofl_link_hint(struct ofl_link *l, const struct ofl_link_input *in, struct ofl_error *err);

/* What a front end does to the host link. */
enum ofl_plan_action {
	OFL_PLAN_UNCHANGED, /* no device code: the host link as it is */
	/* LLVM linked the device code already: clang-linker-wrapper (its
	 * wrapper object for OpenMP, CUDA or HIP), or clang's old HIP offload
	 * driver (the object of its --hip-link's fat binary) */
	OFL_PLAN_LINKED_BY_LLVM,
	OFL_PLAN_ADD, /* res's objects, library dirs and libraries added */
};

/* The plan as data (ofl_link_plan), for the front ends to print and tests
 * to assert on; every string and array is the context's, valid until
 * ofl_link_free. */

/* An object of the link (a file, an archive member). */
struct ofl_plan_unit {
	const char *name; /* "lib.a(m.o)" */
	bool taken;       /* the host link uses it */
	const char *why;  /* why (the rule that took it), or NULL */
	bool device;      /* some of its device code is linked */
	size_t nimages;   /* the device images it holds */
};

/* How a group's device code is linked: as LLVM 19's linker wrapper did
 * (its in-process LTO first, its device link's words), as LLVM 20 and
 * later do, or as clang's old HIP driver links code objects. */
enum ofl_plan_form { OFL_FORM_LLVM19, OFL_FORM_LLVM20, OFL_FORM_OLD_HIP };
/* Who links the group's bitcode: nobody (objects only), LLVM 19's LTO
 * step (llvm-lto2, an action of its own), the device linker's LTO. */
enum ofl_plan_lto { OFL_LTO_NONE, OFL_LTO_STEP, OFL_LTO_LINKER };
/* The OpenMP device runtime of a GPU group: none needed (not OpenMP, not
 * a GPU), LLVM 19's libomptarget.devicertl.a (an input, its members taken
 * by device symbols), LLVM 20+'s libompdevice.a (-lompdevice), passed by
 * the driver that runs the personality, left out (--nogpulib). */
enum ofl_plan_runtime {
	OFL_RUNTIME_NONE,
	OFL_RUNTIME_ARCHIVE,
	OFL_RUNTIME_LIBRARY,
	OFL_RUNTIME_DRIVER,
	OFL_RUNTIME_OFF,
};

/* Images linked together: one offload kind, triple and target ID. */
struct ofl_plan_group {
	uint16_t kind; /* as stored (HIP: 3 in 19, 4 after) */
	const char *triple, *arch;
	unsigned llvm; /* the release that links it */
	/* why: "the images' producer", "the objects' entry tables", "the
	 * newest installed" */
	const char *llvm_why;
	enum ofl_plan_form form;
	enum ofl_plan_lto lto;
	enum ofl_plan_runtime runtime;
	const char *runtime_path; /* the archive, or libompdevice.a's folder; or NULL */
	size_t nimages;           /* taken */
	size_t first_action, nactions;
};

/* A file a device action may read, as its key holds it: by its bytes;
 * as absent (a word names it); looked at first by a search and empty (the
 * search's answer is keyed); the loader's cache (its answers are keyed). */
enum ofl_plan_how { OFL_KEY_CONTENT, OFL_KEY_ABSENT, OFL_KEY_LOOKED, OFL_KEY_LOADER_CACHE };
struct ofl_plan_file {
	const char *path;
	enum ofl_plan_how how;
};

/* A device action: one device link (or LLVM 19's LTO step before it). */
struct ofl_device_action {
	size_t group;
	bool lto;
	const char *what;   /* "device link for <triple> <arch>" */
	const char *output; /* the file it writes */
	char *const *argv;  /* its command as printed (clang's), argc words */
	size_t argc;
	const struct ofl_argv *jobs; /* what runs (clang's driver's commands) */
	size_t njobs;
	char *const *env; /* its whole environment, NULL-terminated */
	const struct ofl_plan_file *files;
	size_t nfiles;
	const char *uncached; /* why the cache does not keep it, or NULL */
};

/* The wrapper object of an offload kind, in the registration ABI the
 * taken objects' entry tables ask for (SYCL: LLVM 22's or 23's). */
struct ofl_plan_wrap {
	int kind; /* enum ofl_wrap_kind */
	int abi;  /* enum ofl_wrap_abi */
	bool old_hip;
	bool sycl_desc; /* ofl_wrap_opts.sycl_desc */
	size_t ngroups;
};

struct ofl_link_plan {
	enum ofl_plan_action action;
	struct ofl_link_result res; /* OFL_PLAN_ADD; its strings are the context's */
	/* A line for the front end to print as a warning, or NULL: device
	 * code that bypassed offlink (OFL_PLAN_LINKED_BY_LLVM, not bypass_ok). */
	const char *warning;
	/* OFL_PLAN_LINKED_BY_LLVM: who linked the device code, for -v and
	 * --explain ("device code was linked by ... already: nothing to do"). */
	const char *note;
	/* OFL_PLAN_ADD: the decisions */
	const struct ofl_plan_unit *units;
	size_t nunits;
	const struct ofl_plan_group *groups;
	size_t ngroups;
	const struct ofl_device_action *actions;
	size_t nactions;
	struct ofl_plan_wrap wraps[5];
	size_t nwraps;
};

/* Every decision of the link, once the inputs are known, made before any
 * process starts: whether there is device work (none in a host linker
 * that an offlink runs: OFFLINK_LINKER_CHAIN), whether it was done before
 * this link (LLVM's wrapper object; clang's old HIP driver; offlink's own
 * OpenMP wrapper object, whose runtime library is added), relocatable
 * mode's output (not an input), emit_fatbin without device code (an
 * error); then which members and images are taken, the device actions of
 * each group (their commands), the registration of each offload kind, the
 * runtime libraries.  A front end prints what it says, then runs it with
 * ofl_link_execute.  A context is planned once: a second call (or an
 * ofl_link_add after it) is OFL_EINVAL. */
int ofl_link_plan(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err);

/* Runs the plan (OFL_PLAN_ADD; nothing else runs anything): the device
 * actions (in parallel, the device-link cache asked first), then the
 * wrapper objects; p->res then lists what the host link gets (its
 * strings the context's).  It decides nothing: a failure is a device
 * tool's, the system's or the cache's.  Once per context. */
int ofl_link_execute(struct ofl_link *l, struct ofl_link_plan *p, struct ofl_error *err);

/* The host linker's argv for command line c: linker first, ld.offlink's own
 * options left out, -o's value replaced by output when given, res's
 * wrapper objects right after the -o (first without one) and its
 * libraries and their dirs before the C runtime libraries (-lgcc, -lgcc_s,
 * -lc: where clang's driver puts -lomptarget), at the end without them.  res NULL: the line as it
 * is.  llvm_form: as clang-linker-wrapper prints it (ofl_link_llvm_form), the options its table
 * knows in separate words (-o X, -L X, -l X, --relocatable,
 * --rpath X), the others as given.  Appends owned words to v. */
int ofl_host_argv(const struct ofl_ldcmd *c, const char *linker, const struct ofl_link_result *res,
                  const char *output, bool llvm_form, struct ofl_argv *v, struct ofl_error *err);

/* True when the link's commands are shown as clang-linker-wrapper 22 shows
 * what it would run for the same work: the personality's dry run
 * (llvm_wrapper and dry_run). */
bool ofl_link_llvm_form(const struct ofl_link_opts *o);

/* The llvm-objcopy command with which clang-linker-wrapper's relocatable
 * mode makes output's entry table private (ofl_link_finish_relocatable
 * does the same in process); for the personality's dry run. */
int ofl_link_llvm_objcopy(const struct ofl_link *l, const char *output, struct ofl_argv *v,
                          struct ofl_error *err);

/* After the host link: the outputs of o.host_cmd that name inputs
 * (--dependency-file, -Map, --why-extract, --print-archive-stats) are
 * rewritten without the link's temporaries, so a dependency file never
 * names a file that goes away (make would relink forever) and reports do
 * not depend on the temporary directory's name. */
int ofl_link_scrub_outputs(struct ofl_link *l, struct ofl_error *err);

/* How to find the host linker. */
struct ofl_host_linker_query {
	const char *choice; /* bfd|gold|lld|mold|a path; NULL or "": ld */
	/* The driver's choice (clang-linker-wrapper's --linker-path), used as
	 * it is unless it is ld.offlink itself (a skipped path: clang's
	 * -fuse-ld=offlink), whose part the caller does; then choice applies.
	 * NULL: none. */
	const char *driver_linker;
	const char *driver;      /* the compiler driver that started the link, or NULL */
	const char *search_path; /* a $PATH value; NULL: nowhere */
	/* Real paths never chosen: ld.offlink itself, and the copies of it
	 * that ran this one as their host linker (two -B dirs, two installs
	 * each with an `ld`), so that copies cannot call each other forever. */
	const char *const *skip;
	size_t nskip;
	unsigned llvm; /* newest LLVM release whose bitcode the link reads; 0: none */
	const char *const *llvm_roots; /* <root>/llvm-<N>/bin; NULL: /usr/lib */
	size_t nllvm_roots;
};

/* The host linker: driver_linker unless it is ld.offlink; else as clang's
 * -fuse-ld finds choice: lld beside the clang that
 * drives the link, else the lld of the LLVM release whose bitcode the link
 * reads, else on search_path; any other name on search_path; a path as it
 * is.  Owned; NULL with err when there is none. */
char *ofl_find_host_linker(const struct ofl_host_linker_query *q, struct ofl_error *err);

/* Which linker q finds, before the link's inputs are read (its lld is
 * chosen by their bitcode, but is lld): the file it leads to, by its real
 * name; the name chosen when it finds none (the link then fails on it). */
enum ofl_linker ofl_host_linker_kind(const struct ofl_host_linker_query *q);

/* The newest LLVM release that made bitcode among the added inputs (host
 * LTO objects), 0 when none. */
unsigned ofl_link_bitcode_release(const struct ofl_link *l);

/* OFL_EINVAL when output names the same file as one of the link's inputs
 * (as ld.bfd refuses it): what offlink writes itself (LLVM's relocatable
 * mode) never replaces an input. */
int ofl_link_check_output(const struct ofl_link *l, const char *output, struct ofl_error *err);

/* LLVM's relocatable mode, after the host linker's -r (with the wrapper
 * objects of a relocatable run) wrote merged: output gets merged without
 * its input images (non-allocated offloading sections) and with each entry
 * table renamed <sec>_<hash>, its __start_/__stop_ symbols too, so the
 * object keeps its registration to itself.  output is written atomically;
 * merged is left as it is. */
int ofl_link_finish_relocatable(const char *merged, const char *output, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
