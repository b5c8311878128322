/* Code generation in partitions (offlink's routes link it with
 * OFFLINK_DEVICE_PARTITIONS=4, -foffload-lto): sixteen target regions and
 * LLVM 19's device runtime spread over the partitions by name, so that
 * kernels call a declare-target function of another partition (and of
 * the other unit), read a global defined there and a string literal (a
 * private global whose name PTX does not take, made global by the
 * split).  The host computes the same and says whether the device
 * agrees. */
#include <stdio.h>
#define N 256
#pragma omp declare target
int mix(int x, int k); /* omp_parts_b.c */
extern int bias[8];    /* omp_parts_b.c */
#pragma omp end declare target
static const int host_bias[8] = {3, 1, 4, 1, 5, 9, 2, 6};
/* kernel n (the definition, then its declaration: each use ends with a ;) */
/* clang-format off */
#define K(n)                                                                   \
	static void k##n(int *v)                                               \
	{                                                                      \
		_Pragma("omp target teams distribute parallel for map(tofrom : v[0 : N])") \
		for (int i = 0; i < N; i++)                                    \
			v[i] = mix(v[i], n) + bias[n % 8] + "partition"[i % 9]; \
	}                                                                      \
	static void k##n(int *v)
/* clang-format on */
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
int main(void)
{
	void (*kernels[])(int *) = {k0, k1, k2,  k3,  k4,  k5,  k6,  k7,
	                            k8, k9, k10, k11, k12, k13, k14, k15};
	int v[N], t = 0, ref = 0;
	for (int i = 0; i < N; i++)
		v[i] = i;
	for (int k = 0; k < 16; k++)
		kernels[k](v);
#pragma omp target teams distribute parallel for reduction(+ : t) map(to : v)
	for (int i = 0; i < N; i++)
		t += v[i];
	for (int i = 0; i < N; i++) {
		int h = i;
		for (int k = 0; k < 16; k++)
			h = mix(h, k) + host_bias[k % 8] + "partition"[i % 9];
		ref += h;
	}
	printf("partitions %d %s\n", t, t == ref ? "ok" : "WRONG");
	return t != ref;
}
