static int __attribute__((__section__(".init.data")))
demo_init_table[4] = { 1 };

int demo_probe(int i)
{
	return demo_init_table[i];
}
