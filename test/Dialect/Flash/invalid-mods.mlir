// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the score_mod / mask_mod regions and their
// captures (flash.attention), and of the regions flash-tile gives
// flash.tile_update. Each diagnostic is reported at the op.

func.func @case0(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{capture #0 must be a ranked memref like the query, got 'tensor<4xf32>'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) captures(%t : tensor<4xf32>) outs(%o : memref<1x2x8x16xf32>)
  return
}

// -----

func.func @case1(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %tq: tensor<1x2x8x16xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{capture #0 must be a ranked tensor like the query, got 'memref<4xf32>'}}
  %r = flash.attention ins(%tq, %tq, %tq : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) captures(%c : memref<4xf32>) -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @case2(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %x: memref<4xindex>) {
  // expected-error @+1 {{capture #0 must have an integer or float element type, got 'index'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) captures(%x : memref<4xindex>) outs(%o : memref<1x2x8x16xf32>)
  return
}

// -----

func.func @case3(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{score_mod region must have 6 block arguments (s, the positions and one per capture), got 5}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) captures(%c : memref<4xf32>) outs(%o : memref<1x2x8x16xf32>)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        flash.yield %s : f32
      }
  return
}

// -----

func.func @case4(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{score_mod region argument #0 must have type 'f32', got 'f16'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      score_mod {
      ^bb0(%s: f16, %b: index, %h: index, %i: index, %j: index):
        %z = arith.constant 0.0 : f32
        flash.yield %z : f32
      }
  return
}

// -----

func.func @case5(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{mask_mod region argument #4 must have type 'memref<4xf32>', got 'memref<4xi32>'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) captures(%c : memref<4xf32>) outs(%o : memref<1x2x8x16xf32>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %x: memref<4xi32>):
        %t = arith.constant true
        flash.yield %t : i1
      }
  return
}

// -----

func.func @case6(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{mask_mod region must have 4 block arguments (the positions and one per capture), got 3}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index):
        %t = arith.constant true
        flash.yield %t : i1
      }
  return
}

// -----

func.func @case7(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{score_mod region must end in a flash.yield of one 'f32' value}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %t = arith.constant true
        flash.yield %t : i1
      }
  return
}

// -----

func.func @case8(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{mask_mod region must end in a flash.yield of one 'i1' value}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.constant true
        flash.yield %t, %t : i1, i1
      }
  return
}

// -----

func.func @case9(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{score_mod region must not write, allocate or free memory, but 'memref.store' does}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) captures(%c : memref<4xf32>) outs(%o : memref<1x2x8x16xf32>)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: memref<4xf32>):
        memref.store %s, %x[%h] : memref<4xf32>
        flash.yield %s : f32
      }
  return
}

// -----

func.func @case10(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{mask_mod region must not write, allocate or free memory, but 'memref.alloca' does}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %a = memref.alloca() : memref<1xi1>
        %t = memref.load %a[%b] : memref<1xi1>
        flash.yield %t : i1
      }
  return
}

// -----

func.func private @opaque(f32) -> f32

func.func @case11(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{score_mod region must not write, allocate or free memory, but 'func.call' has unknown memory effects}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %r = func.call @opaque(%s) : (f32) -> f32
        flash.yield %r : f32
      }
  return
}

// -----

func.func @tile0(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{a score_mod needs scores in logit units: set 'logits' (or 'softcap')}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> score_mod {
  ^bb0(%s: f32, %x: index, %y: index):
    flash.yield %s : f32
  }
  return
}

// -----

func.func @tile1(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{'logits' and 'softcap' exclude each other (the capped score is already a logit)}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32, softcap = 2.0 : f32, logits} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @tile2(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{score_mod region must have 3 block arguments (s, the positions and one per capture), got 5}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32, logits} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %x: index, %y: index):
    flash.yield %s : f32
  }
  return
}

// -----

func.func @tile3(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{mask_mod region must end in a flash.yield of one 'i1' value}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> mask_mod {
  ^bb0(%x: index, %y: index):
    %z = arith.constant 0.0 : f32
    flash.yield %z : f32
  }
  return
}
