// The stack every worker thread gets, sized for the recursion caps of the parsers and the template
// engine (kMaxJsonDepth in JsonParse.h, kMaxParseDepth in jinja/Parser.h, Limits::maxCallDepth in
// jinja/Template.h), so that a hostile input meets a cap, never the end of the stack.
#pragma once
#include <cstddef>

namespace maskscope {

// Why 16 MiB: the deepest recursion a hostile input can force is a template at its caps, 200 nested
// macro calls (each call walks the macro body's statements and expressions, up to 100 parse levels
// deep) or a 100-level expression chain; measured worst case about 1.5 MiB (tests/hostile runs the
// corpus with `ulimit -s 2048` on the main thread). JSON is capped at 128 levels (a few KiB of
// stack). Glibc threads otherwise inherit RLIMIT_STACK (often 8 MiB, 2 MiB when unlimited, whatever
// the user set), so the size is explicit. 16 MiB is ten times the measured need and only reserves
// address space: pages are touched only as deep as a render actually goes.
inline constexpr std::size_t kWorkerStackBytes = std::size_t(16) << 20;

} // namespace maskscope
