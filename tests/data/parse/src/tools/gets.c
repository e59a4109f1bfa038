char *gets(char *s);
int main(void)
{
	char b[8];
	gets(b);
	return b[0];
}
