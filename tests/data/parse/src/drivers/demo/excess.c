int demo_table[1] = { 1, 2 };

int demo_excess(int cmd)
{
	switch (cmd) {
	case 1:
		cmd++;
	case 2:
		return cmd;
	}
	return 0;
}
