void owner_take(int *p);

#define OWNER_SHIFT(x) ((x) << 40)

static inline int owner_shift(int s)
{
	return s << 40;
}
