/* cxx_work.cpp - annotated C++ sample: scopes that close themselves.
 *
 * Usage: cxx_work [N]      (default 64: an N x N grid)
 *
 * HPC_FUNCTION() names a region after the function; HPC_SCOPE("...") ends
 * its region when the block is left, also when an exception leaves it:
 * relax() gives up by throwing once the grid has converged, and the
 * "sweep" region of that last sweep is still closed.  The program prints
 * the number of sweeps and the grid's centre value, the same with and
 * without the shim.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "annotate/hpcshim.hpp"

struct converged : std::runtime_error {
	converged() : std::runtime_error("converged") {}
};

/* One Jacobi sweep of the Laplace equation; throws when nothing moved. */
static void sweep(std::vector<double> &g, std::vector<double> &tmp, int n)
{
	HPC_SCOPE("sweep");
	double change = 0;

	for (int i = 1; i < n - 1; i++)
		for (int j = 1; j < n - 1; j++) {
			double v = 0.25 * (g[(i - 1) * n + j] + g[(i + 1) * n + j] +
					   g[i * n + j - 1] + g[i * n + j + 1]);
			change = std::fmax(change, std::fabs(v - g[i * n + j]));
			tmp[i * n + j] = v;
		}
	g.swap(tmp);
	if (change < 1e-7)
		throw converged();
}

static int relax(int n)
{
	HPC_FUNCTION();
	std::vector<double> g, tmp;
	int sweeps = 0;

	{
		HPC_SCOPE("init");
		g.assign((size_t)n * n, 0.0);
		for (int j = 0; j < n; j++)
			g[j] = 1.0; /* hot top edge */
		tmp = g;
	}
	try {
		for (;;) {
			sweeps++;
			sweep(g, tmp, n);
		}
	} catch (const converged &) {
	}
	std::printf("sweeps %d centre %.6f\n", sweeps, g[(n / 2) * n + n / 2]);
	return sweeps;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 64;

	HPC_THREAD_NAME("cxx-main");
	return relax(n < 3 ? 3 : n) > 0 ? 0 : 1;
}
