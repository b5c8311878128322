/* Fuzzes the host-object reader behind `offlink wrap --for`, and writes a
 * wrapper object, IR and C for the input as an image (every flavour must
 * accept any bytes); LLVM 22's SYCL registration reads the input as
 * clang-sycl-linker's OffloadBinaries and their kernels' names (seed:
 * sycl22.obin, three kernels), and may refuse it, with a reason. */
#include <stdint.h>
#include <stdlib.h>

#include "offlink/wrapper_obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_wrap_needs n = {0, 0};
	if (ofl_wrap_needs_of_object(data, size, &n, &err) && err.code != OFL_EFORMAT)
		abort();
	if (size > 4096)
		return 0;
	struct ofl_wrap_image img = {data, size, 0, size, "gfx90a", NULL};
	struct ofl_wrap_opts opts = {(enum ofl_wrap_kind)(size % 3), (enum ofl_wrap_abi)(size % 4),
	                             (enum ofl_wrap_machine)(size % 2), false, false};
	struct ofl_wrap_opts sycl22 = {OFL_WRAP_SYCL, OFL_WRAP_LLVM20,
	                               (enum ofl_wrap_machine)(size % 2), false, true};
	if (opts.kind != OFL_WRAP_OPENMP && opts.abi < OFL_WRAP_LLVM19)
		opts.abi = OFL_WRAP_LLVM19;
	struct ofl_buf out = OFL_BUF_INIT;
	ofl_error_clear(&err);
	static const char *const path[] = {"/x/y.img"};
	if (ofl_wrap_write_buf(&out, &opts, &img, 1, &err) ||
	    ofl_wrap_emit_ll(&out, &opts, "x86_64-pc-linux-gnu", &img, 1, &err) ||
	    ofl_wrap_emit_c(&out, &opts, &img, path, 1, &err))
		abort();
	ofl_error_clear(&err);
	if (ofl_wrap_write_buf(&out, &sycl22, &img, 1, &err) && !err.code)
		abort();
	ofl_error_clear(&err);
	if (ofl_wrap_emit_ll(&out, &sycl22, "x86_64-pc-linux-gnu", &img, 1, &err) && !err.code)
		abort();
	ofl_buf_release(&out);
	return 0;
}
