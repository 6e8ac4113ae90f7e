// CHECK-LABEL: func.func @pingpong
// CHECK: flash.pipeline_producer stages 3
// CHECK-NEXT: flash.pipeline_turn_start
// CHECK: flash.pipeline_acquire
// CHECK-NEXT: flash.pipeline_advance
// CHECK-NEXT: flash.pipeline_turn_pass
// CHECK-NEXT: flash.pipeline_turn_wait
// CHECK-NEXT: flash.pipeline_release
// CHECK: flash.pipeline_turn_end
// CHECK-NEXT: flash.pipeline_drain
func.func @pingpong(%n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>, scale = 1.250000e-01 : f32} {
    %s0, %p0 = flash.pipeline_producer stages 3
    flash.pipeline_turn_start
    %r:2 = flash.kv_loop main %j = %lo to %hi iter_args(%s = %s0, %p = %p0) -> (index, index) {
      flash.pipeline_acquire %s phase %p
      %next:2 = flash.pipeline_advance %s phase %p
      flash.pipeline_turn_pass
      flash.pipeline_turn_wait
      flash.pipeline_release %s
      flash.yield %next#0, %next#1 : index, index
    }
    flash.pipeline_turn_end
    flash.pipeline_drain
  }
  return
}

!F = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @pingpong_attention(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>}
  return
}
