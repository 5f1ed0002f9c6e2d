// wrapxxlib.cpp - throws through whatever called it.
#include <stdexcept>

extern "C" int wx_throw(int v)
{
	if (v >= 0)
		throw std::runtime_error("thrown");
	return v;
}
