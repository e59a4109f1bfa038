int lto_twice(int x)
{
	return x * 2;
}
