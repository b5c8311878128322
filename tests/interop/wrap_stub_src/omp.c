/* OpenMP host code with entries: two kernels and two declare-target
 * globals (no headers, so it compiles for any host). */
#pragma omp declare target
int gv = 1;
double arr[16];
#pragma omp end declare target

void k1(int *p)
{
#pragma omp target map(tofrom : p [0:1])
	p[0] += gv;
}

void k2(void)
{
#pragma omp target
	arr[0] = 1;
}
