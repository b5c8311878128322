/* Private to the link pipeline's plan (plan/) and run (run/): the context
 * and what it knows about inputs, images and device actions. */
#ifndef OFL_LINK_PRIV_H
#define OFL_LINK_PRIV_H

#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <time.h>

#include "offlink/archive.h"
#include "offlink/bitcode.h"
#include "offlink/bundle.h"
#include "offlink/target_id.h"
#include "offlink/wrapper_obj.h"
#include "offlink/io.h"
#include "offlink/link.h"
#include "offlink/offload_binary.h"
#include "offlink/proc.h"
#include "symset.h"
#include "syms.h"
#include "entries.h"
#include "loads.h"
#include "target.h"
#include "toolchain.h"

enum file_kind { FILE_OTHER, FILE_OBJECT, FILE_ARCHIVE, FILE_SHARED, FILE_OBIN, FILE_BITCODE };

/* A file of the host link. */
struct link_file {
	struct ofl_file f;
	enum file_kind kind;
	struct ofl_link_input in; /* path owned (in.path) */
	struct ofl_archive ar;
	size_t first_unit, nunits;
	/* 1 + the index of the host command line's argument it was added for
	 * (ofl_link_add_host_inputs); 0: added otherwise */
	size_t host_arg;
};

/* An object of the link: a file, or an archive member. */
struct link_unit {
	char *name; /* "lib.a(m.o)" for messages and logs */
	const uint8_t *data;
	size_t size;
	size_t file;
	bool taken;  /* the host link uses it */
	bool device; /* some of its device code is taken (see link_member.taken) */
	const char *why;
	size_t first_image, nimages;
	/* what its entry tables ask for (read once, for units with images) */
	struct ofl_wrap_needs needs;
	struct ofl_file *thin; /* a thin archive's member: its own file, owned */
	/* LLVM bitcode (host LTO): its offloading globals, which the images
	 * point into, and its section names; owned */
	struct ofl_bcglobals *bc;
	/* the host linker loaded it (ofl_link_hint): taken whatever the
	 * replay of its rules says */
	bool chosen;
	/* its device code is registered already, by this offlink wrap
	 * object (its name), or NULL */
	const char *registered_by;
};

/* One OffloadBinary found in a unit. */
struct link_image {
	size_t unit;
	struct ofl_obin b; /* views into the unit's bytes, or into owned */
	const char *triple, *arch;
	unsigned llvm; /* producer's LLVM major version; 0: unknown */
	/* From an old-driver bundle (__CLANG_OFFLOAD_BUNDLE__): no
	 * OffloadBinary around it; HIP ones register through
	 * __hip_fatbin_<cuid> instead of a wrapper. */
	bool legacy;
	struct ofl_bundle_id id; /* legacy: triple and arch point into it */
	uint8_t *owned;          /* legacy: the entry's bytes */
};

/* An image of a group: one of the group's own target, or one whose code
 * also serves it, copied in (a generic image; a less specific target ID,
 * gfx90a into gfx90a:xnack+), as LLVM groups them (group.c). */
struct link_member {
	size_t image;
	/* Linked in this group: its unit is in the host link, or the group's
	 * device symbols need it (decided per group). */
	bool taken;
};

/* A file a device action may read, as its key holds it (declare.c). */
enum act_how {
	ACT_CONTENT,      /* its bytes: an input, a tool, a library, a crt file */
	ACT_ABSENT,       /* named by a word, and not there (keyed as absent) */
	ACT_LOOKED,       /* looked at first by a search and empty: the search's
	                   * answer is keyed, and the action cached while it stays
	                   * so (a library made there later is another answer) */
	ACT_LOADER_CACHE, /* the loader's cache: its answers are keyed, the
	                   * libraries found */
};
struct act_file {
	char *path; /* owned: the name the job uses, or where a search found it */
	enum act_how how;
};

/* A device action of the plan: what a device link (or before it LLVM 19's
 * LTO step) runs, known before any runs (docs/design.md, "Device links"),
 * and hermetic: its commands, its whole environment, every file it may
 * read declared, its output; the cache's key is made of nothing else. */
