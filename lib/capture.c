// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "banned.h"

static const char header[] = "kwarn-cc rc=";

void capture_name(char *out, size_t size, const char *dir, const char *obj,
		  const char *suffix)
{
	size_t n = (size_t)snprintf(out, size, "%s/", dir);

	if (n >= size)
		return;
	if (!strncmp(obj, "./", 2))
		obj += 2;
	for (; *obj && n + 1 < size; obj++)
		out[n++] = *obj == '/' ? '%' : *obj;
	out[n] = '\0';
	if (n + strlen(suffix) + 1 < size)
		memcpy(out + n, suffix, strlen(suffix) + 1);
}

int capture_header(char *out, size_t size, int rc, const char *obj,
		   const char *tool)
{
	if (rc < 0)
		rc = 0;
	return snprintf(out, size, "%s%-4d obj=%s%s%s\n", header,
			rc > 9999 ? 9999 : rc, obj, tool ? " tool=" : "",
			tool ? tool : "");
}

int capture_parse_header(int *rc, char **obj, const char *text)
{
	const char *o, *num = text + sizeof(header) - 1;
	size_t len;
	long v = 0;
	int digits = 0;

	if (strncmp(text, header, sizeof(header) - 1))
		return -1;
	for (; digits < 4 && num[digits] >= '0' && num[digits] <= '9'; digits++)
		v = v * 10 + (num[digits] - '0');
	if (!digits)
		return -1;
	o = strstr(num, " obj=");
	if (!o || o > num + 4)
		return -1;
	o += 5;
	len = strcspn(o, " \n");
	*obj = malloc(len + 1);
	if (!*obj)
		return -1;
	memcpy(*obj, o, len);
	(*obj)[len] = '\0';
	*rc = (int)v;
	return 0;
}

char *capture_parse_tool(const char *text)
{
	size_t line = strcspn(text, "\n"), len;
	const char *t = memmem(text, line, " tool=", 6);
	char *tool;

	if (!t)
		return NULL;
	t += 6;
	len = strcspn(t, " \n");
	tool = malloc(len + 1);
	if (!tool)
		return NULL;
	memcpy(tool, t, len);
	tool[len] = '\0';
	return tool;
}
