/* Entry points of the subcommands and LLVM personalities.  Each returns the
 * process exit status. */
#ifndef OFL_COMMANDS_H
#define OFL_COMMANDS_H

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

/* linkwrap/ld_offlink.c: ld.offlink and offlink link */
int cmd_ld_offlink(int argc, char **argv);

/* cmd_ldflags.c: offlink --ldflags */
int cmd_ldflags(int argc, char **argv);

/* cmd_cache.c: offlink cache stats|clear|trim */
int cmd_cache(int argc, char **argv);

/* cmd_linker_wrapper.c: the clang-linker-wrapper personality */
int cmd_clang_linker_wrapper(int argc, char **argv);

#endif