struct link_action {
	size_t group;
	bool lto;            /* LLVM 19's LTO step (llvm-lto2) */
	bool image;          /* its output is the group's image */
	bool file;           /* its output is read as a file after it (the link after
	                      * LTO, fatbinary, kept temporaries): a hit writes it */
	char what[256];      /* "device link for <triple> <arch>", for messages */
	struct ofl_proc cmd; /* as printed (LLVM's form of it): clang's, or
	                      * llvm-lto2's; the launcher first */
	const char *output;  /* the file it writes (the link's) */
	/* What runs (expand.c): the commands clang's driver runs for cmd
	 * (ld.lld; clang-nvlink-wrapper, after ptxas for assembly), without
	 * the launcher; cmd's own words when it is not clang's or the driver
	 * did not say. */
	struct ofl_argv *jobs;
	size_t njobs;
	char **env;             /* the whole environment: NAME=value, NULL-ended (the
	                         * link's, l->memo.env) */
	struct act_file *files; /* declared, in the order the key holds them */
	size_t nfiles, capfiles;
	/* The key's words of each job: the link's folder @link, the working
	 * folder @cwd where the image does not depend on it. */
	struct ofl_argv *keyjobs;
	struct ofl_argv keyenv; /* the variables its tools read, by name */
	char *uncached;         /* why it is not cached (owned), or NULL */
	unsigned track;         /* its track in the time trace (run/sched.c), or 0 */
	/* The actions whose outputs it reads: they run before it (the group's
	 * previous action unless the plan says otherwise; owned) */
	size_t *deps;
	size_t ndeps;
	/* Files it writes besides output (llvm-split's partitions), each
	 * cached under a key of its own (the link's paths) */
	const char **more;
	size_t nmore;
	/* What an output its jobs did not write holds (AMDGPU's splitter
	 * writes fewer partitions than asked for when it finds fewer kernels:
	 * an empty module); NULL: a missing output is an error (owned) */
	char *fill;
	/* Its jobs are what clang's driver runs even without a cache or in a
	 * dry run: partition.c reads the code generation's options there */
	bool expand;
	/* Its peak memory, estimated when it is about to run from the size of
	 * mem_input (a file of the link's): mem_base + mem_factor x size;
	 * mem_input NULL: not estimated (partition.c) */
	const char *mem_input;
	uint64_t mem_base;
	unsigned mem_factor;
	/* A partition's module (partition.c), whose size ranks the actions of
	 * its chain when several of the group's are ready: the largest first,
	 * so that the longest chain does not start last and run alone; NULL:
	 * plan order */
	const char *rank_input;
};

/* What the loader does to start a program (loads.h), as declare.c keeps
 * it for every action that runs the program. */
struct load_item {
	enum ofl_load_kind kind;
	char *path; /* owned */
	const char *why;
};
struct program_loads {
	struct load_item *v;
	size_t n, cap;
	bool script; /* the program is a script (#!) */
};

/* What planning a link learnt once for all its actions (declare.c,
 * expand.c): a device action's cost does not grow with the actions
 * before it. */
struct plan_memo {
	char *cwd;                  /* the working folder (jobs run there), or NULL */
	struct ofl_symset modes;    /* path -> 1 << 31 | its st_mode; 0: nothing there */
	struct ofl_symset programs; /* program -> its index in loads */
	struct program_loads *loads;
	size_t nloads, caploads;
	/* what the driver of each clang (and triple) reads to choose its jobs
	 * (driver_memo.c): hashed, and named for --explain */
	struct ofl_symset drivers; /* "<clang>\n<triple>" -> its index in driver */
	struct driver_seen {
		uint8_t sum[32];
		struct ofl_argv items;
		bool settled; /* nothing in it changed in the last 2 s */
	} * driver;
	size_t ndriver, capdriver;
	char **env;                    /* every action's environment (owned, NULL-ended) */
	struct ofl_symset cpu_linkers; /* clang -> the CPU linker its links use (devcmd.c) */
	struct ofl_symset clangs;      /* release -> 1 + its clang's index in clang_paths */
	struct ofl_argv clang_paths;
	/* response files, read once: the front end's (o.rsp, with the host
	 * command line's), else the link's own */
	struct ofl_rsp_memo *rsp, own_rsp;
};

