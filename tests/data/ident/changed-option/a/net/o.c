int f(void);
int f(void)
{
	int x;

	return 0;
}
