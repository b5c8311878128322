/* Placeholder until this command's issue lands; replaced wholesale. */
#include "commands.h"
#include "diag.h"

int cmd_inspect(int argc, char **argv)
{
	return error("inspect is not implemented yet");
}

