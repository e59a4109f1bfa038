int demo_asm(int x)
{
	asm(".warning \"demo assembler warning\"");
	asm(".error \"demo assembler error\"");
	return x;
}
