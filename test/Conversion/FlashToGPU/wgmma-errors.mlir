// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --flash-to-gpu="chip=sm_90a" -split-input-file -verify-diagnostics

// What the wgmma path does not generate is refused at the op.
!T = memref<?x?x?x32xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @d32(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs a head dim that is a multiple of 64 (128-byte panels), not 32}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @wide(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs block_n a multiple of 16 up to 256, not 512}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 512, warps = 4, stages = 2, wgmma = true>}
  return
}
