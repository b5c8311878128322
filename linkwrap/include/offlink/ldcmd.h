/* A GNU ld / gold / lld command line, parsed without losing anything
 * (docs/design.md, "ld.offlink").
 *
 * Every word of the command line (after @response files are expanded)
 * belongs to exactly one argument, kept in order with its original
 * spelling, so the host linker gets back what it would have got.  Known
 * options come from one table: their id, whether they take a value (joined
 * as -Lfoo / --opt=foo, or in the next word) and whether they change the
 * state inputs are read under (--whole-archive, groups, -Bstatic,
 * --as-needed, --push-state/--pop-state).  Unknown options pass through
 * verbatim as one-word options.  Options of ld.offlink itself (OFL_LD_OWN_*)
 * are recognised here too, so that one table decides what is ours.
 */
#ifndef OFFLINK_LDCMD_H
#define OFFLINK_LDCMD_H

#include <stdbool.h>
#include <stddef.h>

#include "offlink/api.h"
#include "offlink/argv.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_ldarg_kind {
	OFL_LDARG_OPTION,  /* an option, known or not */
	OFL_LDARG_FILE,    /* a positional input file */
	OFL_LDARG_LIBRARY, /* -l NAME / -lNAME / --library=NAME / -l:FILE */
};

/* Known options.  OFL_LD_UNKNOWN: passed through verbatim. */
enum ofl_ldopt {
	OFL_LD_UNKNOWN = 0,
	OFL_LD_OUTPUT,        /* -o, --output */
	OFL_LD_LIBPATH,       /* -L, --library-path */
	OFL_LD_LIBRARY,       /* -l, --library (the arg kind is LIBRARY) */
	OFL_LD_SYSROOT,       /* --sysroot */
	OFL_LD_WHOLE_ARCHIVE, /* --whole-archive, -whole-archive */
	OFL_LD_NO_WHOLE_ARCHIVE,
	OFL_LD_START_GROUP, /* --start-group, -(, */
	OFL_LD_END_GROUP,   /* --end-group, -) */
	OFL_LD_BSTATIC,     /* -Bstatic, -dn, -non_shared, -static */
	OFL_LD_BDYNAMIC,    /* -Bdynamic, -dy, -call_shared */
	OFL_LD_AS_NEEDED,
	OFL_LD_NO_AS_NEEDED,
	OFL_LD_PUSH_STATE,
	OFL_LD_POP_STATE,
	OFL_LD_RELOCATABLE, /* -r, -i, --relocatable, -Ur */
	OFL_LD_SHARED,      /* -shared, --shared, -Bshareable */
	OFL_LD_PIE,         /* -pie, --pie, --pic-executable */
	OFL_LD_NO_PIE,
	OFL_LD_SCRIPT,         /* -T, --script */
	OFL_LD_DEFAULT_SCRIPT, /* -dT, --default-script */
	OFL_LD_PLUGIN,         /* -plugin, --plugin */
	OFL_LD_PLUGIN_OPT,     /* -plugin-opt, --plugin-opt */
	OFL_LD_EMULATION,      /* -m */
	OFL_LD_DYNAMIC_LINKER, /* -dynamic-linker, --dynamic-linker, -I */
	OFL_LD_RPATH,          /* -rpath, --rpath, -R DIR */
	OFL_LD_VERSION,        /* -v, --version, -V */
	OFL_LD_HELP,           /* --help */
	OFL_LD_DEPFILE,        /* --dependency-file FILE: make rules naming the inputs */
	OFL_LD_REPORT,         /* -Map, --why-extract, --print-archive-stats FILE:
	                        * reports that name inputs */
	OFL_LD_UNDEFINED,      /* -u, --undefined, --require-defined, -e, --entry SYM:
	                        * a symbol undefined from the start, which pulls
	                        * members (the entry point too, as ld pulls it) */
	OFL_LD_DEFSYM,         /* --defsym SYM=EXPR: the symbols of EXPR are references */
	OFL_LD_WRAP,           /* --wrap SYM: a reference to SYM is one to __wrap_SYM,
	                        * one to __real_SYM one to SYM */
	OFL_LD_UNDEFINED_GLOB, /* --undefined-glob PATTERN (lld): every symbol matching
	                        * is undefined from the start */
	OFL_LD_OTHER_WITH_ARG, /* a known option whose value we only carry
	                        * (-z, -m, -soname, ...) */
	OFL_LD_OTHER_FLAG,     /* a known option without a value we only carry */
	/* ld.offlink's own options: never given to the host linker */
	OFL_LD_OWN_LINKER,              /* --offlink-linker=bfd|gold|lld|mold|PATH */
	OFL_LD_OWN_DEVICE_COMPILER,     /* --device-compiler=PATH */
	OFL_LD_OWN_DEVICE_LINKER,       /* --device-linker=[<triple>=]ARG */
	OFL_LD_OWN_DEVICE_LAUNCHER,     /* --device-launcher=CMD */
	OFL_LD_OWN_OFFLOAD_EXTRACT,     /* --offload-extract=ARCH */
	OFL_LD_OWN_OFFLOAD_RELOCATABLE, /* --offload-relocatable */
	OFL_LD_OWN_JOBS,                /* -j N, -jN, --jobs=N, --jobs N */
	OFL_LD_OWN_EXPLAIN,             /* --explain, --explain=FILE */
	OFL_LD_OWN_DRY_RUN,             /* --dry-run */
	OFL_LD_OWN_SAVE_TEMPS,          /* --save-temps */
	OFL_LD_OWN_VERBOSE,           /* --offlink-verbose (-v is also shown to the host linker) */
	OFL_LD_OWN_NOGPULIB,          /* --nogpulib: no OpenMP device runtime in GPU links */
	OFL_LD_OWN_NO_DEVICE_CACHE,   /* --no-device-cache */
	OFL_LD_OWN_NO_BYPASS_WARNING, /* --no-bypass-warning */
	OFL_LD_OWN_DEVICE_OPT_LEVEL,  /* --device-opt-level=O<n>: device LTO and link */
	OFL_LD_OWN_TIME_TRACE,        /* --time-trace[=FILE], --time-trace-file=FILE */
	OFL_LD_OWN_DEVICE_PARTITIONS, /* --device-partitions=N|auto: device code generation */
};

