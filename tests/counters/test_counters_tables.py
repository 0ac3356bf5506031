#!/usr/bin/env python3
"""scripts/counters-tables.py on a recorded gpu-check counters folder: a scene's table from its
bench CSV (the rows' own columns, the time, the nine counters scaled for reading, unmeasured rows
left out, a blank figure as "-"), the ncu agreement line, a scene without counters saying the
bench's why, the timeline's cost from bench live without and with --timeline, and exit 2 on a
folder without any of it."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "counters-tables.py")
COLS = "dram_read_bytes,dram_write_bytes,bytes_vs_model,l2_hit,sectors_per_request,bank_conflicts," \
       "occupancy_achieved,sm_clock_mhz,stall_top"

FILES = {
    "counters_laplace3d/bench_laplace3d.csv":
        "device,variant,grid,block,ms_per_iter,t_eff_gbs,t_peak_gbs,ratio,registers,occupancy,best,cc,"
        "t_peak_spread," + COLS + "\n"
        '"NVIDIA H200",kmarch,512x512x512,128x2,0.4600,2334.1,4100.0,0.569,32,0.75,,9.0,0.01,'
        "551000000,537000000,1.0133,0.7125,3.5,0,0.615,1980,long_scoreboard\n"
        '"NVIDIA H200",tblock,512x512x512,32x4,0.3000,3579.0,4100.0,0.873,40,0.5,best,9.0,0.01,'
        "300000000,290000000,0.5495,0.9,4,1200,0.45,1975,\n"
        '"NVIDIA H200",cpu,512x512x512,-,9.0,100,,,,,,9.0,,,,,,,,,,\n',
    "ncu_laplace3d/compare.txt": "kernel metric\n...\n70 of 72 figures within 5 % of ncu over 2 kernels\n",
    "counters_matmul/bench_matmul.csv":
        "device,variant,m,n,k,tile,ms,gflops,pct_cublas,pct_peak,cc," + COLS + "\n"
        '"CPU gold",gold,64,64,64,0,0.12,4.3,n/a,n/a,-,,,,,,,,,\n',
    "counters_matmul/bench.txt":
        "kernelscope: hardware counters: the CPU backend runs no GPU kernels, so there are no GPU counters "
        "to read; run on the CUDA backend to see them; the counter columns stay empty\n",
    "live_off/bench_live.csv":
        "device,scene,variant,grid,block,path,mode,iters_per_frame,live_ms_per_iter,bench_ms_per_iter,ratio,"
        "frame_ms,solver_share,map_unmap_ms,fps,cc,sizing\n"
        '"NVIDIA H200",laplace3d,kmarch,512x512x512,128x2,interop,headless,10,0.5000,0.46,1.08,5,0.9,0.1,200,'
        "9.0,fixed\n",
    "live_timeline/bench_live.csv":
        "device,scene,variant,grid,block,path,mode,iters_per_frame,live_ms_per_iter,bench_ms_per_iter,ratio,"
        "frame_ms,solver_share,map_unmap_ms,fps,cc,sizing\n"
        '"NVIDIA H200",laplace3d,kmarch,512x512x512,128x2,interop,headless,10,0.5050,0.46,1.09,5,0.9,0.1,198,'
        "9.0,fixed\n",
}


def check(cond, what, out):
    if not cond:
        print(out)
        raise SystemExit(f"FAILED: {what}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FILES.items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, SCRIPT, tmp], capture_output=True, text=True)
        out = r.stdout + r.stderr
        print(out)
        check(r.returncode == 0, "exit 0", out)
        check("### laplace3d: what the counters show" in out, "the scene's heading", out)
        check("Measured on NVIDIA H200 with `kernelscope bench laplace3d --counters`" in out, "the device", out)
        check("| variant | grid | block | ms_per_iter | DRAM read MB | DRAM written MB | bytes / model | L2 hit % |"
              in out, "the head: the rows' own columns, the time, the counters", out)
        check("| kmarch | 512x512x512 | 128x2 | 0.4600 | 551.0 | 537.0 | 1.013 | 71.2 | 3.50 | 0 | 61.5 | 1980 | "
              "long scoreboard |" in out, "kmarch's row scaled for reading", out)
        check("| tblock | 512x512x512 | 32x4 | 0.3000 | 300.0 | 290.0 | 0.549 | 90.0 | 4.00 | 1200 | 45.0 | 1975 | - |"
              in out, "a blank figure as -", out)
        check("| cpu |" not in out, "an unmeasured row left out", out)
        check("70 of 72 figures within 5 % of ncu over 2 kernels" in out, "the ncu agreement", out)
        check("No counters in the run on CPU gold: hardware counters: the CPU backend runs no GPU kernels" in out,
              "a scene without counters says why", out)
        check("| laplace3d | kmarch | 512x512x512 | 128x2 | interop | headless | 0.5000 | 0.5050 | +1.0 |" in out,
              "the timeline's cost", out)
        check("histogram" not in out, "a scene not run is not made up", out)
        r = subprocess.run([sys.executable, SCRIPT, os.path.join(tmp, "live_off")], capture_output=True, text=True)
        check(r.returncode == 2 and "holds no counters_SCENE" in r.stderr, "exit 2 on a folder without a run",
              r.stdout + r.stderr)
    print("counters-tables: ok")


if __name__ == "__main__":
    main()
