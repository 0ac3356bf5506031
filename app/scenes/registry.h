/* The scene list: one line per scene, naming the ks_scene_def its folder
 * defines (app/scenes/<scene>/). The order here does not matter: each row's
 * rank orders --help and the scene list. */
KS_SCENE(ks_scene_laplace3d)
KS_SCENE(ks_scene_laplace2d)
KS_SCENE(ks_scene_spheres)
KS_SCENE(ks_scene_matmul)
KS_SCENE(ks_scene_histogram)
KS_SCENE(ks_scene_bench_live)
KS_SCENE(ks_scene_bench_serve)
KS_SCENE(ks_scene_reduce)
