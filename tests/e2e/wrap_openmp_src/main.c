/* First translation unit: a kernel of its own using the other unit's
 * declare-target global, and calls into the other unit and a library. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
extern int scale;
int counter = 2;
#pragma omp end declare target

int vec_scale(int *v, int n);
double table_sum(void);
void set_scale(int s);
#ifdef WITH_LIB
int lib_compute(int x);
#endif

int main(void)
{
	int v[5] = {1, 2, 3, 4, 5};
	printf("on device: %d\n", vec_scale(v, 5));
	printf("v: %d %d %d %d %d\n", v[0], v[1], v[2], v[3], v[4]);
	printf("sum: %.1f\n", table_sum());
	set_scale(10);
	int r = 0;
#pragma omp target map(from : r)
	{
		counter += 5;
		r = scale + counter + (omp_is_initial_device() ? 1000 : 0);
	}
#pragma omp target update from(counter)
	printf("main kernel: %d counter: %d\n", r, counter);
#ifdef WITH_LIB
	printf("lib: %d\n", lib_compute(21));
#endif
	return 0;
}
