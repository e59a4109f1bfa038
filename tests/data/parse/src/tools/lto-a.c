long lto_twice(int x);

int main(void)
{
	return (int)lto_twice(2);
}
