// Prepared rows: column access and their JSONL form (`collate --stage prepared`).
#include "core/frameworks/PreparedRows.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <algorithm>

namespace maskscope {

bool PreparedRow::has(const std::string& name) const { return find(name) != nullptr; }

const std::vector<int64_t>* PreparedRow::find(const std::string& name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c.values;
  return nullptr;
}

const std::vector<int64_t>& PreparedRow::at(const std::string& name) const {
  if (const auto* v = find(name)) return *v;
  throw Error("internal: prepared row has no column \"" + name + "\"");
}

void PreparedRow::set(const std::string& name, std::vector<int64_t> values, bool scalar, bool boolean) {
  for (auto& c : columns)
    if (c.name == name) {
      c.values = std::move(values);
      c.scalar = scalar;
      c.boolean = boolean;
      return;
    }
  columns.push_back({name, std::move(values), scalar, boolean});
}

void PreparedRow::erase(const std::string& name) {
  columns.erase(std::remove_if(columns.begin(), columns.end(), [&](const PreparedColumn& c) { return c.name == name; }),
                columns.end());
}

OrderedJson PreparedRow::toJson() const {
  OrderedJson j = OrderedJson::object();
  for (const auto& c : columns) {
    if (c.scalar) {
      j[c.name] = c.values.empty() ? OrderedJson(nullptr) : OrderedJson(c.values.front());
      continue;
    }
    OrderedJson list = OrderedJson::array();
    for (int64_t v : c.values) list.push_back(c.boolean ? OrderedJson(v != 0) : OrderedJson(v));
    j[c.name] = std::move(list);
  }
  return j;
}

std::string preparedRowsToJsonl(const std::vector<PreparedRow>& rows) {
  std::string out;
  for (const auto& r : rows) out += escapeLineSeparators(r.toJson().dump()) + "\n";
  return out;
}

} // namespace maskscope
