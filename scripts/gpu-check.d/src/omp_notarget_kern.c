void kernel_fill(int *p, int n)
{
#pragma omp target teams distribute parallel for
	for (int i = 0; i < n; i++)
		p[i] = 3 * i;
}
