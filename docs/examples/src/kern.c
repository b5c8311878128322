/* Device code: the kernels, compiled with -fopenmp -fopenmp-targets=... */
#include <omp.h>

/* c[i] = a[i] + b[i] on the first target device */
void vec_add(int n, const int *a, const int *b, int *c)
{
#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]) map(from: c[0:n])
	for (int i = 0; i < n; i++)
		c[i] = a[i] + b[i];
}

/* 1 when a target region runs on an offload device, not on the host */
int runs_on_device(void)
{
	int dev = 0;
#pragma omp target map(from: dev)
	dev = !omp_is_initial_device();
	return dev;
}
