/* kernelscope --help: the usage text (options.c parses what it describes). */
#include "options.h"
#include "scenes.h"

#include <stdio.h>

#include "kernels/histogram/histogram.h"
#include "kernels/matmul/matmul.h"
#include "kernels/spheres/spheres.h"

void ks_options_print_help(void)
{
    char k3[256], k2[256], names[128], cmaps[128], mems[128], mm[128], hist[128];
    ks_lvariant_list(3, k3, sizeof k3);
    ks_lvariant_list(2, k2, sizeof k2);
    ks_colormap_list(cmaps, sizeof cmaps);
    ks_spheres_mem_list(mems, sizeof mems);
    ks_matmul_variant_list(mm, sizeof mm);
    hist[0] = '\0';
    for (int v = 0, used = 0; v < KS_HIST_VARIANT_NUM && used >= 0 && (size_t)used < sizeof hist; ++v)
        used += snprintf(hist + used, sizeof hist - (size_t)used, "%s%s", v ? ", " : "", ks_hist_variant_get(v)->name);
    ks_scene_def_names("|", names, sizeof names);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [%s] [options]\n"
           "       kernelscope bench %s [options]\n\nScenes:\n",
           KS_VERSION, names, names);
    for (int i = 0; i < ks_scene_def_count(); ++i)
        printf("  %-22s  %s\n", ks_scene_def_at(i)->name, ks_scene_def_at(i)->summary);
    printf("\nLaplace scenes:\n"
           "  --grid N | NXxNY[xNZ]   grid points (default 256^3 / 1024^2 on CUDA, 64^3 / 256^2 on CPU)\n"
           "  --bc seed|hot-top|sine  boundary preset (default hot-top)\n"
           "  --kernel NAME           3D: %s; 2D: %s\n"
           "  --block BXxBY[xBZ]      thread block (default: best measured, else the kernel's own)\n"
           "  --iters K               Jacobi iterations per frame (default 20 CUDA, 2 CPU)\n"
           "  --colormap NAME         %s (default viridis)\n"
           "  --range LO:HI           fixed colour range (default: auto)\n"
           "  --dump-field FILE.npy   write the final field (float32, shape (NZ,NY,NX) or (NY,NX))\n"
           "Spheres scene:\n"
           "  --spheres N             sphere count, 1..%d (bench: a list, e.g. 16,64,256)\n"
           "  --seed S                random placement seed (default 1)\n"
           "  --scene FILE            spheres from a file: 'x y z radius r g b' per line\n"
           "  --mem NAME              %s\n"
           "Matmul scene:\n"
           "  --size M | MxNxK        C = A*B with A MxK, B KxN (M alone: square; default 2048;\n"
           "                          bench: a list, default 1024,2048,4096,8192)\n"
           "  --kernel NAME           %s (bench: a list; default all)\n"
           "  --tile T                tiled's tile: 8, 16 or 32 (default 16; bench: a list, default all)\n"
           "  --dump-field FILE.npy   write C (float32, shape (M, N))\n"
           "Histogram scene:\n"
           "  --input FILE            count the bytes of FILE (default: generated text)\n"
           "  --size BYTES            generated text size, K/M/G suffixes (default 100M; bench: a list)\n"
           "  --bins B                16-bit view of byte pairs in B bins (1..65536); with --words: word bins (bench: a list)\n"
           "  --words                 histogram of words (ASCII letter runs, FNV-1a into B bins, default 1024)\n"
           "  --kernel NAME           %s (bench: a list)\n"
           "  --seed S                generated text seed (default 1)\n"
           "All scenes:\n"
           "  --backend cuda|cpu      default cuda when a device exists, else cpu\n"
           "  --headless              render through EGL without a window (default without a display)\n"
           "  --window                insist on a window (error when there is no display)\n"
           "  --frames N              stop after N frames (headless default 60; with --serve: until stopped)\n"
           "  --serve [ADDR:]PORT     watch and steer the run from a browser: http://ADDR:PORT/ (default\n"
           "                          address 127.0.0.1; port 0 picks a free one); also /stream.mjpg,\n"
           "                          /state.json, POST /key?k=NAME, WebSocket /ws\n"
           "  --token T               with --serve: require ?token=T (any address but loopback gets a\n"
           "                          random one when not given; the URL printed at start holds it)\n"
           "  --progress              headless: a progress line every second even when stderr\n"
           "                          is not a terminal (it is shown on a terminal anyway)\n"
           "  --out DIR               where frames and CSVs go (default .; bench: results/<scene>-<time>/)\n"
           "  --save-every K          save every K-th frame and a CSV of stage timings\n"
           "  --format png|ppm        saved frame format (default png)\n"
           "  --size WxH              window / picture size (default 1280x800; spheres 1024x768)\n"
           "  --no-overlay            start with the overlay hidden (saved frames hold the bare picture)\n"
           "  --reps N                bench: timed repetitions per configuration (default 20)\n"
           "  --help, --version\n\n"
           "A flag given where it means nothing (e.g. --window to bench, --grid to spheres) is refused.\n"
           "Keys: H shows them all in the window. Ctrl-C stops after the frame (again: at once).\n"
           "Exit status: 0 ok, 1 runtime failure, 2 bad input, 130 / 143 stopped by SIGINT / SIGTERM.\n",
           k3, k2, cmaps, KS_SPHERES_MAX, mems, mm, hist);
}
