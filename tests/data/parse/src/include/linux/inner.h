static inline int inner_a(int x)
{
	switch (x) {
	case 0:
		x++;
	case 1:
		return x;
	}
	return 0;
}

static inline int inner_b(int x)
{
	switch (x) {
	case 0:
		x++;
	case 1:
		return x;
	}
	return 0;
}