/* Images that are linked together: one kind, triple and target ID. */
struct link_group {
	uint16_t kind;             /* offload kind as stored (HIP: 3 in 19, 4 in 22) */
	bool legacy;               /* images from old-driver bundles */
	const char *triple, *arch; /* its first image's */
	/* the triple its device clang is given (ofl_target_for_clang), owned;
	 * NULL until its device link is planned */
	char *clang_triple;
	unsigned llvm;
	size_t nimages;                /* of them taken */
	size_t first, nall;            /* all its images: ofl_link.members[first .. first + nall) */
	char *output;                  /* linked image path (a temporary) */
	char *runtime_dir;             /* <root>/llvm-<N>/lib with libomptarget, or NULL */
	struct ofl_file linked;        /* its bytes, once linked (mapped, or read) */
	size_t first_action, nactions; /* its actions in ofl_link.actions */
	const char *llvm_why;          /* where llvm came from (ofl_plan_group) */
	enum ofl_plan_runtime runtime; /* its OpenMP device runtime (devrt.c) */
	char *runtime_path;            /* the runtime's archive or folder, owned */
	/* The files of its commands the link writes: written just before a
	 * command that reads them runs, never for one the cache answers
	 * (creating files is most of a cached link's time); as planned to
	 * the link's end (keys read them unlocked) */
	struct pending_write {
		const char *path; /* the link's temporary */
		const uint8_t *data;
		size_t size;
		uint8_t *owned; /* data, when made for this write */
		bool written;   /* by a command's run (under l->lock) */
	} * pending;
	size_t npending, cappending;
	/* Its code generation in partitions (partition.c): how many (1:
	 * none), why, and the partitions' objects the device link takes
	 * instead of the LTO's bitcode (the link's paths) */
	unsigned parts;
	char parts_why[256];
	struct ofl_argv part_objs;
};

