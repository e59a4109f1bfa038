// SPDX-License-Identifier: MIT
/*
 * What the report formats read besides report_run_json(): the run's tree
 * and each build's compiler, config and times.
 */
#include <string.h>

#include "db.h"
#include "report-out.h"
#include "util.h"
#include "banned.h"

const char *report_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}
