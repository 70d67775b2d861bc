module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg1: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg2: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg3: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg4: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg5: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg6: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg7: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg8: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg9: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg10: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg11: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg12: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg13: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg14: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg15: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg16: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg17: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg18: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg19: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg20: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg21: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg22: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg23: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg24: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg25: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg26: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg27: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg28: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg29: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg30: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg31: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg32: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg33: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg34: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg35: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg36: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg37: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg38: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg39: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg40: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg41: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg42: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg43: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg44: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg45: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg46: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg47: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg48: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg49: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg50: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg51: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg52: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg53: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg54: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg55: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg56: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg57: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg58: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg59: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg60: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg61: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg62: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg63: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg64: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg65: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg66: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg67: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg68: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg69: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg70: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg71: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg72: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg73: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg74: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg75: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg76: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg77: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg78: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg79: tensor<32xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg80: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg81: tensor<16x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"}, %arg82: tensor<16x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"}) -> (tensor<16x32xf32> {jax.result_info = "result[0][0][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][0][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][0][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][1][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][1][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][1][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][2][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][2][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][2][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][3][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][3][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][3][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][4][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][4][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][4][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][5][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][5][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][5][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][6][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][6][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][6][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][7][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][7][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][7][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[0][8][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[0][8][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[0][8][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][0][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][0][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][0][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][1][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][1][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][1][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][2][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][2][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][2][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][3][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][3][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][3][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][4][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][4][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][4][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][5][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][5][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][5][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][6][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][6][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][6][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][7][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][7][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][7][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1][8][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[1][8][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[1][8][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][0][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][0][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][0][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][1][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][1][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][1][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][2][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][2][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][2][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][3][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][3][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][3][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][4][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][4][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][4][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][5][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][5][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][5][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][6][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][6][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][6][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][7][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][7][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][7][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[2][8][0]", mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32xf32> {jax.result_info = "result[2][8][1]", mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<32x16xf32> {jax.result_info = "result[2][8][2]", mhlo.sharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, tensor<f32> {jax.result_info = "result[3]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.dot_general %arg81, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x32xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<16x32xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<16x32xf32>
    %6 = stablehlo.multiply %3, %3 : tensor<16x32xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<16x32xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %10 = stablehlo.multiply %9, %5 : tensor<16x32xf32>
    %11 = stablehlo.add %3, %10 : tensor<16x32xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<16x32xf32>
    %14 = stablehlo.tanh %13 : tensor<16x32xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %16 = stablehlo.subtract %15, %14 : tensor<16x32xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %18 = stablehlo.add %17, %14 : tensor<16x32xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<16x32xf32>
    %21 = stablehlo.multiply %3, %20 : tensor<16x32xf32>
    %22 = stablehlo.dot_general %21, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %23 = stablehlo.add %arg81, %22 : tensor<16x16xf32>
    %24 = stablehlo.dot_general %23, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %25 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %27 = stablehlo.add %24, %26 : tensor<16x32xf32>
    %28 = stablehlo.multiply %27, %27 : tensor<16x32xf32>
    %29 = stablehlo.multiply %28, %27 : tensor<16x32xf32>
    %30 = stablehlo.multiply %27, %27 : tensor<16x32xf32>
    %cst_5 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %32 = stablehlo.multiply %31, %30 : tensor<16x32xf32>
    %cst_6 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %34 = stablehlo.multiply %33, %29 : tensor<16x32xf32>
    %35 = stablehlo.add %27, %34 : tensor<16x32xf32>
    %cst_7 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<16x32xf32>
    %38 = stablehlo.tanh %37 : tensor<16x32xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %40 = stablehlo.subtract %39, %38 : tensor<16x32xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %42 = stablehlo.add %41, %38 : tensor<16x32xf32>
    %cst_10 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %44 = stablehlo.multiply %43, %42 : tensor<16x32xf32>
    %45 = stablehlo.multiply %27, %44 : tensor<16x32xf32>
    %46 = stablehlo.dot_general %45, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %47 = stablehlo.add %23, %46 : tensor<16x16xf32>
    %48 = stablehlo.dot_general %47, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %49 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %51 = stablehlo.add %48, %50 : tensor<16x32xf32>
    %52 = stablehlo.multiply %51, %51 : tensor<16x32xf32>
    %53 = stablehlo.multiply %52, %51 : tensor<16x32xf32>
    %54 = stablehlo.multiply %51, %51 : tensor<16x32xf32>
    %cst_11 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %56 = stablehlo.multiply %55, %54 : tensor<16x32xf32>
    %cst_12 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %58 = stablehlo.multiply %57, %53 : tensor<16x32xf32>
    %59 = stablehlo.add %51, %58 : tensor<16x32xf32>
    %cst_13 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %61 = stablehlo.multiply %60, %59 : tensor<16x32xf32>
    %62 = stablehlo.tanh %61 : tensor<16x32xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %64 = stablehlo.subtract %63, %62 : tensor<16x32xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %66 = stablehlo.add %65, %62 : tensor<16x32xf32>
    %cst_16 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %68 = stablehlo.multiply %67, %66 : tensor<16x32xf32>
    %69 = stablehlo.multiply %51, %68 : tensor<16x32xf32>
    %70 = stablehlo.dot_general %69, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %71 = stablehlo.add %47, %70 : tensor<16x16xf32>
    %72 = stablehlo.dot_general %71, %arg9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %73 = stablehlo.broadcast_in_dim %arg10, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %75 = stablehlo.add %72, %74 : tensor<16x32xf32>
    %76 = stablehlo.multiply %75, %75 : tensor<16x32xf32>
    %77 = stablehlo.multiply %76, %75 : tensor<16x32xf32>
    %78 = stablehlo.multiply %75, %75 : tensor<16x32xf32>
    %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %80 = stablehlo.multiply %79, %78 : tensor<16x32xf32>
    %cst_18 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %82 = stablehlo.multiply %81, %77 : tensor<16x32xf32>
    %83 = stablehlo.add %75, %82 : tensor<16x32xf32>
    %cst_19 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %85 = stablehlo.multiply %84, %83 : tensor<16x32xf32>
    %86 = stablehlo.tanh %85 : tensor<16x32xf32>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %88 = stablehlo.subtract %87, %86 : tensor<16x32xf32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %90 = stablehlo.add %89, %86 : tensor<16x32xf32>
    %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %92 = stablehlo.multiply %91, %90 : tensor<16x32xf32>
    %93 = stablehlo.multiply %75, %92 : tensor<16x32xf32>
    %94 = stablehlo.dot_general %93, %arg11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %95 = stablehlo.add %71, %94 : tensor<16x16xf32>
    %96 = stablehlo.dot_general %95, %arg12, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %97 = stablehlo.broadcast_in_dim %arg13, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %99 = stablehlo.add %96, %98 : tensor<16x32xf32>
    %100 = stablehlo.multiply %99, %99 : tensor<16x32xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<16x32xf32>
    %102 = stablehlo.multiply %99, %99 : tensor<16x32xf32>
    %cst_23 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %104 = stablehlo.multiply %103, %102 : tensor<16x32xf32>
    %cst_24 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %106 = stablehlo.multiply %105, %101 : tensor<16x32xf32>
    %107 = stablehlo.add %99, %106 : tensor<16x32xf32>
    %cst_25 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %109 = stablehlo.multiply %108, %107 : tensor<16x32xf32>
    %110 = stablehlo.tanh %109 : tensor<16x32xf32>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %112 = stablehlo.subtract %111, %110 : tensor<16x32xf32>
    %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %114 = stablehlo.add %113, %110 : tensor<16x32xf32>
    %cst_28 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %116 = stablehlo.multiply %115, %114 : tensor<16x32xf32>
    %117 = stablehlo.multiply %99, %116 : tensor<16x32xf32>
    %118 = stablehlo.dot_general %117, %arg14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %119 = stablehlo.add %95, %118 : tensor<16x16xf32>
    %120 = stablehlo.dot_general %119, %arg15, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %121 = stablehlo.broadcast_in_dim %arg16, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %123 = stablehlo.add %120, %122 : tensor<16x32xf32>
    %124 = stablehlo.multiply %123, %123 : tensor<16x32xf32>
    %125 = stablehlo.multiply %124, %123 : tensor<16x32xf32>
    %126 = stablehlo.multiply %123, %123 : tensor<16x32xf32>
    %cst_29 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %128 = stablehlo.multiply %127, %126 : tensor<16x32xf32>
    %cst_30 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %130 = stablehlo.multiply %129, %125 : tensor<16x32xf32>
    %131 = stablehlo.add %123, %130 : tensor<16x32xf32>
    %cst_31 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %133 = stablehlo.multiply %132, %131 : tensor<16x32xf32>
    %134 = stablehlo.tanh %133 : tensor<16x32xf32>
    %cst_32 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %136 = stablehlo.subtract %135, %134 : tensor<16x32xf32>
    %cst_33 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %138 = stablehlo.add %137, %134 : tensor<16x32xf32>
    %cst_34 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %140 = stablehlo.multiply %139, %138 : tensor<16x32xf32>
    %141 = stablehlo.multiply %123, %140 : tensor<16x32xf32>
    %142 = stablehlo.dot_general %141, %arg17, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %143 = stablehlo.add %119, %142 : tensor<16x16xf32>
    %144 = stablehlo.dot_general %143, %arg18, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %145 = stablehlo.broadcast_in_dim %arg19, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %146 = stablehlo.broadcast_in_dim %145, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %147 = stablehlo.add %144, %146 : tensor<16x32xf32>
    %148 = stablehlo.multiply %147, %147 : tensor<16x32xf32>
    %149 = stablehlo.multiply %148, %147 : tensor<16x32xf32>
    %150 = stablehlo.multiply %147, %147 : tensor<16x32xf32>
    %cst_35 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %152 = stablehlo.multiply %151, %150 : tensor<16x32xf32>
    %cst_36 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %154 = stablehlo.multiply %153, %149 : tensor<16x32xf32>
    %155 = stablehlo.add %147, %154 : tensor<16x32xf32>
    %cst_37 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %157 = stablehlo.multiply %156, %155 : tensor<16x32xf32>
    %158 = stablehlo.tanh %157 : tensor<16x32xf32>
    %cst_38 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %160 = stablehlo.subtract %159, %158 : tensor<16x32xf32>
    %cst_39 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %162 = stablehlo.add %161, %158 : tensor<16x32xf32>
    %cst_40 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %163 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %164 = stablehlo.multiply %163, %162 : tensor<16x32xf32>
    %165 = stablehlo.multiply %147, %164 : tensor<16x32xf32>
    %166 = stablehlo.dot_general %165, %arg20, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %167 = stablehlo.add %143, %166 : tensor<16x16xf32>
    %168 = stablehlo.dot_general %167, %arg21, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %169 = stablehlo.broadcast_in_dim %arg22, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %171 = stablehlo.add %168, %170 : tensor<16x32xf32>
    %172 = stablehlo.multiply %171, %171 : tensor<16x32xf32>
    %173 = stablehlo.multiply %172, %171 : tensor<16x32xf32>
    %174 = stablehlo.multiply %171, %171 : tensor<16x32xf32>
    %cst_41 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %176 = stablehlo.multiply %175, %174 : tensor<16x32xf32>
    %cst_42 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %177 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %178 = stablehlo.multiply %177, %173 : tensor<16x32xf32>
    %179 = stablehlo.add %171, %178 : tensor<16x32xf32>
    %cst_43 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %180 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %181 = stablehlo.multiply %180, %179 : tensor<16x32xf32>
    %182 = stablehlo.tanh %181 : tensor<16x32xf32>
    %cst_44 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %183 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %184 = stablehlo.subtract %183, %182 : tensor<16x32xf32>
    %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %186 = stablehlo.add %185, %182 : tensor<16x32xf32>
    %cst_46 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %187 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %188 = stablehlo.multiply %187, %186 : tensor<16x32xf32>
    %189 = stablehlo.multiply %171, %188 : tensor<16x32xf32>
    %190 = stablehlo.dot_general %189, %arg23, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %191 = stablehlo.add %167, %190 : tensor<16x16xf32>
    %192 = stablehlo.dot_general %191, %arg24, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %193 = stablehlo.broadcast_in_dim %arg25, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %194 = stablehlo.broadcast_in_dim %193, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %195 = stablehlo.add %192, %194 : tensor<16x32xf32>
    %196 = stablehlo.multiply %195, %195 : tensor<16x32xf32>
    %197 = stablehlo.multiply %196, %195 : tensor<16x32xf32>
    %198 = stablehlo.multiply %195, %195 : tensor<16x32xf32>
    %cst_47 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %199 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %200 = stablehlo.multiply %199, %198 : tensor<16x32xf32>
    %cst_48 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %202 = stablehlo.multiply %201, %197 : tensor<16x32xf32>
    %203 = stablehlo.add %195, %202 : tensor<16x32xf32>
    %cst_49 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %204 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %205 = stablehlo.multiply %204, %203 : tensor<16x32xf32>
    %206 = stablehlo.tanh %205 : tensor<16x32xf32>
    %cst_50 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %207 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %208 = stablehlo.subtract %207, %206 : tensor<16x32xf32>
    %cst_51 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %210 = stablehlo.add %209, %206 : tensor<16x32xf32>
    %cst_52 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %212 = stablehlo.multiply %211, %210 : tensor<16x32xf32>
    %213 = stablehlo.multiply %195, %212 : tensor<16x32xf32>
    %214 = stablehlo.dot_general %213, %arg26, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %215 = stablehlo.add %191, %214 : tensor<16x16xf32>
    %216 = stablehlo.subtract %215, %arg82 : tensor<16x16xf32>
    %217 = stablehlo.multiply %216, %216 : tensor<16x16xf32>
    %cst_53 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %218 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %219 = stablehlo.multiply %218, %216 : tensor<16x16xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %220 = stablehlo.reduce(%217 init: %cst_54) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_55 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %221 = stablehlo.divide %220, %cst_55 : tensor<f32>
    %cst_56 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_57 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %222 = stablehlo.divide %cst_56, %cst_57 : tensor<f32>
    %223 = stablehlo.broadcast_in_dim %222, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %224 = stablehlo.multiply %223, %219 : tensor<16x16xf32>
    %225 = stablehlo.dot_general %224, %213, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %226 = stablehlo.transpose %225, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %227 = stablehlo.dot_general %224, %arg26, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %228 = stablehlo.multiply %195, %227 : tensor<16x32xf32>
    %229 = stablehlo.multiply %227, %212 : tensor<16x32xf32>
    %cst_58 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %230 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %231 = stablehlo.multiply %230, %228 : tensor<16x32xf32>
    %232 = stablehlo.multiply %231, %208 : tensor<16x32xf32>
    %233 = stablehlo.multiply %232, %206 : tensor<16x32xf32>
    %234 = stablehlo.add %232, %233 : tensor<16x32xf32>
    %cst_59 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %235 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %236 = stablehlo.multiply %235, %234 : tensor<16x32xf32>
    %237 = stablehlo.add %229, %236 : tensor<16x32xf32>
    %cst_60 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %238 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %239 = stablehlo.multiply %238, %236 : tensor<16x32xf32>
    %240 = stablehlo.multiply %239, %200 : tensor<16x32xf32>
    %241 = stablehlo.add %237, %240 : tensor<16x32xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %242 = stablehlo.reduce(%241 init: %cst_61) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %243 = stablehlo.reshape %242 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_62 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %244 = stablehlo.reduce(%243 init: %cst_62) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %245 = stablehlo.dot_general %241, %191, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %246 = stablehlo.transpose %245, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %247 = stablehlo.dot_general %241, %arg24, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %248 = stablehlo.add %224, %247 : tensor<16x16xf32>
    %249 = stablehlo.dot_general %248, %189, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %250 = stablehlo.transpose %249, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %251 = stablehlo.dot_general %248, %arg23, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %252 = stablehlo.multiply %171, %251 : tensor<16x32xf32>
    %253 = stablehlo.multiply %251, %188 : tensor<16x32xf32>
    %cst_63 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %255 = stablehlo.multiply %254, %252 : tensor<16x32xf32>
    %256 = stablehlo.multiply %255, %184 : tensor<16x32xf32>
    %257 = stablehlo.multiply %256, %182 : tensor<16x32xf32>
    %258 = stablehlo.add %256, %257 : tensor<16x32xf32>
    %cst_64 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %259 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %260 = stablehlo.multiply %259, %258 : tensor<16x32xf32>
    %261 = stablehlo.add %253, %260 : tensor<16x32xf32>
    %cst_65 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %262 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %263 = stablehlo.multiply %262, %260 : tensor<16x32xf32>
    %264 = stablehlo.multiply %263, %176 : tensor<16x32xf32>
    %265 = stablehlo.add %261, %264 : tensor<16x32xf32>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %266 = stablehlo.reduce(%265 init: %cst_66) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %267 = stablehlo.reshape %266 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %268 = stablehlo.reduce(%267 init: %cst_67) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %269 = stablehlo.dot_general %265, %167, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %270 = stablehlo.transpose %269, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %271 = stablehlo.dot_general %265, %arg21, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %272 = stablehlo.add %248, %271 : tensor<16x16xf32>
    %273 = stablehlo.dot_general %272, %165, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %274 = stablehlo.transpose %273, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %275 = stablehlo.dot_general %272, %arg20, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %276 = stablehlo.multiply %147, %275 : tensor<16x32xf32>
    %277 = stablehlo.multiply %275, %164 : tensor<16x32xf32>
    %cst_68 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %278 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %279 = stablehlo.multiply %278, %276 : tensor<16x32xf32>
    %280 = stablehlo.multiply %279, %160 : tensor<16x32xf32>
    %281 = stablehlo.multiply %280, %158 : tensor<16x32xf32>
    %282 = stablehlo.add %280, %281 : tensor<16x32xf32>
    %cst_69 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %283 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %284 = stablehlo.multiply %283, %282 : tensor<16x32xf32>
    %285 = stablehlo.add %277, %284 : tensor<16x32xf32>
    %cst_70 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %286 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %287 = stablehlo.multiply %286, %284 : tensor<16x32xf32>
    %288 = stablehlo.multiply %287, %152 : tensor<16x32xf32>
    %289 = stablehlo.add %285, %288 : tensor<16x32xf32>
    %cst_71 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %290 = stablehlo.reduce(%289 init: %cst_71) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %291 = stablehlo.reshape %290 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %292 = stablehlo.reduce(%291 init: %cst_72) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %293 = stablehlo.dot_general %289, %143, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %294 = stablehlo.transpose %293, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %295 = stablehlo.dot_general %289, %arg18, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %296 = stablehlo.add %272, %295 : tensor<16x16xf32>
    %297 = stablehlo.dot_general %296, %141, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %298 = stablehlo.transpose %297, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %299 = stablehlo.dot_general %296, %arg17, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %300 = stablehlo.multiply %123, %299 : tensor<16x32xf32>
    %301 = stablehlo.multiply %299, %140 : tensor<16x32xf32>
    %cst_73 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %302 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %303 = stablehlo.multiply %302, %300 : tensor<16x32xf32>
    %304 = stablehlo.multiply %303, %136 : tensor<16x32xf32>
    %305 = stablehlo.multiply %304, %134 : tensor<16x32xf32>
    %306 = stablehlo.add %304, %305 : tensor<16x32xf32>
    %cst_74 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %307 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %308 = stablehlo.multiply %307, %306 : tensor<16x32xf32>
    %309 = stablehlo.add %301, %308 : tensor<16x32xf32>
    %cst_75 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %310 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %311 = stablehlo.multiply %310, %308 : tensor<16x32xf32>
    %312 = stablehlo.multiply %311, %128 : tensor<16x32xf32>
    %313 = stablehlo.add %309, %312 : tensor<16x32xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %314 = stablehlo.reduce(%313 init: %cst_76) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %315 = stablehlo.reshape %314 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %316 = stablehlo.reduce(%315 init: %cst_77) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %317 = stablehlo.dot_general %313, %119, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %318 = stablehlo.transpose %317, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %319 = stablehlo.dot_general %313, %arg15, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %320 = stablehlo.add %296, %319 : tensor<16x16xf32>
    %321 = stablehlo.dot_general %320, %117, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %322 = stablehlo.transpose %321, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %323 = stablehlo.dot_general %320, %arg14, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %324 = stablehlo.multiply %99, %323 : tensor<16x32xf32>
    %325 = stablehlo.multiply %323, %116 : tensor<16x32xf32>
    %cst_78 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %326 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %327 = stablehlo.multiply %326, %324 : tensor<16x32xf32>
    %328 = stablehlo.multiply %327, %112 : tensor<16x32xf32>
    %329 = stablehlo.multiply %328, %110 : tensor<16x32xf32>
    %330 = stablehlo.add %328, %329 : tensor<16x32xf32>
    %cst_79 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %332 = stablehlo.multiply %331, %330 : tensor<16x32xf32>
    %333 = stablehlo.add %325, %332 : tensor<16x32xf32>
    %cst_80 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %334 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %335 = stablehlo.multiply %334, %332 : tensor<16x32xf32>
    %336 = stablehlo.multiply %335, %104 : tensor<16x32xf32>
    %337 = stablehlo.add %333, %336 : tensor<16x32xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %338 = stablehlo.reduce(%337 init: %cst_81) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %339 = stablehlo.reshape %338 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %340 = stablehlo.reduce(%339 init: %cst_82) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %341 = stablehlo.dot_general %337, %95, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %342 = stablehlo.transpose %341, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %343 = stablehlo.dot_general %337, %arg12, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %344 = stablehlo.add %320, %343 : tensor<16x16xf32>
    %345 = stablehlo.dot_general %344, %93, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %346 = stablehlo.transpose %345, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %347 = stablehlo.dot_general %344, %arg11, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %348 = stablehlo.multiply %75, %347 : tensor<16x32xf32>
    %349 = stablehlo.multiply %347, %92 : tensor<16x32xf32>
    %cst_83 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %350 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %351 = stablehlo.multiply %350, %348 : tensor<16x32xf32>
    %352 = stablehlo.multiply %351, %88 : tensor<16x32xf32>
    %353 = stablehlo.multiply %352, %86 : tensor<16x32xf32>
    %354 = stablehlo.add %352, %353 : tensor<16x32xf32>
    %cst_84 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %355 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %356 = stablehlo.multiply %355, %354 : tensor<16x32xf32>
    %357 = stablehlo.add %349, %356 : tensor<16x32xf32>
    %cst_85 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %358 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %359 = stablehlo.multiply %358, %356 : tensor<16x32xf32>
    %360 = stablehlo.multiply %359, %80 : tensor<16x32xf32>
    %361 = stablehlo.add %357, %360 : tensor<16x32xf32>
    %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %362 = stablehlo.reduce(%361 init: %cst_86) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %363 = stablehlo.reshape %362 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %364 = stablehlo.reduce(%363 init: %cst_87) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %365 = stablehlo.dot_general %361, %71, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %366 = stablehlo.transpose %365, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %367 = stablehlo.dot_general %361, %arg9, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %368 = stablehlo.add %344, %367 : tensor<16x16xf32>
    %369 = stablehlo.dot_general %368, %69, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %370 = stablehlo.transpose %369, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %371 = stablehlo.dot_general %368, %arg8, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %372 = stablehlo.multiply %51, %371 : tensor<16x32xf32>
    %373 = stablehlo.multiply %371, %68 : tensor<16x32xf32>
    %cst_88 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %374 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %375 = stablehlo.multiply %374, %372 : tensor<16x32xf32>
    %376 = stablehlo.multiply %375, %64 : tensor<16x32xf32>
    %377 = stablehlo.multiply %376, %62 : tensor<16x32xf32>
    %378 = stablehlo.add %376, %377 : tensor<16x32xf32>
    %cst_89 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %380 = stablehlo.multiply %379, %378 : tensor<16x32xf32>
    %381 = stablehlo.add %373, %380 : tensor<16x32xf32>
    %cst_90 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %382 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %383 = stablehlo.multiply %382, %380 : tensor<16x32xf32>
    %384 = stablehlo.multiply %383, %56 : tensor<16x32xf32>
    %385 = stablehlo.add %381, %384 : tensor<16x32xf32>
    %cst_91 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %386 = stablehlo.reduce(%385 init: %cst_91) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %387 = stablehlo.reshape %386 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %388 = stablehlo.reduce(%387 init: %cst_92) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %389 = stablehlo.dot_general %385, %47, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %390 = stablehlo.transpose %389, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %391 = stablehlo.dot_general %385, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %392 = stablehlo.add %368, %391 : tensor<16x16xf32>
    %393 = stablehlo.dot_general %392, %45, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %394 = stablehlo.transpose %393, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %395 = stablehlo.dot_general %392, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %396 = stablehlo.multiply %27, %395 : tensor<16x32xf32>
    %397 = stablehlo.multiply %395, %44 : tensor<16x32xf32>
    %cst_93 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %398 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %399 = stablehlo.multiply %398, %396 : tensor<16x32xf32>
    %400 = stablehlo.multiply %399, %40 : tensor<16x32xf32>
    %401 = stablehlo.multiply %400, %38 : tensor<16x32xf32>
    %402 = stablehlo.add %400, %401 : tensor<16x32xf32>
    %cst_94 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %403 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %404 = stablehlo.multiply %403, %402 : tensor<16x32xf32>
    %405 = stablehlo.add %397, %404 : tensor<16x32xf32>
    %cst_95 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %406 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %407 = stablehlo.multiply %406, %404 : tensor<16x32xf32>
    %408 = stablehlo.multiply %407, %32 : tensor<16x32xf32>
    %409 = stablehlo.add %405, %408 : tensor<16x32xf32>
    %cst_96 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %410 = stablehlo.reduce(%409 init: %cst_96) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %411 = stablehlo.reshape %410 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_97 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %412 = stablehlo.reduce(%411 init: %cst_97) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %413 = stablehlo.dot_general %409, %23, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %414 = stablehlo.transpose %413, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %415 = stablehlo.dot_general %409, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x16xf32>
    %416 = stablehlo.add %392, %415 : tensor<16x16xf32>
    %417 = stablehlo.dot_general %416, %21, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    %418 = stablehlo.transpose %417, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %419 = stablehlo.dot_general %416, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<32x16xf32>) -> tensor<16x32xf32>
    %420 = stablehlo.multiply %3, %419 : tensor<16x32xf32>
    %421 = stablehlo.multiply %419, %20 : tensor<16x32xf32>
    %cst_98 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %422 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %423 = stablehlo.multiply %422, %420 : tensor<16x32xf32>
    %424 = stablehlo.multiply %423, %16 : tensor<16x32xf32>
    %425 = stablehlo.multiply %424, %14 : tensor<16x32xf32>
    %426 = stablehlo.add %424, %425 : tensor<16x32xf32>
    %cst_99 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %427 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %428 = stablehlo.multiply %427, %426 : tensor<16x32xf32>
    %429 = stablehlo.add %421, %428 : tensor<16x32xf32>
    %cst_100 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %430 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %431 = stablehlo.multiply %430, %428 : tensor<16x32xf32>
    %432 = stablehlo.multiply %431, %8 : tensor<16x32xf32>
    %433 = stablehlo.add %429, %432 : tensor<16x32xf32>
    %cst_101 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %434 = stablehlo.reduce(%433 init: %cst_101) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
    %435 = stablehlo.reshape %434 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_102 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %436 = stablehlo.reduce(%435 init: %cst_102) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %437 = stablehlo.dot_general %433, %arg81, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %438 = stablehlo.transpose %437, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %cst_103 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %439 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %440 = stablehlo.multiply %439, %arg27 : tensor<16x32xf32>
    %cst_104 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %441 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %442 = stablehlo.multiply %441, %438 : tensor<16x32xf32>
    %443 = stablehlo.add %440, %442 : tensor<16x32xf32>
    %cst_105 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %444 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %445 = stablehlo.multiply %444, %arg28 : tensor<32xf32>
    %cst_106 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %446 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %447 = stablehlo.multiply %446, %436 : tensor<32xf32>
    %448 = stablehlo.add %445, %447 : tensor<32xf32>
    %cst_107 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %449 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %450 = stablehlo.multiply %449, %arg29 : tensor<32x16xf32>
    %cst_108 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %451 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %452 = stablehlo.multiply %451, %418 : tensor<32x16xf32>
    %453 = stablehlo.add %450, %452 : tensor<32x16xf32>
    %cst_109 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %454 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %455 = stablehlo.multiply %454, %arg30 : tensor<16x32xf32>
    %cst_110 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %456 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %457 = stablehlo.multiply %456, %414 : tensor<16x32xf32>
    %458 = stablehlo.add %455, %457 : tensor<16x32xf32>
    %cst_111 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %459 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %460 = stablehlo.multiply %459, %arg31 : tensor<32xf32>
    %cst_112 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %461 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %462 = stablehlo.multiply %461, %412 : tensor<32xf32>
    %463 = stablehlo.add %460, %462 : tensor<32xf32>
    %cst_113 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %464 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %465 = stablehlo.multiply %464, %arg32 : tensor<32x16xf32>
    %cst_114 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %466 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %467 = stablehlo.multiply %466, %394 : tensor<32x16xf32>
    %468 = stablehlo.add %465, %467 : tensor<32x16xf32>
    %cst_115 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %469 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %470 = stablehlo.multiply %469, %arg33 : tensor<16x32xf32>
    %cst_116 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %471 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %472 = stablehlo.multiply %471, %390 : tensor<16x32xf32>
    %473 = stablehlo.add %470, %472 : tensor<16x32xf32>
    %cst_117 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %474 = stablehlo.broadcast_in_dim %cst_117, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %475 = stablehlo.multiply %474, %arg34 : tensor<32xf32>
    %cst_118 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %476 = stablehlo.broadcast_in_dim %cst_118, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %477 = stablehlo.multiply %476, %388 : tensor<32xf32>
    %478 = stablehlo.add %475, %477 : tensor<32xf32>
    %cst_119 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %479 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %480 = stablehlo.multiply %479, %arg35 : tensor<32x16xf32>
    %cst_120 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %481 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %482 = stablehlo.multiply %481, %370 : tensor<32x16xf32>
    %483 = stablehlo.add %480, %482 : tensor<32x16xf32>
    %cst_121 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %484 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %485 = stablehlo.multiply %484, %arg36 : tensor<16x32xf32>
    %cst_122 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %486 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %487 = stablehlo.multiply %486, %366 : tensor<16x32xf32>
    %488 = stablehlo.add %485, %487 : tensor<16x32xf32>
    %cst_123 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %489 = stablehlo.broadcast_in_dim %cst_123, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %490 = stablehlo.multiply %489, %arg37 : tensor<32xf32>
    %cst_124 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %491 = stablehlo.broadcast_in_dim %cst_124, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %492 = stablehlo.multiply %491, %364 : tensor<32xf32>
    %493 = stablehlo.add %490, %492 : tensor<32xf32>
    %cst_125 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %494 = stablehlo.broadcast_in_dim %cst_125, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %495 = stablehlo.multiply %494, %arg38 : tensor<32x16xf32>
    %cst_126 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %496 = stablehlo.broadcast_in_dim %cst_126, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %497 = stablehlo.multiply %496, %346 : tensor<32x16xf32>
    %498 = stablehlo.add %495, %497 : tensor<32x16xf32>
    %cst_127 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %499 = stablehlo.broadcast_in_dim %cst_127, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %500 = stablehlo.multiply %499, %arg39 : tensor<16x32xf32>
    %cst_128 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %501 = stablehlo.broadcast_in_dim %cst_128, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %502 = stablehlo.multiply %501, %342 : tensor<16x32xf32>
    %503 = stablehlo.add %500, %502 : tensor<16x32xf32>
    %cst_129 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %504 = stablehlo.broadcast_in_dim %cst_129, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %505 = stablehlo.multiply %504, %arg40 : tensor<32xf32>
    %cst_130 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %506 = stablehlo.broadcast_in_dim %cst_130, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %507 = stablehlo.multiply %506, %340 : tensor<32xf32>
    %508 = stablehlo.add %505, %507 : tensor<32xf32>
    %cst_131 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %509 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %510 = stablehlo.multiply %509, %arg41 : tensor<32x16xf32>
    %cst_132 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %511 = stablehlo.broadcast_in_dim %cst_132, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %512 = stablehlo.multiply %511, %322 : tensor<32x16xf32>
    %513 = stablehlo.add %510, %512 : tensor<32x16xf32>
    %cst_133 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %514 = stablehlo.broadcast_in_dim %cst_133, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %515 = stablehlo.multiply %514, %arg42 : tensor<16x32xf32>
    %cst_134 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %516 = stablehlo.broadcast_in_dim %cst_134, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %517 = stablehlo.multiply %516, %318 : tensor<16x32xf32>
    %518 = stablehlo.add %515, %517 : tensor<16x32xf32>
    %cst_135 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %519 = stablehlo.broadcast_in_dim %cst_135, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %520 = stablehlo.multiply %519, %arg43 : tensor<32xf32>
    %cst_136 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %521 = stablehlo.broadcast_in_dim %cst_136, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %522 = stablehlo.multiply %521, %316 : tensor<32xf32>
    %523 = stablehlo.add %520, %522 : tensor<32xf32>
    %cst_137 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %524 = stablehlo.broadcast_in_dim %cst_137, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %525 = stablehlo.multiply %524, %arg44 : tensor<32x16xf32>
    %cst_138 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %526 = stablehlo.broadcast_in_dim %cst_138, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %527 = stablehlo.multiply %526, %298 : tensor<32x16xf32>
    %528 = stablehlo.add %525, %527 : tensor<32x16xf32>
    %cst_139 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %529 = stablehlo.broadcast_in_dim %cst_139, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %530 = stablehlo.multiply %529, %arg45 : tensor<16x32xf32>
    %cst_140 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %531 = stablehlo.broadcast_in_dim %cst_140, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %532 = stablehlo.multiply %531, %294 : tensor<16x32xf32>
    %533 = stablehlo.add %530, %532 : tensor<16x32xf32>
    %cst_141 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %534 = stablehlo.broadcast_in_dim %cst_141, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %535 = stablehlo.multiply %534, %arg46 : tensor<32xf32>
    %cst_142 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %536 = stablehlo.broadcast_in_dim %cst_142, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %537 = stablehlo.multiply %536, %292 : tensor<32xf32>
    %538 = stablehlo.add %535, %537 : tensor<32xf32>
    %cst_143 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %539 = stablehlo.broadcast_in_dim %cst_143, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %540 = stablehlo.multiply %539, %arg47 : tensor<32x16xf32>
    %cst_144 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %541 = stablehlo.broadcast_in_dim %cst_144, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %542 = stablehlo.multiply %541, %274 : tensor<32x16xf32>
    %543 = stablehlo.add %540, %542 : tensor<32x16xf32>
    %cst_145 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %544 = stablehlo.broadcast_in_dim %cst_145, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %545 = stablehlo.multiply %544, %arg48 : tensor<16x32xf32>
    %cst_146 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %546 = stablehlo.broadcast_in_dim %cst_146, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %547 = stablehlo.multiply %546, %270 : tensor<16x32xf32>
    %548 = stablehlo.add %545, %547 : tensor<16x32xf32>
    %cst_147 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %549 = stablehlo.broadcast_in_dim %cst_147, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %550 = stablehlo.multiply %549, %arg49 : tensor<32xf32>
    %cst_148 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %551 = stablehlo.broadcast_in_dim %cst_148, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %552 = stablehlo.multiply %551, %268 : tensor<32xf32>
    %553 = stablehlo.add %550, %552 : tensor<32xf32>
    %cst_149 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %554 = stablehlo.broadcast_in_dim %cst_149, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %555 = stablehlo.multiply %554, %arg50 : tensor<32x16xf32>
    %cst_150 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %556 = stablehlo.broadcast_in_dim %cst_150, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %557 = stablehlo.multiply %556, %250 : tensor<32x16xf32>
    %558 = stablehlo.add %555, %557 : tensor<32x16xf32>
    %cst_151 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %559 = stablehlo.broadcast_in_dim %cst_151, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %560 = stablehlo.multiply %559, %arg51 : tensor<16x32xf32>
    %cst_152 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %561 = stablehlo.broadcast_in_dim %cst_152, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %562 = stablehlo.multiply %561, %246 : tensor<16x32xf32>
    %563 = stablehlo.add %560, %562 : tensor<16x32xf32>
    %cst_153 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %564 = stablehlo.broadcast_in_dim %cst_153, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %565 = stablehlo.multiply %564, %arg52 : tensor<32xf32>
    %cst_154 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %566 = stablehlo.broadcast_in_dim %cst_154, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %567 = stablehlo.multiply %566, %244 : tensor<32xf32>
    %568 = stablehlo.add %565, %567 : tensor<32xf32>
    %cst_155 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %569 = stablehlo.broadcast_in_dim %cst_155, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %570 = stablehlo.multiply %569, %arg53 : tensor<32x16xf32>
    %cst_156 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %571 = stablehlo.broadcast_in_dim %cst_156, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %572 = stablehlo.multiply %571, %226 : tensor<32x16xf32>
    %573 = stablehlo.add %570, %572 : tensor<32x16xf32>
    %cst_157 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %574 = stablehlo.broadcast_in_dim %cst_157, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %575 = stablehlo.multiply %574, %arg54 : tensor<16x32xf32>
    %cst_158 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %576 = stablehlo.broadcast_in_dim %cst_158, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %577 = stablehlo.multiply %576, %438 : tensor<16x32xf32>
    %578 = stablehlo.multiply %577, %438 : tensor<16x32xf32>
    %579 = stablehlo.add %575, %578 : tensor<16x32xf32>
    %cst_159 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %580 = stablehlo.broadcast_in_dim %cst_159, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %581 = stablehlo.multiply %580, %arg55 : tensor<32xf32>
    %cst_160 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %582 = stablehlo.broadcast_in_dim %cst_160, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %583 = stablehlo.multiply %582, %436 : tensor<32xf32>
    %584 = stablehlo.multiply %583, %436 : tensor<32xf32>
    %585 = stablehlo.add %581, %584 : tensor<32xf32>
    %cst_161 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %586 = stablehlo.broadcast_in_dim %cst_161, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %587 = stablehlo.multiply %586, %arg56 : tensor<32x16xf32>
    %cst_162 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %588 = stablehlo.broadcast_in_dim %cst_162, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %589 = stablehlo.multiply %588, %418 : tensor<32x16xf32>
    %590 = stablehlo.multiply %589, %418 : tensor<32x16xf32>
    %591 = stablehlo.add %587, %590 : tensor<32x16xf32>
    %cst_163 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %592 = stablehlo.broadcast_in_dim %cst_163, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %593 = stablehlo.multiply %592, %arg57 : tensor<16x32xf32>
    %cst_164 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %594 = stablehlo.broadcast_in_dim %cst_164, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %595 = stablehlo.multiply %594, %414 : tensor<16x32xf32>
    %596 = stablehlo.multiply %595, %414 : tensor<16x32xf32>
    %597 = stablehlo.add %593, %596 : tensor<16x32xf32>
    %cst_165 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %598 = stablehlo.broadcast_in_dim %cst_165, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %599 = stablehlo.multiply %598, %arg58 : tensor<32xf32>
    %cst_166 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %600 = stablehlo.broadcast_in_dim %cst_166, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %601 = stablehlo.multiply %600, %412 : tensor<32xf32>
    %602 = stablehlo.multiply %601, %412 : tensor<32xf32>
    %603 = stablehlo.add %599, %602 : tensor<32xf32>
    %cst_167 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %604 = stablehlo.broadcast_in_dim %cst_167, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %605 = stablehlo.multiply %604, %arg59 : tensor<32x16xf32>
    %cst_168 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %606 = stablehlo.broadcast_in_dim %cst_168, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %607 = stablehlo.multiply %606, %394 : tensor<32x16xf32>
    %608 = stablehlo.multiply %607, %394 : tensor<32x16xf32>
    %609 = stablehlo.add %605, %608 : tensor<32x16xf32>
    %cst_169 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %610 = stablehlo.broadcast_in_dim %cst_169, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %611 = stablehlo.multiply %610, %arg60 : tensor<16x32xf32>
    %cst_170 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %612 = stablehlo.broadcast_in_dim %cst_170, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %613 = stablehlo.multiply %612, %390 : tensor<16x32xf32>
    %614 = stablehlo.multiply %613, %390 : tensor<16x32xf32>
    %615 = stablehlo.add %611, %614 : tensor<16x32xf32>
    %cst_171 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %616 = stablehlo.broadcast_in_dim %cst_171, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %617 = stablehlo.multiply %616, %arg61 : tensor<32xf32>
    %cst_172 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %618 = stablehlo.broadcast_in_dim %cst_172, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %619 = stablehlo.multiply %618, %388 : tensor<32xf32>
    %620 = stablehlo.multiply %619, %388 : tensor<32xf32>
    %621 = stablehlo.add %617, %620 : tensor<32xf32>
    %cst_173 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %622 = stablehlo.broadcast_in_dim %cst_173, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %623 = stablehlo.multiply %622, %arg62 : tensor<32x16xf32>
    %cst_174 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %624 = stablehlo.broadcast_in_dim %cst_174, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %625 = stablehlo.multiply %624, %370 : tensor<32x16xf32>
    %626 = stablehlo.multiply %625, %370 : tensor<32x16xf32>
    %627 = stablehlo.add %623, %626 : tensor<32x16xf32>
    %cst_175 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %628 = stablehlo.broadcast_in_dim %cst_175, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %629 = stablehlo.multiply %628, %arg63 : tensor<16x32xf32>
    %cst_176 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %630 = stablehlo.broadcast_in_dim %cst_176, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %631 = stablehlo.multiply %630, %366 : tensor<16x32xf32>
    %632 = stablehlo.multiply %631, %366 : tensor<16x32xf32>
    %633 = stablehlo.add %629, %632 : tensor<16x32xf32>
    %cst_177 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %634 = stablehlo.broadcast_in_dim %cst_177, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %635 = stablehlo.multiply %634, %arg64 : tensor<32xf32>
    %cst_178 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %636 = stablehlo.broadcast_in_dim %cst_178, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %637 = stablehlo.multiply %636, %364 : tensor<32xf32>
    %638 = stablehlo.multiply %637, %364 : tensor<32xf32>
    %639 = stablehlo.add %635, %638 : tensor<32xf32>
    %cst_179 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %640 = stablehlo.broadcast_in_dim %cst_179, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %641 = stablehlo.multiply %640, %arg65 : tensor<32x16xf32>
    %cst_180 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %642 = stablehlo.broadcast_in_dim %cst_180, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %643 = stablehlo.multiply %642, %346 : tensor<32x16xf32>
    %644 = stablehlo.multiply %643, %346 : tensor<32x16xf32>
    %645 = stablehlo.add %641, %644 : tensor<32x16xf32>
    %cst_181 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %646 = stablehlo.broadcast_in_dim %cst_181, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %647 = stablehlo.multiply %646, %arg66 : tensor<16x32xf32>
    %cst_182 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %648 = stablehlo.broadcast_in_dim %cst_182, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %649 = stablehlo.multiply %648, %342 : tensor<16x32xf32>
    %650 = stablehlo.multiply %649, %342 : tensor<16x32xf32>
    %651 = stablehlo.add %647, %650 : tensor<16x32xf32>
    %cst_183 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %652 = stablehlo.broadcast_in_dim %cst_183, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %653 = stablehlo.multiply %652, %arg67 : tensor<32xf32>
    %cst_184 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %654 = stablehlo.broadcast_in_dim %cst_184, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %655 = stablehlo.multiply %654, %340 : tensor<32xf32>
    %656 = stablehlo.multiply %655, %340 : tensor<32xf32>
    %657 = stablehlo.add %653, %656 : tensor<32xf32>
    %cst_185 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %658 = stablehlo.broadcast_in_dim %cst_185, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %659 = stablehlo.multiply %658, %arg68 : tensor<32x16xf32>
    %cst_186 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %660 = stablehlo.broadcast_in_dim %cst_186, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %661 = stablehlo.multiply %660, %322 : tensor<32x16xf32>
    %662 = stablehlo.multiply %661, %322 : tensor<32x16xf32>
    %663 = stablehlo.add %659, %662 : tensor<32x16xf32>
    %cst_187 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %664 = stablehlo.broadcast_in_dim %cst_187, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %665 = stablehlo.multiply %664, %arg69 : tensor<16x32xf32>
    %cst_188 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %666 = stablehlo.broadcast_in_dim %cst_188, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %667 = stablehlo.multiply %666, %318 : tensor<16x32xf32>
    %668 = stablehlo.multiply %667, %318 : tensor<16x32xf32>
    %669 = stablehlo.add %665, %668 : tensor<16x32xf32>
    %cst_189 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %670 = stablehlo.broadcast_in_dim %cst_189, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %671 = stablehlo.multiply %670, %arg70 : tensor<32xf32>
    %cst_190 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %672 = stablehlo.broadcast_in_dim %cst_190, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %673 = stablehlo.multiply %672, %316 : tensor<32xf32>
    %674 = stablehlo.multiply %673, %316 : tensor<32xf32>
    %675 = stablehlo.add %671, %674 : tensor<32xf32>
    %cst_191 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %676 = stablehlo.broadcast_in_dim %cst_191, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %677 = stablehlo.multiply %676, %arg71 : tensor<32x16xf32>
    %cst_192 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %678 = stablehlo.broadcast_in_dim %cst_192, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %679 = stablehlo.multiply %678, %298 : tensor<32x16xf32>
    %680 = stablehlo.multiply %679, %298 : tensor<32x16xf32>
    %681 = stablehlo.add %677, %680 : tensor<32x16xf32>
    %cst_193 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %682 = stablehlo.broadcast_in_dim %cst_193, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %683 = stablehlo.multiply %682, %arg72 : tensor<16x32xf32>
    %cst_194 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %684 = stablehlo.broadcast_in_dim %cst_194, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %685 = stablehlo.multiply %684, %294 : tensor<16x32xf32>
    %686 = stablehlo.multiply %685, %294 : tensor<16x32xf32>
    %687 = stablehlo.add %683, %686 : tensor<16x32xf32>
    %cst_195 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %688 = stablehlo.broadcast_in_dim %cst_195, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %689 = stablehlo.multiply %688, %arg73 : tensor<32xf32>
    %cst_196 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %690 = stablehlo.broadcast_in_dim %cst_196, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %691 = stablehlo.multiply %690, %292 : tensor<32xf32>
    %692 = stablehlo.multiply %691, %292 : tensor<32xf32>
    %693 = stablehlo.add %689, %692 : tensor<32xf32>
    %cst_197 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %694 = stablehlo.broadcast_in_dim %cst_197, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %695 = stablehlo.multiply %694, %arg74 : tensor<32x16xf32>
    %cst_198 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %696 = stablehlo.broadcast_in_dim %cst_198, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %697 = stablehlo.multiply %696, %274 : tensor<32x16xf32>
    %698 = stablehlo.multiply %697, %274 : tensor<32x16xf32>
    %699 = stablehlo.add %695, %698 : tensor<32x16xf32>
    %cst_199 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %700 = stablehlo.broadcast_in_dim %cst_199, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %701 = stablehlo.multiply %700, %arg75 : tensor<16x32xf32>
    %cst_200 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %702 = stablehlo.broadcast_in_dim %cst_200, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %703 = stablehlo.multiply %702, %270 : tensor<16x32xf32>
    %704 = stablehlo.multiply %703, %270 : tensor<16x32xf32>
    %705 = stablehlo.add %701, %704 : tensor<16x32xf32>
    %cst_201 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %706 = stablehlo.broadcast_in_dim %cst_201, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %707 = stablehlo.multiply %706, %arg76 : tensor<32xf32>
    %cst_202 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %708 = stablehlo.broadcast_in_dim %cst_202, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %709 = stablehlo.multiply %708, %268 : tensor<32xf32>
    %710 = stablehlo.multiply %709, %268 : tensor<32xf32>
    %711 = stablehlo.add %707, %710 : tensor<32xf32>
    %cst_203 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %712 = stablehlo.broadcast_in_dim %cst_203, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %713 = stablehlo.multiply %712, %arg77 : tensor<32x16xf32>
    %cst_204 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %714 = stablehlo.broadcast_in_dim %cst_204, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %715 = stablehlo.multiply %714, %250 : tensor<32x16xf32>
    %716 = stablehlo.multiply %715, %250 : tensor<32x16xf32>
    %717 = stablehlo.add %713, %716 : tensor<32x16xf32>
    %cst_205 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %718 = stablehlo.broadcast_in_dim %cst_205, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %719 = stablehlo.multiply %718, %arg78 : tensor<16x32xf32>
    %cst_206 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %720 = stablehlo.broadcast_in_dim %cst_206, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %721 = stablehlo.multiply %720, %246 : tensor<16x32xf32>
    %722 = stablehlo.multiply %721, %246 : tensor<16x32xf32>
    %723 = stablehlo.add %719, %722 : tensor<16x32xf32>
    %cst_207 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %724 = stablehlo.broadcast_in_dim %cst_207, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %725 = stablehlo.multiply %724, %arg79 : tensor<32xf32>
    %cst_208 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %726 = stablehlo.broadcast_in_dim %cst_208, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %727 = stablehlo.multiply %726, %244 : tensor<32xf32>
    %728 = stablehlo.multiply %727, %244 : tensor<32xf32>
    %729 = stablehlo.add %725, %728 : tensor<32xf32>
    %cst_209 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %730 = stablehlo.broadcast_in_dim %cst_209, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %731 = stablehlo.multiply %730, %arg80 : tensor<32x16xf32>
    %cst_210 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %732 = stablehlo.broadcast_in_dim %cst_210, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %733 = stablehlo.multiply %732, %226 : tensor<32x16xf32>
    %734 = stablehlo.multiply %733, %226 : tensor<32x16xf32>
    %735 = stablehlo.add %731, %734 : tensor<32x16xf32>
    %cst_211 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %736 = stablehlo.broadcast_in_dim %cst_211, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %737 = stablehlo.multiply %736, %443 : tensor<16x32xf32>
    %738 = stablehlo.sqrt %579 : tensor<16x32xf32>
    %cst_212 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %739 = stablehlo.broadcast_in_dim %cst_212, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %740 = stablehlo.add %738, %739 : tensor<16x32xf32>
    %741 = stablehlo.divide %737, %740 : tensor<16x32xf32>
    %742 = stablehlo.subtract %arg0, %741 : tensor<16x32xf32>
    %cst_213 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %743 = stablehlo.broadcast_in_dim %cst_213, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %744 = stablehlo.multiply %743, %448 : tensor<32xf32>
    %745 = stablehlo.sqrt %585 : tensor<32xf32>
    %cst_214 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %746 = stablehlo.broadcast_in_dim %cst_214, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %747 = stablehlo.add %745, %746 : tensor<32xf32>
    %748 = stablehlo.divide %744, %747 : tensor<32xf32>
    %749 = stablehlo.subtract %arg1, %748 : tensor<32xf32>
    %cst_215 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %750 = stablehlo.broadcast_in_dim %cst_215, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %751 = stablehlo.multiply %750, %453 : tensor<32x16xf32>
    %752 = stablehlo.sqrt %591 : tensor<32x16xf32>
    %cst_216 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %753 = stablehlo.broadcast_in_dim %cst_216, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %754 = stablehlo.add %752, %753 : tensor<32x16xf32>
    %755 = stablehlo.divide %751, %754 : tensor<32x16xf32>
    %756 = stablehlo.subtract %arg2, %755 : tensor<32x16xf32>
    %cst_217 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %757 = stablehlo.broadcast_in_dim %cst_217, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %758 = stablehlo.multiply %757, %458 : tensor<16x32xf32>
    %759 = stablehlo.sqrt %597 : tensor<16x32xf32>
    %cst_218 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %760 = stablehlo.broadcast_in_dim %cst_218, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %761 = stablehlo.add %759, %760 : tensor<16x32xf32>
    %762 = stablehlo.divide %758, %761 : tensor<16x32xf32>
    %763 = stablehlo.subtract %arg3, %762 : tensor<16x32xf32>
    %cst_219 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %764 = stablehlo.broadcast_in_dim %cst_219, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %765 = stablehlo.multiply %764, %463 : tensor<32xf32>
    %766 = stablehlo.sqrt %603 : tensor<32xf32>
    %cst_220 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %767 = stablehlo.broadcast_in_dim %cst_220, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %768 = stablehlo.add %766, %767 : tensor<32xf32>
    %769 = stablehlo.divide %765, %768 : tensor<32xf32>
    %770 = stablehlo.subtract %arg4, %769 : tensor<32xf32>
    %cst_221 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %771 = stablehlo.broadcast_in_dim %cst_221, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %772 = stablehlo.multiply %771, %468 : tensor<32x16xf32>
    %773 = stablehlo.sqrt %609 : tensor<32x16xf32>
    %cst_222 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %774 = stablehlo.broadcast_in_dim %cst_222, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %775 = stablehlo.add %773, %774 : tensor<32x16xf32>
    %776 = stablehlo.divide %772, %775 : tensor<32x16xf32>
    %777 = stablehlo.subtract %arg5, %776 : tensor<32x16xf32>
    %cst_223 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %778 = stablehlo.broadcast_in_dim %cst_223, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %779 = stablehlo.multiply %778, %473 : tensor<16x32xf32>
    %780 = stablehlo.sqrt %615 : tensor<16x32xf32>
    %cst_224 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %781 = stablehlo.broadcast_in_dim %cst_224, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %782 = stablehlo.add %780, %781 : tensor<16x32xf32>
    %783 = stablehlo.divide %779, %782 : tensor<16x32xf32>
    %784 = stablehlo.subtract %arg6, %783 : tensor<16x32xf32>
    %cst_225 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %785 = stablehlo.broadcast_in_dim %cst_225, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %786 = stablehlo.multiply %785, %478 : tensor<32xf32>
    %787 = stablehlo.sqrt %621 : tensor<32xf32>
    %cst_226 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %788 = stablehlo.broadcast_in_dim %cst_226, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %789 = stablehlo.add %787, %788 : tensor<32xf32>
    %790 = stablehlo.divide %786, %789 : tensor<32xf32>
    %791 = stablehlo.subtract %arg7, %790 : tensor<32xf32>
    %cst_227 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %792 = stablehlo.broadcast_in_dim %cst_227, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %793 = stablehlo.multiply %792, %483 : tensor<32x16xf32>
    %794 = stablehlo.sqrt %627 : tensor<32x16xf32>
    %cst_228 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %795 = stablehlo.broadcast_in_dim %cst_228, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %796 = stablehlo.add %794, %795 : tensor<32x16xf32>
    %797 = stablehlo.divide %793, %796 : tensor<32x16xf32>
    %798 = stablehlo.subtract %arg8, %797 : tensor<32x16xf32>
    %cst_229 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %799 = stablehlo.broadcast_in_dim %cst_229, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %800 = stablehlo.multiply %799, %488 : tensor<16x32xf32>
    %801 = stablehlo.sqrt %633 : tensor<16x32xf32>
    %cst_230 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %802 = stablehlo.broadcast_in_dim %cst_230, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %803 = stablehlo.add %801, %802 : tensor<16x32xf32>
    %804 = stablehlo.divide %800, %803 : tensor<16x32xf32>
    %805 = stablehlo.subtract %arg9, %804 : tensor<16x32xf32>
    %cst_231 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %806 = stablehlo.broadcast_in_dim %cst_231, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %807 = stablehlo.multiply %806, %493 : tensor<32xf32>
    %808 = stablehlo.sqrt %639 : tensor<32xf32>
    %cst_232 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %809 = stablehlo.broadcast_in_dim %cst_232, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %810 = stablehlo.add %808, %809 : tensor<32xf32>
    %811 = stablehlo.divide %807, %810 : tensor<32xf32>
    %812 = stablehlo.subtract %arg10, %811 : tensor<32xf32>
    %cst_233 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %813 = stablehlo.broadcast_in_dim %cst_233, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %814 = stablehlo.multiply %813, %498 : tensor<32x16xf32>
    %815 = stablehlo.sqrt %645 : tensor<32x16xf32>
    %cst_234 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %816 = stablehlo.broadcast_in_dim %cst_234, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %817 = stablehlo.add %815, %816 : tensor<32x16xf32>
    %818 = stablehlo.divide %814, %817 : tensor<32x16xf32>
    %819 = stablehlo.subtract %arg11, %818 : tensor<32x16xf32>
    %cst_235 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %820 = stablehlo.broadcast_in_dim %cst_235, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %821 = stablehlo.multiply %820, %503 : tensor<16x32xf32>
    %822 = stablehlo.sqrt %651 : tensor<16x32xf32>
    %cst_236 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %823 = stablehlo.broadcast_in_dim %cst_236, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %824 = stablehlo.add %822, %823 : tensor<16x32xf32>
    %825 = stablehlo.divide %821, %824 : tensor<16x32xf32>
    %826 = stablehlo.subtract %arg12, %825 : tensor<16x32xf32>
    %cst_237 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %827 = stablehlo.broadcast_in_dim %cst_237, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %828 = stablehlo.multiply %827, %508 : tensor<32xf32>
    %829 = stablehlo.sqrt %657 : tensor<32xf32>
    %cst_238 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %830 = stablehlo.broadcast_in_dim %cst_238, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %831 = stablehlo.add %829, %830 : tensor<32xf32>
    %832 = stablehlo.divide %828, %831 : tensor<32xf32>
    %833 = stablehlo.subtract %arg13, %832 : tensor<32xf32>
    %cst_239 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %834 = stablehlo.broadcast_in_dim %cst_239, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %835 = stablehlo.multiply %834, %513 : tensor<32x16xf32>
    %836 = stablehlo.sqrt %663 : tensor<32x16xf32>
    %cst_240 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %837 = stablehlo.broadcast_in_dim %cst_240, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %838 = stablehlo.add %836, %837 : tensor<32x16xf32>
    %839 = stablehlo.divide %835, %838 : tensor<32x16xf32>
    %840 = stablehlo.subtract %arg14, %839 : tensor<32x16xf32>
    %cst_241 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %841 = stablehlo.broadcast_in_dim %cst_241, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %842 = stablehlo.multiply %841, %518 : tensor<16x32xf32>
    %843 = stablehlo.sqrt %669 : tensor<16x32xf32>
    %cst_242 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %844 = stablehlo.broadcast_in_dim %cst_242, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %845 = stablehlo.add %843, %844 : tensor<16x32xf32>
    %846 = stablehlo.divide %842, %845 : tensor<16x32xf32>
    %847 = stablehlo.subtract %arg15, %846 : tensor<16x32xf32>
    %cst_243 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %848 = stablehlo.broadcast_in_dim %cst_243, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %849 = stablehlo.multiply %848, %523 : tensor<32xf32>
    %850 = stablehlo.sqrt %675 : tensor<32xf32>
    %cst_244 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %851 = stablehlo.broadcast_in_dim %cst_244, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %852 = stablehlo.add %850, %851 : tensor<32xf32>
    %853 = stablehlo.divide %849, %852 : tensor<32xf32>
    %854 = stablehlo.subtract %arg16, %853 : tensor<32xf32>
    %cst_245 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %855 = stablehlo.broadcast_in_dim %cst_245, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %856 = stablehlo.multiply %855, %528 : tensor<32x16xf32>
    %857 = stablehlo.sqrt %681 : tensor<32x16xf32>
    %cst_246 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %858 = stablehlo.broadcast_in_dim %cst_246, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %859 = stablehlo.add %857, %858 : tensor<32x16xf32>
    %860 = stablehlo.divide %856, %859 : tensor<32x16xf32>
    %861 = stablehlo.subtract %arg17, %860 : tensor<32x16xf32>
    %cst_247 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %862 = stablehlo.broadcast_in_dim %cst_247, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %863 = stablehlo.multiply %862, %533 : tensor<16x32xf32>
    %864 = stablehlo.sqrt %687 : tensor<16x32xf32>
    %cst_248 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %865 = stablehlo.broadcast_in_dim %cst_248, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %866 = stablehlo.add %864, %865 : tensor<16x32xf32>
    %867 = stablehlo.divide %863, %866 : tensor<16x32xf32>
    %868 = stablehlo.subtract %arg18, %867 : tensor<16x32xf32>
    %cst_249 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %869 = stablehlo.broadcast_in_dim %cst_249, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %870 = stablehlo.multiply %869, %538 : tensor<32xf32>
    %871 = stablehlo.sqrt %693 : tensor<32xf32>
    %cst_250 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %872 = stablehlo.broadcast_in_dim %cst_250, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %873 = stablehlo.add %871, %872 : tensor<32xf32>
    %874 = stablehlo.divide %870, %873 : tensor<32xf32>
    %875 = stablehlo.subtract %arg19, %874 : tensor<32xf32>
    %cst_251 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %876 = stablehlo.broadcast_in_dim %cst_251, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %877 = stablehlo.multiply %876, %543 : tensor<32x16xf32>
    %878 = stablehlo.sqrt %699 : tensor<32x16xf32>
    %cst_252 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %879 = stablehlo.broadcast_in_dim %cst_252, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %880 = stablehlo.add %878, %879 : tensor<32x16xf32>
    %881 = stablehlo.divide %877, %880 : tensor<32x16xf32>
    %882 = stablehlo.subtract %arg20, %881 : tensor<32x16xf32>
    %cst_253 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %883 = stablehlo.broadcast_in_dim %cst_253, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %884 = stablehlo.multiply %883, %548 : tensor<16x32xf32>
    %885 = stablehlo.sqrt %705 : tensor<16x32xf32>
    %cst_254 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %886 = stablehlo.broadcast_in_dim %cst_254, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %887 = stablehlo.add %885, %886 : tensor<16x32xf32>
    %888 = stablehlo.divide %884, %887 : tensor<16x32xf32>
    %889 = stablehlo.subtract %arg21, %888 : tensor<16x32xf32>
    %cst_255 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %890 = stablehlo.broadcast_in_dim %cst_255, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %891 = stablehlo.multiply %890, %553 : tensor<32xf32>
    %892 = stablehlo.sqrt %711 : tensor<32xf32>
    %cst_256 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %893 = stablehlo.broadcast_in_dim %cst_256, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %894 = stablehlo.add %892, %893 : tensor<32xf32>
    %895 = stablehlo.divide %891, %894 : tensor<32xf32>
    %896 = stablehlo.subtract %arg22, %895 : tensor<32xf32>
    %cst_257 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %897 = stablehlo.broadcast_in_dim %cst_257, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %898 = stablehlo.multiply %897, %558 : tensor<32x16xf32>
    %899 = stablehlo.sqrt %717 : tensor<32x16xf32>
    %cst_258 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %900 = stablehlo.broadcast_in_dim %cst_258, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %901 = stablehlo.add %899, %900 : tensor<32x16xf32>
    %902 = stablehlo.divide %898, %901 : tensor<32x16xf32>
    %903 = stablehlo.subtract %arg23, %902 : tensor<32x16xf32>
    %cst_259 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %904 = stablehlo.broadcast_in_dim %cst_259, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %905 = stablehlo.multiply %904, %563 : tensor<16x32xf32>
    %906 = stablehlo.sqrt %723 : tensor<16x32xf32>
    %cst_260 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %907 = stablehlo.broadcast_in_dim %cst_260, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %908 = stablehlo.add %906, %907 : tensor<16x32xf32>
    %909 = stablehlo.divide %905, %908 : tensor<16x32xf32>
    %910 = stablehlo.subtract %arg24, %909 : tensor<16x32xf32>
    %cst_261 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %911 = stablehlo.broadcast_in_dim %cst_261, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %912 = stablehlo.multiply %911, %568 : tensor<32xf32>
    %913 = stablehlo.sqrt %729 : tensor<32xf32>
    %cst_262 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %914 = stablehlo.broadcast_in_dim %cst_262, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %915 = stablehlo.add %913, %914 : tensor<32xf32>
    %916 = stablehlo.divide %912, %915 : tensor<32xf32>
    %917 = stablehlo.subtract %arg25, %916 : tensor<32xf32>
    %cst_263 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %918 = stablehlo.broadcast_in_dim %cst_263, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %919 = stablehlo.multiply %918, %573 : tensor<32x16xf32>
    %920 = stablehlo.sqrt %735 : tensor<32x16xf32>
    %cst_264 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %921 = stablehlo.broadcast_in_dim %cst_264, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %922 = stablehlo.add %920, %921 : tensor<32x16xf32>
    %923 = stablehlo.divide %919, %922 : tensor<32x16xf32>
    %924 = stablehlo.subtract %arg26, %923 : tensor<32x16xf32>
    return %742, %749, %756, %763, %770, %777, %784, %791, %798, %805, %812, %819, %826, %833, %840, %847, %854, %861, %868, %875, %882, %889, %896, %903, %910, %917, %924, %443, %448, %453, %458, %463, %468, %473, %478, %483, %488, %493, %498, %503, %508, %513, %518, %523, %528, %533, %538, %543, %548, %553, %558, %563, %568, %573, %579, %585, %591, %597, %603, %609, %615, %621, %627, %633, %639, %645, %651, %657, %663, %669, %675, %681, %687, %693, %699, %705, %711, %717, %723, %729, %735, %221 : tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<f32>
  }
}
