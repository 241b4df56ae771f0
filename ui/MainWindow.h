// The main window: the conversation list, the collator controls, the token strip of the selected
// conversation and its attention grid.
#pragma once
#include <QMainWindow>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace maskscope {

class AttentionGridView;
class Session;
class TokenStripView;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(Session* session, QWidget* parent = nullptr);

  QListWidget* conversationList() const { return list_; }
  QComboBox* collatorBox() const { return collatorBox_; }
  TokenStripView* tokenStrip() const { return strip_; }
  AttentionGridView* attentionGrid() const { return grid_; }

private:
  void fillConversationList();
  void applyFilter(const QString& text);
  void updateSummary();

  Session* session_;
  QListWidget* list_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QComboBox* collatorBox_ = nullptr;
  QSpinBox* batchSize_ = nullptr;
  QLabel* summary_ = nullptr;
  TokenStripView* strip_ = nullptr;
  AttentionGridView* grid_ = nullptr;
};

} // namespace maskscope
