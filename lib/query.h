/* SPDX-License-Identifier: MIT */
#ifndef KWARN_QUERY_H
#define KWARN_QUERY_H

/*
 * Every read that more than one command or endpoint makes, cut by the
 * question it answers, one header each with its contract:
 *
 *   query-commits.h   which commit a reference names, builds, trees,
 *                     boots, the compilers of a group, a run's series
 *   query-runs.h      the runs: rows, facts, status, progress
 *   query-counts.h    counts per point, the burn-down, new at the tip
 *   query-warnings.h  the warnings at a point, one warning, sites
 *   query-sources.h   a fall-through's lines, reproducer and bisect rows
 *   query-history.h   the nightly's comparisons, diffs, identity states
 *   query-triage.h    triage records and annotations
 *
 * The collector's commands and the server's endpoints ask these questions
 * here, so that they get one answer.  A file may include the one header
 * it needs; this one includes them all.
 */

#include "query-commits.h"
#include "query-counts.h"
#include "query-history.h"
#include "query-runs.h"
#include "query-sources.h"
#include "query-triage.h"
#include "query-warnings.h"

#endif /* KWARN_QUERY_H */