/* Input state in effect at an argument. */
struct ofl_ldstate {
	bool whole_archive;
	bool static_only; /* -Bstatic: -l finds only lib<name>.a */
	bool as_needed;
	unsigned group; /* 0: not in a group; else the group's number, from 1 */
};

struct ofl_ldarg {
	enum ofl_ldarg_kind kind;
	enum ofl_ldopt opt; /* OFL_LD_UNKNOWN for files and unknown options */
	/* The words this argument was given as (one, or two for a separate
	 * value), exactly as after @file expansion.  Owned. */
	char *word[2];
	unsigned nwords;
	/* FILE: the path; LIBRARY: the name ("m", or ":libm.a" for -l:);
	 * an option with a value: the value (joined or separate); else NULL.
	 * Points into word[]. */
	const char *value;
	struct ofl_ldstate state; /* for FILE, LIBRARY and OFL_LD_SCRIPT */
};

struct ofl_ldcmd {
	struct ofl_ldarg *args;
	size_t nargs, cap;
	/* Summary of the whole line (the last occurrence wins where it
	 * would for ld).  Pointers into args. */
	const char *output;  /* -o; NULL: the linker's default a.out */
	const char *sysroot; /* --sysroot; NULL: none */
	bool relocatable, shared, pie, no_pie, static_link, version_only;
	unsigned ngroups;
};

#define OFL_LDCMD_INIT                                                                             \
	{                                                                                          \
		NULL, 0, 0, NULL, NULL, false, false, false, false, false, false, 0                \
	}

/* The command line's dialect. */
enum ofl_ldcmd_style {
	OFL_LDCMD_GNU,      /* GNU ld, gold, lld, mold */
	OFL_LDCMD_LINK_EXE, /* link.exe and lld-link: -out:, -libpath:, -wholearchive:
	                     * (also with '/'), every other -x or /x an option
	                     * passed through; no -l */
};

