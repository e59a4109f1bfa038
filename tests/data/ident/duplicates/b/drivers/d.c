int a, b;
void twice(int m, int n)
{
	switch (m) {
	case 0:
		a = 1;
	case 1:
		a = 2;
		break;
	}
	b = 3;
	switch (n) {
	case 0:
		a = 1;
		break;
	case 1:
		a = 2;
		break;
	}
}
