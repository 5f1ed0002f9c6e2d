/* part7.c - one piece of the project: a known series. */
#include "parts.h"

long part7(long n)
{
	long s = 0;

	for (long j = 0; j < n; j++)
		s += (j * 7) % 11;
	return s;
}
