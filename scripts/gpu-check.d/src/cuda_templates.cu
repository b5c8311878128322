// Template kernels instantiated for three types.
#include <cstdio>
template <typename T> __global__ void axpy(T a, const T *x, T *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += a * x[i];
}
template <typename T> static double run(T a)
{
	const int n = 256;
	T x[n], y[n], *dx, *dy;
	for (int i = 0; i < n; i++)
		x[i] = (T)i, y[i] = (T)1;
	cudaMalloc(&dx, sizeof x);
	cudaMalloc(&dy, sizeof y);
	cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice);
	axpy<T><<<2, 128>>>(a, dx, dy, n);
	cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
	double s = 0;
	for (int i = 0; i < n; i++)
		s += (double)y[i];
	return s;
}
int main()
{
	std::printf("int %.0f float %.1f double %.2f\n", run<int>(2), run<float>(0.5f),
	            run<double>(0.25));
	return cudaDeviceSynchronize() != cudaSuccess;
}
