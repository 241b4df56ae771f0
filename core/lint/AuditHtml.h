// Pieces of the audit report's HTML page: escaping untrusted text, the SVG histograms and the token
// strip of one offending row (pad runs folded). Plain strings, no Qt: the CLI writes the page.
#pragma once
#include "core/lint/AuditReport.h"
#include "core/util/HtmlEscape.h"

#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

// A bar chart as inline SVG: one bar per bin with its count above it and its label below.
std::string histogramSvg(const std::string& title, const std::vector<std::string>& labels,
                         const std::vector<long>& counts);

// One row token by token: a chip per position (the token, its label or -100, the mask value),
// coloured by kind, graded ones outlined, the flagged one marked; runs of 3+ alike pads folded.
std::string tokenStrip(const AuditRow& row);

} // namespace maskscope
