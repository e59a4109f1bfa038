int f(void);
int f(void)
{
	int x;

	x = 1;
	return 0;
}
