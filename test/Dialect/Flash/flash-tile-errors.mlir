// RUN: flash-opt %s -split-input-file --flash-tile -verify-diagnostics

// What flash-tile does not lower yet is refused at the op, never miscompiled.

func.func @no_config(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>) {
  // expected-error @+1 {{has no #flash.config: run flash-plan first or write one by hand}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) outs(%o : memref<1x1x8x64xf32>)
  return
}

// -----

func.func @cu_seqlens(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>, %cu: memref<2xi32>) {
  // expected-error @+1 {{flash-tile does not lower 'cu_seqlens' yet}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) cu_seqlens(%cu, %cu : memref<2xi32>, memref<2xi32>) outs(%o : memref<1x1x8x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// A tensor capture is moved onto a buffer: reads through tensor.extract and
// tensor.dim follow it, anything else is refused.
func.func @tensor_capture(%q: tensor<1x1x8x64xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x64xf32> {
  // expected-error @+1 {{flash-tile reads tensor captures only through tensor.extract and tensor.dim, but capture #0 is used by 'tensor.extract_slice'}}
  %o = flash.attention ins(%q, %q, %q : tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>) captures(%t : tensor<8xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>} -> tensor<1x1x8x64xf32>
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: tensor<8xf32>):
        %slice = tensor.extract_slice %c[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
        %x = tensor.extract %slice[%h] : tensor<4xf32>
        %r = arith.addf %s, %x : f32
        flash.yield %r : f32
      }
  return %o : tensor<1x1x8x64xf32>
}

// -----

func.func @splits(%q: memref<1x1x8x64xf32>, %o: memref<1x1x8x64xf32>) {
  // expected-error @+1 {{has splits = 4 in its #flash.config: run flash-split-kv before flash-tile}}
  flash.attention ins(%q, %q, %q : memref<1x1x8x64xf32>, memref<1x1x8x64xf32>, memref<1x1x8x64xf32>) outs(%o : memref<1x1x8x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, splits = 4>}
  return
}