/* Parses argv[0..argc) (the words after the program name) in style.  @FILE words
 * are replaced by the words in FILE (shell-like quoting with ' " and \, as
 * GNU ld reads them), recursively up to a depth of 64, each file read
 * through rsp (NULL: a memo of its own; offlink/argv.h); an @FILE that
 * cannot be read stays a word as ld keeps it.  Errors: an option missing
 * its value, --end-group without --start-group, --pop-state without a
 * --push-state, a response file nested too deep (OFL_EINVAL, naming the
 * word); out of memory. */
int ofl_ldcmd_parse(struct ofl_ldcmd *c, enum ofl_ldcmd_style style, int argc, char *const *argv,
                    struct ofl_rsp_memo *rsp, struct ofl_error *err);

/* Library search dirs in effect for an -l argument: every -L before or after
 * it (ld collects all -L first), in command-line order, with a leading '='
 * or "$SYSROOT" replaced by the sysroot, followed by the defaults the caller
 * gives (the host linker's built-in dirs).  Looks for lib<name>.so then
 * lib<name>.a in each dir in turn (only .a under -Bstatic or -static; -l:NAME
 * looks for NAME exactly).  Returns an owned path, or NULL with *err left
 * untouched when nothing matches (the host linker will report it); NULL with
 * OFL_ENOMEM in *err on allocation failure. */
char *ofl_ldcmd_find_library(const struct ofl_ldcmd *c, const struct ofl_ldarg *lib,
                             const char *const *default_dirs, size_t ndefault,
                             struct ofl_error *err);
/* The same in one directory, for the library name of -l<name> (":NAME"
 * for -l:NAME): 1 and the path (owned) in *found, 0 when it is not there,
 * or OFL_ENOMEM. */
int ofl_ldcmd_find_in_dir(const char *dir, const char *name, bool static_only, char **found,
                          struct ofl_error *err);

/* A path as the linker reads it: a FILE that starts with '=' (or $SYSROOT)
 * with the sysroot in front.  Owned; NULL on allocation failure. */
char *ofl_ldcmd_input_path(const struct ofl_ldcmd *c, const struct ofl_ldarg *a);
/* path with a leading '=' or $SYSROOT made the sysroot's, as a file
 * argument's (a linker script's name, a SEARCH_DIR); malloc'ed, NULL when
 * out of memory. */
char *ofl_ldcmd_sysroot_path(const struct ofl_ldcmd *c, const char *path);

/* True for an argument that belongs to ld.offlink, not the host linker. */
bool ofl_ldarg_is_own(const struct ofl_ldarg *a);

/* True for an unknown option that is a mistyped ld.offlink option rather
 * than one for the host linker: its name starts with "offlink-", or is a
 * typo of one of ld.offlink's long options (ofl_nearest; no option of GNU
 * ld, gold, lld or mold is that near one).  *meant is then the name it
 * most likely meant, without dashes, or NULL when none is near. */
bool ofl_ldarg_is_own_typo(const struct ofl_ldarg *a, const char **meant);

/* The number of parallel device links a value of -j (and of the other
 * front ends' jobs options) names: a decimal number from 1 to 4096; 0 for
 * any other value. */
unsigned ofl_ld_jobs(const char *value);

/* The GNU-style linkers, which differ in where they look for what a
 * script names (ofl_ldscript_find) and in what else they read. */
enum ofl_linker {
	OFL_LINKER_BFD, /* GNU ld; the default of a link that names no linker */
	OFL_LINKER_LLD,
	OFL_LINKER_GOLD,
	/* none of these (mold, a program that is no linker): a script's
	 * names looked for as GNU ld does, its SEARCH_DIRs taken where read */
	OFL_LINKER_OTHER,
};

/* Which linker a program is, by the name of the file it runs (its real
 * one: /usr/bin/ld is bfd or gold as the system chose, ld.lld-22 leads to
 * lld): ld.bfd and ld, ld.gold, ld.lld and lld. */
enum ofl_linker ofl_linker_of(const char *base);

/* GNU ld's built-in search directories on Debian for a host triple (ld
 * --verbose's SEARCH_DIR): the multiarch ones, the lib64 ones of a 64-bit
 * host, then the generic ones; appended to dirs. */
int ofl_ld_default_dirs(const char *triple, struct ofl_argv *dirs, struct ofl_error *err);

void ofl_ldcmd_release(struct ofl_ldcmd *c);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
