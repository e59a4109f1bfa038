static inline int pick(int m)
{
	int r = 0;

	switch (m) {
	case 0:
		r = 1;
	case 1:
		r = 2;
		break;
	}
	return r;
}
