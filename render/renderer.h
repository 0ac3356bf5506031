/* Draws a frame: the picture (from a ring of pixel buffer objects that CUDA
 * fills through interop, or that host memory is uploaded through), scaled to fit an area, into an
 * off-screen framebuffer over which the UI (ui.h) draws its panels; then puts
 * it on screen, so that a saved frame is exactly what is shown. */
#ifndef KS_RENDERER_H
#define KS_RENDERER_H

#include <stddef.h>

#include "base/colormap.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_renderer ks_renderer;

/* Pixel buffers in the ring: one is written while GL reads another. Every
 * GL read of a slot (its copy into the picture texture) is followed by a
 * fence; a writer takes the slot again only after that fence signalled. */
enum { KS_RENDERER_RING = 2 };

typedef struct ks_renderer_desc {
    size_t max_pixels; /* largest picture (w*h) a ring buffer must hold; 0: KS_RENDERER_DEFAULT_PIXELS */
} ks_renderer_desc;
enum { KS_RENDERER_DEFAULT_PIXELS = 1280 * 800 }; /* the default window (--size) */

/* Needs a current GL context. */
ks_status ks_renderer_create(const ks_renderer_desc *desc, ks_renderer **out);
void ks_renderer_destroy(ks_renderer *r);
/* GL name of the RGBA8 pixel buffer object (w*h*4 bytes used, rows bottom-up). */
unsigned int ks_renderer_pbo(const ks_renderer *r);
/* GL name of ring slot 0 <= slot < KS_RENDERER_RING (slot 0 is ks_renderer_pbo). */
unsigned int ks_renderer_pbo_slot(const ks_renderer *r, int slot);
/* Waits (host) until GL's last read of the slot's buffer has finished, so that
 * another writer (CUDA) may take it; returns at once when that fence already
 * signalled, as it does a ring's turn later. */
ks_status ks_renderer_wait_slot(ks_renderer *r, int slot);
/* set_image from the slot's buffer (its first w*h*4 bytes), fenced. */
ks_status ks_renderer_set_image_slot(ks_renderer *r, int slot, int w, int h);
/* Host upload: rgba (w*h*4 bytes in host memory, rows bottom-up) into the next
 * ring buffer (once its fence signalled), and from there into the picture
 * texture. rgba may be reused when this returns. The CPU backend and the copy
 * path of interop both show their pictures this way. */
ks_status ks_renderer_upload(ks_renderer *r, const void *rgba, int w, int h);
/* Slot 0 for a CPU writer: maps the PBO for writing (invalidating its contents). */
ks_status ks_renderer_map_pbo(ks_renderer *r, void **ptr);
ks_status ks_renderer_unmap_pbo(ks_renderer *r);
/* Takes slot 0's first w*h*4 bytes as the picture (PBO -> texture, no CPU copy). */
ks_status ks_renderer_set_image(ks_renderer *r, int w, int h);
/* 1: draw the picture at one picture pixel per framebuffer pixel, centred in
 * the area (a scene whose picture is already the size shown, render/viewport.h);
 * 0 (the default): scale it to fit the area. */
void ks_renderer_set_one_to_one(ks_renderer *r, int on);
/* Starts the frame at fb_w x fb_h: clears the off-screen framebuffer and draws
 * the picture fitted into area (x, y, w, h in pixels, origin bottom-left; NULL:
 * the whole frame). The framebuffer stays bound so the UI draws over it. */
ks_status ks_renderer_begin(ks_renderer *r, int fb_w, int fb_h, const float area[4]);
/* The picture's rectangle in the last frame begun (x, y, w, h in framebuffer
 * pixels, origin bottom-left); 0 when no picture was drawn. */
int ks_renderer_picture_rect(const ks_renderer *r, float rect[4]);
/* Ends the frame: puts the composed frame on the default framebuffer (if any). */
ks_status ks_renderer_end(ks_renderer *r);
/* The last composed frame, RGBA8, rows top-down; *rgba is malloc'd (caller frees). */
ks_status ks_renderer_read_frame(ks_renderer *r, unsigned char **rgba, int *w, int *h);
/* The bare picture at its own size (w x h of set_image), RGBA8 rows top-down, malloc'd. */
ks_status ks_renderer_read_image(ks_renderer *r, unsigned char **rgba, int *w, int *h);
/* GL name of the RGBA8 picture texture and its size (set_image's w x h; 0 before the first). */
unsigned int ks_renderer_image_texture(const ks_renderer *r, int *w, int *h);
/* Framebuffer pixel -> picture pixel (a, b), b = 0 bottom row; 0 when outside the picture. */
int ks_renderer_pick(const ks_renderer *r, double fb_x, double fb_y, int *a, int *b);

#ifdef __cplusplus
}
#endif
#endif
