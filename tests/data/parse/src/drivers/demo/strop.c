void sink(char *p);

static inline __attribute__((__always_inline__)) void fill(char *d,
							   unsigned long n)
{
	__builtin_memset(d, 'x', n);
}

static inline __attribute__((__always_inline__)) void copy_in(char *d,
							      const char *s)
{
	__builtin_memcpy(d, s, 16);
}

void overflow(void)
{
	char *p = __builtin_malloc(4);

	fill(p, 8);
	sink(p);
}

void overread(char *d)
{
	char small[4] = "abc";

	copy_in(d, small);
}

void truncate(char *d)
{
	char buf[8];

	__builtin_strncpy(buf, d, sizeof(buf));
	sink(buf);
}
