// RUN: flash-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(flash-tile,flash-online-softmax,flash-assign-layouts,flash-pipeline-kv,flash-to-gpu)'

// Hardening (issue #14), class "placement": an attention that is not host
// code in a func.func gets a diagnostic at the op from flash-to-gpu (which
// names the kernel after the host function and launches it from there); it
// used to segfault on the missing func.func.

gpu.module @device {
  gpu.func @in_gpu_func(%q: memref<1x1x64x64xbf16>, %k: memref<1x1x64x64xbf16>, %v: memref<1x1x64x64xbf16>, %o: memref<1x1x64x64xbf16>) {
    // expected-error @+1 {{flash-to-gpu: the attention's grid must be host code inside a func.func, not inside 'gpu.func'}}
    flash.attention ins(%q, %k, %v : memref<1x1x64x64xbf16>, memref<1x1x64x64xbf16>, memref<1x1x64x64xbf16>) outs(%o : memref<1x1x64x64xbf16>)
        {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
    gpu.return
  }
}

// -----

llvm.func @in_llvm_func() {
  %q = memref.alloc() : memref<1x1x64x64xbf16>
  %o = memref.alloc() : memref<1x1x64x64xbf16>
  // expected-error @+1 {{flash-to-gpu: the attention's grid must be host code inside a func.func, not inside 'llvm.func'}}
  flash.attention ins(%q, %q, %q : memref<1x1x64x64xbf16>, memref<1x1x64x64xbf16>, memref<1x1x64x64xbf16>) outs(%o : memref<1x1x64x64xbf16>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  llvm.return
}
