/* The metric tables: what each logical metric means, and the CUPTI metric
 * names that measure it on each GPU generation. Names follow Nsight Compute's
 * sections (SpeedOfLight, MemoryWorkloadAnalysis, Occupancy, WarpStateStats)
 * so that a figure agrees with `ncu --metrics <name>`. Every name is still
 * checked against the chip by CUPTI at create: a generation that lacks one
 * shows it as absent, never as zero. */
#include <stddef.h>

#include "counters.h"
#include "timeline.h"

#define STALL_INFO(key, ncu, words)                                                                \
    {"stall_" key, "stall: " key, "cycles/inst", ncu, words, 0}

static const ks_counter_info info_table[KS_CTR_NUM] = {
    [KS_CTR_DURATION_NS] = {"duration_ns", "duration", "ns", "Duration",
                            "how long the kernel ran on the GPU", 1},
    [KS_CTR_DRAM_READ_BYTES] = {"dram_read_bytes", "DRAM read", "bytes", "DRAM Bytes Read",
                                "bytes read from the GPU's memory (DRAM)", 1},
    [KS_CTR_DRAM_WRITE_BYTES] = {"dram_write_bytes", "DRAM written", "bytes", "DRAM Bytes Written",
                                 "bytes written to the GPU's memory (DRAM)", 1},
    [KS_CTR_DRAM_PEAK_PCT] = {"dram_peak_pct", "DRAM throughput", "%", "DRAM Throughput",
                              "how busy the memory bus was, in % of its peak", 0},
    [KS_CTR_L1_HIT_PCT] = {"l1_hit_pct", "L1 hit rate", "%", "L1/TEX Hit Rate",
                           "sectors the SM's own L1 cache already held", 0},
    [KS_CTR_L2_HIT_PCT] = {"l2_hit_pct", "L2 hit rate", "%", "L2 Hit Rate",
                           "sectors the shared L2 cache already held (no DRAM trip)", 0},
    [KS_CTR_GLD_SECTORS] = {"gld_sectors", "global load sectors", "", "L1/TEX Global Load Sectors",
                            "32-byte pieces of memory that global loads touched", 1},
    [KS_CTR_GLD_REQUESTS] = {"gld_requests", "global load requests", "", "L1/TEX Global Load Requests",
                             "warp-wide global load instructions", 1},
    [KS_CTR_GST_SECTORS] = {"gst_sectors", "global store sectors", "", "L1/TEX Global Store Sectors",
                            "32-byte pieces of memory that global stores touched", 1},
    [KS_CTR_GST_REQUESTS] = {"gst_requests", "global store requests", "", "L1/TEX Global Store Requests",
                             "warp-wide global store instructions", 1},
    [KS_CTR_SHARED_LD_CONFLICTS] = {"shared_ld_conflicts", "shared load bank conflicts", "",
                                    "Shared Load Bank Conflicts",
                                    "extra passes shared-memory loads needed because threads hit the same bank", 1},
    [KS_CTR_SHARED_ST_CONFLICTS] = {"shared_st_conflicts", "shared store bank conflicts", "",
                                    "Shared Store Bank Conflicts",
                                    "extra passes shared-memory stores needed because threads hit the same bank", 1},
    [KS_CTR_SHARED_LD_WAVEFRONTS] = {"shared_ld_wavefronts", "shared load wavefronts", "", "Shared Load Wavefronts",
                                     "passes through shared memory for loads", 1},
    [KS_CTR_SHARED_ST_WAVEFRONTS] = {"shared_st_wavefronts", "shared store wavefronts", "",
                                     "Shared Store Wavefronts", "passes through shared memory for stores", 1},
    [KS_CTR_SHARED_LD_INST] = {"shared_ld_inst", "shared load instructions", "", "Shared Load Instructions",
                               "warp-wide shared-memory loads", 1},
    [KS_CTR_SHARED_ST_INST] = {"shared_st_inst", "shared store instructions", "", "Shared Store Instructions",
                               "warp-wide shared-memory stores", 1},
    [KS_CTR_OCC_ACHIEVED_PCT] = {"occupancy_achieved_pct", "achieved occupancy", "%", "Achieved Occupancy",
                                 "warps resident on an SM on average, of the most it can hold", 0},
    [KS_CTR_OCC_THEORETICAL_PCT] = {"occupancy_theoretical_pct", "theoretical occupancy", "%",
                                    "Theoretical Occupancy",
                                    "the most warps this launch's registers, shared memory and block size allow", 0},
    [KS_CTR_SM_CLOCK_HZ] = {"sm_clock_hz", "SM clock", "Hz", "SM Frequency",
                            "the clock the SMs ran at during the kernel", 0},
    [KS_CTR_WARP_CYCLES_PER_INST] = {"warp_cycles_per_inst", "warp cycles per instruction", "cycles/inst",
                                     "Warp Cycles Per Issued Instruction",
                                     "cycles a warp takes between two of its instructions; the stalls add up to it",
                                     0},
    /* the words fit a panel row's label (under 64 bytes); ncu's label is the hover */
    [KS_CTR_STALL_FIRST + KS_STALL_LONG_SCOREBOARD] =
        STALL_INFO("long_scoreboard", "Stall Long Scoreboard",
                   "waiting for data from global memory (long scoreboard)"),
    [KS_CTR_STALL_FIRST + KS_STALL_MIO_THROTTLE] =
        STALL_INFO("mio_throttle", "Stall MIO Throttle", "shared/constant/special-math queue full (MIO throttle)"),
    [KS_CTR_STALL_FIRST + KS_STALL_LG_THROTTLE] =
        STALL_INFO("lg_throttle", "Stall LG Throttle", "global/local memory queue full (LG throttle)"),
    [KS_CTR_STALL_FIRST + KS_STALL_BARRIER] =
        STALL_INFO("barrier", "Stall Barrier", "at __syncthreads, waiting for the block (barrier)"),
    [KS_CTR_STALL_FIRST + KS_STALL_SHORT_SCOREBOARD] =
        STALL_INFO("short_scoreboard", "Stall Short Scoreboard",
                   "waiting for shared memory or slow math (short scoreboard)"),
    [KS_CTR_STALL_FIRST + KS_STALL_MATH_PIPE_THROTTLE] =
        STALL_INFO("math_pipe_throttle", "Stall Math Pipe Throttle",
                   "the math unit it needs is busy (math pipe throttle)"),
    [KS_CTR_STALL_FIRST + KS_STALL_TEX_THROTTLE] =
        STALL_INFO("tex_throttle", "Stall Tex Throttle", "texture unit queue full (tex throttle)"),
    [KS_CTR_STALL_FIRST + KS_STALL_WAIT] =
        STALL_INFO("wait", "Stall Wait", "a fixed wait between dependent instructions (wait)"),
    [KS_CTR_STALL_FIRST + KS_STALL_NOT_SELECTED] =
        STALL_INFO("not_selected", "Stall Not Selected", "ready, but the scheduler picked another warp (not selected)"),
    [KS_CTR_STALL_FIRST + KS_STALL_NO_INSTRUCTION] =
        STALL_INFO("no_instruction", "Stall No Instruction", "waiting for its next instruction (no instruction)"),
    [KS_CTR_STALL_FIRST + KS_STALL_BRANCH_RESOLVING] =
        STALL_INFO("branch_resolving", "Stall Branch Resolving", "waiting for a branch to resolve (branch resolving)"),
    [KS_CTR_STALL_FIRST + KS_STALL_DISPATCH_STALL] =
        STALL_INFO("dispatch_stall", "Stall Dispatch Stall", "the dispatcher could not issue (dispatch stall)"),
    [KS_CTR_STALL_FIRST + KS_STALL_DRAIN] =
        STALL_INFO("drain", "Stall Drain", "finishing its memory writes before exiting (drain)"),
    [KS_CTR_STALL_FIRST + KS_STALL_IMC_MISS] =
        STALL_INFO("imc_miss", "Stall IMC Miss", "waiting for constant memory (IMC miss)"),
    [KS_CTR_STALL_FIRST + KS_STALL_MEMBAR] = STALL_INFO("membar", "Stall Membar", "at a memory fence (membar)"),
    [KS_CTR_STALL_FIRST + KS_STALL_SLEEPING] =
        STALL_INFO("sleeping", "Stall Sleeping", "asleep (__nanosleep) or held at __syncwarp (sleeping)"),
    [KS_CTR_STALL_FIRST + KS_STALL_MISC] = STALL_INFO("misc", "Stall Misc", "other hardware reasons (misc)"),
    [KS_CTR_STALL_FIRST + KS_STALL_GMMA] =
        STALL_INFO("gmma", "Stall GMMA", "waiting for warpgroup tensor-core work, wgmma (GMMA)"),
};

