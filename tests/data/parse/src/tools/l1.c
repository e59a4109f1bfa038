int l1(int x)
{
	return x * 3;
}

int main(void)
{
	return l1(2);
}
