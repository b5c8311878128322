/* Hand-made HIP entries that clang only emits with the HIP headers:
 * surfaces and textures with type, extern and normalized bits, plus entries
 * of other kinds that a HIP registration must skip (LLVM 20 layout) or that
 * sit in another section (LLVM 19).  -DV19 selects the 32-byte layout. */
#include <stdint.h>

int surf_a, tex_b, tex_c, omp_d;
void kernel_e(void)
{
}

#ifdef V19
struct entry {
	void *addr;
	const char *name;
	uint64_t size;
	int32_t flags, data;
};
__attribute__((used, section("hip_offloading_entries"))) static struct entry hip[] = {
    {&surf_a, "surf_a", 4, 2 | 8, 5},
    {&tex_b, "tex_b", 4, 3 | 0x20, 7},
    {&tex_c, "tex_c", 4, 3 | 8, 9},
    {(void *)kernel_e, "kernel_e", 0, 0, 0},
};
__attribute__((used, section("omp_offloading_entries"))) static struct entry omp[] = {
    {&omp_d, "omp_d", 4, 0, 0},
};
#else
struct entry {
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	void *addr;
	const char *name;
	uint64_t size, data;
	void *aux;
};
__attribute__((used, section("llvm_offload_entries"))) static struct entry all[] = {
    {0, 1, 4, 2 | 8, &surf_a, "surf_a", 4, 5, 0},
    {0, 1, 4, 3 | 0x20, &tex_b, "tex_b", 4, 7, 0},
    {0, 1, 4, 3 | 8, &tex_c, "tex_c", 4, 9, 0},
    {0, 1, 1, 0, &omp_d, "omp_d", 4, 0, 0},
    {0, 1, 2, 0, (void *)kernel_e, "kernel_e", 0, 0, 0},
};
#endif
