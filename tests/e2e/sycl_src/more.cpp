#include "kernels.h"

struct KA;
struct KB;

void more(int *p)
{
	single_task<KA>([=]() { p[1] = 2; });
	single_task<KB>([=]() { p[2] = 3; });
}
