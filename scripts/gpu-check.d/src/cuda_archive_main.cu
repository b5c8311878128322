// A __device__ function defined in a static archive, called only from
// device code.
#include <cstdio>
__device__ int lib_cube(int x);
__global__ void cubes(int *v)
{
	v[threadIdx.x] = lib_cube(threadIdx.x + 1);
}
int main()
{
	int h[4], *d;
	cudaMalloc(&d, sizeof h);
	cubes<<<1, 4>>>(d);
	cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	cudaError_t e = cudaDeviceSynchronize();
	std::printf("cubes %d %d %d %d (%s)\n", h[0], h[1], h[2], h[3], cudaGetErrorName(e));
	return e != cudaSuccess;
}
