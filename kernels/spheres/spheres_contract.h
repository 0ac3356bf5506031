/* The kernel contract of the spheres scene, in one place: what a user's
 * ray-casting kernel (kernelscope spheres --kernel-file FILE, kernelscope
 * new-kernel spheres) receives, how its grid follows the block, where the
 * spheres may be read from (the lab's memory choice: global, const
 * __restrict__, or a __constant__ array the file declares, which kernelscope
 * fills by its name), what it must write and how close to the CPU gold; and
 * the starter that new-kernel writes (the lab's first version: spheres in
 * global memory, one pixel a thread). C strings, because --help, new-kernel
 * and the tests all read them; the registry row points at them. */
#ifndef KS_SPHERES_CONTRACT_H
#define KS_SPHERES_CONTRACT_H

/* The entry point's name (the loader looks it up; the contract's first line). */
#define KS_SPHERES_USER_ENTRY "spheres"
/* Optional: the __constant__ array kernelscope copies the spheres into. */
#define KS_SPHERES_USER_CONST "kernelscope_spheres"

/* Lines of plain text, each ending in '\n'; new-kernel writes them as // comments. */
#define KS_SPHERES_CONTRACT                                                                        \
    "extern \"C\" __global__ void spheres(const float4 *spheres, int n, int w, int h, uchar4 *out)\n" \
    "Ray-cast the n spheres into the w x h picture out (RGBA, row 0 at the bottom).\n"            \
    "  Sphere k is spheres[2k] = (x, y, z, r*r) and spheres[2k+1] = (red, green,\n"                \
    "  blue, r): its centre in pixels from the picture's centre, +z towards you,\n"              \
    "  its colour in 0..1.\n"                                                                      \
    "  Pixel (i, j) casts a ray along z at (i - w/2, j - h/2); sphere k is hit where\n"           \
    "  d2 = dx*dx + dy*dy < r*r, at depth z + sqrt(r*r - d2); the largest depth wins\n"          \
    "  (the sphere first in the list on a tie). The pixel is the winner's colour\n"              \
    "  times sqrt(r*r - d2) / r, each channel floor(255 * value), alpha 255; black\n"            \
    "  (0, 0, 0, 255) where no sphere is hit.\n"                                                   \
    "Launch: your block (--block BXxBY, default 16x16, [ ] live), the grid\n"                   \
    "  ceil(w/bx) x ceil(h/by); thread (x, y) of the launch is pixel (x, y); no\n"               \
    "  dynamic shared memory.\n"                                                                  \
    "The memory is your choice: read the spheres through the pointer (global\n"                 \
    "  memory; const float4 *__restrict__ for the read-only data cache), or declare\n"          \
    "  __constant__ float4 kernelscope_spheres[2 * N];   (N spheres, at most 2048)\n"           \
    "  and kernelscope copies the spheres into it before a render (the pointer still\n"        \
    "  points at them in global memory); a scene of more than N spheres is refused.\n"         \
    "Checked against the CPU gold: every channel within 1 of it on all but 0.1 % of\n"          \
    "  the pixels (where rounding decides whether a ray grazes a sphere, or which of\n"        \
    "  two spheres at one depth is in front); the first pixel further off is named.\n"

#define KS_SPHERES_STARTER                                                                          \
    "extern \"C\" __global__ void spheres(const float4 *spheres, int n, int w, int h, uchar4 *out)\n" \
    "{\n"                                                                                            \
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                   \
    "    const int j = blockIdx.y * blockDim.y + threadIdx.y;\n"                                   \
    "    if (i >= w || j >= h) return;\n"                                                          \
    "    const float px = i - w * 0.5f, py = j - h * 0.5f; /* the ray */\n"                       \
    "    float best_depth = -3.0e38f;\n"                                                           \
    "    int best = -1;\n"                                                                         \
    "    for (int k = 0; k < n; ++k) {\n"                                                          \
    "        const float4 g = spheres[2 * k]; /* x, y, z, r*r: global memory */\n"                \
    "        const float dx = px - g.x, dy = py - g.y;\n"                                          \
    "        const float d2 = dx * dx + dy * dy;\n"                                                \
    "        if (d2 < g.w) {\n"                                                                    \
    "            const float depth = g.z + sqrtf(g.w - d2);\n"                                     \
    "            if (depth > best_depth) {\n"                                                      \
    "                best_depth = depth;\n"                                                        \
    "                best = k;\n"                                                                  \
    "            }\n"                                                                              \
    "        }\n"                                                                                  \
    "    }\n"                                                                                      \
    "    uchar4 colour = make_uchar4(0, 0, 0, 255);\n"                                             \
    "    if (best >= 0) {\n"                                                                       \
    "        const float4 g = spheres[2 * best], c = spheres[2 * best + 1];\n"                    \
    "        const float dx = px - g.x, dy = py - g.y;\n"                                          \
    "        const float scale = sqrtf(g.w - (dx * dx + dy * dy)) / c.w;\n"                       \
    "        colour.x = (unsigned char)fminf(255.0f * (c.x * scale), 255.0f);\n"                  \
    "        colour.y = (unsigned char)fminf(255.0f * (c.y * scale), 255.0f);\n"                  \
    "        colour.z = (unsigned char)fminf(255.0f * (c.z * scale), 255.0f);\n"                  \
    "    }\n"                                                                                      \
    "    out[(size_t)j * w + i] = colour;\n"                                                       \
    "}\n"

#endif
