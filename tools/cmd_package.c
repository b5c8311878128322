/* Placeholder until this command's issue lands; replaced wholesale. */
#include "commands.h"
#include "diag.h"

int cmd_package(int argc, char **argv)
{
	return error("package is not implemented yet");
}

int cmd_llvm_packager(int argc, char **argv)
{
	return error("package is not implemented yet");
}

