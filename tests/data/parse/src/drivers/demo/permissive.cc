int demo_perm(int *p)
{
	long l = p;
	return (int)l;
}
