// How the replies and user turns of a dump's row are joined, as role recovery read them with the
// template (RoleRecovery.h): the joins the template writes itself (where a new conversation would look
// like the next turn) and the signs that the row is packed. Read by the packing rules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

// A user header at `next` after a closed assistant reply; [gapBegin, next) are the ids between the
// reply's closing token and the header. asTemplate: the template writes exactly those between turns;
// else `seen` and `expected` spell the join found and the template's (a conversation starts at next).
struct ReplyJoin {
  int64_t gapBegin = 0, next = 0;
  bool asTemplate = false;
  std::string seen, expected;
};

struct RowJoins {
  std::vector<ReplyJoin> joins;
  bool opensMidMessage = false;    // a closing token before the first header: cut from a stream of conversations
  bool packed = false;             // the template's signs or separators split the row
  bool templateMarksStart = false; // the template opens a conversation with a prefix (a BOS) it writes nowhere else
};

} // namespace maskscope
