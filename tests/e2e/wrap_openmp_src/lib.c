/* A shared library with its own device image and entry table. */
#include <omp.h>

#pragma omp declare target
int lib_base = 100;
#pragma omp end declare target

int lib_compute(int x)
{
	int r = 0;
#pragma omp target map(from : r) map(to : x)
	r = lib_base + 2 * x + (omp_is_initial_device() ? 1000 : 0);
	return r;
}
