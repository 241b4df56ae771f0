// Unsloth's marker resolution and token search, replaying unsloth-zoo's own stub-tokenizer tests
// (unsloth-zoo 2026.8.13, ce232d6c): tests/test_find_common_token_ids_no_match.py (the core absent
// from the component; an empty component) and tests/test_train_on_responses_list_labels.py
// (single-id markers, labels copied from an existing labels column), plus the search's quirks read
// from dataset_utils.py (the optional right token compared one position too far).
#include "core/frameworks/unsloth/ResponsesOnly.h"
#include "core/frameworks/unsloth/UnslothMarkers.h"
#include "core/util/Error.h"

#include <QTest>
#include <map>

using namespace maskscope;
using namespace maskscope::unsloth;
using Ids = std::vector<int32_t>;

namespace {

// StubTokenizer of the upstream tests: listed texts map to fixed ids, anything else to the ordinals
// of its characters.
EncodeIds stub(std::map<std::string, Ids> mapping) {
  return [mapping](const std::string& text) {
    auto it = mapping.find(text);
    if (it != mapping.end()) return it->second;
    Ids out;
    for (unsigned char c : text) out.push_back(int32_t(c));
    return out;
  };
}

// NO_COMMON_CORE: the spellings share only the [0] sentinel.
const std::map<std::string, Ids> kNoCommonCore = {
    {"X", {1, 2}}, {"\nX", {9, 1, 2}}, {"\nX\n", {9, 1, 2, 9}}, {"X\n", {1, 2, 9}}, {"\n\nX", {9, 9, 1, 2}}};

constexpr int32_t X = -100;
constexpr bool kEmptyWhenCoreMissing = true;   // unsloth-zoo 2026.8's catalogue flag
constexpr bool kOptionalFromLastIndex = false; // 2025.12's

} // namespace

class TestUnslothMarkers : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // test_core_absent_from_component_reports_no_core: 2026.8 reports no core; 2025.12 returned the
  // [0] sentinel with optional tokens sliced at the loop's last index.
  void coreAbsentFromComponent() {
    const TokenMarker now = findCommonTokenIds("X", stub(kNoCommonCore), false, kEmptyWhenCoreMissing);
    QVERIFY(now.core.empty() && now.optionalLeft.empty() && now.optionalRight.empty());
    const TokenMarker old = findCommonTokenIds("X", stub(kNoCommonCore), false, kOptionalFromLastIndex);
    QCOMPARE(old.core, Ids({0}));
    QCOMPARE(old.optionalLeft, Ids({1}));
    QCOMPARE(old.optionalRight, Ids({}));
  }

  // test_component_tokenizing_to_nothing_does_not_raise_unbound_local (2026.8); 2025.12 raised.
  void emptyComponent() {
    const TokenMarker now = findCommonTokenIds("", stub({}), true, kEmptyWhenCoreMissing);
    QVERIFY(now.core.empty());
    QVERIFY_THROWS_EXCEPTION(Error, findCommonTokenIds("", stub({}), true, kOptionalFromLastIndex));
  }

  // force_match (the default): the core is the marker's own tokenization, nothing optional.
  void forceMatchKeepsTheTokenization() {
    const TokenMarker m = findCommonTokenIds("<|user|>", stub({{"<|user|>", {1}}}), true, kEmptyWhenCoreMissing);
    QCOMPARE(m.core, Ids({1}));
    QVERIFY(m.optionalLeft.empty() && m.optionalRight.empty());
  }

  void longestCommonSublistPicksTheFirstOfATie() {
    bool tied = false;
    QCOMPARE(longestCommonSublist({{5, 6, 7, 8}, {7, 8, 9, 5, 6}}, &tied), Ids({5, 6}));
    QVERIFY(tied); // [5, 6] and [7, 8] both have length 2
    QCOMPARE(longestCommonSublist({{1, 2, 3}, {0, 1, 2, 3, 4}}, &tied), Ids({1, 2, 3}));
    QVERIFY(!tied);
    QCOMPARE(longestCommonSublist({{1}, {}}), Ids({}));
  }

  // test_train_on_responses_list_labels.py: markers <|user|> = 1, <|assistant|> = 2, ROW = [1, 10, 11, 2, 20, 21].
  void labels_data() {
    QTest::addColumn<Ids>("ids");
    QTest::addColumn<Ids>("oldLabels");
    QTest::addColumn<bool>("lastOnly");
    QTest::addColumn<Ids>("want");
    const Ids row = {1, 10, 11, 2, 20, 21};
    QTest::newRow("no-labels-column-masks-from-input-ids") << row << Ids{} << false << Ids{X, X, X, X, 20, 21};
    QTest::newRow("existing-labels-are-the-source-of-truth")
        << row << Ids{900, 901, 902, 903, 904, 905} << false << Ids{X, X, X, X, 904, 905};
    QTest::newRow("two-turns") << Ids{1, 10, 2, 20, 1, 11, 2, 21, 22} << Ids{} << false
                               << Ids{X, X, X, 20, X, X, X, 21, 22};
    QTest::newRow("two-turns-last-response-only")
        << Ids{1, 10, 2, 20, 1, 11, 2, 21, 22} << Ids{} << true << Ids{X, X, X, X, X, X, X, 21, 22};
    QTest::newRow("response-marker-never-found") << Ids{1, 10, 11, 12} << Ids{} << false << Ids{X, X, X, X};
  }
  void labels() {
    QFETCH(Ids, ids);
    QFETCH(Ids, oldLabels);
    QFETCH(bool, lastOnly);
    QFETCH(Ids, want);
    const ResponseMarkers markers{{{1}, {}, {}}, {{2}, {}, {}}};
    std::optional<Ids> old;
    if (!oldLabels.empty()) old = oldLabels;
    QCOMPARE(responsesOnlyLabels(ids, old, markers, lastOnly), want);
  }

  // `if optional_right == input_ids[k+1]`: with A = [2] and optional right [7], the 7 right after the
  // marker is not consumed (ids[k] is 7, but ids[k+1] is compared), so it stays trained.
  void optionalRightComparesOnePastTheMarker() {
    const ResponseMarkers markers{{{1}, {}, {}}, {{2}, {}, {7}}};
    QCOMPARE(responsesOnlyLabels(Ids{1, 10, 2, 7, 30, 31}, std::nullopt, markers, false), Ids({X, X, X, 7, 30, 31}));
    // ids[k+1] == 7: k moves one on, so the token after the marker is skipped instead
    QCOMPARE(responsesOnlyLabels(Ids{1, 10, 2, 30, 7, 31}, std::nullopt, markers, false), Ids({X, X, X, X, 7, 31}));
  }
};

QTEST_APPLESS_MAIN(TestUnslothMarkers)
#include "tst_unsloth_markers.moc"
