// SPDX-License-Identifier: MIT
// two switches of one function, each falling into its "default:"
int two(int a, int b)
{
	int r = 0;

	switch (a) {
	case 1:
		r = 1;
	default:
		r++;
	}
	switch (b) {
	case 2:
		r = 2;
	default:
		r--;
	}
	return r;
}
