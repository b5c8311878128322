/* A stub CUDA and HIP runtime that counts registrations: built as
 * libcudart.so and libamdhip64.so, it prints at exit how many fat binaries,
 * kernels and variables the program registered, so a device image
 * registered twice shows. */
#include <stdio.h>

static int fatbins, kernels, vars;
static void *handle[4];

#define RUNTIME(P)                                                                                 \
	void **P##RegisterFatBinary(void *w)                                                       \
	{                                                                                          \
		fatbins++;                                                                         \
		return handle;                                                                     \
	}                                                                                          \
	void P##RegisterFatBinaryEnd(void **h)                                                     \
	{                                                                                          \
	}                                                                                          \
	void P##UnregisterFatBinary(void **h)                                                      \
	{                                                                                          \
	}                                                                                          \
	int P##RegisterFunction(void **h, const void *f, const char *n, const char *d, int l,      \
	                        void *a, void *b, void *c, void *e, void *g)                       \
	{                                                                                          \
		kernels++;                                                                         \
		return 0;                                                                          \
	}                                                                                          \
	void P##RegisterVar(void **h, const void *v, const char *n, const char *d, int e,          \
	                    unsigned long s, int c, int g)                                         \
	{                                                                                          \
		vars++;                                                                            \
	}                                                                                          \
	void P##RegisterManagedVar(void **h, void **a, const void *v, const char *n,               \
	                           unsigned long s, unsigned al)                                   \
	{                                                                                          \
		vars++;                                                                            \
	}                                                                                          \
	int P##PopCallConfiguration(void)                                                          \
	{                                                                                          \
		return 0;                                                                          \
	}
RUNTIME(__cuda)
RUNTIME(__hip)

/* what LLVM's HIP wrapper object refers to, for surfaces and textures */
void __hipRegisterSurface(void)
{
}

void __hipRegisterTexture(void)
{
}

int cudaLaunchKernel(void)
{
	return 0;
}

int hipLaunchKernel(void)
{
	return 0;
}

__attribute__((destructor)) static void report(void)
{
	printf("fatbins %d kernels %d vars %d\n", fatbins, kernels, vars);
}
