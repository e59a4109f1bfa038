void demo_stack(void)
{
	asm volatile("push %rax");
}

int demo_noret(int x)
{
	if (x)
		__builtin_unreachable();
	return x;
}
