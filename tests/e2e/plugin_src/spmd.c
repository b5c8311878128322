/* A kernel LLVM's OpenMP optimizations turn SPMD at -O2: its device code
 * then calls runtime functions (__kmpc_get_hardware_thread_id_in_block,
 * __kmpc_barrier_simple_spmd) only the device runtime defines. */
void fill(int *a, int n)
{
#pragma omp target teams distribute parallel for map(from : a[0 : n])
	for (int i = 0; i < n; i++)
		a[i] = i;
#pragma omp target parallel map(tofrom : a[0 : 1])
	{
#pragma omp barrier
		a[0] = 0;
	}
}
