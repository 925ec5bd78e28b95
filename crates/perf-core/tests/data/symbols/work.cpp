// SPDX-License-Identifier: GPL-2.0-only
// A C++ workload for the symbol tests: namespaces, templates, a lambda,
// a virtual call, std::function, operator overloads and const methods,
// so perf shows demangled names of each kind.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace work {

struct Shape {
	virtual ~Shape() = default;
	virtual double area(int n) const = 0;
};

struct Square : Shape {
	double side;
	explicit Square(double s) : side(s) {}
	__attribute__((noinline)) double area(int n) const override
	{
		double a = 0;
		for (int i = 0; i < n; i++)
			a += side * side / (i + 1);
		return a;
	}
};

template <typename T, int N>
struct Acc {
	T total{};
	__attribute__((noinline)) T operator()(T x)
	{
		for (int i = 0; i < N; i++)
			total += x * i % 7;
		return total;
	}
};

__attribute__((noinline)) long count_words(const std::vector<std::string> &v)
{
	std::map<std::string, long> m;
	for (const auto &s : v)
		m[s]++;
	return (long)m.size();
}

} // namespace work

int main(int argc, char **)
{
	work::Square sq(argc + 1.5);
	const work::Shape &shape = sq;
	work::Acc<long, 3000> acc;
	std::vector<std::string> words;
	for (int i = 0; i < 5000; i++)
		words.push_back("w" + std::to_string(i % 977));
	std::function<long(long)> f = [&acc](long x) { return acc(x); };
	double t = 0;
	for (int r = 0; r < 200; r++) {
		t += shape.area(200000);
		t += (double)f(r);
		t += (double)work::count_words(words);
	}
	std::printf("%f\n", t);
	return 0;
}
