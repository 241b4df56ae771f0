// {% generation %} byte spans to tokens, as transformers' apply_chat_template(
// return_assistant_tokens_mask=True) maps them with char_to_token: hand-made token offsets, spans
// that start or end inside a token, whitespace edges no token holds, the `if end_token` quirk.
#include "core/collate/ConversationEncoder.h"

#include <QtTest>

using namespace maskscope;

using Span = std::pair<int, int>;
using Offsets = std::vector<std::pair<int64_t, int64_t>>;
Q_DECLARE_METATYPE(Span)
Q_DECLARE_METATYPE(Offsets)

namespace {

// tokens from "begin:end" pairs, e.g. {{0, 2}, {2, 5}}
std::vector<TokenInfo> tokens(std::vector<std::pair<int64_t, int64_t>> spans) {
  std::vector<TokenInfo> out;
  for (auto [b, e] : spans) {
    TokenInfo t;
    t.span = {b, e};
    out.push_back(t);
  }
  return out;
}

} // namespace

class TestSpanMapping : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void covering_data();
  void covering();
  void laterSpansStopAfterAnUnheldStart();
  void multiByteCharacters();
};

void TestSpanMapping::covering_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<Offsets>("offsets");
  QTest::addColumn<int>("begin");
  QTest::addColumn<int>("end");
  QTest::addColumn<Span>("expected");
  using O = Offsets;
  // "Hi there!" tokenized as "Hi" " there" "!" (offsets keep the leading space).
  const QString hi = QStringLiteral("Hi there!");
  const O keep = {{0, 2}, {2, 8}, {8, 9}};
  QTest::newRow("exact-token") << hi << keep << 2 << 8 << Span{1, 2};
  QTest::newRow("several-tokens") << hi << keep << 2 << 9 << Span{1, 3};
  QTest::newRow("starts-inside-a-token") << hi << keep << 4 << 9 << Span{1, 3}; // "here!": " there" holds 'h'
  QTest::newRow("ends-inside-a-token") << hi << keep << 1 << 5 << Span{0, 2};   // "i th": up to " there"
  QTest::newRow("inside-one-token") << hi << keep << 3 << 5 << Span{1, 2};
  QTest::newRow("leading-whitespace-held") << hi << keep << 2 << 3 << Span{1, 2}; // " " belongs to " there"
  // Offsets trimmed as ByteLevel(trim_offsets=True) does: " there" covers only "there" (3..8).
  const O trimmed = {{0, 2}, {3, 8}, {8, 9}};
  QTest::newRow("start-on-unheld-space") << hi << trimmed << 2 << 9 << Span{-1, -1}; // transformers: break
  QTest::newRow("end-on-unheld-space") << hi << trimmed << 1 << 3 << Span{0, 3};     // end None: to the last token
  QTest::newRow("end-in-token-0") << hi << keep << 0 << 2 << Span{0, 3}; // `if end_token` with 0: to the end
  QTest::newRow("past-the-text") << hi << keep << 9 << 12 << Span{-1, -1};
}

void TestSpanMapping::covering() {
  QFETCH(QString, text);
  QFETCH(Offsets, offsets);
  QFETCH(int, begin);
  QFETCH(int, end);
  QFETCH(Span, expected);
  const std::string t = text.toStdString();
  QCOMPARE(tokensCoveringSpan(tokens(offsets), ByteSpan{begin, end}, t), expected);
}

void TestSpanMapping::laterSpansStopAfterAnUnheldStart() {
  // Two generation spans; the first starts on a byte no token holds, so transformers stops there
  // and the second (which maps fine on its own) is never marked.
  const std::string text = "ab cd ef";
  auto toks = tokens({{0, 2}, {3, 5}, {6, 8}});
  QCOMPARE(tokensCoveringSpan(toks, {6, 8}, text), Span(2, 3));
  std::vector<uint8_t> mask = assistantMaskFromSpans(toks, {{2, 5}, {6, 8}}, text);
  QVERIFY(mask == std::vector<uint8_t>({0, 0, 0}));
  mask = assistantMaskFromSpans(toks, {{3, 5}, {6, 8}}, text);
  QVERIFY(mask == std::vector<uint8_t>({0, 1, 1}));
}

void TestSpanMapping::multiByteCharacters() {
  // "xé": é is two bytes (C3 A9), byte-fallback tokens one byte each. transformers counts characters,
  // and both byte tokens sit on the one character é; char_to_token returns the first of them, so a
  // span ending at é stops at the first byte token.
  const std::string text = "x\xC3\xA9y";
  auto toks = tokens({{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  QCOMPARE(tokensCoveringSpan(toks, {1, 3}, text), Span(1, 2));
  QCOMPARE(tokensCoveringSpan(toks, {1, 4}, text), Span(1, 4));
  // Without the text every byte is its own character.
  QCOMPARE(tokensCoveringSpan(toks, {1, 3}), Span(1, 3));
}

QTEST_GUILESS_MAIN(TestSpanMapping)
#include "tst_span_mapping.moc"
