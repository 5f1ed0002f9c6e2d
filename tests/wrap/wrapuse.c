/* wrapuse.c - one of the libraries wrapmany.c dlopens one by one
 * (tests/shim/test_wrap.py builds it several times).  Not linked to the
 * library defining wn_hit: its call goes through a slot the dynamic
 * linker binds from the global scope, lazily (RTLD_LAZY, a PLT slot) or
 * at load (RTLD_NOW, or -fno-plt: a GLOB_DAT slot). */
int wn_hit(int k);
long wu_run(int n);

long wu_run(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += wn_hit(i);
	return s;
}
