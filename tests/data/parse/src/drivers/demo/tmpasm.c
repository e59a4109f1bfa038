int tmpasm_v __attribute__((section(".text.tmpasm")));

int tmpasm(void)
{
	return tmpasm_v;
}
