// RUN: flash-opt %s --split-input-file --flash-lower-to-gpu="chip=sm_90a format=isa" -verify-diagnostics | FileCheck %s

// flash-lower-to-gpu compiles flash.attention_backward: flash-tile's three
// grids, flash-backward-recompute's P, dP and dS, flash-assign-layouts and
// flash-to-gpu's mma.sync kernels (on sm_90a too: the backward has no wgmma
// form yet), assembled into the module's binary.
// CHECK-LABEL: llvm.func @bwd
// The dQ workspace is cleared on the stream before the kernels run.
// CHECK: llvm.call @mgpuMemset32
// CHECK: gpu.launch_func @flash_kernels::@bwd_delta
// CHECK: gpu.launch_func @flash_kernels::@bwd_backward_kv
// CHECK: gpu.launch_func @flash_kernels::@bwd_backward_dq
// CHECK: gpu.binary @flash_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
!T = memref<2x8x?x64xbf16>
!L = memref<2x8x?xf32>
func.func @bwd(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T) {causal}
  return
}

// -----

// A config the backward's kernels cannot take is refused at the op, before
// any GPU code is written (exit 1).
!T = memref<2x8x?x64xbf16>
!L = memref<2x8x?xf32>
func.func @oblong(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  // expected-error @+1 {{flash-to-gpu: the backward's tiles must be square, a multiple of 64 rows and of 16 rows a warp (block_m = 128, block_n = 64, warps = 4)}}
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 1>}
  return
}

// -----

!T = memref<2x8x?x64xbf16>
!L = memref<2x8x?xf32>
func.func @wgmma(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  // expected-error @+1 {{flash-to-gpu: the backward's kernels are mma.sync programs (a config without wgmma, producer or pingpong)}}
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
  return
}
