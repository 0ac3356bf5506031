#!/usr/bin/env python3
"""scripts/ncu-compare.py counters on recorded files: the probe's CSV against ncu's CSV (base
units), and the printed forms (an H200 run's ncu report with scaled units, the gpu test's and the
probe's own print) against each other. Checks the pairing by name and grid, the unit scaling, the
rounding allowance of ncu's printed figures, the verdicts and the exit status (1 only when a count
is outside 5 %)."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "ncu-compare.py")

OURS_CSV = """launch,kernel,grid,block,key,metric,value
0,kst_fill_kernel,1048576,256,dram_write_bytes,dram__bytes_write.sum,1073741824
0,kst_fill_kernel,1048576,256,duration_ns,gpu__time_duration.sum,631000
1,kst_copy_kernel,262144,256,dram_read_bytes,dram__bytes_read.sum,1073750000
1,kst_copy_kernel,262144,256,gld_sectors,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,33554432
1,kst_copy_kernel,262144,256,sm_clock_hz,sm__cycles_elapsed.avg.per_second,1950000000
1,kst_copy_kernel,262144,256,duration_ns,gpu__time_duration.sum,560000
2,kst_shared_kernel<32>,264,128,shared_ld_conflicts,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,16760832
2,kst_shared_kernel<32>,264,128,stall_misc,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,0.004
"""

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def ncu_row(launch, kernel, grid, block, metric, unit, value):
    return (f'"{launch}","628","counters_probe","127.0.0.1","{kernel}","1","7","({block}, 1, 1)",'
            f'"({grid}, 1, 1)","0","9.0","Command line profiler metrics","{metric}","{unit}","{value}"')


NCU_CSV = "\n".join([
    "==PROF== Connected to process 628",
    HEADER,
    ncu_row(0, "kst_fill_kernel(float *, unsigned long)", 1048576, 256, "dram__bytes_write.sum", "byte",
            "1,073,741,824"),
    ncu_row(0, "kst_fill_kernel(float *, unsigned long)", 1048576, 256, "gpu__time_duration.sum", "nsecond",
            "631,808"),
    ncu_row(1, "kst_copy_kernel(const float4 *, float4 *, unsigned long)", 262144, 256, "dram__bytes_read.sum",
            "byte", "1,073,741,952"),
    ncu_row(1, "kst_copy_kernel(const float4 *, float4 *, unsigned long)", 262144, 256,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "33,554,432"),
    ncu_row(1, "kst_copy_kernel(const float4 *, float4 *, unsigned long)", 262144, 256,
            "sm__cycles_elapsed.avg.per_second", "hz", "1,970,000,000"),
    ncu_row(1, "kst_copy_kernel(const float4 *, float4 *, unsigned long)", 262144, 256, "gpu__time_duration.sum",
            "nsecond", "500,416"),
    ncu_row(2, "void kst_shared_kernel<32>(float *, int)", 264, 128,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", "15,000,000"),
    ncu_row(2, "void kst_shared_kernel<32>(float *, int)", 264, 128,
            "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio", "inst", "0"),
]) + "\n"

# ncu's printed report (an H200 run), scaled units and two decimals
NCU_TEXT = """==PROF== Disconnected from process 628
[628] counters_probe@127.0.0.1
  kst_copy_kernel(const float4 *, float4 *, unsigned long) (262144, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: Command line profiler metrics
    --------------------------------------------------------------------------- ----------- ------------
    Metric Name                                                                 Metric Unit Metric Value
    --------------------------------------------------------------------------- ----------- ------------
    dram__bytes_read.sum                                                              Gbyte         1.07
    gpu__time_duration.sum                                                               us       500.42
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum                                            2,097,152
    sm__cycles_elapsed.avg.per_second                                                   Ghz         1.97
    smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio                  inst         0.01
    --------------------------------------------------------------------------- ----------- ------------

  void kst_shared_kernel<32>(float *, int) (264, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum                                  16,760,832
"""

# the gpu test's print of the same kernels (key, metric, value)
OURS_TEST_PRINT = """  == copy, measure 1 (321.8 ms with replays): NVIDIA H200 (GH100, cc 90, Hopper (sm_90)), 1 kernel(s), 0 dropped, 7 passes
  -- kernel 0: kst_copy_kernel(float4 const*, float4*, unsigned long)
     duration_ns                  gpu__time_duration.sum                                                     501000
     dram_read_bytes              dram__bytes_read.sum                                                       1.07375e+09
     gld_requests                 l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum                            2.09715e+06
     occupancy_theoretical_pct    (absent)                                                                   absent nan
     sm_clock_hz                  sm__cycles_elapsed.avg.per_second                                          1.97341e+09
     stall_imc_miss               smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio          0.0062
  -- kernel 1: void kst_shared_kernel<32>(float*, int)
     shared_ld_conflicts          l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum                   1.67608e+07
"""

# the probe's own print: values by key, the metric names in its create section
OURS_PROBE_PRINT = """  duration_ns                  gpu__time_duration.sum                                                   accepted
  dram_read_bytes              dram__bytes_read.sum                                                     accepted
  occupancy_theoretical_pct    ABSENT                                                                   tried: sm__maximum_warps_per_active_cycle_pct
  kernel 0: kst_copy_kernel(float4 const*, float4*, unsigned long)
    duration_ns                  128448
    dram_read_bytes              2.68451e+08
"""


def run(tmp, *files):
    paths = []
    for name, text in files:
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        paths.append(p)
    r = subprocess.run([sys.executable, SCRIPT, "counters", *paths], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def line_of(out, kernel, metric):
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0] == kernel and metric in parts:
            return line
    raise AssertionError(f"no row {kernel} {metric} in:\n{out}")


def check(cond, what, out):
    if not cond:
        print(out)
        raise SystemExit(f"FAILED: {what}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        rc, out = run(tmp, ("ours.csv", OURS_CSV), ("ncu.csv", NCU_CSV))
        print(out)
        # a count off by 12 %: exit 1, named
        check(rc == 1, "exit 1 when a count is outside 5 %", out)
        check("counts outside 5 %: kst_shared_kernel<32> l1tex__data_bank_conflicts" in out, "the count named", out)
        row = line_of(out, "kst_copy_kernel", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        check(row.split()[-1] == "yes" and "+0.00" in row, "equal sectors", out)
        row = line_of(out, "kst_copy_kernel", "gpu__time_duration.sum")
        check(row.split()[-1] == "NO" and "+11.91" in row, "duration 560000 against 500416 ns: +11.91 %", out)
        row = line_of(out, "kst_copy_kernel", "sm__cycles_elapsed.avg.per_second")
        check("-1.02" in row and row.split()[-1] == "yes", "hz in base units", out)
        row = line_of(out, "kst_shared_kernel<32>", "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio")
        check(row.endswith("yes (rounding)"), "0.004 against a printed 0 is within its rounding", out)
        row = line_of(out, "kst_fill_kernel", "dram__bytes_write.sum")
        check(row.split()[-1] == "yes", "fill paired by name and grid", out)
        check("6 of 8 figures within 5 % of ncu over 3 kernels" in out, "the summary", out)

        # the printed forms: scaled units, the gpu test's print
        rc, out = run(tmp, ("ours.txt", OURS_TEST_PRINT), ("ncu.txt", NCU_TEXT))
        print(out)
        check(rc == 0, "exit 0 when every count agrees", out)
        row = line_of(out, "kst_copy_kernel", "dram__bytes_read.sum")
        check("1.074e+09" in row and "1.07e+09" in row and row.endswith("yes"), "Gbyte scaled to bytes", out)
        row = line_of(out, "kst_copy_kernel", "gpu__time_duration.sum")
        check("500420" in row and row.endswith("yes"), "us scaled to ns", out)
        row = line_of(out, "kst_copy_kernel", "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio")
        check(row.endswith("yes (rounding)"), "0.0062 against a printed 0.01", out)
        row = line_of(out, "kst_shared_kernel<32>", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
        check(row.endswith("yes"), "the void template paired", out)

        # the probe's print (2^26 floats) against ncu's copy of 2^28: said to be different launches
        rc, out = run(tmp, ("probe.txt", OURS_PROBE_PRINT), ("ncu.txt", NCU_TEXT))
        print(out)
        row = line_of(out, "kst_copy_kernel", "dram__bytes_read.sum")
        check("2.685e+08" in row and row.endswith("NO"), "the probe's value by key", out)
        check("not the same launch sizes" in out, "sizes that differ are named", out)
        check(rc == 1, "exit 1", out)

        # bad input: one line, exit 2
        rc, out = run(tmp, ("only.csv", OURS_CSV))
        check(rc == 2 and "OURS" in out, "one file is a usage error", out)
        rc, out = run(tmp, ("ours.csv", OURS_CSV), ("empty.txt", "nothing\n"))
        check(rc != 0 and "no kernels in the ncu output" in out, "an ncu file without kernels", out)
    print("ncu-compare counters: ok")


if __name__ == "__main__":
    main()
