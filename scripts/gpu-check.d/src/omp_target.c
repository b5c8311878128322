/* Target regions: a mapped array, a reduction, a team count. */
#include <omp.h>
#include <stdio.h>
#define N 100000
static double a[N], b[N];
int main(void)
{
	double sum = 0;
	for (int i = 0; i < N; i++)
		a[i] = i, b[i] = 2.0 * i;
#pragma omp target teams distribute parallel for map(to : a, b) reduction(+ : sum)
	for (int i = 0; i < N; i++)
		sum += a[i] + b[i];
	int on_host = 1;
#pragma omp target map(from : on_host)
	on_host = omp_is_initial_device();
	printf("sum %.0f\n", sum);
	printf("ran %s\n", on_host ? "on the host" : "on the device");
	return 0;
}
