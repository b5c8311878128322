/* -O3 -foffload-lto: a SPMD loop and a generic region, linked with
 * LLVM 19's libomptarget.devicertl.a on the line as LLVM's own tests do. */
#include <stdio.h>
#define N 4096
int main(void)
{
	long v[N], sum = 0;
#pragma omp target teams distribute parallel for map(from : v)
	for (int i = 0; i < N; i++)
		v[i] = (long)i * i;
#pragma omp target map(tofrom : sum) map(to : v)
	{
#pragma omp parallel for reduction(+ : sum)
		for (int i = 0; i < N; i++)
			sum += v[i] % 7;
	}
	printf("lto %ld\n", sum);
	return 0;
}
