//===- FakeCuda.h - Knobs and counters of the fake CUDA driver --*- C++ -*-===//
//
// The fake libcuda.so.1 (FakeCuda.cpp) lets the runtime's driver paths run on
// a machine without a GPU: tests point $FLASHRT_LIBCUDA at it, then steer it
// (compute capability, injected errors) and read what the runtime asked of
// it through this state, obtained with dlsym(..., "fakecuda_state").
// "Device memory" is host memory it allocated, so artifacts built for the
// tests (FakeArtifact.c) can compute on it directly.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_UNITTESTS_RUNTIME_FAKECUDA_H
#define FLASH_UNITTESTS_RUNTIME_FAKECUDA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FakeCudaState {
  /* Knobs; initial values from $FAKECUDA_CC (e.g. 90), $FAKECUDA_DEVICES,
   * $FAKECUDA_LOAD_RESULT, $FAKECUDA_LAUNCH_RESULT, $FAKECUDA_SYNC_RESULT. */
  int ccMajor, ccMinor, numSms, deviceCount;
  int loadResult, launchResult, syncResult;
  int maxSmemOptin;
  int allocDevice;     /* device ordinal reported for new allocations */
  int unknownIsPinned; /* unknown pointers look like page-locked host memory */
  /* Counters. */
  int inits, moduleLoads, moduleUnloads, getFunctions, launches, setAttrs;
  int streamsCreated, streamsDestroyed, streamSyncs, ctxSyncs;
  /* The last launch. */
  unsigned grid[3], block[3], smem;
  void *stream;
  char kernel[64];
} FakeCudaState;

FakeCudaState *fakecuda_state(void);
/* Resets counters and knobs to their initial values. */
void fakecuda_reset(void);

#ifdef __cplusplus
}
#endif

#endif // FLASH_UNITTESTS_RUNTIME_FAKECUDA_H