struct ofl_link {
	struct ofl_link_opts o;
	struct link_file *files;
	size_t nfiles, capfiles;
	struct link_unit *units;
	size_t nunits, capunits;
	struct link_image *images;
	size_t nimages, capimages;
	struct link_group *groups;
	size_t ngroups, capgroups;
	struct link_member *members; /* by group */
	struct link_action *actions; /* by group, in order */
	/* the plan as data, for the front ends (ofl_link_plan's) */
	struct ofl_plan_unit *pub_units;
	struct ofl_plan_group *pub_groups;
	struct ofl_device_action *pub_actions;
	struct ofl_plan_file *pub_files;
	size_t nactions, capactions;
	struct ofl_toolchain tools; /* where the link's tools are (from o) */
	char *tmpdir;               /* made on first use */
	char *beside_output;        /* its parent when kept beside the output */
	char *clang_beside_self;    /* the device clang beside the wrapper (invoked) */
	struct ofl_ptrs temps;      /* the paths handed out */
	pthread_mutex_t lock;
	/* Read and written atomically, also by ofl_link_cancel in a signal
	 * handler: */
	int cancelled; /* ofl_link_cancel was called */
	int wake;      /* eventfd, readable once no device link may start; or -1 */
	int *running;  /* the running device links, one ofl_proc.running slot per worker */
	size_t nrunning;
	/* Who linked the device code before this link, by the registration
	 * an input holds (gather.c, note_linked): the strongest one found. */
	enum linked_by {
		LINKED_NOT,   /* nobody: the device code is this link's to link */
		LINKED_CLANG, /* clang's old HIP driver (--hip-link): its fat binary's object */
		LINKED_LLVM,  /* LLVM's clang-linker-wrapper: its wrapper object */
	} linked_by;
	const char *linked_unit;        /* the input that says so (a unit's name) */
	bool ran;                       /* ofl_link_plan planned it: the context takes no more */
	bool executed;                  /* ofl_link_execute ran the plan */
	enum ofl_wrap_kind fatbin_kind; /* --emit-fatbin-only: the kind whose bundle is it */
	/* images grouped by LLVM main's rules (it wrote some), not 22's
	 * (group.c); per-triple device arguments then reach compatible
	 * triples */
	bool main_rules;
	struct ofl_cache *cache; /* or NULL */
	struct plan_memo memo;
	struct ofl_digests *digests; /* what the link's keys saw of files (run/key.c) */
	/* entries being written (run/action.c), added under lock */
	struct store **stores;
	size_t nstores, capstores;
	unsigned nlinked, ncached; /* device links done, and of those from the cache */
	/* Images registered already by offlink's wrapper objects (offlink
	 * wrap's, a relocatable link's): they need the runtime library only. */
	struct link_registered {
		size_t unit;
		uint16_t kind;
		unsigned llvm; /* of the image; the newest installed when it does not say */
		/* the image, for its symbols (NULL: not readable here) */
		const uint8_t *image;
		size_t size;
		/* offlink wrap's: registers the program's whole entry table
		 * (__start_/__stop_ of its section); a relocatable link's
		 * registers its own, made private */
		bool whole;
	} * registered;
	size_t nregistered, capregistered;
	struct ofl_argv libdirs;  /* the host linker's built-in library dirs */
	struct ofl_argv cpu_args; /* what CPU device links take from the host link */
	bool host_inputs;         /* the inputs came from o.host_cmd (ofl_link_add_host_inputs) */
	unsigned script_depth;    /* linker scripts being read, one inside another */
	unsigned scripts_read;    /* linker scripts read in all */
	unsigned script_groups;   /* GROUP(...)s of scripts numbered so far */
	bool script_inserts;      /* a script read since this was cleared has INSERT */
	/* where the names of the script ofl_link_add reads next are found, its
	 * ofl_ldscript_find path (a -T script's); NULL: beside it */
	const char *script_place;
	bool script_option;             /* the script ofl_link_add reads next is -T's */
	struct ofl_argv script_externs; /* EXTERN(...)s of scripts: undefined, as -u */
	/* the SEARCH_DIRs of the scripts read, as written: searched after the
	 * -L folders, before the built-in ones (dirs) or after them (late) */
	struct ofl_argv script_dirs, script_dirs_late;
	/* files[0, startup): the file a -T script's STARTUP names, which
	 * ld.bfd links first */
	size_t startup;
	struct ofl_link_result res;
	struct ofl_argv runtime_libs, runtime_dirs; /* res's libraries and libdirs */
	unsigned nllvm_names;    /* LLVM-form temporary names made (llvm_form.c) */
	const char *llvm_bundle; /* the last fat binary's LLVM-form name (a temporary) */
	/* The CUDA toolkit NVPTX device links get as --cuda-path ("": none),
	 * set when the plan makes their commands (devcmd.c). */
	char cuda[PATH_MAX];
};

