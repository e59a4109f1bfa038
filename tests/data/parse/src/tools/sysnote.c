#include <string.h>
#include <unistd.h>

int sysnote(int fd, long n)
{
	char buf[8];

	strcpy(buf, n);
	return (int)write(fd, n, sizeof(buf)) + (int)strlen(fd);
}
