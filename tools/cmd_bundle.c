#include "commands.h"
#include "diag.h"
int cmd_bundle(int argc, char **argv)
{
	return error("bundle is not implemented yet");
}
int cmd_unbundle(int argc, char **argv)
{
	return error("bundle is not implemented yet");
}
int cmd_list(int argc, char **argv)
{
	return error("bundle is not implemented yet");
}
int cmd_llvm_bundler(int argc, char **argv)
{
	return error("bundle is not implemented yet");
}
