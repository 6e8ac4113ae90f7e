// RUN: flash-opt %s -split-input-file --flash-tile -verify-diagnostics

// What flash-tile does not lower yet is refused at the op, never miscompiled.

func.func @no_config(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>) {
  // expected-error @+1 {{has no #flash.config: run flash-plan first or write one by hand}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) outs(%o : memref<1x1x8x64xf32>)
  return
}

// -----

func.func @alibi(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{flash-tile does not lower 'alibi' yet}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) alibi(%s : memref<1xf32>) outs(%o : memref<1x1x8x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

func.func @splits(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>) {
  // expected-error @+1 {{has splits = 4 in its #flash.config: run flash-split-kv before flash-tile}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) outs(%o : memref<1x1x8x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, splits = 4>}
  return
}
