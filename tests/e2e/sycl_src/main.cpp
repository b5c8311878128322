/* The host side of a SYCL program: one kernel here, two in more.cpp. */
#include <cstdio>

#include "kernels.h"

struct KMain;
void more(int *p);

int main()
{
	int x[3] = {0, 0, 0};
	single_task<KMain>([=]() mutable { x[0] = 1; });
	more(x);
	std::printf("main\n");
	return 0;
}
