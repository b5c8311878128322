#include <omp.h>
void kernel_fill(int *p, int n);
void fill_on_device(int *p, int n)
{
#pragma omp target enter data map(alloc : p[0 : n])
	kernel_fill(p, n);
#pragma omp target exit data map(from : p[0 : n])
}
int count_devices(void) { return omp_get_num_devices(); }
