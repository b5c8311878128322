__device__ int lib_cube(int x) { return x * x * x; }
