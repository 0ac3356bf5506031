/* kernelscope --help: the usage text (options.c parses what it describes). */
#include "app/options.h"
#include "app/scenes.h"

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
    char views[128];
    ks_scene_def_names("|", names, sizeof names);
    views[0] = '\0';
    for (int i = 0, used = 0; i < ks_scene_def_count() && used >= 0 && (size_t)used < sizeof views; ++i)
        if (ks_scene_def_at(i)->live) /* bench-only rows have no view */
            used += snprintf(views + used, sizeof views - (size_t)used, "%s%s", used ? "|" : "",
                             ks_scene_def_at(i)->name);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [%s] [options]\n"
           "       kernelscope bench %s [options]\n\nScenes:\n",
           KS_VERSION, views, names);
    for (int i = 0; i < ks_scene_def_count(); ++i)
        printf("  %-22s  %s\n", ks_scene_def_at(i)->name, ks_scene_def_at(i)->summary);
    printf("\nLaplace scenes:\n"
           "  --grid N | NXxNY[xNZ]   grid points (default 256^3 / 1024^2 on CUDA, 64^3 / 256^2 on CPU)\n"
           "  --bc seed|hot-top|sine  boundary preset (default hot-top)\n"
           "  --kernel NAME           3D: %s; 2D: %s\n"
           "  --block BXxBY[xBZ]      thread block (default: best measured, else the kernel's own)\n"
           "  --iters K|auto          Jacobi iterations per frame (default auto on CUDA: sized so the solver\n"
           "                          is >= 97 %% of a frame, counting what the display's GL work\n"
           "                          slows it by; 2 on the CPU backend; tblock runs\n"
           "                          the nearest multiple of its 4-step time block)\n"
           "  --residual-every K      residual every K frames (default: auto, <= 0.25 %% of the solver time)\n"
           "  --no-graph              launch the frame's kernels one by one (default: one CUDA graph)\n"
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
           "kernelscope bench live (the live loop of each Laplace kernel and spheres, against the kernel time):\n"
           "  --modes LIST            headless, window (default headless, and window when a display exists)\n"
           "  --grid LIST             N (both N^3 and N^2), NXxNYxNZ (3D) or NXxNY (2D); default\n"
           "                          512^3, 1024^3, 1024^2, 4096^2, 8192^2, 16384^2 (CPU: 64^3, 256^2)\n"
           "  --kernel LIST           only these Laplace kernels / sphere memory variants (default all)\n"
           "  --spheres LIST          sphere counts (default 2048; CPU 64)\n"
           "  --frames N              timed frames per run, after 48 warm-up frames (default 120)\n"
           "  --iters K, --size WxH   iterations per frame, window (and spheres picture) size\n"
           "kernelscope bench serve (the live loop with the viewer's server: none, jpeg, h264, record):\n"
           "  --kernel LIST           the cases: Laplace kernels / sphere memory variants (default\n"
           "                          spheres binned and laplace3d regq; CPU: laplace2d and spheres)\n"
           "  --grid N, --spheres N   the Laplace grid (default 512^3; CPU 256^2), the sphere count\n"
           "                          (default 2048; CPU 64)\n"
           "  --size WxH              the picture (default 1920x1080; CPU 1280x800)\n"
           "  --frames N, --iters K   timed frames per row after 48 warm-up (default 120), iterations\n"
           "  --browser PATH          also rows from a headless Chromium on the page (its own fps)\n"
           "All scenes:\n"
           "  --backend cuda|cpu      default cuda when a device exists, else cpu\n"
           "  --interop auto|pbo|copy how CUDA pictures reach the window: pbo (CUDA writes a GL\n"
           "                          buffer), copy (device -> pinned host -> GL upload, for a GL\n"
           "                          context not on the CUDA device); auto (default): pbo, else copy\n"
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
           "  --record FILE.mp4|.mkv  record what is shown as H.264 video (NVENC, else libx264);\n"
           "                          the E key starts / stops a recording under --out\n"
           "  --fps N                 video frame rate (default 60; headless: one video frame per frame);\n"
           "                          also the most pictures a second --serve sends\n"
           "  --reps N                bench: timed repetitions per configuration (default 20)\n"
           "  --help, --version\n\n"
           "A flag given where it means nothing (e.g. --window to bench, --grid to spheres) is refused.\n"
           "Keys: H shows them all in the window. Ctrl-C stops after the frame (again: at once).\n"
           "Exit status: 0 ok, 1 runtime failure, 2 bad input, 130 / 143 stopped by SIGINT / SIGTERM.\n",
           k3, k2, cmaps, KS_SPHERES_MAX, mems, mm, hist);
}
