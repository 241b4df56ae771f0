// The linter's entry points, for callers that use several: lintBatch (BatchLinter.h), lintDataset
// (DatasetLinter.h) and lintPreferenceDataset (PreferenceLinter.h). Rules: see LintRegistry.h.
#pragma once
#include "core/lint/BatchLinter.h"
#include "core/lint/DatasetLinter.h"
#include "core/lint/PreferenceLinter.h"
