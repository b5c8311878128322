/* A stand-in for libsycl's two entry points (LLVM 23): logs what the
 * wrapper object hands over, so the registration can be compared across
 * wrapper forms and machines. */
#include <stdint.h>
#include <stdio.h>

static const void *registered;
static size_t registered_size;

void __sycl_register_lib(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull; /* FNV-1a of the bytes */
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	printf("register %zu magic %02x%02x%02x%02x fnv %016llx aligned16 %d\n", n, b[0], b[1],
	       b[2], b[3], (unsigned long long)h, (int)((uintptr_t)p % 16 == 0));
	registered = p;
	registered_size = n;
}

void __sycl_unregister_lib(const void *p, size_t n)
{
	printf("unregister %zu same %d\n", n, p == registered && n == registered_size);
	fflush(stdout);
}

/* A program of its own, unless linked into one (OFL_STUB_NO_MAIN) */
#ifndef OFL_STUB_NO_MAIN
int main(void)
{
	printf("main\n");
	return 0;
}
#endif
