// C++ on the device: virtual calls on objects made inside a target region.
#include <cstdio>
struct Shape {
	virtual ~Shape() = default;
	virtual int area() const = 0;
};
struct Square : Shape {
	int s;
	explicit Square(int s) : s(s) {}
	int area() const override { return s * s; }
};
struct Rect : Shape {
	int w, h;
	Rect(int w, int h) : w(w), h(h) {}
	int area() const override { return w * h; }
};
int main()
{
	int total = 0;
#pragma omp target map(tofrom : total)
	{
		Square a(3);
		Rect b(2, 5);
		const Shape *v[2] = {&a, &b};
		for (const Shape *p : v)
			total += p->area();
	}
	std::printf("areas %d\n", total);
	return 0;
}
