/* OpenMP without a target region: data directives only.  Compiled for a
 * GPU, the object still carries a device image, which has no entry table
 * to tell the LLVM release that made it. */
void move(int *a, int n)
{
#pragma omp target enter data map(to : a[0 : n])
#pragma omp target update from(a[0 : n])
#pragma omp target exit data map(release : a[0 : n])
}
