// Per-stage frame timing: CUDA events read back when complete (never
// stalling a frame unless the GPU is a whole ring of frames behind), or the
// host clock for the CPU backend.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "stage_timer.h"
#include "ks_util.h"
#if KS_HAVE_CUDA
#include "cuda_check.h"
#else
// Built without CUDA (compiled as C++): the host clock only; create refuses use_cuda.
typedef struct ks_no_event *cudaEvent_t;
typedef struct ks_no_stream *cudaStream_t;
#endif

namespace {

constexpr int kSlots = 4;        // frames in flight before frame_begin waits
constexpr int kQueue = 256;      // finished frames kept for the CSV

struct slot {
    int state;                   // 0 free, 1 recording, 2 waiting for the GPU
    long long frame;
    int used[KS_TIMER_MAX_STAGES];
    cudaEvent_t begin[KS_TIMER_MAX_STAGES], end[KS_TIMER_MAX_STAGES];
    double host_begin[KS_TIMER_MAX_STAGES], host_ms[KS_TIMER_MAX_STAGES];
};

struct window {
    double samples[KS_TIMER_WINDOW];
    int count, next;
    long long total;
    double last;
};

struct finished {
    long long frame;
    double ms[KS_TIMER_MAX_STAGES];
};

double host_now_ms() { return ks_now_seconds() * 1e3; }

} // namespace

struct ks_stage_timer {
    int use_cuda;
    cudaStream_t stream;
    int nstages;
    char names[KS_TIMER_MAX_STAGES][32];
    int solver[KS_TIMER_MAX_STAGES]; // 1: counted in the solver share
    int host[KS_TIMER_MAX_STAGES];   // 1: the host clock, also with CUDA
    int any_solver;
    window solver_win;           // solver ms per finished frame
    window interval_win;         // wall-clock ms between frame_begin calls
    double last_begin_ms;        // host clock at the last frame_begin, 0 before the first
    slot slots[kSlots];
    int current;                 // slot being recorded, -1 outside a frame
    int oldest;                  // next slot to collect, in frame order
    long long frames;
    window win[KS_TIMER_MAX_STAGES];
    finished queue[kQueue];
    int queue_head, queue_len;
};

extern "C" ks_status ks_stage_timer_create(const ks_stage_timer_desc *desc, ks_stage_timer **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "stage timer: no output pointer");
    *out = nullptr;
    if (!desc) return ks_fail(KS_ERR_INVALID, "stage timer: no desc");
    const int use_cuda = desc->use_cuda;
    void *stream = desc->stream;
    auto *t = static_cast<ks_stage_timer *>(std::calloc(1, sizeof(ks_stage_timer)));
    if (!t) return ks_fail(KS_ERR_OUT_OF_MEMORY, "stage timer: out of host memory");
#if !KS_HAVE_CUDA
    if (use_cuda) {
        std::free(t);
        return ks_fail(KS_ERR_UNSUPPORTED, "stage timer: built without CUDA");
    }
#endif
    t->use_cuda = use_cuda;
    t->stream = static_cast<cudaStream_t>(stream);
    t->current = -1;
    *out = t;
#if KS_HAVE_CUDA
    if (use_cuda) {
        for (auto &s : t->slots)
            for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
                ks_status st = KS_OK;
                if (cudaEventCreate(&s.begin[i]) != cudaSuccess ||
                    cudaEventCreate(&s.end[i]) != cudaSuccess)
                    st = ks_fail(KS_ERR_CUDA, "stage timer: cudaEventCreate failed: %s",
                                 cudaGetErrorString(cudaGetLastError()));
                if (st != KS_OK) {
                    ks_stage_timer_destroy(t);
                    *out = nullptr;
                    return st;
                }
            }
    }
#endif
    return KS_OK;
}

extern "C" void ks_stage_timer_destroy(ks_stage_timer *t)
{
    if (!t) return;
#if KS_HAVE_CUDA
    if (t->use_cuda)
        for (auto &s : t->slots)
            for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
                if (s.begin[i]) cudaEventDestroy(s.begin[i]);
                if (s.end[i]) cudaEventDestroy(s.end[i]);
            }
#endif
    std::free(t);
}

