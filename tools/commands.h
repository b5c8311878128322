/* Entry points of the subcommands and LLVM personalities.  Each returns the
 * process exit status. */
#ifndef OFL_COMMANDS_H
#define OFL_COMMANDS_H

#include <stdio.h>

/* cmd_bundle.c: offlink bundle|unbundle|list and clang-offload-bundler */
int cmd_bundle(int argc, char **argv);
int cmd_unbundle(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_llvm_bundler(int argc, char **argv);

/* cmd_package.c: offlink package and clang-offload-packager/llvm-offload-binary */
int cmd_package(int argc, char **argv);
int cmd_llvm_packager(int argc, char **argv);

/* cmd_inspect.c: offlink inspect and llvm-objdump --offloading */
int cmd_inspect(int argc, char **argv);
int cmd_llvm_objdump(int argc, char **argv);

/* cmd_wrap.c: offlink wrap, clang-offload-wrapper, llvm-offload-wrapper */
int cmd_wrap(int argc, char **argv);
int cmd_clang_offload_wrapper(int argc, char **argv);
int cmd_llvm_offload_wrapper(int argc, char **argv);

/* ld_offlink.c: ld.offlink and offlink link */
int cmd_ld_offlink(int argc, char **argv);

/* cmd_ldflags.c: offlink --ldflags */
int cmd_ldflags(int argc, char **argv);
/* Where this offlink is: bin, its program's folder, and prefix, the one
 * above (PATH_MAX bytes each; a build tree has the installed layout).
 * Prints the error; non-zero on one. */
int offlink_home(char *bin, char *prefix);
/* The clang flags of offlink --ldflags, sep between them, a newline after. */
void print_clang_flags(FILE *f, const char *bin, const char *prefix, const char *sep);

/* cmd_config.c: offlink --config-file, enable, disable, status */
int cmd_config_file(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_status(int argc, char **argv);
/* ld.offlink --explain's line on where clang's link flags came from: the
 * config files the driver that runs us read. */
void explain_flag_origin(FILE *f);

/* cmd_cache.c: offlink cache stats|clear|trim */
int cmd_cache(int argc, char **argv);

/* cmd_linker_wrapper.c: the clang-linker-wrapper personality */
int cmd_clang_linker_wrapper(int argc, char **argv);

#endif
