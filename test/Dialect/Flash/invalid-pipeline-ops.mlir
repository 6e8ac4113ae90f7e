// RUN: flash-opt %s -split-input-file -verify-diagnostics

// The K/V pipeline ops' verifiers: each op is checked against the
// #flash.config of its attention grid (stages >= 2 and the config's, the
// cp.async ops only without a producer warpgroup, the ring's only with
// one), the wait's pending count in [0, stages - 2], the prefetch distance
// in [1, stages - 1], and where it may stand.

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_prologue' op stages must be at least 2 (one slot being read, one being filled), not 1}}
    %s0 = flash.pipeline_prologue stages 1
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_prologue' op stages = 3 differs from the grid config's 2}}
    %s0 = flash.pipeline_prologue stages 3
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_prologue' op belongs to the cp.async pipeline; the grid's config has a producer warpgroup (producer = true)}}
    %s0 = flash.pipeline_prologue stages 2
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_producer' op needs a grid whose config has a producer warpgroup (producer = true)}}
    %s0, %p0 = flash.pipeline_producer stages 2
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'flash.pipeline_prologue' op expects parent op 'flash.grid'}}
  %s0 = flash.pipeline_prologue stages 2
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 1>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_wait' op needs a pipeline of at least 2 stages; the grid's config has 1}}
      flash.pipeline_wait %s pending 0
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_wait' op pending must be in [0, stages - 2 = 0], not 1}}
      flash.pipeline_wait %s pending 1
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_prefetch' op distance must be in [1, stages - 1 = 1], not 2}}
      flash.pipeline_prefetch %s distance 2
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_prefetch' op distance must be in [1, stages - 1 = 1], not 0}}
      flash.pipeline_prefetch %s distance 0
      flash.yield
    }
  }
  return
}

// -----

// A negative count is printed as written (not as its unsigned bit pattern).
func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_wait' op pending must be in [0, stages - 2 = 0], not -1}}
      flash.pipeline_wait %s pending -1
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_wait' op expects parent op 'flash.kv_loop'}}
    flash.pipeline_wait %s pending 0
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_wait' op belongs to the cp.async pipeline}}
      flash.pipeline_wait %s pending 0
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_advance' op takes no phase without a producer warpgroup}}
      %a:2 = flash.pipeline_advance %s phase %s
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_advance' op needs the phase with a producer warpgroup}}
      %a = flash.pipeline_advance %s
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_acquire' op needs a grid whose config has a producer warpgroup (producer = true)}}
      flash.pipeline_acquire %s phase %s
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{'flash.pipeline_release' op needs a grid whose config has a producer warpgroup (producer = true)}}
      flash.pipeline_release %s
      flash.yield
    }
  }
  return
}

// -----

func.func @f(%n: index) {
  flash.grid (%r, %h, %b) in (%n, %n, %n) attributes {combine} {
    // expected-error @+1 {{'flash.pipeline_drain' op must be inside an attention flash.grid (one with a #flash.config)}}
    flash.pipeline_drain
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @f(%q: !T, %n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.tile_load' op reads a pipeline slot only as a K/V load of a flash.kv_loop body}}
    %qt = flash.tile_load q %q[%b, %h, %m] limit %n slot(%s) : !T -> tensor<64x64xbf16>
  }
  return
}

// -----

func.func @f(%n: index, %s: index) {
  flash.kv_loop main %j = %n to %n {
    // expected-error @+1 {{'flash.pipeline_wait' op must be inside an attention flash.grid (one with a #flash.config)}}
    flash.pipeline_wait %s pending 0
    flash.yield
  }
  return
}

// -----

// The ping-pong turn ops need a pingpong config.
func.func @f(%n: index, %s: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true>, scale = 1.0 : f32} {
    // expected-error @+1 {{'flash.pipeline_turn_start' op needs a grid whose config has pingpong = true}}
    flash.pipeline_turn_start
  }
  return
}

// -----

func.func @f(%n: index) {
  // expected-error @+1 {{'flash.pipeline_turn_end' op expects parent op 'flash.grid'}}
  flash.pipeline_turn_end
  return
}