extern "C" int ks_stage_timer_stage(ks_stage_timer *t, const char *name)
{
    for (int i = 0; i < t->nstages; ++i)
        if (std::strcmp(t->names[i], name) == 0) return i;
    if (t->nstages == KS_TIMER_MAX_STAGES) return -1; /* full: that stage goes untimed */
    std::snprintf(t->names[t->nstages], sizeof t->names[0], "%s", name);
    return t->nstages++;
}

extern "C" int ks_stage_timer_solver_stage(ks_stage_timer *t, const char *name)
{
    const int id = ks_stage_timer_stage(t, name);
    if (id >= 0) {
        t->solver[id] = 1;
        t->any_solver = 1;
    }
    return id;
}

extern "C" void ks_stage_timer_host_clock(ks_stage_timer *t, int stage)
{
    if (stage >= 0 && stage < KS_TIMER_MAX_STAGES) t->host[stage] = 1;
}

extern "C" void ks_stage_timer_record(ks_stage_timer *t, int stage, double ms)
{
    if (t->current < 0 || stage < 0 || stage >= KS_TIMER_MAX_STAGES || !(ms >= 0.0)) return;
    slot &s = t->slots[t->current];
    t->host[stage] = 1; /* collected from host_ms */
    s.used[stage] = 1;
    s.host_ms[stage] = ms;
}

extern "C" int ks_stage_timer_stage_count(const ks_stage_timer *t) { return t->nstages; }

static void push_window(window &w, double ms)
{
    w.samples[w.next] = ms;
    w.next = (w.next + 1) % KS_TIMER_WINDOW;
    if (w.count < KS_TIMER_WINDOW) ++w.count;
    ++w.total;
    w.last = ms;
}

static void push_sample(ks_stage_timer *t, int stage, double ms) { push_window(t->win[stage], ms); }

static double window_median(const window &w)
{
    double sorted[KS_TIMER_WINDOW];
    std::copy(w.samples, w.samples + w.count, sorted);
    return ks_median_sort(sorted, w.count);
}

static void retire(ks_stage_timer *t, slot &s, const double ms[KS_TIMER_MAX_STAGES])
{
    finished &f = t->queue[(t->queue_head + t->queue_len) % kQueue];
    if (t->queue_len == kQueue) t->queue_head = (t->queue_head + 1) % kQueue; // drop oldest
    else ++t->queue_len;
    f.frame = s.frame;
    double solver_ms = 0.0;
    for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
        f.ms[i] = s.used[i] ? ms[i] : -1.0;
        if (s.used[i]) push_sample(t, i, ms[i]);
        if (s.used[i] && t->solver[i]) solver_ms += ms[i];
    }
    if (t->any_solver) push_window(t->solver_win, solver_ms);
    s.state = 0;
}

// Collects the oldest waiting slot if its events are done (or wait is set).
/* Takes in the oldest frame's times: 1 taken, 0 not yet (or nothing to
 * take). wait: waits for the GPU to get there, up to KS_GPU_STALL_S; a
 * stalled GPU sets *stalled (when given) and takes nothing. */
static int collect_one(ks_stage_timer *t, int wait, ks_status *stalled = NULL)
{
    slot &s = t->slots[t->oldest];
    if (s.state != 2) return 0;
    double ms[KS_TIMER_MAX_STAGES] = {0};
    for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
        if (!s.used[i]) continue;
        if (!t->use_cuda || t->host[i]) {
            ms[i] = s.host_ms[i];
            continue;
        }
#if KS_HAVE_CUDA
        if (wait) {
            const ks_status st = ks_cuda_wait_event(s.end[i], "waiting for a frame's timings");
            if (st != KS_OK && stalled) *stalled = st;
            if (st != KS_OK) return 0;
        }
        cudaError_t q = cudaEventQuery(s.end[i]);
        if (q == cudaErrorNotReady) return 0;
        float f = 0.0f;
        if (q != cudaSuccess || cudaEventElapsedTime(&f, s.begin[i], s.end[i]) != cudaSuccess) {
            cudaGetLastError(); // an unusable sample is dropped, not fatal
            s.used[i] = 0;
            continue;
        }
        ms[i] = (double)f;
#else
        (void)wait;
        (void)stalled;
#endif
    }
    retire(t, s, ms);
    t->oldest = (t->oldest + 1) % kSlots;
    return 1;
}

extern "C" int ks_stage_timer_collect(ks_stage_timer *t)
{
    int n = 0;
    while (n < kSlots && collect_one(t, 0)) ++n;
    return n;
}

