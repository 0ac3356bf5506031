/* The CUPTI timeline's handle, shared by its life cycle and activity records
 * (timeline_cupti.cpp), its PM sampler (timeline_cupti_pm.cpp) and its clock
 * alignment (timeline_cupti_clock.cpp). Private to those files. */
#ifndef KS_TIMELINE_CUPTI_H
#define KS_TIMELINE_CUPTI_H

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "cupti_api.h"
#include "timeline.h"

enum {
    HW_BUFFER_BYTES = 64 << 20, /* the PM sampler's buffer on the GPU: seconds of samples */
    ACTIVITY_BUFFER_BYTES = 1 << 20,
};

struct ks_timeline {
    const ks_cupti *api;
    ks_cupti_tracer tr;
    int subscribed;
    int ordinal;
    CUcontext ctx;
    CUdevice dev;
    ks_counter_gen gen;
    char chip[24];
    std::vector<uint8_t> availability;
    CUpti_Profiler_Host_Object *host;
    /* the metrics sampled: index into names per role (-1 none) */
    char metric[KS_TL_METRICS][KS_COUNTER_METRIC];
    const char *names[KS_TL_METRICS];
    int index_of[KS_TL_METRICS];
    int nnames;
    std::vector<uint8_t> config;
    CUpti_PmSampling_Object *pm;
    std::vector<uint8_t> counter_data, counter_data_blank;
    double interval_us;
    int time_trigger;
    int decode_ms;
    int activity_on;

    ks_tl_ring samples, spans;
    std::mutex span_push; /* CUPTI's thread and the worker both deliver activity buffers */
    std::mutex pm_mutex;  /* PM calls: start and stop on the caller's thread, decoding on the worker */
    int sampling;

    int sms;
    int64_t offset_ns; /* gpu - cpu, from create's markers */
    /* the samples' clock, measured at each start (ks_tl_fit_clock); read by get_info without locks */
    std::atomic<int> domain_known, domain;
    std::atomic<int64_t> samples_minus_cpu_ns, clock_fit_ns;
    std::atomic<double> clock_contrast;
    std::atomic<int64_t> sample_shift_ns; /* added to a sample's timestamps: onto the GPU's clock */
    /* the marker's record, while calibrating */
    std::atomic<uint64_t> marker_start, marker_end;

    std::thread worker;
    std::mutex m;
    std::condition_variable cv;
    bool quit;
    uint64_t flush_asked, flush_done;

    std::atomic<uint64_t> decode_passes, overflows, decode_errors, records_dropped;
    std::mutex error_mutex;
    char last_error[256];
};

/* timeline_cupti_pm.cpp: the metrics the PM sampler can take in one pass
 * (DRAM throughput or read and write, SM activity) and their config image;
 * the sampler enabled with it and its counter data image; what its buffer
 * holds decoded into the sample ring, moved onto the GPU's clock, or, with
 * hold, as they are into hold (pm_mutex held). */
ks_status ks_tl_pm_build_config(ks_timeline *tl);
ks_status ks_tl_pm_enable(ks_timeline *tl);
ks_status ks_tl_pm_decode_locked(ks_timeline *tl, std::vector<ks_tl_sample> *hold);

/* timeline_cupti_clock.cpp: gpu - cpu from the marker kernel (at create);
 * which clock the samples are on, at each start (pm_mutex held, sampling
 * started). */
ks_status ks_tl_clock_calibrate(ks_timeline *tl);
ks_status ks_tl_clock_align_locked(ks_timeline *tl);

#endif
