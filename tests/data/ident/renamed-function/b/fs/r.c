int state;
void new_name(int m)
{
	switch (m) {
	case 0:
		state = 1;
	case 1:
		state = 2;
		break;
	}
}