/* Stall metric names: ncu's Warp State Statistics breakdown (warps stalled
 * for the reason per issued instruction, i.e. cycles per instruction), then
 * the same quantity under its latency name. */
#define STALL_NAMES(key)                                                                           \
    {"smsp__average_warps_issue_stalled_" key "_per_issue_active.ratio",                           \
     "smsp__average_warp_latency_issue_stalled_" key ".ratio"}
static const char *const stall_names[KS_STALL_NUM][2] = {
    [KS_STALL_LONG_SCOREBOARD] = STALL_NAMES("long_scoreboard"),
    [KS_STALL_MIO_THROTTLE] = STALL_NAMES("mio_throttle"),
    [KS_STALL_LG_THROTTLE] = STALL_NAMES("lg_throttle"),
    [KS_STALL_BARRIER] = STALL_NAMES("barrier"),
    [KS_STALL_SHORT_SCOREBOARD] = STALL_NAMES("short_scoreboard"),
    [KS_STALL_MATH_PIPE_THROTTLE] = STALL_NAMES("math_pipe_throttle"),
    [KS_STALL_TEX_THROTTLE] = STALL_NAMES("tex_throttle"),
    [KS_STALL_WAIT] = STALL_NAMES("wait"),
    [KS_STALL_NOT_SELECTED] = STALL_NAMES("not_selected"),
    [KS_STALL_NO_INSTRUCTION] = STALL_NAMES("no_instruction"),
    [KS_STALL_BRANCH_RESOLVING] = STALL_NAMES("branch_resolving"),
    [KS_STALL_DISPATCH_STALL] = STALL_NAMES("dispatch_stall"),
    [KS_STALL_DRAIN] = STALL_NAMES("drain"),
    [KS_STALL_IMC_MISS] = STALL_NAMES("imc_miss"),
    [KS_STALL_MEMBAR] = STALL_NAMES("membar"),
    [KS_STALL_SLEEPING] = STALL_NAMES("sleeping"),
    [KS_STALL_MISC] = STALL_NAMES("misc"),
    [KS_STALL_GMMA] = STALL_NAMES("gmma"),
};

