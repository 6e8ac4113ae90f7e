// RUN: flash-opt %s -split-input-file --flash-lower-to-gpu="chip=sm_90 format=isa" -verify-diagnostics | FileCheck %s

// The tensor form (what frontends emit) lowers all the way: the results
// become trailing out-parameters (the memref form's calling convention:
// the caller allocates O and LSE on the device), and nothing of the
// bufferization, no unrealized cast and no host allocation is left.

// CHECK-LABEL: llvm.func @attention(
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: bufferization.
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.func @_mlir_ciface_attention(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK: gpu.binary @flash_kernels
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: bufferization.
!T = tensor<2x8x?x128xbf16>
func.func @attention(%q: !T, %k: !T, %v: !T) -> (!T, tensor<2x8x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : !T, !T, !T) {causal}
      -> !T, tensor<2x8x?xf32>
  return %o, %lse : !T, tensor<2x8x?xf32>
}

// -----

// A result used by host code the pipeline does not bufferize (here a
// tensor.extract) is an error at the attention whose result it is, not a
// half-lowered module with exit code 0.
!T = tensor<1x2x64x64xf16>
func.func @consumed(%q: !T, %k: !T, %v: !T) -> f16 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'bufferization.to_tensor' is left after lowering to the LLVM dialect}}
  %o = flash.attention ins(%q, %k, %v : !T, !T, !T) -> !T
  %x = tensor.extract %o[%c0, %c0, %c0, %c0] : !T
  return %x : f16
}
