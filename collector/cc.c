// SPDX-License-Identifier: MIT
/* placeholder until the launcher lands */
int main(void);
int main(void)
{
	return 0;
}