/* Names used on every generation unless a generation's row below says otherwise. */
static const char *const default_names[KS_CTR_STALL_FIRST][KS_CTR_CANDIDATES] = {
    [KS_CTR_DURATION_NS] = {"gpu__time_duration.sum"},
    [KS_CTR_DRAM_READ_BYTES] = {"dram__bytes_read.sum"},
    [KS_CTR_DRAM_WRITE_BYTES] = {"dram__bytes_write.sum"},
    /* ncu's SpeedOfLight "DRAM Throughput"; older chips name it dram__throughput */
    [KS_CTR_DRAM_PEAK_PCT] = {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                              "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_CTR_L1_HIT_PCT] = {"l1tex__t_sector_hit_rate.pct"},
    [KS_CTR_L2_HIT_PCT] = {"lts__t_sector_hit_rate.pct"},
    [KS_CTR_GLD_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
    [KS_CTR_GLD_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
    [KS_CTR_GST_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
    [KS_CTR_GST_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
    [KS_CTR_SHARED_LD_CONFLICTS] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
    [KS_CTR_SHARED_ST_CONFLICTS] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
    [KS_CTR_SHARED_LD_WAVEFRONTS] = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
    [KS_CTR_SHARED_ST_WAVEFRONTS] = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
    [KS_CTR_SHARED_LD_INST] = {"smsp__inst_executed_op_shared_ld.sum"},
    [KS_CTR_SHARED_ST_INST] = {"smsp__inst_executed_op_shared_st.sum"},
    [KS_CTR_OCC_ACHIEVED_PCT] = {"sm__warps_active.avg.pct_of_peak_sustained_active"},
    [KS_CTR_OCC_THEORETICAL_PCT] = {"sm__maximum_warps_per_active_cycle_pct"},
    /* ncu's "SM Frequency" reads the SM sub-partitions' clock; both are the SM clock */
    [KS_CTR_SM_CLOCK_HZ] = {"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second"},
    [KS_CTR_WARP_CYCLES_PER_INST] = {"smsp__average_warp_latency_per_inst_issued.ratio"},
};

/* Where a generation names a metric differently: (metric, names) rows. */
typedef struct gen_override {
    ks_counter_id id;
    const char *names[KS_CTR_CANDIDATES];
} gen_override;

/* Turing's Nsight Compute predates the gpu__dram_throughput breakdown. */
static const gen_override turing_overrides[] = {
    {KS_CTR_DRAM_PEAK_PCT, {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}},
};

typedef struct gen_row {
    ks_counter_gen gen;
    const char *name;
    int cc_lo, cc_hi;          /* 10 * major + minor, inclusive */
    int pm_time_trigger;       /* the PM sampler can trigger on a time interval */
    const gen_override *overrides;
    int noverrides;
} gen_row;

static const gen_row gen_rows[KS_GEN_NUM] = {
    {KS_GEN_UNSUPPORTED, "before Turing (not profiled by CUDA 13)", 0, 74, 0, NULL, 0},
    {KS_GEN_TURING, "Turing (sm_75)", 75, 75, 0, turing_overrides,
     (int)(sizeof turing_overrides / sizeof turing_overrides[0])},
    {KS_GEN_AMPERE_GA100, "Ampere GA100 (sm_80)", 80, 80, 0, NULL, 0},
    {KS_GEN_AMPERE, "Ampere (sm_86, sm_87)", 81, 88, 1, NULL, 0},
    {KS_GEN_ADA, "Ada (sm_89)", 89, 89, 1, NULL, 0},
    {KS_GEN_HOPPER, "Hopper (sm_90)", 90, 99, 1, NULL, 0},
    {KS_GEN_BLACKWELL, "Blackwell (sm_100, sm_103, sm_110)", 100, 119, 1, NULL, 0},
    {KS_GEN_BLACKWELL_RTX, "Blackwell (sm_120, sm_121)", 120, 129, 1, NULL, 0},
    {KS_GEN_NEWER, "newer than Blackwell (Blackwell's names)", 130, 100000, 1, NULL, 0},
};

const ks_counter_info *ks_counters_info(ks_counter_id id)
{
    return (id >= 0 && id < KS_CTR_NUM) ? &info_table[id] : NULL;
}

ks_counter_gen ks_counters_generation(int cc)
{
    for (int g = 0; g < KS_GEN_NUM; ++g)
        if (cc >= gen_rows[g].cc_lo && cc <= gen_rows[g].cc_hi) return gen_rows[g].gen;
    return KS_GEN_UNSUPPORTED;
}

const char *ks_counters_gen_name(ks_counter_gen gen)
{
    return (gen >= 0 && gen < KS_GEN_NUM) ? gen_rows[gen].name : "unknown";
}

int ks_counters_pm_time_trigger(ks_counter_gen gen)
{
    return (gen >= 0 && gen < KS_GEN_NUM) ? gen_rows[gen].pm_time_trigger : 0;
}

int ks_counters_candidates(ks_counter_gen gen, ks_counter_id id, const char **out, int cap)
{
    if (id < 0 || id >= KS_CTR_NUM || gen <= KS_GEN_UNSUPPORTED || gen >= KS_GEN_NUM || out == NULL || cap <= 0)
        return 0;
    const char *const *names = id >= KS_CTR_STALL_FIRST ? stall_names[id - KS_CTR_STALL_FIRST] : default_names[id];
    int max = id >= KS_CTR_STALL_FIRST ? 2 : KS_CTR_CANDIDATES;
    const gen_row *g = &gen_rows[gen];
    for (int i = 0; i < g->noverrides; ++i)
        if (g->overrides[i].id == id) {
            names = g->overrides[i].names;
            max = KS_CTR_CANDIDATES;
        }
    int n = 0;
    for (int k = 0; k < max && names[k] != NULL && n < cap; ++k) out[n++] = names[k];
    return n;
}

/* PM sampler names. Datacenter chips with HBM (GA100, GH100, GB100) count
 * DRAM with dram__ units; GDDR chips (TU10x, GA10x, AD10x, GB20x) with the
 * DRAM controller's dramc__ units (Nsight Systems' GPU metrics use the same). */
static const char *const tl_hbm[KS_TL_METRICS][KS_CTR_CANDIDATES] = {
    [KS_TL_DRAM] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                    "dramc__throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_DRAM_READ] = {"dram__read_throughput.avg.pct_of_peak_sustained_elapsed",
                         "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_DRAM_WRITE] = {"dram__write_throughput.avg.pct_of_peak_sustained_elapsed",
                          "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_SM] = {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                  "gr__cycles_active.avg.pct_of_peak_sustained_elapsed"},
};
static const char *const tl_gddr[KS_TL_METRICS][KS_CTR_CANDIDATES] = {
    [KS_TL_DRAM] = {"dramc__throughput.avg.pct_of_peak_sustained_elapsed",
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_DRAM_READ] = {"dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
                         "dram__read_throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_DRAM_WRITE] = {"dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
                          "dram__write_throughput.avg.pct_of_peak_sustained_elapsed"},
    [KS_TL_SM] = {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                  "gr__cycles_active.avg.pct_of_peak_sustained_elapsed"},
};

int ks_tl_candidates(ks_counter_gen gen, ks_tl_metric m, const char **out, int cap)
{
    if (m < 0 || m >= KS_TL_METRICS || gen <= KS_GEN_UNSUPPORTED || gen >= KS_GEN_NUM || out == NULL || cap <= 0)
        return 0;
    const int hbm = gen == KS_GEN_AMPERE_GA100 || gen == KS_GEN_HOPPER || gen == KS_GEN_BLACKWELL;
    const char *const *names = hbm ? tl_hbm[m] : tl_gddr[m];
    int n = 0;
    for (int k = 0; k < KS_CTR_CANDIDATES && names[k] != NULL && n < cap; ++k) out[n++] = names[k];
    return n;
}
