// Two translation units: the kernel calls a __device__ function of the other.
#include <cstdio>
__device__ int twice(int x);
__global__ void apply(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] = twice(v[i]);
}
int main()
{
	const int n = 1000;
	int h[n], *d, s = 0;
	for (int i = 0; i < n; i++)
		h[i] = i;
	cudaMalloc(&d, sizeof h);
	cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	apply<<<(n + 127) / 128, 128>>>(d, n);
	cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	cudaError_t e = cudaDeviceSynchronize();
	for (int i = 0; i < n; i++)
		s += h[i];
	std::printf("twice %d (%s)\n", s, cudaGetErrorName(e));
	return e != cudaSuccess;
}
