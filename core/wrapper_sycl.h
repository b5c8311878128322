/* Private to libofflink: LLVM 22's SYCL registration (#147508) as data,
 * for the object writer (wrapper_obj.c) and the IR module (wrapper_ir.c):
 * the images of the OffloadBinaries clang-sycl-linker wrote, back to back,
 * their kernels (the lines of each image's "symbols" string), and the
 * names LLVM 22's wrapper module gives their globals, made unique as LLVM
 * makes a global's name unique (".<n>", n counting every renaming in the
 * module). */
#ifndef OFL_WRAPPER_SYCL_H
#define OFL_WRAPPER_SYCL_H

#ifndef OFL_BUILDING_CORE
#error "wrapper_sycl.h is private to libofflink"
#endif

#include "offlink/offload_binary.h"
#include "offlink/wrapper_obj.h"

/* A kernel: its name (NUL-terminated, in ofl_sycl_desc.names) and the suffixes
 * (0: none) of its globals .offloading.entry_name and
 * .offloading.entry.<name>. */
struct ofl_sycl_kernel {
	const char *name;
	size_t len;
	unsigned name_sfx, entry_sfx;
};

/* An image: its entry of a binary, its kernels (ofl_sycl_desc.kernels
 * [first, first + n)) and the suffix of its .sycl_offloading.entries_arr. */
struct ofl_sycl_image {
	const struct ofl_obin *b;
	size_t first, n;
	unsigned arr_sfx;
};

struct ofl_sycl_desc {
	struct ofl_obin_set *sets;
	size_t nsets;
	struct ofl_sycl_image *images;
	size_t nimages;
	struct ofl_sycl_kernel *kernels;
	size_t nkernels;
	char *names; /* the kernels' */
};

/* ".<n>" for a suffix n, "" for none, in buf. */
const char *ofl_sycl_suffix(unsigned n, char buf[16]);

/* Reads img (one input: OffloadBinaries from its first byte to its last,
 * uncompressed; 1 to 65535 images); the images are views into img's
 * bytes. */
int ofl_sycl_desc_read(const struct ofl_wrap_image *img, struct ofl_sycl_desc *d,
                       struct ofl_error *err);
void ofl_sycl_desc_release(struct ofl_sycl_desc *d);

#endif
