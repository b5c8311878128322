/* A kernel whose device code LLVM 19 links into different images at O2 and
 * O3 (gfx90a, checked: the default level shows). */
static int step(const int *v, int i)
{
	return v[i] * 3 + v[(i * 7) % 48] / (i + 1);
}
void k3(int *a)
{
#pragma omp target map(tofrom : a [0:48])
	for (int i = 0; i < 48; i++)
		a[i] = step(a, i) + (a[i] > 10 ? a[(i + 5) % 48] : i);
}
