#!/usr/bin/env bash
# scripts/course-timing.sh without a GPU: with no nvcc it says so in one line (exit 2); with a
# stand-in nvcc (each <<<...>>> launch made a plain call, the CUDA calls declared, then a C++
# compiler's syntax run) every course kernel's host program compiles, and each launches the
# entry its kernelscope: line names, with the line's arguments in its order and types and the
# course's grid for its grid=. The stand-in refuses an undefined kernel, as nvcc does.
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cxx=${2:-c++}
command -v "$cxx" >/dev/null || { echo "no C++ compiler ($cxx): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# no nvcc anywhere (a PATH of the tools the script uses alone): one line, exit 2, nothing compiled
mkdir -p "$tmp/bin"
for t in bash dirname mkdir grep sed awk cut cat wc; do ln -s "$(command -v $t)" "$tmp/bin/$t"; done
env -u NVCC PATH="$tmp/bin" CUDA_HOME="$tmp/none" "$src/scripts/course-timing.sh" --compile-only "$tmp/none_out" \
  >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
[ $rc = 2 ] || fail "without nvcc: exit $rc, not 2"
[ "$(wc -l <"$tmp/none.err")" = 1 ] || fail "without nvcc: not one line: $(cat "$tmp/none.err")"
grep -q "course-timing.sh: no nvcc" "$tmp/none.err" || fail "without nvcc: $(cat "$tmp/none.err")"
[ ! -e "$tmp/none_out" ] || fail "without nvcc: it wrote $tmp/none_out"

cat >"$tmp/cuda_shim.h" <<'SHIM'
#include <cstddef>
#define __global__
#define __restrict__ __restrict
struct uint3 { unsigned x, y, z; };
static uint3 threadIdx, blockIdx, blockDim, gridDim;
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
enum cudaError_t { cudaSuccess = 0 };
typedef struct CUevent_st *cudaEvent_t;
template <class T> cudaError_t cudaMalloc(T **, size_t);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventRecord(cudaEvent_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaGetLastError();
const char *cudaGetErrorString(cudaError_t);
// the reduce and histogram programs: shared memory, atomics, a device attribute, a copy
#define __shared__
void __syncthreads();
unsigned atomicAdd(unsigned *, unsigned);
float atomicAdd(float *, float);
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1 };
cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int);
cudaError_t cudaMemsetAsync(void *, int, size_t);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
SHIM
cat >"$tmp/nvcc" <<FAKE
#!/usr/bin/env bash
# as nvcc [flags] -o OUT IN.cu
out= in=
while [ \$# -gt 0 ]; do case \$1 in -o) out=\$2; shift 2 ;; -*) shift ;; *) in=\$1; shift ;; esac; done
sed -E 's/<<<[^>]*>>>//' "\$in" >"\$in.cpp" || exit 1
"$cxx" -std=c++14 -fsyntax-only -include "$tmp/cuda_shim.h" -x c++ "\$in.cpp" || exit 1
: >"\$out"
FAKE
chmod +x "$tmp/nvcc"
# the stand-in refuses what nvcc refuses: a launch of a kernel the file does not define
printf '#include "%s/examples/course/lap2d.cu"\nint main() { dim3 g, b; GPU_laplace3d<<<g, b>>>(1, 2); }\n' "$src" \
  >"$tmp/undefined.cu"
if "$tmp/nvcc" -o "$tmp/undefined" "$tmp/undefined.cu" >/dev/null 2>&1; then fail "the stand-in nvcc took an undefined kernel"; fi

NVCC="$tmp/nvcc" "$src/scripts/course-timing.sh" --compile-only "$tmp/out" >"$tmp/run.out" 2>&1 ||
  fail "compile-only: $(cat "$tmp/run.out"; cat "$tmp"/out/*.nvcc.log 2>/dev/null)"
[ "$(grep -c '^compiled ' "$tmp/run.out")" = 8 ] || fail "not eight compiled: $(cat "$tmp/run.out")"
expect() { grep -qF -- "$2" "$tmp/out/$1.host.cu" || fail "$1.host.cu has no '$2':
$(cat "$tmp/out/$1.host.cu")"; }
expect laplace3d_kmarch 'GPU_laplace3d<<<grid, block>>>((long long)N, (long long)N, (long long)NZ, a, b);'
expect laplace3d_kmarch 'dim3 grid((N + BX - 1) / BX, (N + BY - 1) / BY, 1), block(BX, BY, 1);'
expect laplace3d_kmarch 'const long long BX = (BLOCK_X), BY = (BLOCK_Y), BZ = (1);'
expect laplace3d_block3d 'dim3 grid((N + BX - 1) / BX, (N + BY - 1) / BY, (NZ + BZ - 1) / BZ), block(BX, BY, BZ);'
expect laplace3d_block3d 'const long long BX = (BLOCK_X), BY = (BLOCK_Y), BZ = (BLOCK_Z);'
expect laplace3d_block3d 'const long long N = 512, NZ = 512,'
for f in lap2d lap2d_multiple; do
  expect $f 'lap<<<grid, block>>>((int)N, (int)N, a, b);'
  expect $f 'const long long BX = (32), BY = (8), BZ = (1);' # the bench's block: the file gives none
  expect $f 'const long long N = 8192, NZ = 1,'
done
! grep -l 'lap<<<' "$tmp/out"/laplace3d_*.host.cu >/dev/null || fail "a Practical 3 program launches lap"
# lecture 4's sum: one partial a block, its shared memory a float a thread, then the partials added
expect reduce_sum 'const long long GRID = (N + BX - 1) / BX;'
expect reduce_sum 'const size_t SHARED = (4) * BX;'
expect reduce_sum 'const long long BX = (256);'
expect reduce_sum 'sum<<<GRID, BX, SHARED>>>(partials, x);'
expect reduce_sum 'ks_rd_add_partials<<<ADD, KS_RD_ADD_THREADS>>>(partials, GRID, out);'
expect reduce_sum 'kernels/reduce/reduce_add_partials.cuh'
expect reduce_sum 'const long long N = 268435456;'
expect reduce_sum 'cudaMemsetAsync(out, 0, sizeof(float));'
# the slides' histograms: the size a long, cover at the bench's block, or two blocks of 256 a multiprocessor
expect histo_global 'histoNoSharedMem<<<GRID, BX, SHARED>>>(data, (long long)N, bins);'
expect histo_global 'const long long GRID = (N + BX - 1) / BX;'
expect histo_global 'const long long BX = (256);'
for f in histo_stride histo_shared; do
  expect $f 'const long long GRID = (2) * (long long)sms;'
  expect $f 'const size_t SHARED = 0;'
  expect $f 'cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int));'
done
expect histo_stride 'histoNoSharedStride<<<GRID, BX, SHARED>>>(data, (long long)N, bins);'
expect histo_shared 'histo_kernel<<<GRID, BX, SHARED>>>(data, (long long)N, bins);'
! grep -l 'add_partials' "$tmp/out"/histo_*.host.cu >/dev/null || fail "a histogram program adds partials"
echo "course-timing.sh: ok"
