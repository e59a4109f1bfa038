int demo_blank(int cmd)
{
	switch (cmd) {
	case 1:
		cmd++;
	case 2:
		return cmd;
	}
	return 0;
}
