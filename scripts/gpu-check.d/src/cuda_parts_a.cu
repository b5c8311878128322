// Code generation in partitions (offlink's routes link it with
// OFFLINK_DEVICE_PARTITIONS=4): sixteen kernels and the functions they
// call spread over the partitions by name, so that kernels call a
// function of another partition (and of the other unit), read a device
// global defined there and a string literal (a private global whose name
// PTX does not take, made global by the split).  The host computes the
// same and says whether the device agrees.
#include <cstdio>
__host__ __device__ int mix(int x, int k); // cuda_parts_b.cu
extern __device__ int bias[8];             // cuda_parts_b.cu
static const int host_bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int total;
/* kernel n (the definition, then its declaration: each use ends with a ;) */
#define K(n)                                                                                       \
	__global__ void k##n(int *v, int m)                                                        \
	{                                                                                          \
		int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
		if (i < m)                                                                         \
			v[i] = mix(v[i], n) + bias[n % 8] + "partition"[i % 9];                    \
	}                                                                                          \
	__global__ void k##n(int *v, int m)
K(0);
K(1);
K(2);
K(3);
K(4);
K(5);
K(6);
K(7);
K(8);
K(9);
K(10);
K(11);
K(12);
K(13);
K(14);
K(15);
__global__ void sum(const int *v, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < m)
		atomicAdd(&total, v[i]);
}
int main()
{
	const int n = 256;
	void (*kernels[])(int *, int) = {k0, k1, k2,  k3,  k4,  k5,  k6,  k7,
	                                 k8, k9, k10, k11, k12, k13, k14, k15};
	int h[n], *d, zero = 0, t = 0, ref = 0;
	for (int i = 0; i < n; i++)
		h[i] = i;
	cudaMalloc(&d, sizeof h);
	cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	for (int k = 0; k < 16; k++)
		kernels[k]<<<2, 128>>>(d, n);
	cudaMemcpyToSymbol(total, &zero, sizeof zero);
	sum<<<2, 128>>>(d, n);
	cudaMemcpyFromSymbol(&t, total, sizeof t);
	cudaError_t e = cudaDeviceSynchronize();
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 16; k++)
			h[i] = mix(h[i], k) + host_bias[k % 8] + "partition"[i % 9];
		ref += h[i];
	}
	std::printf("partitions %d %s (%s)\n", t, t == ref ? "ok" : "WRONG", cudaGetErrorName(e));
	return e != cudaSuccess || t != ref;
}
