// __device__ and __constant__ symbols read and written from the host.
#include <cstdio>
__device__ int counter;
__constant__ int coef[4];
__global__ void accumulate()
{
	atomicAdd(&counter, coef[threadIdx.x % 4]);
}
int main()
{
	int c[4] = {1, 10, 100, 1000}, zero = 0, out = 0;
	cudaMemcpyToSymbol(coef, c, sizeof c);
	cudaMemcpyToSymbol(counter, &zero, sizeof zero);
	accumulate<<<2, 64>>>();
	cudaMemcpyFromSymbol(&out, counter, sizeof out);
	cudaError_t e = cudaDeviceSynchronize();
	std::printf("counter %d (%s)\n", out, cudaGetErrorName(e));
	return e != cudaSuccess;
}
