#include <stdio.h>

static const int demo_unused_const = 3;

int demo_frame(int i)
{
	volatile char big[512];

	big[i] = 1;
	return big[0];
}

int demo_set(void)
{
	int set;

	set = 1;
	return 0;
}

void demo_fmt(void)
{
	printf("%d\n", "string");
}

int demo_noproto(int x)
{
	return x + 1;
}

int demo_noproto2(int x)
{
	return x + 2;
}
