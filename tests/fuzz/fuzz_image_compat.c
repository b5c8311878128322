/* Fuzzes what loaders read in a GPU image (cubin headers and their
 * .note.nv.tkinfo, PTX .target lines) and the load rules over it: fields
 * stay in range, reasons are strings, the verdict for an arch-specific SM
 * never exceeds the plain one's. */
#include <stdlib.h>
#include <string.h>

#include "offlink/image_compat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_gpu_image im;
	ofl_gpu_image_read(data, size, &im);
	if (memchr(im.toolkit, 0, sizeof im.toolkit) == NULL || im.sm > 9999)
		abort();
	if (im.code == OFL_GPU_CUBIN && im.sm > 255)
		abort();
	static const char *const gpus[] = {"sm_90",  "sm_80",         "sm_100",
	                                   "sm_103", "gfx90a:xnack+", "gfx942"};
	static const char *const archs[] = {"sm_90",  "sm_90a",        "sm_100f",
	                                    "gfx90a", "gfx90a:xnack-", NULL};
	static const enum ofl_loader loaders[] = {OFL_LOADER_LLVM, OFL_LOADER_CUDA};
	for (size_t g = 0; g < sizeof gpus / sizeof *gpus; g++)
		for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
			for (size_t ld = 0; ld < 2; ld++)
				for (unsigned rel = 18; rel <= 22; rel += 2) {
					char why[64];
					memset(why, 'x', sizeof why);
					enum ofl_load r =
					    ofl_image_loads(&im, archs[a], loaders[ld], rel,
					                    gpus[g], why, sizeof why);
					if (!memchr(why, 0, sizeof why) || r > OFL_LOAD_JIT)
						abort();
					if (r == OFL_LOAD_YES && im.code == OFL_GPU_CUBIN &&
					    loaders[ld] == OFL_LOADER_LLVM &&
					    ofl_cubin_first_runtime(&im) > rel)
						abort(); /* a header the release cannot read never
						            loads */
					/* "a" code never loads where the plain SM's does not */
					if (a == 1 && r != OFL_LOAD_NO &&
					    ofl_image_loads(&im, "sm_90", loaders[ld], rel, gpus[g],
					                    why, sizeof why) == OFL_LOAD_NO)
						abort();
				}
	return 0;
}