extern "C" ks_status ks_stage_timer_drain(ks_stage_timer *t)
{
    for (int n = 0; n < kSlots; ++n) collect_one(t, 1);
    return KS_OK;
}

extern "C" ks_status ks_stage_timer_frame_begin(ks_stage_timer *t)
{
    ks_stage_timer_collect(t);
    const double now = host_now_ms();
    if (t->last_begin_ms > 0.0) push_window(t->interval_win, now - t->last_begin_ms);
    t->last_begin_ms = now;
    int idx = (int)(t->frames % kSlots);
    ks_status stalled = KS_OK;
    if (t->slots[idx].state != 0) collect_one(t, 1, &stalled); // GPU a full ring behind: wait for it
    if (stalled != KS_OK) return stalled;
    slot &s = t->slots[idx];
    s.state = 1;
    s.frame = t->frames++;
    std::memset(s.used, 0, sizeof s.used);
    t->current = idx;
    return KS_OK;
}

extern "C" ks_status ks_stage_timer_begin(ks_stage_timer *t, int stage)
{
    if (t->current < 0 || stage < 0 || stage >= KS_TIMER_MAX_STAGES) return KS_OK;
    slot &s = t->slots[t->current];
    s.used[stage] = 1;
#if KS_HAVE_CUDA
    if (t->use_cuda && !t->host[stage]) {
        KS_CUDA_TRY(cudaEventRecord(s.begin[stage], t->stream));
        return KS_OK;
    }
#endif
    s.host_begin[stage] = host_now_ms();
    return KS_OK;
}

extern "C" ks_status ks_stage_timer_end(ks_stage_timer *t, int stage)
{
    if (t->current < 0 || stage < 0 || stage >= KS_TIMER_MAX_STAGES) return KS_OK;
    slot &s = t->slots[t->current];
    if (!s.used[stage]) return KS_OK;
#if KS_HAVE_CUDA
    if (t->use_cuda && !t->host[stage]) {
        KS_CUDA_TRY(cudaEventRecord(s.end[stage], t->stream));
        return KS_OK;
    }
#endif
    s.host_ms[stage] = host_now_ms() - s.host_begin[stage];
    return KS_OK;
}

extern "C" ks_status ks_stage_timer_frame_end(ks_stage_timer *t)
{
    if (t->current < 0) return KS_OK;
    t->slots[t->current].state = 2;
    t->current = -1;
    if (!t->use_cuda) ks_stage_timer_collect(t);
    return KS_OK;
}

extern "C" void ks_stage_timer_stats(const ks_stage_timer *t, int stage, ks_stage_stats *out)
{
    std::memset(out, 0, sizeof *out);
    if (stage < 0 || stage >= t->nstages) return;
    const window &w = t->win[stage];
    out->name = t->names[stage];
    out->samples = w.count;
    out->total = w.total;
    out->last_ms = w.last;
    if (w.count == 0) return;
    out->min_ms = *std::min_element(w.samples, w.samples + w.count);
    out->median_ms = window_median(w);
}

extern "C" double ks_stage_share_of(double solver_ms, double interval_ms)
{
    if (!(interval_ms > 0.0) || !(solver_ms > 0.0)) return 0.0;
    const double r = solver_ms / interval_ms;
    return r > 1.0 ? 1.0 : r; // frames overlap on the GPU: a median may run a little ahead
}

extern "C" int ks_stage_timer_share(const ks_stage_timer *t, ks_stage_share *out)
{
    std::memset(out, 0, sizeof *out);
    if (!t->any_solver || t->solver_win.count == 0 || t->interval_win.count == 0) return 0;
    out->solver_ms = window_median(t->solver_win);
    out->interval_ms = window_median(t->interval_win);
    out->share = ks_stage_share_of(out->solver_ms, out->interval_ms);
    out->frames = t->solver_win.count;
    return 1;
}

extern "C" int ks_stage_timer_pop_frame(ks_stage_timer *t, long long *frame,
                                        double ms[KS_TIMER_MAX_STAGES])
{
    if (t->queue_len == 0) return 0;
    const finished &f = t->queue[t->queue_head];
    *frame = f.frame;
    std::copy(f.ms, f.ms + KS_TIMER_MAX_STAGES, ms);
    t->queue_head = (t->queue_head + 1) % kQueue;
    --t->queue_len;
    return 1;
}
