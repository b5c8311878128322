/* bcglobals FILE SECTION PREFIX: what ofl_bitcode_section_globals finds in
 * FILE.  Prints "section MODULE NAME" for each section name and "global
 * MODULE NAME SIZE" for each global in SECTION, whose bytes go to PREFIX<i>;
 * an error is one line on stderr and exit 1. */
#include <stdio.h>
#include <stdlib.h>

#include "offlink/bitcode.h"
#include "offlink/io.h"

static int write_global(const char *prefix, size_t i, const struct ofl_bcglobal *g)
{
	char path[4096];
	snprintf(path, sizeof path, "%s%zu", prefix, i);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(g->data, 1, g->size, f) == g->size;
	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct ofl_file in;
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	char msg[2048];
	if (argc != 4) {
		fprintf(stderr, "usage: bcglobals FILE SECTION PREFIX\n");
		return 2;
	}
	if (ofl_file_open(&in, argv[1], &e) ||
	    ofl_bitcode_section_globals(in.data, in.size, argv[2], &g, &e)) {
		ofl_error_format(&e, msg, sizeof msg);
		fprintf(stderr, "bcglobals: %s\n", msg);
		return 1;
	}
	for (size_t i = 0; i < g.nsections; i++)
		printf("section %u %s\n", g.sections[i].module, g.sections[i].name);
	for (size_t i = 0; i < g.n; i++) {
		const struct ofl_bcglobal *o = &g.globals[i];
		printf("global %u %.*s %zu\n", o->module, (int)o->name_len, o->name, o->size);
		if (write_global(argv[3], i, o))
			return 1;
	}
	ofl_bcglobals_release(&g);
	ofl_file_close(&in);
	return 0;
}
