/* Second translation unit: declare-target globals and two kernels. */
#include <omp.h>

#pragma omp declare target
int scale = 3;
double table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static int sq(int x)
{
	return x * x;
}
#pragma omp end declare target

/* Returns 1 when the region ran on an offload device, not the host. */
int vec_scale(int *v, int n)
{
	int on_dev = 0;
#pragma omp target map(tofrom : v [0:n]) map(from : on_dev)
	{
		on_dev = !omp_is_initial_device();
		for (int i = 0; i < n; i++)
			v[i] = sq(v[i]) * scale;
	}
	return on_dev;
}

double table_sum(void)
{
	double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
	for (int i = 0; i < 8; i++)
		s += table[i] * scale;
	return s;
}

void set_scale(int s)
{
	scale = s;
#pragma omp target update to(scale)
}
