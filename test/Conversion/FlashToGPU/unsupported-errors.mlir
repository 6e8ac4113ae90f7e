// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --flash-to-gpu -split-input-file -verify-diagnostics

// What flash-to-gpu does not generate yet is refused at the op, not
// miscompiled: f32 is the CPU path's type.
!T = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @f32(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{flash-to-gpu: element type 'f32' is not supported on the GPU (bf16 or f16)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

!Q = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!V = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @dv(%q: !Q, %k: !Q, %v: !V, %o: !V) {
  // expected-error @+1 {{head dim of V different from Q/K is not supported yet}}
  flash.attention ins(%q, %k, %v : !Q, !Q, !V) outs(%o : !V)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

!T = memref<?x?x?x40xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @d40(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{head dim 40 is not supported (a multiple of 16 from 32 to 256: the mma k-step is 16)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

!T = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @stages(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{a 2- to 4-stage cp.async pipeline is generated (stages = 5)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 5>}
  return
}

// -----

!T = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @rows_per_warp(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{block_m = 48 needs 16 or 32 rows per warp (warps = 4)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 48, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

!T = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @block_n(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{block_n = 8 must be a multiple of 16}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 8, warps = 4, stages = 2>}
  return
}

// -----

!T = memref<?x?x?x256xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @smem(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{the tiles need 327680 bytes of shared memory, over the target's 227 KiB}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 128, block_n = 128, warps = 4, stages = 2>}
  return
}

// -----

// A strided head dim cannot be read with 16-byte copies.
!T = memref<?x?x?x64xf16, strided<[?, ?, ?, ?], offset: ?>>
func.func @inner_stride(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{the head dim must be contiguous (stride 1)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// wgmma is sm_90a's: the default chip (sm_90) refuses the configuration.
!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @wgmma_chip(%q: !T, %k: !T, %v: !T, %o: !T) {
  // expected-error @+1 {{flash-to-gpu: wgmma needs chip sm_90a, not sm_90}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
  return
}

// -----

// The runtime passes the block_mask hint as an entry argument, which the ABI
// record names: a hint the function makes itself cannot be named.
!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @hint_not_argument(%q: !T, %k: !T, %v: !T, %doc: memref<?x?xi32>, %o: !T) {
  %hint = memref.alloc() : memref<1x1x4x4xi32>
  // expected-error @+1 {{flash-to-gpu: the block_mask hint must be an argument of the entry function (the runtime passes it)}}
  flash.attention ins(%q, %k, %v : !T, !T, !T) block_mask(%hint : memref<1x1x4x4xi32>) captures(%doc : memref<?x?xi32>) outs(%o : !T)
      {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
