// Renders a 20-turn conversation with the built-in Llama-3.1 template and reports microseconds per
// render (text only, and with per-message spans), as a ratio to building the same text by hand.
#include "core/template/ChatTemplate.h"

#include <chrono>
#include <cstdio>

using namespace maskscope;

int main() {
  auto t = loadChatTemplate("llama3");
  std::vector<Message> msgs{{"system", "You are a helpful assistant.", nullptr}};
  for (int i = 0; i < 20; ++i) {
    msgs.push_back(
        {"user", "Question number " + std::to_string(i) + ": what is the capital of France, and why?", nullptr});
    msgs.push_back(
        {"assistant", "Answer " + std::to_string(i) + ": Paris. It has been the capital for a long time.", nullptr});
  }
  auto time = [](int n, auto&& f) {
    auto b = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - b).count() / n;
  };
  size_t sink = 0;
  double reference = time(20000, [&] {
    std::string s = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December "
                    "2023\nToday Date: 26 Jul 2024\n\n";
    s += msgs[0].content + "<|eot_id|>";
    for (size_t i = 1; i < msgs.size(); ++i)
      s += "<|start_header_id|>" + msgs[i].role + "<|end_header_id|>\n\n" + msgs[i].content + "<|eot_id|>";
    sink += s.size();
  });
  RenderOptions plain;
  plain.computeMessageSpans = false;
  double render = time(2000, [&] { sink += t->render(msgs, plain).text.size(); });
  RenderOptions spans;
  double withSpans = time(200, [&] { sink += t->render(msgs, spans).text.size(); });
  std::printf("llama3 20-turn render: %.1f us (%.0fx hand-built reference %.2f us); with message spans: %.1f us\n",
              render, render / reference, reference, withSpans);
  std::printf("renders per second: %.0f (text only), %.0f (with spans)   [sink %zu]\n", 1e6 / render, 1e6 / withSpans,
              sink);
  return 0;
}
