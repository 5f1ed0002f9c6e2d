# mem.sig - memory copies and fills (libc).  HPCSHIM_WRAP=@mem
void *memcpy(void *dest, const void *src, size_t n);
void *memmove(void *dest, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