/* context.c: the context, its log and temporaries. */
void ofl_link_logf(struct ofl_link *l, enum ofl_link_log what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Logs cmd (OFL_LOG_COMMAND) quoted as the front end prints commands;
 * returns that line (the caller's to free), NULL when out of memory. */
char *ofl_link_log_command(struct ofl_link *l, const struct ofl_proc *cmd);
/* The link's temporary directory, made on first use; NULL on error. */
const char *ofl_link_tmpdir(struct ofl_link *l, struct ofl_error *err);
/* path lies in the link's directory: a file of the link's own. */
bool ofl_link_owns(const struct ofl_link *l, const char *path);
/* What an action owns, freed. */
void ofl_action_release(struct link_action *a);
/* Frees what the context holds and removes its temporaries (kept with
 * save_temps); ofl_link_free first waits for what runs. */
void ofl_link_destroy(struct ofl_link *l);

/* hostlink.c: the host link's command line as the plan knows it. */
/* The library an -l argument names as the host linker finds it (as
 * clang-linker-wrapper, in the -L dirs only), or NULL. */
char *ofl_hostlink_find_library(const struct ofl_link *l, const struct ofl_ldarg *a,
                                struct ofl_error *err);
/* What CPU device links take from the host link (l->cpu_args), once there
 * is device code: from what the inputs' gathering found where it ran. */
int ofl_hostlink_cpu_args(struct ofl_link *l, struct ofl_error *err);
bool ofl_hostlink_names_library(const struct ofl_link *l, const char *name);

/* gather.c: the inputs. */
/* Adds every input of the host command line (o.host_cmd) in order, for
 * ofl_link_open. */
int ofl_link_add_host_inputs(struct ofl_link *l, struct ofl_error *err);

/* select.c: which members and images are taken (docs/design.md,
 * "Archive members"). */
int ofl_link_select(struct ofl_link *l, struct ofl_error *err);
/* Whether --offload-extract (LLVM's --should-extract) names arch. */
bool ofl_link_extract_asked(const struct ofl_link *l, const char *arch);
/* The k-th image of group gi when its device code is taken there, else
 * NULL. */
const struct link_image *ofl_group_image(const struct ofl_link *l, size_t gi, size_t k);

/* group.c: images in groups by the rules of the LLVM that wrote them
 * (again after the device runtime added images: made anew, nothing hangs
 * off them yet); each taken group's image count, LLVM release and runtime
 * dir, once members are chosen. */
int ofl_group_images(struct ofl_link *l, struct ofl_error *err);
void ofl_group_count_taken(struct ofl_link *l);
/* The name of an ABI, for messages. */
const char *ofl_abi_name(enum ofl_wrap_abi abi);
/* The ABI of kind's taken host objects' entry tables; with none, the one
 * of LLVM release llvm, which made the device code. */
enum ofl_wrap_abi ofl_group_abi(const struct ofl_link *l, enum ofl_wrap_kind kind, unsigned llvm);
/* OFL_EINVAL, naming one object of each, when the taken objects' entry
 * tables ask for different registrations of one kind. */
int ofl_group_check_abis(const struct ofl_link *l, struct ofl_error *err);
/* The taken groups of a kind (HIP: old driver's or not) in the order the
 * linker wrapper bundles them (triple, then arch, descending), into
 * order; how many. */
size_t ofl_group_kind_order(struct ofl_link *l, enum ofl_wrap_kind kind, bool legacy_hip,
                            size_t *order);
/* OFL_EUNSUPPORTED when the taken SYCL device code is not what LLVM links
 * and registers: of more than one group, at a target with code of another
 * kind (LLVM's error), in a relocatable link that runs. */
int ofl_group_check_sycl(const struct ofl_link *l, struct ofl_error *err);
/* The SYCL registration of group g: LLVM 22's descriptors (true), or, for
 * code of LLVM 23 or the personality acting as 23, 23's one blob. */
bool ofl_group_sycl_desc(const struct ofl_link *l, const struct link_group *g);
/* --emit-fatbin-only: the one kind whose bundle is the output
 * (l->fatbin_kind), or LLVM's error when there is not one (which LLVM
 * gives after the device links, so the plan's run does too). */
int ofl_group_fatbin(struct ofl_link *l, struct ofl_error *err);
/* The runtime libraries the host link gets (l->runtime_libs, _dirs):
 * OpenMP's libomptarget and libomp, from the directory of the LLVM that
 * made the device code, unless the host line names them or is a -r link;
 * also for images a relocatable link or offlink wrap registered. */
int ofl_group_runtime_libs(struct ofl_link *l, struct ofl_error *err);

/* actions.c: the device actions and the files they read. */
/* A new action of group gi (an LTO step: lto) taking over cmd (left
 * empty); NULL when out of memory (cmd then stays the caller's). */
struct link_action *ofl_devlink_new_action(struct ofl_link *l, size_t gi, bool lto,
                                           struct ofl_proc *cmd, struct ofl_error *err);
/* The bytes of a file of group gi's commands, to write before they run
 * (owned: freed with the group; kept to the link's end, as keys read
 * them unlocked). */
int ofl_devlink_defer(struct ofl_link *l, size_t gi, const char *path, const uint8_t *data,
                      size_t size, uint8_t *owned, struct ofl_error *err);
/* The pending write of path among group g's, written or not, looked for
 * from *next on (they come in the command's order), or NULL. */
struct pending_write *ofl_devlink_pending(const struct link_group *g, const char *path,
                                          size_t *next);
/* The path of the file of group gi's commands that holds the image's
 * bytes, named by their hash (the link's; NULL on error).  Written when a
 * command of the group runs, not before. */
char *ofl_devlink_input(struct ofl_link *l, size_t gi, const struct link_image *im, uint64_t *hash,
                        struct ofl_error *err);
/* The optimisation level of LLVM 19's device LTO and link: '0' to '3'. */
char ofl_devlink_opt_level(const struct ofl_link *l);
/* Takes back the plan's last action (a partitioned link that turned out
 * not to be one, partition.c): freed, its group's count one less. */
void ofl_devlink_drop_last(struct ofl_link *l);

/* devrt.c: LLVM's OpenMP device runtime for GPU device links. */
/* LLVM 19's libomptarget.devicertl.a added as an input for the groups
 * that need it (before members are chosen; group the images again). */
int ofl_devrt_gather(struct ofl_link *l, struct ofl_error *err);
/* Group g's runtime arguments (LLVM 20+), or the error naming the runtime
 * that is missing and where it was looked for. */
int ofl_devrt_push(struct ofl_link *l, struct link_group *g, const char *clang,
                   struct ofl_proc *cmd, struct ofl_error *err);

/* lto19.c: LLVM 19's LTO of group gi's bitcode (llvm-lto2 beside
 * clang), planned as an action, its output and the group's other images pushed as the
 * device link's inputs; 1 (nothing done) when the group has no bitcode;
 * OFL_DEVLINK_EMBEDDED when, with embed_bitcode, the optimised module is
 * the group's image (in g->linked) and no device link follows. */
#define OFL_DEVLINK_EMBEDDED 2
int ofl_devlink_lto19(struct ofl_link *l, size_t gi, const char *clang, struct ofl_proc *link,
                      uint64_t *h, struct ofl_error *err);

/* partition.c: device code generation in partitions (docs/design.md,
 * "Partitions"). */
/* Group gi's partition count (g->parts, g->parts_why), from the options
 * and the size of its device bitcode; logged. */
void ofl_partition_count(struct ofl_link *l, size_t gi, const char *clang);
/* After lto, group gi's action that writes the optimised module before
 * code generation (its jobs known: ofl_expand ran), the actions that
 * split it, generate each partition's code (and assemble its PTX), their
 * objects into g->part_objs for the device link; 1 when lto's words hold
 * an option offlink does not map to code generation (nothing added,
 * g->parts 1 and why). */
int ofl_partition_plan(struct ofl_link *l, size_t gi, struct link_action *lto, const char *clang,
                       struct ofl_error *err);
/* <link dir>/<stem><suffix>, the stem group gi's (kind, triple, target
 * ID): a name of its partitions' files, the same in every link. */
char *ofl_partition_name(struct ofl_link *l, size_t gi, const char *suffix, struct ofl_error *err);
/* The device link after the partitions waits for each of their objects. */
int ofl_partition_deps(struct ofl_link *l, struct link_action *link, struct ofl_error *err);

/* expand.c: what action a runs: the jobs clang's driver says it would run
 * for a->cmd (`clang -###`, whose answer the cache's directory keeps), so
 * that the device link runs them and the key knows every word; cmd itself
 * otherwise, and why not (a->uncached).  OFL_ENOMEM only. */
int ofl_expand(struct ofl_link *l, struct link_action *a, struct ofl_error *err);

/* declare.c: whether the launcher runs the device tools in another file
 * system (a container's): what they read is not what the plan sees. */
bool ofl_launcher_elsewhere(const struct ofl_link *l);
/* declare.c: action a's whole environment (a->env): the variables of the
 * link's device environment the device tools read, TMPDIR the link's
 * directory, LC_ALL=C; a launcher's own variables. */
int ofl_action_env(struct ofl_link *l, struct link_action *a, struct ofl_error *err);
/* declare.c: action a's environment and every file its jobs may read (its
 * tools and what they load, its inputs, the libraries it searches, the
 * scripts and response files it reads), or why it cannot be told
 * (a->uncached: a word the plan does not model, a side output, a file that
 * is no regular one).  Logs the key's files (--explain). */
int ofl_declare(struct ofl_link *l, struct link_action *a, struct ofl_error *err);

/* devcmd.c: the device actions of every group with images taken
 * (their commands, outputs and inputs to write), after members are
 * chosen; the CUDA toolkit NVPTX links get. */
int ofl_devlink_plan(struct ofl_link *l, struct ofl_error *err);

/* llvm_form.c: clang-linker-wrapper 22's names and commands, for the
 * personality's dry run. */
struct ofl_fatbin_image;
struct ofl_hipfb_options;
/* A dry run of the personality: commands logged in LLVM's form
 * (ofl_link_llvm_form). */
bool ofl_llvm_form(const struct ofl_link *l);
/* Appends a host link argument as LLVM's option table prints it: separate
 * words for the options it knows (-o, -L, -l, -r, --rpath in their joined
 * forms), the others as they were given. */
int ofl_llvm_push_arg(const struct ofl_ldarg *a, struct ofl_argv *v, struct ofl_error *err);
/* <link dir>/<prefix>-XXXXXX.<ext>, owned by the link. */
char *ofl_llvm_temp(struct ofl_link *l, const char *prefix, const char *ext, struct ofl_error *err);
/* Group g's output <out>.<arch of triple>.<arch>-XXXXXX.img (the link's;
 * the digits from h, the hash naming the group's work, and its offload
 * kind) and its -dumpdir <-o value>.<arch of triple>.<arch>.img. (owned). */
int ofl_llvm_image_names(struct ofl_link *l, const struct link_group *g, uint64_t h, char **img,
                         char **dumpdir, struct ofl_error *err);
/* An image as a device link input: <stem>-<triple>-<arch>-XXXXXX.o. */
char *ofl_llvm_input_name(struct ofl_link *l, const struct link_image *im, struct ofl_error *err);
/* The fat binary <out>-XXXXXX.<ext>; the wrapper <out>.<kind>.image.wrapper-XXXXXX.o. */
char *ofl_llvm_bundle_name(struct ofl_link *l, const char *ext, struct ofl_error *err);
char *ofl_llvm_wrapper_name(struct ofl_link *l, const char *kind, struct ofl_error *err);
/* Logs the clang-offload-bundler (hip) or fatbinary command LLVM runs to
 * bundle the images fi (their paths) of release llvm; the bundle's name
 * is kept in l->llvm_bundle. */
int ofl_llvm_log_fatbin(struct ofl_link *l, bool hip, const struct ofl_fatbin_image *fi, size_t n,
                        const struct ofl_hipfb_options *o, unsigned llvm, struct ofl_error *err);
/* A verbose dry run of the personality acting as LLVM 23 (it prints the
 * steps 23 runs as tools). */
bool ofl_llvm_steps(const struct ofl_link *l);
/* 23's first step: per input with taken images, the llvm-offload-binary
 * command that writes them to the device links' input names. */
int ofl_llvm_log_extract(struct ofl_link *l, struct ofl_error *err);
/* 23's last steps for kind's wrapper object `object` (the n groups in
 * order): OpenMP images packed by llvm-offload-binary, llvm-offload-wrapper
 * over them (or over the fat binary, l->llvm_bundle; SYCL: its one linked
 * image), clang compiling its bitcode into object. */
int ofl_llvm_log_wrap(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order, size_t n,
                      const char *object, struct ofl_error *err);

#endif
