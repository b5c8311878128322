#pragma omp declare target
int lib_square(int x) { return x * x; }
#pragma omp end declare target
