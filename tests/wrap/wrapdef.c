/* wrapdef.c - the definition of wn_hit, in a library of its own that
 * wrapmany.c dlopens (RTLD_GLOBAL) after one of its callers and before
 * the others (tests/shim/test_wrap.py). */
int wn_hit(int k);

int wn_hit(int k)
{
	return 2 * k + 1;
}
