// `lint --findings-out FILE`: every finding (none capped) as a table to send back to a contributor,
// one line per finding, written as the findings come: TSV, CSV or JSON Lines, by the file's extension.
// Columns: line, rule, severity, scope, message, fix.
#pragma once
#include "core/lint/LintTypes.h"

#include <ostream>
#include <string>

namespace maskscope {

enum class FindingsFormat { Tsv, Csv, Jsonl };

// By extension (.tsv, .csv, .jsonl); throws Error naming the file for anything else.
FindingsFormat findingsFormatOf(const std::string& path);

class FindingsTableWriter {
public:
  // Writes the header line (TSV, CSV).
  FindingsTableWriter(std::ostream& out, FindingsFormat format);
  void write(const Finding& f);
  long written() const { return written_; }

private:
  std::ostream& out_;
  FindingsFormat format_;
  long written_ = 0;
};

} // namespace maskscope
