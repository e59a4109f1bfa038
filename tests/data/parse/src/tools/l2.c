int a(int x)
{
	return x * 3;
}

int b(int x)
{
	return x + a(x);
}
