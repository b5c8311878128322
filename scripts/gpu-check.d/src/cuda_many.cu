// Fifty kernels, each adding its own number.
#include <cstdio>
#define K(n)                                                                                       \
	__global__ void k##n(int *v) { atomicAdd(v, n); }
#define K10(t) K(t##0) K(t##1) K(t##2) K(t##3) K(t##4) K(t##5) K(t##6) K(t##7) K(t##8) K(t##9)
K10(1) K10(2) K10(3) K10(4) K10(5)
#define L(n) k##n<<<1, 1>>>(d);
#define L10(t) L(t##0) L(t##1) L(t##2) L(t##3) L(t##4) L(t##5) L(t##6) L(t##7) L(t##8) L(t##9)
int main()
{
	int *d, h = 0;
	cudaMalloc(&d, sizeof h);
	cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
	L10(1) L10(2) L10(3) L10(4) L10(5)
	cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
	cudaError_t e = cudaDeviceSynchronize();
	std::printf("kernels %d (%s)\n", h, cudaGetErrorName(e));
	return e != cudaSuccess;
}
