/* A kernel whose device code differs between -O2 and -O3 (LLVM's O3
 * unrolls more and promotes arguments). */
static int step(const int *v, int i) { return v[i] * 3 + v[(i * 7) % 48] / (i + 1); }
void k3(int *a)
{
#pragma omp target map(tofrom : a[0:48])
	for (int i = 0; i < 48; i++)
		a[i] = step(a, i) + (a[i] > 10 ? a[(i + 5) % 48] : i);
}
