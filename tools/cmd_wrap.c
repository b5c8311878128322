/* Placeholder until this command's issue lands; replaced wholesale. */
#include "commands.h"
#include "diag.h"

int cmd_wrap(int argc, char **argv)
{
	return error("wrap is not implemented yet");
}

int cmd_clang_offload_wrapper(int argc, char **argv)
{
	return error("wrap is not implemented yet");
}

int cmd_llvm_offload_wrapper(int argc, char **argv)
{
	return error("wrap is not implemented yet");
}

