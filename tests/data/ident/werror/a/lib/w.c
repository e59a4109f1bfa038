int mode;
void set_mode(int m)
{
	switch (m) {
	case 0:
		mode = 1;
	case 1:
		mode = 2;
		break;
	}
}
