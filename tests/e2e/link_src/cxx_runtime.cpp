#include <cstdio>
#include <stdexcept>
struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};
struct Square : Shape {
	int s;
	explicit Square(int s) : s(s) {}
	int area() const override { return s * s; }
};
#pragma omp declare target
static int checked(int v)
{
	if (v < 0)
		throw std::runtime_error("negative");
	return v;
}
#pragma omp end declare target
int main()
{
	int r = 0, caught = 0;
#pragma omp target map(from : r, caught)
	{
		Shape *p = new Square(3);
		r = p->area();
		delete p;
		try {
			checked(-1);
		} catch (const std::exception &) {
			caught = 1;
		}
	}
	std::printf("area %d caught %d\n", r, caught);
	return 0;
}
