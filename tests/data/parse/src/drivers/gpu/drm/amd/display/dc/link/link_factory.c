int link_create(int type)
{
	switch (type) {
	case 1:
		type++;
	case 2:
		return type;
	}
	return 0;
}
