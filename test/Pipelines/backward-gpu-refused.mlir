// RUN: flash-opt %s --flash-lower-to-gpu=chip=sm_90a -verify-diagnostics

// The backward runs on the CPU pipeline only: the GPU pipeline refuses its
// grids with a diagnostic at the op (no crash, exit 1), before any lowering
// to the GPU dialect.
!T = memref<2x8x?x64xbf16>
!L = memref<2x8x?xf32>
func.func @bwd(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  // expected-error @+1 {{is a backward grid: flash-assign-layouts has no GPU layouts for the backward yet}}
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T) {causal}
  return
}
