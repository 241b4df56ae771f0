// Runs the engine test classes in one binary (one load of the module, one process).
#include <QtTest>

int runEngineTests(int argc, char** argv);
int runLossPlanTests(int argc, char** argv);

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  int status = runLossPlanTests(argc, argv);
  status |= runEngineTests(argc, argv);
  return status;
}
