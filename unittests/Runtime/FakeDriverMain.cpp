//===- FakeDriverMain.cpp - main of the tests against the fake driver -----===//
//
// The gtest main of FakeDriverTest, CaptureTest and BlockMaskTest: the
// runtime loads the fake libcuda.so.1 (FakeCuda.cpp) in place of the real
// one, on device 0 whatever the environment chose, so the tests behave the
// same on a machine with a GPU.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdlib>

int main(int argc, char **argv) {
  setenv("FLASHRT_LIBCUDA", FAKE_CUDA, 1);
  unsetenv("FLASHRT_DEVICE");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
