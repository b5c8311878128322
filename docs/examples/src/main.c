/* Host code: calls the kernels of kern.c and prints one checkable line. */
#include <stdio.h>

void vec_add(int n, const int *a, const int *b, int *c);
int runs_on_device(void);

int main(void)
{
	enum { N = 1000 };
	static int a[N], b[N], c[N];
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	vec_add(N, a, b, c);
	long sum = 0;
	for (int i = 0; i < N; i++)
		sum += c[i];
	printf("vec_add: sum %ld on the %s\n", sum, runs_on_device() ? "device" : "host");
	return sum != 1498500;
}
