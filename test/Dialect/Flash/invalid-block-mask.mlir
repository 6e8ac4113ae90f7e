// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of flash.attention's block-mask hint
// (`block_mask` with `block_mask_rows`); each diagnostic is at the op.

func.func @case0(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' needs 'block_mask_rows' (the query rows per hint row) in the attribute dictionary}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case1(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'block_mask_rows' is only meaningful with a 'block_mask' operand}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case2(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask_rows' must be at least 1, got 0}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 0 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case3(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' summarises a mask_mod: it needs a mask_mod region}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} 
  return
}

// -----

func.func @case4(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x4xi64>) {
  // expected-error @+1 {{'block_mask' must have element type 'i32', got 'i64'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x4xi64>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case5(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' must have rank 4, got 3}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case6(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: tensor<1x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' must be a ranked memref like the query, got 'tensor<1x2x2x4xi32>'}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : tensor<1x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case7(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x3xi32>) {
  // expected-error @+1 {{'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / block_mask_rows) = 2, B = 1, Hq = 2; got [1, 2, 2, 3]}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x3xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case8(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<3x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / block_mask_rows) = 2, B = 1, Hq = 2; got [3, 2, 2, 4]}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<3x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case9(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x4x2x4xi32>) {
  // expected-error @+1 {{'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / block_mask_rows) = 2, B = 1, Hq = 2; got [1, 4, 2, 4]}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x4x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 4 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

func.func @case10(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x2x2x4xi32>) {
  // expected-error @+1 {{'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / block_mask_rows) = 3, B = 1, Hq = 2; got [1, 2, 2, 4]}}
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x2x2x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 3 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}

// -----

// A static 1 broadcasts over batch and heads, and R may exceed ceil(Sq / QB).
func.func @ok(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>, %r: memref<1x1x9x4xi32>, %s: memref<?x?x?x4xi32>) {
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%r : memref<1x1x9x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 1 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  flash.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) block_mask(%s : memref<?x?x?x4xi32>) outs(%o : memref<1x2x8x16xf32>) {block_mask_rows = 100 : i64} mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %le = arith.cmpi sle, %j, %i : index
    flash.yield %le : i1
  }
  return
}
